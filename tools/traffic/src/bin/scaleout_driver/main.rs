//! `scaleout_driver`: the client side of `scripts/scaleout.sh`, which runs two instances of
//! a server sharing one Redis. Each subcommand checks one thing across the instances,
//! prints one JSON line with what it measured (`"ok"` says whether the check passed,
//! `"why"` why not) and exits 1 when the check failed.
//!
//! ```text
//! scaleout_driver task-across   --create URL_A --poll URL_B [--seconds S]
//! scaleout_driver cancel-across --create URL_A --cancel URL_B --log A.log [--seconds S]
//! scaleout_driver start-task    --url U [--seconds S] [--name N]
//! scaleout_driver task-status   --url U --id ID [--until STATUS --timeout-ms MS --error-contains TEXT]
//! scaleout_driver replay        --a URL_A --b URL_B
//! scaleout_driver listen-across --listen URL_B --change URL_A [--timeout-ms MS]
//! scaleout_driver load          --url U --seconds S [--pause-ms MS]
//! ```
//!
//! The task subcommands call the provisioner's `backup_database` (one step per 500 ms,
//! each logged by the instance running it); `replay` its `provision`; `listen-across`
//! talks to `everything` (its `test_trigger_tool_change`). Every request is bounded
//! ([`CALL_TIMEOUT`]), so a server that hangs fails the check instead of stalling it.

mod listen;
mod load;
mod replay;
mod tasks;

use std::future::Future;
use std::time::Duration;

use clap::{Parser, Subcommand};
use mcp::client::{Client, ClientError, Mode};
use mcp::protocol::{
    CallToolResult, ContentBlock, ElicitRequestParams, ElicitResult, Error, ErrorCode, JsonObject,
    LATEST_PROTOCOL_VERSION,
};
use serde_json::{Value, json};

/// The longest any one request may take.
pub(crate) const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The region the driver answers when asked.
pub(crate) const REGION: &str = "eu-west-1";

/// Checks across two instances sharing a Redis (see the crate docs).
#[derive(Debug, Parser)]
#[command(name = "scaleout_driver", version)]
struct Args {
    #[command(subcommand)]
    check: Check,
}

#[derive(Debug, Subcommand)]
enum Check {
    /// Create a task through one instance and poll it to completion through the other.
    TaskAcross(tasks::Across),
    /// Create a long task through one instance, cancel it through the other, and check
    /// that its work stopped where it ran (from that instance's log).
    CancelAcross(tasks::CancelAcross),
    /// Create a long task and print its id.
    StartTask(tasks::Start),
    /// Print a task's status, or wait (bounded) until it has a given one.
    TaskStatus(tasks::Status),
    /// A multi-round call whose last round is replayed on the other instance.
    Replay(replay::Replay),
    /// A tool-list change on one instance must reach a listen stream on the other.
    ListenAcross(listen::ListenAcross),
    /// Plain calls and task creations in a loop, with what failed and when.
    Load(load::Load),
}

/// A check's outcome: its fields (printed as one JSON line) and whether it passed.
pub(crate) struct Report {
    fields: JsonObject,
}

impl Report {
    pub(crate) fn new(check: &str) -> Report {
        let mut fields = JsonObject::new();
        fields.insert("check".into(), json!(check));
        fields.insert("ok".into(), json!(true));
        Report { fields }
    }

    pub(crate) fn set(&mut self, key: &str, value: impl serde::Serialize) {
        self.fields.insert(key.to_owned(), serde_json::to_value(value).unwrap_or(Value::Null));
    }

    /// The check failed, for `why` (the first reason is kept).
    pub(crate) fn fail(&mut self, why: impl Into<String>) {
        if self.passed() {
            self.fields.insert("ok".into(), json!(false));
            self.fields.insert("why".into(), json!(why.into()));
        }
    }

    pub(crate) fn passed(&self) -> bool {
        self.fields.get("ok") == Some(&json!(true))
    }
}

/// A client of `url` speaking 2026-07-28, declaring the tasks extension when `tasks`, and
/// answering region questions (`provision`).
pub(crate) async fn connect(url: &str, tasks: bool) -> Result<Client, String> {
    let connecting = Client::builder()
        .client_info("scaleout_driver", env!("CARGO_PKG_VERSION"))
        .mode(Mode::Modern(LATEST_PROTOCOL_VERSION.to_owned()))
        .tasks(tasks)
        .timeout(CALL_TIMEOUT)
        .elicitation(|_asker, params: ElicitRequestParams| async move {
            fill(&params).map_err(|e| Error { code: ErrorCode::INVALID_PARAMS, message: e, data: None })
        })
        .connect_http(url);
    bounded(connecting, "connecting").await.map_err(|e| format!("{url}: {e}"))
}

/// `call` within [`CALL_TIMEOUT`], its error (or the timeout) as text.
pub(crate) async fn bounded<T>(call: impl Future<Output = Result<T, ClientError>>, what: &str) -> Result<T, String> {
    match tokio::time::timeout(CALL_TIMEOUT, call).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(format!("{what}: {}", describe(&e))),
        Err(_) => Err(format!("{what}: no answer within {CALL_TIMEOUT:?}")),
    }
}

/// A client error, with the JSON-RPC code when there is one.
pub(crate) fn describe(e: &ClientError) -> String {
    match e {
        ClientError::Rpc(e) => format!("{} ({})", e.message, e.code),
        other => other.to_string(),
    }
}

/// Fill in a region form; refuse anything else.
pub(crate) fn fill(params: &ElicitRequestParams) -> Result<ElicitResult, String> {
    let ElicitRequestParams::Form(form) = params else {
        return Err(format!("unexpected URL elicitation: {}", params.message()));
    };
    let mut content = JsonObject::new();
    for field in form.requested_schema.properties.keys() {
        match field.as_str() {
            "region" => content.insert(field.clone(), json!(REGION)),
            other => return Err(format!("unexpected form field {other:?} in {:?}", form.message)),
        };
    }
    Ok(ElicitResult::accept(content))
}

/// The text blocks of a result, joined.
pub(crate) fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| if let ContentBlock::Text(t) = c { Some(t.text.as_str()) } else { None })
        .collect()
}

/// Milliseconds since the Unix epoch (to line events up with the script's clock).
pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,scaleout_driver=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
    let report = match Args::parse().check {
        Check::TaskAcross(args) => tasks::across(args).await,
        Check::CancelAcross(args) => tasks::cancel_across(args).await,
        Check::StartTask(args) => tasks::start(args).await,
        Check::TaskStatus(args) => tasks::status(args).await,
        Check::Replay(args) => replay::run(args).await,
        Check::ListenAcross(args) => listen::run(args).await,
        Check::Load(args) => load::run(args).await,
    };
    match serde_json::to_string(&report.fields) {
        Ok(line) => println!("{line}"),
        Err(e) => tracing::error!("cannot print the report: {e}"),
    }
    if report.passed() { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::FAILURE }
}
