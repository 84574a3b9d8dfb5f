//! Macro tools and the sealing layer: a `tools/call` to a tool that can never answer
//! `input_required` is not bound to a `requestState` unless it carries one, so its
//! arguments are not hashed; one that carries a state is checked as any other, and a tool
//! that says it never asks but does gets an internal error, not a sealed question.

use std::sync::atomic::AtomicUsize;

use mcp::items::{Json, ToolDef};

use super::*;

static ECHOES: AtomicUsize = AtomicUsize::new(0);

/// Echo the text back.
#[mcp::tool]
fn echo(text: String) -> String {
    ECHOES.fetch_add(1, Ordering::SeqCst);
    text
}

/// Ask through the return value.
#[mcp::tool]
fn confirm() -> CallToolOutcome {
    question().with_state("plain-state-confirm").into()
}

type Answer = CallToolOutcome;

/// Ask through the return value, named by an alias.
#[mcp::tool]
fn confirm_alias() -> Answer {
    question().into()
}

/// Ask through `Result`'s `Ok`.
#[mcp::tool]
fn confirm_result() -> Result<InputRequiredResult, String> {
    Ok(question())
}

/// Ask through `Result`'s `Ok`, with a JSON-RPC error for `Err`.
#[mcp::tool]
fn confirm_or_fail() -> Result<CallToolOutcome, mcp::Error> {
    Ok(question().into())
}

#[mcp::tool]
fn nothing() {}

#[mcp::tool]
async fn later(text: String) -> Result<String, String> {
    Ok(text)
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    total: i64,
}

#[mcp::tool]
fn add(a: i64, b: i64) -> Json<Sum> {
    Json(Sum { total: a + b })
}

#[mcp::tool(task = "optional")]
async fn slow(text: String) -> String {
    text
}

/// What the macro says of each tool, from its parameters and return type (ten shapes).
#[test]
fn the_macro_says_which_tools_may_ask() {
    const {
        assert!(!<echo as ToolDef>::MAY_REQUIRE_INPUT);
        assert!(!<nothing as ToolDef>::MAY_REQUIRE_INPUT);
        assert!(!<later as ToolDef>::MAY_REQUIRE_INPUT);
        assert!(!<add as ToolDef>::MAY_REQUIRE_INPUT);
        assert!(<confirm as ToolDef>::MAY_REQUIRE_INPUT);
        assert!(<confirm_alias as ToolDef>::MAY_REQUIRE_INPUT);
        assert!(<confirm_result as ToolDef>::MAY_REQUIRE_INPUT);
        assert!(<confirm_or_fail as ToolDef>::MAY_REQUIRE_INPUT);
        // A tool with a `Resolve` parameter.
        assert!(<super::everywhere::launch as ToolDef>::MAY_REQUIRE_INPUT);
        assert!(<slow as ToolDef>::MAY_REQUIRE_INPUT);
    }
}

/// A hand-written tool that says it never asks, and asks.
#[allow(non_camel_case_types)]
struct liar;

impl ToolDef for liar {
    const NAME: &'static str = "liar";
    const MAY_REQUIRE_INPUT: bool = false;

    fn definition() -> mcp::protocol::Tool {
        mcp::protocol::Tool::new("liar", "Says it never asks.", json!({"type": "object"}))
    }

    fn call(
        _ctx: mcp::Context,
        _params: mcp::protocol::CallToolParams,
    ) -> mcp::handler::BoxFuture<Result<CallToolOutcome, mcp::Error>> {
        Box::pin(async { Ok(question().with_state("plain-state-of-the-liar").into()) })
    }
}

fn macro_server(clock: &TestClock) -> Harness {
    let server = Server::builder("svc", "1.0.0")
        .tool::<echo>()
        .tool::<confirm>()
        .tool::<liar>()
        .request_state_security(keys_policy(&[K], clock))
        .build();
    let (notifications, receiver) = mpsc::channel(64);
    Harness {
        server,
        seen: Seen::default(),
        session: Arc::new(Session::new()),
        notifications,
        _receiver: receiver,
        next_id: AtomicI64::new(1),
    }
}

#[tokio::test]
async fn a_tool_that_never_asks_is_served_and_still_refuses_a_bad_state() {
    let clock = TestClock::new();
    let h = macro_server(&clock);
    for state in [None, Some(Value::Null)] {
        let result = h.call("echo", json!({"text": "hi"}), state, None).await.expect("echo answers");
        assert_eq!(result["content"][0]["text"], "hi", "{result}");
    }
    // A state where none is expected is checked all the same: the fixed error, and the
    // tool does not run.
    let token = token_of(&h.call("confirm", json!({}), None, None).await);
    let before = ECHOES.load(Ordering::SeqCst);
    for bad in [json!("v1.forged"), json!(token), json!(7)] {
        assert_rejected(h.call("echo", json!({"text": "hi"}), Some(bad), None).await);
    }
    assert_eq!(ECHOES.load(Ordering::SeqCst), before, "echo ran with a refused state");
}

#[tokio::test]
async fn a_tool_that_may_ask_gets_its_state_sealed() {
    let clock = TestClock::new();
    let h = macro_server(&clock);
    let token = token_of(&h.call("confirm", json!({}), None, None).await);
    assert!(!token.contains("plain-state"), "{token}");
    assert_eq!(envelope(&token, &[K]).s, "plain-state-confirm");
}

#[tokio::test]
async fn a_tool_that_says_it_never_asks_and_asks_gets_an_internal_error() {
    let clock = TestClock::new();
    let h = macro_server(&clock);
    let error = h.call("liar", json!({}), None, None).await.expect_err("no sealed question");
    let error = error_json(error);
    assert_eq!(error["code"], -32603, "{error}");
    assert!(!error.to_string().contains("plain-state"), "{error}");
}
