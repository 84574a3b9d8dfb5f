//! The fixture's tools.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use mcp::protocol::{
    CallToolOutcome, CallToolParams, CallToolResult, ClientCapabilities, ContentBlock, CreateMessageParams,
    EmbeddedResource, InputRequest, LoggingLevel, ResourceContents, SamplingCapability, SamplingContent,
    TextResourceContents, Tool,
};
use mcp::{Error, RequestContext};
use serde_json::{Value, json};

use crate::form;

pub const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

static SLOW_COMPLETED: AtomicU64 = AtomicU64::new(0);
static SLOW_DROPPED: AtomicU64 = AtomicU64::new(0);
/// Whether `test_dynamic_tool` is currently listed.
static DYNAMIC_TOOL: AtomicBool = AtomicBool::new(false);
/// Whether `test_dynamic_prompt` is currently listed.
pub static DYNAMIC_PROMPT: AtomicBool = AtomicBool::new(false);

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

fn one_string(name: &str) -> Value {
    json!({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]})
}

/// The `json_schema_2020_12_tool` input schema, which must be listed verbatim.
fn schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

pub fn list() -> Vec<Tool> {
    let mut tools = vec![
        Tool::new("test_simple_text", "Returns a simple text response.", no_args()),
        Tool::new("test_image_content", "Returns a 1x1 PNG image.", no_args()),
        Tool::new("test_audio_content", "Returns a short WAV clip.", no_args()),
        Tool::new("test_embedded_resource", "Returns an embedded text resource.", no_args()),
        Tool::new("test_multiple_content_types", "Returns text, an image and a resource.", no_args()),
        Tool::new("test_error_handling", "Always fails with an isError result.", no_args()),
        Tool::new("test_tool_with_progress", "Reports progress 0, 50, 100, then returns.", no_args()),
        Tool::new("json_schema_2020_12_tool", "Has a JSON Schema 2020-12 input schema.", schema_2020_12()),
        Tool::new(
            "test_x_mcp_header",
            "Echoes the region, which HTTP clients mirror in the Mcp-Param-Region header.",
            json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}),
        ),
        Tool::new("test_missing_capability", "Needs the client's sampling capability.", no_args()),
        Tool::new("test_streaming_elicitation", "Streams a notification, then returns.", no_args()),
        Tool::new("test_logging_tool", "Logs three messages (only if the request asked for logs).", no_args()),
        Tool::new("test_tool_with_logging", "Logs three messages 50 ms apart.", no_args()),
        Tool::new("test_trigger_tool_change", "Adds and removes test_dynamic_tool.", no_args()),
        Tool::new("test_trigger_prompt_change", "Adds and removes test_dynamic_prompt.", no_args()),
        Tool::new("test_elicitation", "Asks the user (legacy back-channel).", one_string("message")),
        Tool::new("test_elicitation_sep1034_defaults", "Asks with defaults for every field type.", no_args()),
        Tool::new("test_elicitation_sep1330_enums", "Asks with every enum schema shape.", no_args()),
        Tool::new("test_sampling", "Asks the client's model (legacy back-channel).", one_string("prompt")),
        Tool::new("test_reconnection", "Returns once; kept for the SSE polling scenario.", no_args()),
        Tool::new(
            "test_slow",
            "Sleeps for `ms` milliseconds, reporting progress first; for cancellation tests.",
            json!({"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}, "required": ["ms"]}),
        ),
        Tool::new("test_slow_stats", "How many test_slow calls completed and how many were cancelled.", no_args()),
        Tool::new("test_panic", "Panics; the server must answer -32603 and keep serving.", no_args()),
    ];
    tools.extend(crate::mrtr::tools());
    if DYNAMIC_TOOL.load(Ordering::SeqCst) {
        tools.push(Tool::new("test_dynamic_tool", "Exists only while a list change is being tested.", no_args()));
    }
    tools
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

async fn log_three(ctx: &RequestContext, pause: Duration) {
    for message in ["Tool execution started", "Tool processing data", "Tool execution completed"] {
        ctx.log(LoggingLevel::Info, Some("everything"), json!(message)).await;
        tokio::time::sleep(pause).await;
    }
}

pub async fn call(ctx: RequestContext, params: CallToolParams) -> Result<CallToolOutcome, Error> {
    if let Some(outcome) = crate::mrtr::call(&ctx, &params) {
        return outcome;
    }
    let args = params.arguments.clone().unwrap_or_default();
    let text_arg = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_owned);
    let result = match params.name.as_str() {
        "test_simple_text" => CallToolResult::text("This is a simple text response for testing."),
        "test_image_content" => CallToolResult::content(vec![ContentBlock::image(PNG, "image/png")]),
        "test_audio_content" => CallToolResult::content(vec![ContentBlock::audio(WAV, "audio/wav")]),
        "test_embedded_resource" => CallToolResult::content(vec![embedded(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )]),
        "test_multiple_content_types" => CallToolResult::content(vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image(PNG, "image/png"),
            embedded("test://mixed-content-resource", "application/json", r#"{"test":"data","value":123}"#),
        ]),
        "test_error_handling" => CallToolResult::error("This tool intentionally returns an error for testing"),
        "test_tool_with_progress" => {
            for step in [0.0, 50.0, 100.0] {
                ctx.progress(step, Some(100.0), None).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            CallToolResult::text("Progress complete.")
        }
        "json_schema_2020_12_tool" => CallToolResult::text(format!("Received {}", Value::Object(args.clone()))),
        "test_x_mcp_header" => {
            CallToolResult::text(format!("region={}", text_arg("region").unwrap_or_else(|| "<none>".to_owned())))
        }
        "test_missing_capability" => {
            if ctx.client_capabilities().sampling.is_none() {
                let required =
                    ClientCapabilities { sampling: Some(SamplingCapability::default()), ..Default::default() };
                return Err(Error::missing_client_capability(
                    "Server requires the sampling capability for this request",
                    &required,
                ));
            }
            CallToolResult::text("The client declared sampling.")
        }
        "test_streaming_elicitation" => {
            ctx.progress(50.0, Some(100.0), Some("halfway".into())).await;
            CallToolResult::text("Streamed a notification, then the result.")
        }
        "test_logging_tool" => {
            log_three(&ctx, Duration::ZERO).await;
            CallToolResult::text("Logged three messages.")
        }
        "test_tool_with_logging" => {
            log_three(&ctx, Duration::from_millis(50)).await;
            CallToolResult::text("Logged three messages.")
        }
        "test_trigger_tool_change" => {
            DYNAMIC_TOOL.store(true, Ordering::SeqCst);
            ctx.server().notify_tools_list_changed();
            DYNAMIC_TOOL.store(false, Ordering::SeqCst);
            ctx.server().notify_tools_list_changed();
            CallToolResult::text("Added and removed test_dynamic_tool.")
        }
        "test_trigger_prompt_change" => {
            DYNAMIC_PROMPT.store(true, Ordering::SeqCst);
            ctx.server().notify_prompts_list_changed();
            DYNAMIC_PROMPT.store(false, Ordering::SeqCst);
            ctx.server().notify_prompts_list_changed();
            CallToolResult::text("Added and removed test_dynamic_prompt.")
        }
        "test_dynamic_tool" if DYNAMIC_TOOL.load(Ordering::SeqCst) => CallToolResult::text("dynamic"),
        "test_elicitation" => {
            let message = text_arg("message").unwrap_or_else(|| "Please answer".into());
            let schema =
                json!({"type": "object", "properties": {"response": {"type": "string"}}, "required": ["response"]});
            let answer = ctx.elicit(form(&message, schema)).await?;
            CallToolResult::text(format!(
                "User response: action={:?}, content={}",
                answer.action,
                json!(answer.content)
            ))
        }
        "test_elicitation_sep1034_defaults" => {
            let schema = json!({"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true}
            }});
            let answer = ctx.elicit(form("Please review your details", schema)).await?;
            CallToolResult::text(format!("Elicitation completed: action={:?}", answer.action))
        }
        "test_elicitation_sep1330_enums" => {
            let schema = json!({"type": "object", "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First"}, {"const": "value2", "title": "Second"},
                    {"const": "value3", "title": "Third"}]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First"}, {"const": "value2", "title": "Second"},
                    {"const": "value3", "title": "Third"}]}}
            }});
            let answer = ctx.elicit(form("Choose some options", schema)).await?;
            CallToolResult::text(format!("Elicitation completed: action={:?}", answer.action))
        }
        "test_sampling" => {
            let prompt = text_arg("prompt").unwrap_or_default();
            let response = ctx.request_input(InputRequest::Sample(CreateMessageParams::user_text(prompt, 100))).await?;
            let text = response
                .as_sample()
                .and_then(|r| r.content.as_slice().first().cloned())
                .and_then(|c| match c {
                    SamplingContent::Text(t) => Some(t.text),
                    _ => None,
                })
                .unwrap_or_default();
            CallToolResult::text(format!("LLM response: {text}"))
        }
        "test_reconnection" => CallToolResult::text("Reconnection test complete."),
        "test_slow" => {
            let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
            let mut guard = SlowGuard { finished: false };
            ctx.progress(0.0, None, Some("started".into())).await;
            tokio::time::sleep(Duration::from_millis(ms)).await;
            guard.finished = true;
            SLOW_COMPLETED.fetch_add(1, Ordering::SeqCst);
            CallToolResult::text(format!("Slept {ms} ms."))
        }
        "test_slow_stats" => {
            let stats = json!({
                "completed": SLOW_COMPLETED.load(Ordering::SeqCst),
                "cancelled": SLOW_DROPPED.load(Ordering::SeqCst),
            });
            CallToolResult { structured_content: Some(stats.clone()), ..CallToolResult::text(stats.to_string()) }
        }
        "test_panic" => panic!("test_panic was called"),
        other => return Err(Error::unknown_tool(other)),
    };
    Ok(result.into())
}
