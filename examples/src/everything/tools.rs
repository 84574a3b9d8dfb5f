//! The fixture's plain tools.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp::protocol::{
    CallToolResult, ClientCapabilities, ContentBlock, CreateMessageParams, EmbeddedResource, InputRequest,
    LoggingLevel, ResourceContents, SamplingCapability, SamplingContent, TextResourceContents,
};
use mcp::{Context, Error};
use serde_json::{Value, json};

use super::form;

/// A 1x1 PNG, base64.
pub const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

static SLOW_COMPLETED: AtomicU64 = AtomicU64::new(0);
static SLOW_DROPPED: AtomicU64 = AtomicU64::new(0);

fn embedded(uri: &str, mime: &str, text: &str) -> ContentBlock {
    ContentBlock::Resource(EmbeddedResource {
        resource: ResourceContents::Text(TextResourceContents {
            uri: uri.into(),
            mime_type: Some(mime.into()),
            text: text.into(),
            meta: None,
        }),
        annotations: None,
        meta: None,
    })
}

/// Returns a simple text response.
#[mcp::tool]
pub fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1x1 PNG image.
#[mcp::tool]
pub fn test_image_content() -> ContentBlock {
    ContentBlock::image(PNG, "image/png")
}

/// Returns a short WAV clip.
#[mcp::tool]
pub fn test_audio_content() -> ContentBlock {
    ContentBlock::audio(WAV, "audio/wav")
}

/// Returns an embedded text resource.
#[mcp::tool]
pub fn test_embedded_resource() -> ContentBlock {
    embedded("test://embedded-resource", "text/plain", "This is an embedded resource content.")
}

/// Returns text, an image and a resource.
#[mcp::tool]
pub fn test_multiple_content_types() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(PNG, "image/png"),
        embedded("test://mixed-content-resource", "application/json", r#"{"test":"data","value":123}"#),
    ]
}

/// Always fails with an isError result.
#[mcp::tool]
pub fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".into())
}

/// Reports progress 0, 50, 100, then returns.
#[mcp::tool]
pub async fn test_tool_with_progress(ctx: Context) -> &'static str {
    for step in [0.0, 50.0, 100.0] {
        ctx.progress(step, Some(100.0), None).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Progress complete."
}

/// Needs the client's sampling capability (a JSON-RPC -32021 error otherwise).
#[mcp::tool]
pub fn test_missing_capability(ctx: Context) -> Result<&'static str, Error> {
    if ctx.client_capabilities().sampling.is_none() {
        let required = ClientCapabilities { sampling: Some(SamplingCapability::default()), ..Default::default() };
        return Err(Error::missing_client_capability(
            "Server requires the sampling capability for this request",
            &required,
        ));
    }
    Ok("The client declared sampling.")
}

/// Streams a notification, then returns.
#[mcp::tool]
pub async fn test_streaming_elicitation(ctx: Context) -> &'static str {
    ctx.progress(50.0, Some(100.0), Some("halfway".into())).await;
    "Streamed a notification, then the result."
}

async fn log_three(ctx: &Context, pause: Duration) {
    for message in ["Tool execution started", "Tool processing data", "Tool execution completed"] {
        ctx.log(LoggingLevel::Info, Some("everything"), json!(message)).await;
        tokio::time::sleep(pause).await;
    }
}

/// Logs three messages (only if the request asked for logs).
#[mcp::tool]
pub async fn test_logging_tool(ctx: Context) -> &'static str {
    log_three(&ctx, Duration::ZERO).await;
    "Logged three messages."
}

/// Logs three messages 50 ms apart.
#[mcp::tool]
pub async fn test_tool_with_logging(ctx: Context) -> &'static str {
    log_three(&ctx, Duration::from_millis(50)).await;
    "Logged three messages."
}

/// Adds and removes test_dynamic_tool, announcing each change.
#[mcp::tool]
pub fn test_trigger_tool_change(ctx: Context) -> &'static str {
    ctx.server().set_tool_enabled("test_dynamic_tool", true);
    ctx.server().set_tool_enabled("test_dynamic_tool", false);
    "Added and removed test_dynamic_tool."
}

