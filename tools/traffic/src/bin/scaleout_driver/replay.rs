//! Single-use request state across instances: the provisioner's `provision` asks for a
//! region (round 1, through B), is answered (round 2, through A), and then the very same
//! round 2 (same `inputResponses`, same `requestState`) is sent to B, which must refuse it
//! with the fixed `-32602` `Invalid or expired requestState`.

use mcp::client::{CallOptions, ClientError};
use mcp::protocol::{ErrorCode, InputRequest, InputResponse, InputResponses, Outcome};
use serde_json::json;

use crate::{CALL_TIMEOUT, REGION, Report, bounded, connect, describe, fill, text_of};

/// The one message an instance gives for a `requestState` it will not open.
const INVALID_STATE: &str = "Invalid or expired requestState";

#[derive(Debug, clap::Args)]
pub(crate) struct Replay {
    /// The instance that serves the answered round.
    #[arg(long)]
    a: String,
    /// The instance that serves the first round and gets the replay.
    #[arg(long)]
    b: String,
    /// The database's name.
    #[arg(long, default_value = "replayed")]
    name: String,
}

pub(crate) async fn run(args: Replay) -> Report {
    let mut report = Report::new("replay");
    if let Err(why) = replay(&args, &mut report).await {
        report.fail(why);
    }
    report
}

async fn replay(args: &Replay, report: &mut Report) -> Result<(), String> {
    let a = connect(&args.a, false).await?;
    let b = connect(&args.b, false).await?;
    let arguments = json!({ "name": args.name });
    let first = bounded(b.call_tool_once("provision", arguments.clone(), CallOptions::default()), "round 1").await?;
    let Outcome::InputRequired(asked) = first else {
        return Err("round 1 did not ask for the region".into());
    };
    let mut responses = InputResponses::new();
    for (key, question) in asked.input_requests.unwrap_or_default() {
        let InputRequest::Elicit(params) = question else {
            return Err(format!("round 1: {key} is not an elicitation"));
        };
        responses.insert(key, InputResponse::Elicit(fill(&params)?));
    }
    let options =
        CallOptions { input_responses: Some(responses), request_state: asked.request_state, ..Default::default() };
    let second = bounded(a.call_tool_once("provision", arguments.clone(), options.clone()), "round 2").await?;
    let Outcome::Complete(result) = second else {
        return Err("round 2 did not complete".into());
    };
    let want = format!("Provisioned '{}' in {REGION}.", args.name);
    if text_of(&result) != want {
        return Err(format!("round 2: {:?}, want {want:?}", text_of(&result)));
    }
    let replayed = tokio::time::timeout(CALL_TIMEOUT, b.call_tool_once("provision", arguments, options)).await;
    match replayed {
        Err(_) => Err(format!("the replay got no answer within {CALL_TIMEOUT:?}")),
        Ok(Err(ClientError::Rpc(e))) => {
            report.set("replay_error", json!({ "code": e.code, "message": e.message }));
            if e.code == ErrorCode::INVALID_PARAMS && e.message == INVALID_STATE {
                Ok(())
            } else {
                Err(format!("the replay got {} ({}), want {INVALID_STATE:?} (-32602)", e.message, e.code))
            }
        }
        Ok(Err(e)) => Err(format!("the replay failed otherwise: {}", describe(&e))),
        Ok(Ok(Outcome::Complete(result))) => {
            Err(format!("the replay was accepted: the call ran again ({:?})", text_of(&result)))
        }
        Ok(Ok(_)) => Err("the replay was accepted: it asked again".into()),
    }
}
