//! `otel_call`: one traced multi-round tool call, for `scripts/otel-e2e.sh`.
//!
//! ```text
//! otel_call --url http://127.0.0.1:PORT/mcp --tool provision_cluster --args '{"name":"otel-demo"}'
//! ```
//!
//! It sets up OpenTelemetry from the `OTEL_*` variables (as the example servers do), makes
//! the call inside a root span `otel_call`, answering the provisioner's forms (`region`:
//! eu-west-1, `size_gb`: 10, `ok`: yes), flushes its spans and metrics, and prints one
//! JSON line: `{"ok", "questions", "text", "trace_id"}` (`"why"` when it failed), where
//! `questions` counts the forms it answered. It exits 1
//! when the call failed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use clap::Parser;
use mcp::client::Client;
use mcp::protocol::{ContentBlock, ElicitRequestParams, ElicitResult, Error, ErrorCode, JsonObject};
use serde_json::{Value, json};
use tracing::Instrument;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// One traced tool call.
#[derive(Debug, Parser)]
#[command(name = "otel_call", version)]
struct Args {
    /// The server, `http://HOST:PORT/mcp`.
    #[arg(long)]
    url: String,
    /// The tool to call.
    #[arg(long, default_value = "provision_cluster")]
    tool: String,
    /// Its arguments, a JSON object.
    #[arg(long, default_value = "{}")]
    args: String,
}

/// Fill in the provisioner's forms.
fn fill(params: &ElicitRequestParams) -> Result<ElicitResult, String> {
    let ElicitRequestParams::Form(form) = params else {
        return Err("unexpected URL elicitation".into());
    };
    let mut content = JsonObject::new();
    for field in form.requested_schema.properties.keys() {
        let value = match field.as_str() {
            "region" => json!("eu-west-1"),
            "size_gb" => json!(10),
            "ok" => json!(true),
            other => return Err(format!("unexpected form field {other:?}")),
        };
        content.insert(field.clone(), value);
    }
    Ok(ElicitResult::accept(content))
}

async fn call(args: &Args, asked: Arc<AtomicU32>) -> Result<String, String> {
    let arguments: Value = serde_json::from_str(&args.args).map_err(|e| format!("--args: {e}"))?;
    let client = Client::builder()
        .client_info("otel_call", env!("CARGO_PKG_VERSION"))
        .timeout(Duration::from_secs(10))
        .elicitation(move |_asker, params: ElicitRequestParams| {
            asked.fetch_add(1, Ordering::Relaxed);
            async move { fill(&params).map_err(|e| Error { code: ErrorCode::INVALID_PARAMS, message: e, data: None }) }
        })
        .connect_http(&args.url)
        .await
        .map_err(|e| format!("connecting: {e}"))?;
    let result = client.call_tool(&args.tool, arguments).await.map_err(|e| format!("tools/call: {e}"))?;
    let text: String = result
        .content
        .iter()
        .filter_map(|c| if let ContentBlock::Text(t) = c { Some(t.text.as_str()) } else { None })
        .collect();
    if result.is_error == Some(true) {
        return Err(format!("tool error: {text}"));
    }
    Ok(text)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let telemetry = match mcp::telemetry::Telemetry::from_env("otel_call") {
        Ok(telemetry) => telemetry,
        Err(e) => {
            eprintln!("otel_call: OpenTelemetry: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()));
    let spans = tracing_subscriber::filter::Targets::new()
        .with_target(mcp::telemetry::TARGET, tracing::Level::INFO)
        .with_target("otel_call", tracing::Level::INFO);
    let _ = tracing_subscriber::registry().with(logs).with(telemetry.layer().map(|l| l.with_filter(spans))).try_init();

    let root = tracing::info_span!(target: "otel_call", "otel_call", otel.kind = "internal");
    let trace_id = mcp::telemetry::trace_id(&root);
    let asked = Arc::new(AtomicU32::new(0));
    let outcome = call(&args, Arc::clone(&asked)).instrument(root.clone()).await;
    drop(root);
    let flushed = tokio::task::spawn_blocking(move || telemetry.shutdown()).await;
    let mut line = json!({ "ok": outcome.is_ok(), "questions": asked.load(Ordering::Relaxed), "trace_id": trace_id });
    match &outcome {
        Ok(text) => line["text"] = json!(text),
        Err(why) => line["why"] = json!(why),
    }
    match flushed {
        Ok(Ok(())) => {}
        Ok(Err(e)) => line["flush_error"] = json!(e.to_string()),
        Err(e) => line["flush_error"] = json!(e.to_string()),
    }
    println!("{line}");
    if outcome.is_ok() { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::FAILURE }
}
