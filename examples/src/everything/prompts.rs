//! The fixture's prompts.

use mcp::Context;
use mcp::protocol::{
    ContentBlock, ElicitAction, EmbeddedResource, GetPromptOutcome, GetPromptResult, InputRequest, InputRequiredResult,
    PromptMessage, ResourceContents, Role, TextResourceContents,
};
use serde_json::{Value, json};

use super::form;
use super::tools::PNG;

/// A simple prompt.
#[mcp::prompt]
pub fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two arguments.
#[mcp::prompt]
pub fn test_prompt_with_arguments(
    /// First argument
    #[mcp(complete = arg1_values)]
    arg1: String,
    /// Second argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt with an embedded resource.
#[mcp::prompt]
pub fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[mcp(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    let resource = ResourceContents::Text(TextResourceContents {
        uri: resource_uri,
        mime_type: Some("text/plain".into()),
        text: "Embedded resource content for testing.".into(),
        meta: None,
    });
    vec![
        PromptMessage {
            role: Role::User,
            content: ContentBlock::Resource(EmbeddedResource { resource, annotations: None, meta: None }),
        },
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[mcp::prompt]
pub fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage { role: Role::User, content: ContentBlock::image(PNG, "image/png") },
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// Asks for context before rendering.
#[mcp::prompt]
pub fn test_input_required_result_prompt(ctx: Context) -> GetPromptOutcome {
    let answer = ctx.input_response("user_context").and_then(|a| a.as_elicit());
    let context = answer
        .filter(|a| a.action == ElicitAction::Accept)
        .and_then(|a| a.content.as_ref())
        .and_then(|c| c.get("context"))
        .and_then(Value::as_str);
    match context {
        Some(context) => {
            GetPromptResult::new(vec![PromptMessage::user(format!("Use the following context: {context}"))]).into()
        }
        None => {
            let question = InputRequest::Elicit(form(
                "What context should the prompt use?",
                json!({"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}),
            ));
            InputRequiredResult::ask("user_context", question).into()
        }
    }
}

/// Exists only while a list change is being demonstrated.
#[mcp::prompt]
pub fn test_dynamic_prompt() -> &'static str {
    "dynamic"
}

/// `completion/complete` of `test_prompt_with_arguments`'s `arg1`: the candidates that
/// start with what was typed. (`arg2` has no completer, so it completes to no values.)
pub fn arg1_values(typed: &str) -> Vec<&'static str> {
    ["testValue1", "test", "other"].into_iter().filter(|c| c.starts_with(typed)).collect()
}
