//! The fixture's prompts and completions.

use std::sync::atomic::Ordering;

use mcp::protocol::{
    CompleteParams, CompleteResult, CompletionReference, ContentBlock, ElicitAction, EmbeddedResource,
    GetPromptOutcome, GetPromptParams, GetPromptResult, InputRequest, InputRequiredResult, Prompt, PromptArgument,
    PromptMessage, ResourceContents, Role, TextResourceContents,
};
use mcp::{Error, RequestContext};
use serde_json::{Value, json};

use crate::form;
use crate::tools::{DYNAMIC_PROMPT, PNG};

pub fn list() -> Vec<Prompt> {
    let arg = |name: &str, description: &str| PromptArgument {
        name: name.into(),
        description: Some(description.into()),
        required: Some(true),
        ..Default::default()
    };
    let prompt = |name: &str, description: &str, arguments: Option<Vec<PromptArgument>>| Prompt {
        name: name.into(),
        description: Some(description.into()),
        arguments,
        ..Default::default()
    };
    let mut prompts = vec![
        prompt("test_simple_prompt", "A simple prompt.", None),
        prompt(
            "test_prompt_with_arguments",
            "A prompt with two arguments.",
            Some(vec![arg("arg1", "First argument"), arg("arg2", "Second argument")]),
        ),
        prompt(
            "test_prompt_with_embedded_resource",
            "A prompt with an embedded resource.",
            Some(vec![arg("resourceUri", "URI of the resource to embed")]),
        ),
        prompt("test_prompt_with_image", "A prompt with an image.", None),
        prompt("test_input_required_result_prompt", "Asks for context before rendering.", None),
    ];
    if DYNAMIC_PROMPT.load(Ordering::SeqCst) {
        prompts.push(prompt("test_dynamic_prompt", "Exists only while a list change is being tested.", None));
    }
    prompts
}

fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage { role: Role::User, content }
}

pub async fn get(_ctx: RequestContext, params: GetPromptParams) -> Result<GetPromptOutcome, Error> {
    let args = params.arguments.clone().unwrap_or_default();
    let required = |name: &str| {
        args.get(name).cloned().ok_or_else(|| Error::invalid_params(format!("Missing required argument: {name}")))
    };
    let messages = match params.name.as_str() {
        "test_simple_prompt" => vec![PromptMessage::user("This is a simple prompt for testing.")],
        "test_prompt_with_arguments" => {
            let (a1, a2) = (required("arg1")?, required("arg2")?);
            vec![PromptMessage::user(format!("Prompt with arguments: arg1='{a1}', arg2='{a2}'"))]
        }
        "test_prompt_with_embedded_resource" => {
            let uri = required("resourceUri")?;
            vec![
                user(ContentBlock::Resource(EmbeddedResource {
                    resource: ResourceContents::Text(TextResourceContents {
                        uri,
                        mime_type: Some("text/plain".into()),
                        text: "Embedded resource content for testing.".into(),
                        meta: None,
                    }),
                    annotations: None,
                    meta: None,
                })),
                PromptMessage::user("Please process the embedded resource above."),
            ]
        }
        "test_prompt_with_image" => {
            vec![user(ContentBlock::image(PNG, "image/png")), PromptMessage::user("Please analyze the image above.")]
        }
        "test_input_required_result_prompt" => {
            let answer =
                params.input_responses.as_ref().and_then(|r| r.get("user_context")).and_then(|a| a.as_elicit());
            let context = answer
                .filter(|a| a.action == ElicitAction::Accept)
                .and_then(|a| a.content.as_ref())
                .and_then(|c| c.get("context"))
                .and_then(Value::as_str);
            let Some(context) = context else {
                let question = InputRequest::Elicit(form(
                    "What context should the prompt use?",
                    json!({"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}),
                ));
                return Ok(InputRequiredResult::ask("user_context", question).into());
            };
            vec![PromptMessage::user(format!("Use the following context: {context}"))]
        }
        "test_dynamic_prompt" if DYNAMIC_PROMPT.load(Ordering::SeqCst) => vec![PromptMessage::user("dynamic")],
        other => return Err(Error::unknown_prompt(other)),
    };
    Ok(GetPromptResult::new(messages).into())
}

pub async fn complete(_ctx: RequestContext, params: CompleteParams) -> Result<CompleteResult, Error> {
    let candidates: &[&str] = match (&params.reference, params.argument.name.as_str()) {
        (CompletionReference::Prompt { name, .. }, "arg1") if name == "test_prompt_with_arguments" => {
            &["testValue1", "test", "other"]
        }
        _ => &[],
    };
    let values = candidates.iter().filter(|c| c.starts_with(&params.argument.value)).map(|c| (*c).to_owned()).collect();
    Ok(CompleteResult::new(values))
}
