//! 2025-11-25 sessions: the same resolvers ask over the back-channel

use super::*;

static LOGIN_RUNS: AtomicUsize = AtomicUsize::new(0);
static CONFIRM_RUNS: AtomicUsize = AtomicUsize::new(0);

#[mcp::resolver]
fn login() -> Elicit<Step> {
    bump(&LOGIN_RUNS);
    Elicit::new("Who are you?")
}

#[mcp::resolver]
fn confirm_login(user: Resolve<login>) -> Elicit<Confirm> {
    bump(&CONFIRM_RUNS);
    Elicit::new(format!("Continue as {}?", user.value))
}

/// A chain of two questions.
#[mcp::tool]
fn sign_in(user: Resolve<login>, confirm: Resolve<confirm_login>) -> String {
    format!("{} signed in: {}", user.value, confirm.ok)
}

static SHARED_RUNS: AtomicUsize = AtomicUsize::new(0);

#[mcp::resolver]
fn shared_base() -> Elicit<Step> {
    bump(&SHARED_RUNS);
    Elicit::new("Which base?")
}

#[mcp::resolver]
fn left_of(base: Resolve<shared_base>) -> Elicit<Step> {
    Elicit::new(format!("Left of {}?", base.value))
}

#[mcp::resolver]
fn right_of(base: Resolve<shared_base>) -> Elicit<Step> {
    Elicit::new(format!("Right of {}?", base.value))
}

/// A dependency shared by two resolvers and the tool.
#[mcp::tool]
fn span(left: Resolve<left_of>, right: Resolve<right_of>, base: Resolve<shared_base>) -> String {
    format!("{} | {} | {}", left.value, base.value, right.value)
}

fn server() -> Server {
    Server::builder("legacy", "1.0.0")
        .tool::<sign_in>()
        .tool::<span>()
        .tool::<batching::mixed>()
        .tool::<refusals::strict>()
        .tool::<refusals::lenient>()
        .tool::<bad_answers::order>()
        .build()
}

#[tokio::test]
async fn elicitation_sampling_and_roots_are_real_server_to_client_requests() {
    let server = server();
    let client = legacy_client(&server, every_capability()).await;
    let (outcome, asked) = legacy_call(&client, "mixed", json!({"topic": "orders"}), &batching::mixed_script()).await;
    let result = outcome.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        asked,
        requests(&[
            ("elicitation/create", "Which region?"),
            ("sampling/createMessage", "sample: Suggest a name for orders."),
            ("roots/list", "roots/list"),
        ])
    );
    assert!(result.get("resultType").is_none(), "legacy results carry no resultType: {result}");
    assert_eq!(result["content"][0]["text"], batching::MIXED_TEXT);
}

#[tokio::test]
async fn a_chain_asks_in_order_and_each_body_runs_once() {
    let server = server();
    let client = legacy_client(&server, every_capability()).await;
    let script = Script::new()
        .on("Who are you?", accept(json!({"value": "ada"})))
        .on("Continue as ada?", accept(json!({"ok": true})));
    let (outcome, asked) = legacy_call(&client, "sign_in", json!({}), &script).await;
    assert_eq!(outcome.unwrap_or_else(|e| panic!("{e:?}"))["content"][0]["text"], "ada signed in: true");
    assert_eq!(asked, requests(&[("elicitation/create", "Who are you?"), ("elicitation/create", "Continue as ada?")]));
    // No rounds: each resolver waits for its answer, so each body runs once.
    assert_eq!((runs(&LOGIN_RUNS), runs(&CONFIRM_RUNS)), (1, 1));
}

#[tokio::test]
async fn a_shared_dependency_is_asked_once_in_a_session() {
    let server = server();
    let client = legacy_client(&server, every_capability()).await;
    let script = Script::new()
        .on("Which base?", accept(json!({"value": "b"})))
        .on("Left of b?", accept(json!({"value": "l"})))
        .on("Right of b?", accept(json!({"value": "r"})));
    let (outcome, asked) = legacy_call(&client, "span", json!({}), &script).await;
    assert_eq!(outcome.unwrap_or_else(|e| panic!("{e:?}"))["content"][0]["text"], "l | b | r");
    assert_eq!(
        asked,
        requests(&[
            ("elicitation/create", "Which base?"),
            ("elicitation/create", "Left of b?"),
            ("elicitation/create", "Right of b?"),
        ])
    );
    assert_eq!(runs(&SHARED_RUNS), 1);
}

#[tokio::test]
async fn a_refusal_fails_a_value_consumer_and_reaches_an_outcome_consumer() {
    let server = server();
    let client = legacy_client(&server, every_capability()).await;
    for (answer, refused, action) in [(decline(), "declined", "declined"), (cancel(), "cancelled", "cancelled")] {
        let script = refusals::go_script(answer);
        let (outcome, asked) = legacy_call(&client, "strict", json!({}), &script).await;
        assert_eq!(asked, requests(&[("elicitation/create", "Go ahead?")]));
        let result = outcome.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            tool_error_text(&result),
            format!("Resolver for parameter 'go' could not resolve: the elicitation was {refused}")
        );
        let (outcome, _) = legacy_call(&client, "lenient", json!({}), &script).await;
        assert_eq!(outcome.unwrap_or_else(|e| panic!("{e:?}"))["content"][0]["text"], action);
    }
}

#[tokio::test]
async fn bad_answers_fail_the_call_as_they_do_in_rounds() {
    let server = server();
    let client = legacy_client(&server, every_capability()).await;
    for (what, content) in bad_answers::misfits() {
        let script = Script::new().on("How many, and which tier?", accept(content));
        let (outcome, _) = legacy_call(&client, "order", json!({}), &script).await;
        bad_answers::assert_schema_mismatch(&tool_error_text(&outcome.unwrap_or_else(|e| panic!("{e:?}"))), what);
    }
    let script = Script::new().on("How many, and which tier?", json!({"action": "accept"}));
    let (outcome, _) = legacy_call(&client, "order", json!({}), &script).await;
    assert_eq!(
        tool_error_text(&outcome.unwrap_or_else(|e| panic!("{e:?}"))),
        format!("Resolver '{}' received an accepted elicitation with no content", bad_answers::ORDER)
    );
    let script = Script::new().on("How many, and which tier?", accept(json!({"count": 4, "tier": "small"})));
    let (outcome, _) = legacy_call(&client, "order", json!({}), &script).await;
    assert_eq!(outcome.unwrap_or_else(|e| panic!("{e:?}"))["content"][0]["text"], "4 x Small");
}
