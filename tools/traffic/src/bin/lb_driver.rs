//! `lb_driver`: multi-round `provision_cluster` calls through a load balancer in front of
//! several `provisioner http` instances (the client side of `scripts/lb.sh`).
//!
//! Each call is one 2026-07-28 `tools/call` driven round by round with our client
//! ([`Client::call_tool_once`]): round 1 must ask two questions (region and size; the driver
//! answers `eu-west-1` and 500 GB), round 2 one (the confirmation 500 GB needs; answered
//! yes), and round 3 must end with exactly `Provisioned cluster 'NAME' (500 GB) in
//! eu-west-1.`. Calls run one at a time, so a round-robin balancer sends consecutive rounds
//! to different instances. Every call has its own cluster name (`PREFIX-0001`, `PREFIX-0002`,
//! ...), which the instances log for each round they serve.
//!
//! ```text
//! lb_driver --url http://127.0.0.1:PORT/mcp [--calls N] [--prefix P] [--pause-ms MS]
//! ```
//!
//! Defaults: 1000 calls, prefix `lb`, no pause between calls. Output: one JSON line
//! `{"calls","ok","failures","rounds","lost_rounds","seconds"}`, where `rounds` counts the
//! rounds answered without error and `lost_rounds` the rounds refused as an invalid
//! `requestState` (-32602). The first failures are described on stderr; the exit code is 1
//! when any call failed.

use std::time::{Duration, Instant};

use clap::Parser;

use mcp::client::{CallOptions, Client, ClientError, Mode};
use mcp::protocol::{
    ContentBlock, ElicitRequestParams, ElicitResult, Error, ErrorCode, InputRequest, InputResponse, InputResponses,
    JsonObject, LATEST_PROTOCOL_VERSION, Outcome,
};
use serde_json::{Value, json};

/// The answers: a region, a size that needs a confirmation, and the confirmation.
const REGION: &str = "eu-west-1";
const SIZE_GB: u64 = 500;

/// How many questions each round before the last must ask.
const QUESTIONS_PER_ROUND: [usize; 2] = [2, 1];

/// A round that takes longer than this fails the call.
const ROUND_TIMEOUT: Duration = Duration::from_secs(15);

/// How many failures are described on stderr.
const REPORTED_FAILURES: u64 = 10;

/// Multi-round `provision_cluster` calls through a load balancer (see the crate docs).
#[derive(Debug, Parser)]
#[command(name = "lb_driver", version)]
struct Args {
    /// The balancer's endpoint, `http://HOST:PORT/PATH`.
    #[arg(long)]
    url: String,
    /// How many calls, one at a time.
    #[arg(long, default_value_t = 1000)]
    calls: u64,
    /// The cluster names' prefix (`PREFIX-0001`, ...).
    #[arg(long, default_value = "lb")]
    prefix: String,
    /// A pause between calls, in milliseconds.
    #[arg(long = "pause-ms", default_value_t = 0)]
    pause_ms: u64,
}

/// Fill in a form by its field names, or refuse a question the driver does not expect.
fn fill(params: &ElicitRequestParams) -> Result<ElicitResult, String> {
    let ElicitRequestParams::Form(form) = params else {
        return Err(format!("unexpected URL elicitation: {}", params.message()));
    };
    let mut content = JsonObject::new();
    for field in form.requested_schema.properties.keys() {
        let value = match field.as_str() {
            "region" => json!(REGION),
            "size_gb" => json!(SIZE_GB),
            "ok" => json!(true),
            other => return Err(format!("unexpected form field {other:?} in {:?}", form.message)),
        };
        content.insert(field.clone(), value);
    }
    Ok(ElicitResult::accept(content))
}

/// How a call went wrong.
enum Failure {
    /// The server refused the echoed `requestState`: the round is lost.
    LostRound(String),
    /// Anything else.
    Other(String),
}

