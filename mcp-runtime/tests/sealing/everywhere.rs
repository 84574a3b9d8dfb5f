//! Sealing everywhere: low-level servers seal by default, turning sealing off next to
//! resolvers does not build, and turning it off elsewhere warns.

use super::*;
use crate::support::logs::capture_logs;
use mcp::Resolve;
use mcp::resolve::Elicit;

#[derive(serde::Deserialize, mcp::ElicitForm)]
pub(super) struct Go {
    ok: bool,
}

#[mcp::resolver]
pub(super) fn ask_go() -> Elicit<Go> {
    Elicit::new("Launch?")
}

/// A tool with a resolver: its recorded answers travel in `requestState`.
#[mcp::tool]
pub(super) fn launch(go: Resolve<ask_go>) -> String {
    format!("launched: {}", go.ok)
}

/// A low-level tool that hands out `plain-state-x` and finishes on the retry.
fn low_level(builder: mcp::server::ServerBuilder) -> mcp::server::ServerBuilder {
    builder.on_call_tool(|_ctx, params| async move {
        Ok(match params.request_state {
            None => CallToolOutcome::from(question().with_state("plain-state-x")),
            Some(state) => CallToolResult::text(format!("done: {state}")).into(),
        })
    })
}

async fn call(client: &mcp::client::RawClient, state: Option<&str>) -> Result<Value, mcp::Error> {
    let mut params = json!({"name": "x", "arguments": {}, "_meta": support::meta(&json!({"elicitation": {}}))});
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    client.request("tools/call", params).await
}

#[tokio::test]
async fn a_low_level_server_seals_request_state_by_default() {
    let server = low_level(Server::builder("lowlevel-default", "1.0.0")).build();
    let client = mcp::client::in_process(&server);
    let first = call(&client, None).await.expect("first round");
    let token = first["requestState"].as_str().unwrap_or_default();
    assert!(token.starts_with("v1.") && !token.contains("plain-state"), "the state is sealed: {first}");
    // Plaintext from the client never reaches the handler.
    let forged = call(&client, Some("plain-state-x")).await.expect_err("a forged state is refused");
    assert_eq!(error_json(forged), fixed_error());
    let done = call(&client, Some(token)).await.expect("the genuine token completes");
    assert_eq!(done["content"][0]["text"], "done: plain-state-x");
}

#[test]
fn turning_sealing_off_next_to_resolvers_is_a_build_error() {
    let error = Server::builder("resolvers", "1.0.0")
        .tool::<launch>()
        .without_request_state_security()
        .try_build()
        .expect_err("resolvers need sealed state");
    assert_eq!(error.problems(), [mcp::server::BuildProblem::UnsealedResolvers { tool: "launch".into() }]);
    let message = error.to_string();
    assert!(message.contains("`launch`") && message.contains("resolvers"), "{message}");
    assert!(message.contains("without_request_state_security()"), "the message says how to fix it: {message}");
    // The same server with sealing on (the default, or a policy) builds.
    assert!(Server::builder("resolvers", "1.0.0").tool::<launch>().try_build().is_ok());
    let security = RequestStateSecurity::builder().keys([K]).build().expect("policy");
    assert!(
        Server::builder("resolvers", "1.0.0").tool::<launch>().request_state_security(security).try_build().is_ok()
    );
}

#[test]
fn turning_sealing_off_without_resolvers_builds_and_warns() {
    let (logs, _guard) = capture_logs();
    // Another test may have hit the callsite first, on a thread without a subscriber.
    let _ = low_level(Server::builder("plain", "1.0.0")).without_request_state_security().build();
    tracing::callsite::rebuild_interest_cache();

    let from = logs.len();
    let server = low_level(Server::builder("plain", "1.0.0")).without_request_state_security().try_build();
    assert!(server.is_ok(), "no resolvers, so sealing may be off");
    let line = logs.assert_warned(from, "sealing turned off");
    assert!(line.contains("requestState"), "{line}");
    assert_eq!(logs.since(from).matches("WARN").count(), 1, "once per build: {}", logs.since(from));
}

/// A low-level tool asking by hand: `ask` asks "a" (recorded), `nothing` asks nothing
/// (recorded), `unrecorded` asks "a" without recording it. On a retry it reports the
/// answers that count and its own state.
fn hand_built() -> Server {
    Server::builder("hand-built", "1.0.0")
        .on_call_tool(|ctx, params| async move {
            let ctx = mcp::Context::new(ctx, params.input_responses.clone(), params.request_state.clone());
            if let Some(state) = ctx.request_state() {
                let keys: Vec<&str> = ctx.answers().iter().map(|(key, _)| key).collect();
                return Ok(CallToolResult::text(format!("{state}: {}", keys.join(","))).into());
            }
            let round = match params.name.as_str() {
                "ask" => ctx.record_questions(question_under("a").with_state("mine")),
                "nothing" => ctx.record_questions(InputRequiredResult::state_only("mine")),
                _ => question_under("a").with_state("mine"),
            };
            Ok(CallToolOutcome::from(round))
        })
        .build()
}

fn question_under(key: &str) -> InputRequiredResult {
    InputRequiredResult::ask(key, InputRequest::Elicit(ElicitRequestParams::form("A?", ElicitationSchema::default())))
}

async fn rounds(client: &mcp::client::RawClient, tool: &str) -> Value {
    let meta = support::meta(&json!({"elicitation": {}}));
    let answers = json!({"a": {"action": "decline"}, "b": {"action": "decline"}});
    let first = json!({"name": tool, "arguments": {}, "inputResponses": answers, "_meta": meta});
    let first = client.request("tools/call", first).await.expect("first round");
    assert_eq!(first["resultType"], "input_required", "an answer on a first call is not used: {first}");
    let retry = json!({"name": tool, "arguments": {}, "inputResponses": answers, "requestState": first["requestState"], "_meta": meta});
    let done = client.request("tools/call", retry).await.expect("retry");
    done["content"][0]["text"].clone()
}

#[tokio::test]
async fn only_answers_to_questions_the_sealed_state_asked_are_used() {
    let client = mcp::client::in_process(&hand_built());
    assert_eq!(rounds(&client, "ask").await, "mine: a", "the answer under b was never asked for");
    assert_eq!(rounds(&client, "nothing").await, "mine: ", "a round that asked nothing takes no answer");
    assert_eq!(rounds(&client, "unrecorded").await, "mine: ", "nothing recorded, nothing counts");
}
