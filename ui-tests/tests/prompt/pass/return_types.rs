// Every kind of return value a prompt may have.
use mcp::Context;
use mcp::items::PromptDef;
use mcp::protocol::{GetPromptOutcome, GetPromptResult, InputRequiredResult, PromptMessage};

/// Plain text, sent as one user message.
#[mcp::prompt]
fn text(topic: String) -> String {
    format!("Tell me about {topic}")
}

/// Static text.
#[mcp::prompt]
fn fixed() -> &'static str {
    "Say hello"
}

/// One message.
#[mcp::prompt]
fn message() -> PromptMessage {
    PromptMessage::assistant("Hello")
}

/// A conversation.
#[mcp::prompt]
async fn conversation(topic: String) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("Explain {topic}")), PromptMessage::assistant("Sure.")]
}

/// A full result.
#[mcp::prompt]
fn full() -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::user("hi")])
}

/// Fails with a JSON-RPC error that keeps its code.
#[mcp::prompt]
fn strict(level: u8) -> Result<String, mcp::Error> {
    if level > 5 { Err(mcp::Error::invalid_params("level is 1 to 5")) } else { Ok(format!("Be strict: {level}")) }
}

/// Fails with any printable error.
#[mcp::prompt]
fn lenient(level: u8) -> Result<Vec<PromptMessage>, String> {
    if level > 5 { Err("too strict".to_owned()) } else { Ok(vec![PromptMessage::user("ok")]) }
}

/// Asks the client first, reading the answer from the `Context`.
#[mcp::prompt]
async fn interview(ctx: Context) -> InputRequiredResult {
    InputRequiredResult::state_only(ctx.request_state().unwrap_or("start").to_owned())
}

/// Asks or answers.
#[mcp::prompt]
fn ask_or_answer(ctx: Context, topic: Option<String>) -> GetPromptOutcome {
    match (ctx.request_state(), topic) {
        (Some(_), Some(topic)) => GetPromptResult::new(vec![PromptMessage::user(topic)]).into(),
        _ => InputRequiredResult::state_only("topic?").into(),
    }
}

fn main() {
    let _ = (
        <text as PromptDef>::definition(),
        <fixed as PromptDef>::definition(),
        <message as PromptDef>::definition(),
        <conversation as PromptDef>::definition(),
        <full as PromptDef>::definition(),
        <strict as PromptDef>::definition(),
        <lenient as PromptDef>::definition(),
        <interview as PromptDef>::definition(),
        <ask_or_answer as PromptDef>::definition(),
    );
    assert!(<interview as PromptDef>::definition().arguments.is_none(), "`Context` is not an argument");
    assert_eq!(text("Rust".into()), "Tell me about Rust");
}
