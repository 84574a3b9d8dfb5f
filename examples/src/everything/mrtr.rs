//! Hand-built multi round-trip tools (2026-07-28): each returns an `InputRequiredResult`
//! until the retry carries the answers it asked for, read back through `Context`.

use mcp::protocol::{
    CallToolOutcome, CallToolResult, CreateMessageParams, ElicitAction, InputRequest, InputRequiredResult,
    InputResponse, ListRootsParams, SamplingContent,
};
use mcp::{Context, Error};
use serde_json::{Map, Value, json};

use super::form;

fn ask_name(message: &str) -> InputRequest {
    InputRequest::Elicit(form(
        message,
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    ))
}

fn ask_confirm() -> InputRequest {
    InputRequest::Elicit(form(
        "Please confirm",
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
    ))
}

fn ask_model(prompt: &str, max_tokens: u64) -> InputRequest {
    InputRequest::Sample(CreateMessageParams::user_text(prompt, max_tokens))
}

fn ask_roots() -> InputRequest {
    InputRequest::ListRoots(Some(ListRootsParams::default()))
}

/// The accepted form content under `key`.
fn accepted<'a>(ctx: &'a Context, key: &str) -> Option<&'a Map<String, Value>> {
    match ctx.input_response(key)? {
        InputResponse::Elicit(r) if r.action == ElicitAction::Accept => r.content.as_ref(),
        _ => None,
    }
}

fn accepted_text(ctx: &Context, key: &str, field: &str) -> Option<String> {
    accepted(ctx, key)?.get(field)?.as_str().map(str::to_owned)
}

fn sampled(ctx: &Context, key: &str) -> Option<String> {
    let response = ctx.input_response(key)?.as_sample()?;
    response.content.as_slice().iter().find_map(|c| match c {
        SamplingContent::Text(t) => Some(t.text.clone()),
        _ => None,
    })
}

fn roots(ctx: &Context, key: &str) -> Option<usize> {
    Some(ctx.input_response(key)?.as_roots()?.roots.len())
}

fn done(text: String) -> CallToolOutcome {
    CallToolResult::text(text).into()
}

/// Asks for the user's name, then greets them.
#[mcp::tool]
pub fn test_input_required_result_elicitation(ctx: Context) -> CallToolOutcome {
    match accepted_text(&ctx, "user_name", "name") {
        Some(name) => done(format!("Hello, {name}!")),
        None => InputRequiredResult::ask("user_name", ask_name("What is your name?")).into(),
    }
}

/// Asks the client's model a question.
#[mcp::tool]
pub fn test_input_required_result_sampling(ctx: Context) -> CallToolOutcome {
    match sampled(&ctx, "capital_question") {
        Some(answer) => done(format!("Model said: {answer}")),
        None => InputRequiredResult::ask("capital_question", ask_model("What is the capital of France?", 100)).into(),
    }
}

/// Asks for the client's roots.
#[mcp::tool]
pub fn test_input_required_result_list_roots(ctx: Context) -> CallToolOutcome {
    match roots(&ctx, "client_roots") {
        Some(n) => done(format!("Client exposed {n} root(s).")),
        None => InputRequiredResult::ask("client_roots", ask_roots()).into(),
    }
}

/// The state these two tools issue, and accept back unchanged only.
fn confirm_with_state(ctx: &Context, tool: &str) -> Result<CallToolOutcome, Error> {
    let state = format!("{tool}:confirm-v1");
    match ctx.request_state() {
        Some(echoed) if echoed == state && accepted(ctx, "confirm").is_some() => Ok(done("Confirmed: state-ok".into())),
        Some(echoed) if echoed != state => Err(Error::invalid_params("Invalid or expired requestState")),
        _ => Ok(InputRequiredResult::ask("confirm", ask_confirm()).with_state(state).into()),
    }
}

/// Asks for confirmation and carries state.
#[mcp::tool]
pub fn test_input_required_result_request_state(ctx: Context) -> Result<CallToolOutcome, Error> {
    confirm_with_state(&ctx, "test_input_required_result_request_state")
}

/// Carries state the server must verify.
#[mcp::tool]
pub fn test_input_required_result_tampered_state(ctx: Context) -> Result<CallToolOutcome, Error> {
    confirm_with_state(&ctx, "test_input_required_result_tampered_state")
}

/// Asks three questions at once.
#[mcp::tool]
pub fn test_input_required_result_multiple_inputs(ctx: Context) -> CallToolOutcome {
    let answers = (accepted_text(&ctx, "user_name", "name"), sampled(&ctx, "greeting"), roots(&ctx, "client_roots"));
    match answers {
        (Some(name), Some(greeting), Some(n)) if ctx.request_state() == Some("multiple-v1") => {
            done(format!("{greeting} {name}; {n} root(s)."))
        }
        _ => InputRequiredResult::ask("user_name", ask_name("What is your name?"))
            .and_ask("greeting", ask_model("Generate a greeting", 50))
            .and_ask("client_roots", ask_roots())
            .with_state("multiple-v1")
            .into(),
    }
}

/// Asks two questions, one per round.
#[mcp::tool]
pub fn test_input_required_result_multi_round(ctx: Context) -> CallToolOutcome {
    let state = ctx.request_state();
    if let Some(color) = accepted_text(&ctx, "step2", "color").filter(|_| state == Some("multi-round-2")) {
        return done(format!("Your favorite color is {color}."));
    }
    if accepted_text(&ctx, "step1", "name").is_some() && state == Some("multi-round-1") {
        let step2 = InputRequest::Elicit(form(
            "Step 2: What is your favorite color?",
            json!({"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}),
        ));
        return InputRequiredResult::ask("step2", step2).with_state("multi-round-2").into();
    }
    InputRequiredResult::ask("step1", ask_name("Step 1: What is your name?")).with_state("multi-round-1").into()
}

/// Asks only what the client declared it can answer.
#[mcp::tool]
pub fn test_input_required_result_capabilities(ctx: Context) -> CallToolOutcome {
    if ctx.input_responses().is_some() && ctx.request_state() == Some("capabilities-v1") {
        return done("Got the answers the client could give.".to_owned());
    }
    let caps = ctx.client_capabilities();
    let mut result = InputRequiredResult::state_only("capabilities-v1");
    if caps.elicitation.as_ref().is_some_and(|e| e.supports_form()) {
        result = result.and_ask("user_name", ask_name("What is your name?"));
    }
    if caps.sampling.is_some() {
        result = result.and_ask("greeting", ask_model("Generate a greeting", 50));
    }
    if caps.roots.is_some() {
        result = result.and_ask("client_roots", ask_roots());
    }
    result.into()
}
