//! The capability gate: a question the client cannot answer refuses the call (-32021)

use super::*;
use mcp::protocol::{CreateMessageParams, Tool};

#[mcp::resolver]
fn ask_note() -> Elicit<Step> {
    Elicit::new("Any notes?")
}

#[mcp::resolver]
fn ask_model() -> Sample {
    Sample::user("Say hi.", 5)
}

#[mcp::resolver]
fn ask_model_with_tools() -> Sample {
    let mut params = CreateMessageParams::user_text("Use a tool.", 5);
    params.tools = Some(vec![Tool::new("lookup", "Look something up.", json!({"type": "object"}))]);
    Sample::new(params)
}

#[mcp::resolver]
fn ask_roots() -> ListRoots {
    ListRoots::new()
}

/// Elicits.
#[mcp::tool]
fn needs_elicitation(note: Resolve<ask_note>) -> String {
    note.value.clone()
}

/// Samples.
#[mcp::tool]
fn needs_sampling(reply: Resolve<ask_model>) -> String {
    sampled_text(&reply)
}

/// Samples with tools.
#[mcp::tool]
fn needs_sampling_tools(reply: Resolve<ask_model_with_tools>) -> String {
    let blocks: Vec<String> = reply
        .content
        .as_slice()
        .iter()
        .map(|block| match block {
            SamplingContent::Text(t) => format!("text {}", t.text),
            SamplingContent::ToolUse(u) => format!("tool_use {}", u.name),
            _ => "other".to_owned(),
        })
        .collect();
    format!("{} (stop: {})", blocks.join(", "), reply.stop_reason.as_deref().unwrap_or("none"))
}

/// Lists roots.
#[mcp::tool]
fn needs_roots(roots: Resolve<ask_roots>) -> String {
    roots.roots.len().to_string()
}

fn server() -> Server {
    Server::builder("capabilities", "1.0.0")
        .tool::<needs_elicitation>()
        .tool::<needs_sampling>()
        .tool::<needs_sampling_tools>()
        .tool::<needs_roots>()
        .build()
}

/// (tool, its resolver's key, what it requires)
fn cases() -> [(&'static str, &'static str, Value); 4] {
    [
        ("needs_elicitation", "resolvers::capabilities::ask_note", json!({"elicitation": {"form": {}}})),
        ("needs_sampling", "resolvers::capabilities::ask_model", json!({"sampling": {}})),
        ("needs_sampling_tools", "resolvers::capabilities::ask_model_with_tools", json!({"sampling": {"tools": {}}})),
        ("needs_roots", "resolvers::capabilities::ask_roots", json!({"roots": {}})),
    ]
}

#[track_caller]
fn assert_refused(error: &Error, key: &str, required: &Value) {
    assert_eq!(error.code, -32021, "{error:?}");
    assert_eq!(error.data, Some(json!({"requiredCapabilities": required})), "{error:?}");
    assert!(error.message.contains(&format!("resolver '{key}'")), "{}", error.message);
}

#[tokio::test]
async fn a_modern_request_lacking_the_capability_is_refused_with_minus_32021() {
    let client = in_process(&server());
    for (tool, key, required) in cases() {
        let error = Leg::new(tool, json!({})).capabilities(json!({})).error(&client).await;
        assert_refused(&error, key, &required);
    }
    // Near misses: URL-only elicitation, sampling without tools for a tools question.
    let error =
        Leg::new("needs_elicitation", json!({})).capabilities(json!({"elicitation": {"url": {}}})).error(&client).await;
    assert_refused(&error, "resolvers::capabilities::ask_note", &json!({"elicitation": {"form": {}}}));
    let error = Leg::new("needs_sampling_tools", json!({})).capabilities(json!({"sampling": {}})).error(&client).await;
    assert_refused(&error, "resolvers::capabilities::ask_model_with_tools", &json!({"sampling": {"tools": {}}}));

    // With the capability, the same calls ask.
    for (tool, caps) in [
        ("needs_elicitation", json!({"elicitation": {"form": {}}})),
        ("needs_sampling", json!({"sampling": {}})),
        ("needs_sampling_tools", json!({"sampling": {"tools": {}}})),
        ("needs_roots", json!({"roots": {}})),
    ] {
        let result = Leg::new(tool, json!({})).capabilities(caps).result(&client).await;
        assert_eq!(questions(&result).len(), 1, "{tool}: {result}");
    }
}

#[tokio::test]
async fn sampling_with_tools_round_trips_with_the_declared_sub_capability() {
    let client = in_process(&server());
    let first = Leg::new("needs_sampling_tools", json!({}))
        .capabilities(json!({"sampling": {"tools": {}}}))
        .result(&client)
        .await;
    let request = &first["inputRequests"]["resolvers::capabilities::ask_model_with_tools"];
    assert_eq!(request["params"]["tools"][0]["name"], "lookup", "{first}");

    let tool_use = json!({"role": "assistant", "model": "test-model", "stopReason": "toolUse",
        "content": [{"type": "tool_use", "id": "call-1", "name": "lookup", "input": {"q": "x"}}]});
    for (answer, expected) in
        [(sampled("no tool needed"), "text no tool needed (stop: none)"), (tool_use, "tool_use lookup (stop: toolUse)")]
    {
        let run = Driver::new(Script::new().on("sample: Use a tool.", answer))
            .capabilities(json!({"sampling": {"tools": {}}}))
            .run(&client, "needs_sampling_tools", json!({}))
            .await;
        assert_eq!(run.text(), expected);
    }
}

#[tokio::test]
async fn a_legacy_session_lacking_the_capability_is_refused_with_minus_32021() {
    let server = server();
    let client = legacy_client(&server, json!({})).await;
    for (tool, key, required) in cases() {
        let (outcome, asked) = legacy_call(&client, tool, json!({}), &Script::new()).await;
        let error = outcome.expect_err("refused");
        assert_refused(&error, key, &required);
        assert!(asked.is_empty(), "nothing was sent to the client: {asked:?}");
    }
    let client = legacy_client(&server, json!({"sampling": {}})).await;
    let (outcome, _) = legacy_call(&client, "needs_sampling_tools", json!({}), &Script::new()).await;
    assert_refused(
        &outcome.expect_err("refused"),
        "resolvers::capabilities::ask_model_with_tools",
        &json!({"sampling": {"tools": {}}}),
    );
}