/// Adds and removes test_dynamic_prompt, announcing each change.
#[mcp::tool]
pub fn test_trigger_prompt_change(ctx: Context) -> &'static str {
    ctx.server().set_prompt_enabled("test_dynamic_prompt", true);
    ctx.server().set_prompt_enabled("test_dynamic_prompt", false);
    "Added and removed test_dynamic_prompt."
}

/// Exists only while a list change is being demonstrated.
#[mcp::tool]
pub fn test_dynamic_tool() -> &'static str {
    "dynamic"
}

/// Asks the user (2025-11-25 back-channel).
#[mcp::tool]
pub async fn test_elicitation(ctx: Context, message: String) -> Result<String, Error> {
    let schema = json!({"type": "object", "properties": {"response": {"type": "string"}}, "required": ["response"]});
    let answer = ctx.elicit(form(&message, schema)).await?;
    Ok(format!("User response: action={:?}, content={}", answer.action, json!(answer.content)))
}

/// Asks with defaults for every field type (SEP-1034).
#[mcp::tool]
pub async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, Error> {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": true}
    }});
    let answer = ctx.elicit(form("Please review your details", schema)).await?;
    Ok(format!("Elicitation completed: action={:?}", answer.action))
}

/// Asks with every enum schema shape (SEP-1330).
#[mcp::tool]
pub async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, Error> {
    let options = json!([{"const": "value1", "title": "First"}, {"const": "value2", "title": "Second"},
        {"const": "value3", "title": "Third"}]);
    let schema = json!({"type": "object", "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": options},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "items": {"anyOf": options}}
    }});
    let answer = ctx.elicit(form("Choose some options", schema)).await?;
    Ok(format!("Elicitation completed: action={:?}", answer.action))
}

/// Asks the client's model (2025-11-25 back-channel).
#[mcp::tool]
pub async fn test_sampling(ctx: Context, prompt: String) -> Result<String, Error> {
    let response = ctx.request_input(InputRequest::Sample(CreateMessageParams::user_text(prompt, 100))).await?;
    let text = response
        .as_sample()
        .and_then(|r| r.content.as_slice().first().cloned())
        .and_then(|c| match c {
            SamplingContent::Text(t) => Some(t.text),
            _ => None,
        })
        .unwrap_or_default();
    Ok(format!("LLM response: {text}"))
}

/// Returns once; kept for the SSE polling scenario.
#[mcp::tool]
pub fn test_reconnection() -> &'static str {
    "Reconnection test complete."
}

/// Counts a `test_slow` call as cancelled if it is dropped before it finishes.
struct SlowGuard {
    finished: bool,
}

impl Drop for SlowGuard {
    fn drop(&mut self) {
        if !self.finished {
            SLOW_DROPPED.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Sleeps for `ms` milliseconds, reporting progress first; for cancellation tests.
#[mcp::tool]
pub async fn test_slow(
    ctx: Context,
    /// How long to sleep, in milliseconds.
    ms: u64,
) -> String {
    let mut guard = SlowGuard { finished: false };
    ctx.progress(0.0, None, Some("started".into())).await;
    tokio::time::sleep(Duration::from_millis(ms)).await;
    guard.finished = true;
    SLOW_COMPLETED.fetch_add(1, Ordering::SeqCst);
    format!("Slept {ms} ms.")
}

/// How many test_slow calls completed and how many were cancelled.
#[mcp::tool]
pub fn test_slow_stats() -> CallToolResult {
    let stats: Value = json!({
        "completed": SLOW_COMPLETED.load(Ordering::SeqCst),
        "cancelled": SLOW_DROPPED.load(Ordering::SeqCst),
    });
    CallToolResult { structured_content: Some(stats.clone()), ..CallToolResult::text(stats.to_string()) }
}

/// Panics; the server must answer -32603 and keep serving.
#[mcp::tool]
pub fn test_panic() -> &'static str {
    panic!("test_panic was called")
}