/// One call, round by round; the number of rounds answered, or why it failed.
async fn call(client: &Client, name: &str, rounds: &mut u64) -> Result<(), Failure> {
    let arguments = json!({ "name": name });
    let mut options = CallOptions::default();
    for round in 1..=QUESTIONS_PER_ROUND.len() + 1 {
        let sent = client.call_tool_once("provision_cluster", arguments.clone(), options.clone());
        let answered = match tokio::time::timeout(ROUND_TIMEOUT, sent).await {
            Ok(Ok(answered)) => answered,
            Ok(Err(ClientError::Rpc(e))) if is_invalid_state(&e) => {
                return Err(Failure::LostRound(format!("round {round}: {} ({})", e.message, e.code)));
            }
            Ok(Err(e)) => return Err(Failure::Other(format!("round {round}: {e}"))),
            Err(_) => return Err(Failure::Other(format!("round {round}: no answer in {ROUND_TIMEOUT:?}"))),
        };
        *rounds += 1;
        let expected = QUESTIONS_PER_ROUND.get(round - 1).copied();
        match (answered, expected) {
            (Outcome::InputRequired(asked), Some(count)) => {
                let questions = asked.input_requests.unwrap_or_default();
                if questions.len() != count {
                    return Err(Failure::Other(format!("round {round}: {} questions, not {count}", questions.len())));
                }
                let mut responses = InputResponses::new();
                for (key, question) in questions {
                    let InputRequest::Elicit(params) = question else {
                        return Err(Failure::Other(format!("round {round}: {key} is not an elicitation")));
                    };
                    let answer = fill(&params).map_err(|e| Failure::Other(format!("round {round}: {e}")))?;
                    responses.insert(key, InputResponse::Elicit(answer));
                }
                options.input_responses = Some(responses);
                options.request_state = asked.request_state;
            }
            (Outcome::Complete(result), None) => {
                let text: String = result
                    .content
                    .iter()
                    .filter_map(|c| if let ContentBlock::Text(t) = c { Some(t.text.as_str()) } else { None })
                    .collect();
                let want = format!("Provisioned cluster '{name}' ({SIZE_GB} GB) in {REGION}.");
                if result.is_error == Some(true) || text != want {
                    return Err(Failure::Other(format!("round {round}: got {text:?}, want {want:?}")));
                }
                return Ok(());
            }
            (Outcome::InputRequired(_), None) => {
                return Err(Failure::Other(format!("round {round}: still asking after {} rounds", round - 1)));
            }
            (Outcome::Complete(_), Some(_)) => {
                return Err(Failure::Other(format!("round {round}: complete before the questions")));
            }
            (Outcome::Task(task), _) => {
                return Err(Failure::Other(format!("round {round}: a task ({}), not a result", task.task.status)));
            }
        }
    }
    Err(Failure::Other("unreachable: the rounds ran out".into()))
}

/// The one error an instance gives for a `requestState` it cannot open.
fn is_invalid_state(e: &Error) -> bool {
    e.code == ErrorCode::INVALID_PARAMS
        && e.data.as_ref().and_then(|d| d.get("reason")).and_then(Value::as_str) == Some("invalid_request_state")
}

#[derive(serde::Serialize)]
struct Summary {
    calls: u64,
    ok: u64,
    failures: u64,
    rounds: u64,
    lost_rounds: u64,
    seconds: f64,
}

async fn run(args: Args) -> Result<Summary, ClientError> {
    // No era probe; connecting makes one `server/discover` request, then every request is a round.
    let client = Client::builder()
        .client_info("lb_driver", env!("CARGO_PKG_VERSION"))
        .mode(Mode::Modern(LATEST_PROTOCOL_VERSION.to_owned()))
        .elicitation(|_asker, params: ElicitRequestParams| async move {
            fill(&params).map_err(|e| Error { code: ErrorCode::INVALID_PARAMS, message: e, data: None })
        })
        .connect_http(&args.url)
        .await?;
    let started = Instant::now();
    let mut summary = Summary { calls: 0, ok: 0, failures: 0, rounds: 0, lost_rounds: 0, seconds: 0.0 };
    for i in 1..=args.calls {
        let name = format!("{}-{i:04}", args.prefix);
        summary.calls += 1;
        let (failed, why) = match call(&client, &name, &mut summary.rounds).await {
            Ok(()) => (false, String::new()),
            Err(Failure::LostRound(why)) => {
                summary.lost_rounds += 1;
                (true, why)
            }
            Err(Failure::Other(why)) => (true, why),
        };
        if failed {
            summary.failures += 1;
            if summary.failures <= REPORTED_FAILURES {
                tracing::warn!("{name} failed: {why}");
            }
        } else {
            summary.ok += 1;
        }
        if args.pause_ms > 0 {
            tokio::time::sleep(Duration::from_millis(args.pause_ms)).await;
        }
    }
    summary.seconds = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
    Ok(summary)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,lb_driver=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
    let args = Args::parse();
    match run(args).await {
        Ok(summary) => {
            match serde_json::to_string(&summary) {
                Ok(line) => println!("{line}"),
                Err(e) => tracing::error!("cannot print the summary: {e}"),
            }
            if summary.failures == 0 { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::FAILURE }
        }
        Err(e) => {
            tracing::error!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}
