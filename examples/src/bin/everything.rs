//! A fixture server exposing one of everything, for tests and (with the HTTP
//! transport) the official conformance suite. Tool, prompt and resource names
//! follow the conformance suite's fixture list.
//!
//! Run it with `everything stdio`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp::protocol::{
    CallToolOutcome, CallToolParams, CallToolResult, ClientCapabilities, CompleteParams, CompleteResult,
    CompletionReference, ContentBlock, CreateMessageParams, ElicitRequestParams, ElicitationSchema, EmbeddedResource,
    GetPromptOutcome, GetPromptParams, GetPromptResult, InputRequest, InputRequiredResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel, Prompt, PromptArgument,
    PromptMessage, ReadResourceOutcome, ReadResourceParams, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, SamplingCapability, Tool,
};
use mcp::{Error, RequestContext, Server};
use serde_json::{Value, json};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

static SLOW_COMPLETED: AtomicU64 = AtomicU64::new(0);
static SLOW_DROPPED: AtomicU64 = AtomicU64::new(0);

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

fn tools() -> Vec<Tool> {
    let string_arg =
        |name: &str| json!({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]});
    vec![
        Tool::new("test_simple_text", "Returns a simple text response.", no_args()),
        Tool::new("test_image_content", "Returns a 1x1 PNG image.", no_args()),
        Tool::new("test_audio_content", "Returns a short WAV clip.", no_args()),
        Tool::new("test_embedded_resource", "Returns an embedded text resource.", no_args()),
        Tool::new("test_error_handling", "Always fails with an isError result.", no_args()),
        Tool::new("test_tool_with_progress", "Reports progress 0, 50, 100, then returns.", no_args()),
        Tool::new("test_logging_tool", "Logs three messages (only if the request asked for logs).", no_args()),
        Tool::new("test_missing_capability", "Needs the client's sampling capability.", no_args()),
        Tool::new("test_input_required_result_elicitation", "Asks for the user's name, then greets them.", no_args()),
        Tool::new("test_elicitation", "Asks the user (legacy back-channel).", string_arg("message")),
        Tool::new("test_sampling", "Asks the client's model (legacy back-channel).", string_arg("prompt")),
        Tool::new(
            "test_slow",
            "Sleeps for `ms` milliseconds, reporting progress first; for cancellation tests.",
            json!({"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}, "required": ["ms"]}),
        ),
        Tool::new("test_slow_stats", "How many test_slow calls completed and how many were cancelled.", no_args()),
        Tool::new("test_panic", "Panics; the server must answer -32603 and keep serving.", no_args()),
    ]
}

fn ask_name() -> InputRequest {
    let schema: ElicitationSchema = serde_json::from_value(json!({
        "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]
    }))
    .unwrap_or_default();
    InputRequest::Elicit(ElicitRequestParams::form("What is your name?", schema))
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

async fn call_tool(ctx: RequestContext, params: CallToolParams) -> Result<CallToolOutcome, Error> {
    let args = params.arguments.clone().unwrap_or_default();
    let text_arg = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_owned);
    let result = match params.name.as_str() {
        "test_simple_text" => CallToolResult::text("This is a simple text response for testing."),
        "test_image_content" => CallToolResult::content(vec![ContentBlock::image(PNG, "image/png")]),
        "test_audio_content" => CallToolResult::content(vec![ContentBlock::audio(WAV, "audio/wav")]),
        "test_embedded_resource" => CallToolResult::content(vec![ContentBlock::Resource(EmbeddedResource {
            resource: ResourceContents::Text(mcp::protocol::TextResourceContents {
                uri: "test://embedded-resource".into(),
                mime_type: Some("text/plain".into()),
                text: "This is an embedded resource content.".into(),
                meta: None,
            }),
            annotations: None,
            meta: None,
        })]),
        "test_error_handling" => CallToolResult::error("This tool intentionally returns an error for testing"),
        "test_tool_with_progress" => {
            for step in [0.0, 50.0, 100.0] {
                ctx.progress(step, Some(100.0), None).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            CallToolResult::text("Progress complete.")
        }
        "test_logging_tool" => {
            for message in ["Tool execution started", "Tool processing data", "Tool execution completed"] {
                ctx.log(LoggingLevel::Info, Some("everything"), json!(message)).await;
            }
            CallToolResult::text("Logged three messages.")
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
        "test_input_required_result_elicitation" => {
            let answer = params.input_responses.as_ref().and_then(|r| r.get("user_name")).and_then(|a| a.as_elicit());
            let name = answer.and_then(|a| a.content.as_ref()).and_then(|c| c.get("name")).and_then(Value::as_str);
            match name {
                Some(name) => CallToolResult::text(format!("Hello, {name}!")),
                None => return Ok(InputRequiredResult::ask("user_name", ask_name()).into()),
            }
        }
        "test_elicitation" => {
            let message = text_arg("message").unwrap_or_else(|| "Please answer".into());
            let schema: ElicitationSchema = serde_json::from_value(json!({
                "type": "object", "properties": {"response": {"type": "string"}}, "required": ["response"]
            }))
            .unwrap_or_default();
            let answer = ctx.elicit(ElicitRequestParams::form(message, schema)).await?;
            CallToolResult::text(format!(
                "User response: action={:?}, content={}",
                answer.action,
                json!(answer.content)
            ))
        }
        "test_sampling" => {
            let prompt = text_arg("prompt").unwrap_or_default();
            let response = ctx.request_input(InputRequest::Sample(CreateMessageParams::user_text(prompt, 100))).await?;
            let text = response
                .as_sample()
                .and_then(|r| r.content.as_slice().first().cloned())
                .and_then(|c| match c {
                    mcp::protocol::SamplingContent::Text(t) => Some(t.text),
                    _ => None,
                })
                .unwrap_or_default();
            CallToolResult::text(format!("LLM response: {text}"))
        }
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

fn prompts() -> Vec<Prompt> {
    let arg = |name: &str| PromptArgument { name: name.into(), required: Some(true), ..Default::default() };
    vec![
        Prompt {
            name: "test_simple_prompt".into(),
            description: Some("A simple prompt.".into()),
            ..Default::default()
        },
        Prompt {
            name: "test_prompt_with_arguments".into(),
            description: Some("A prompt with two arguments.".into()),
            arguments: Some(vec![arg("arg1"), arg("arg2")]),
            ..Default::default()
        },
    ]
}

async fn get_prompt(_ctx: RequestContext, params: GetPromptParams) -> Result<GetPromptOutcome, Error> {
    let args = params.arguments.unwrap_or_default();
    let messages = match params.name.as_str() {
        "test_simple_prompt" => vec![PromptMessage::user("This is a simple prompt for testing.")],
        "test_prompt_with_arguments" => {
            let (Some(a1), Some(a2)) = (args.get("arg1"), args.get("arg2")) else {
                return Err(Error::invalid_params("Missing required arguments: arg1 and arg2"));
            };
            vec![PromptMessage::user(format!("Prompt with arguments: arg1='{a1}', arg2='{a2}'"))]
        }
        other => return Err(Error::unknown_prompt(other)),
    };
    Ok(GetPromptResult::new(messages).into())
}

async fn read_resource(_ctx: RequestContext, params: ReadResourceParams) -> Result<ReadResourceOutcome, Error> {
    let uri = params.uri.as_str();
    let contents = match uri {
        "test://static-text" => ResourceContents::Text(mcp::protocol::TextResourceContents {
            uri: uri.into(),
            mime_type: Some("text/plain".into()),
            text: "This is the content of the static text resource.".into(),
            meta: None,
        }),
        "test://static-binary" => ResourceContents::Blob(mcp::protocol::BlobResourceContents {
            uri: uri.into(),
            mime_type: Some("image/png".into()),
            blob: PNG.into(),
            meta: None,
        }),
        _ => match uri.strip_prefix("test://template/").and_then(|rest| rest.strip_suffix("/data")) {
            Some(id) if !id.is_empty() && !id.contains('/') => {
                let text = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                ResourceContents::Text(mcp::protocol::TextResourceContents {
                    uri: uri.into(),
                    mime_type: Some("application/json".into()),
                    text: text.to_string(),
                    meta: None,
                })
            }
            _ => return Err(Error::resource_not_found(uri)),
        },
    };
    Ok(ReadResourceResult::new(vec![contents]).into())
}

async fn complete(_ctx: RequestContext, params: CompleteParams) -> Result<CompleteResult, Error> {
    let candidates: &[&str] = match (&params.reference, params.argument.name.as_str()) {
        (CompletionReference::Prompt { name, .. }, "arg1") if name == "test_prompt_with_arguments" => {
            &["testValue1", "test", "other"]
        }
        _ => &[],
    };
    let values = candidates.iter().filter(|c| c.starts_with(&params.argument.value)).map(|c| (*c).to_owned()).collect();
    Ok(CompleteResult::new(values))
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let server = Server::builder("everything", env!("CARGO_PKG_VERSION"))
        .instructions("A fixture server with one of everything.")
        .on_list_tools(|_ctx, _params| async { Ok(ListToolsResult::new(tools())) })
        .on_call_tool(call_tool)
        .on_list_prompts(|_ctx, _params| async { Ok(ListPromptsResult::new(prompts())) })
        .on_get_prompt(get_prompt)
        .on_list_resources(|_ctx, _params| async {
            let resource = |uri: &str, name: &str, mime: &str| Resource {
                uri: uri.into(),
                name: name.into(),
                description: Some(format!("The {name} fixture.")),
                mime_type: Some(mime.into()),
                ..Default::default()
            };
            Ok(ListResourcesResult {
                resources: vec![
                    resource("test://static-text", "static-text", "text/plain"),
                    resource("test://static-binary", "static-binary", "image/png"),
                ],
                ..Default::default()
            })
        })
        .on_list_resource_templates(|_ctx, _params| async {
            Ok(ListResourceTemplatesResult {
                resource_templates: vec![ResourceTemplate {
                    uri_template: "test://template/{id}/data".into(),
                    name: "template".into(),
                    description: Some("JSON data for an id.".into()),
                    mime_type: Some("application/json".into()),
                    ..Default::default()
                }],
                ..Default::default()
            })
        })
        .on_read_resource(read_resource)
        .on_complete(complete)
        .build();
    mcp_examples::cli::run(server).await
}
