//! Hand-built multi round-trip tools (2026-07-28): each returns an `InputRequiredResult`
//! until the retry carries the answers it asked for.

use mcp::protocol::{
    CallToolOutcome, CallToolParams, CallToolResult, CreateMessageParams, ElicitAction, InputRequest,
    InputRequiredResult, InputResponse, ListRootsParams, SamplingContent, Tool,
};
use mcp::{Error, RequestContext};
use serde_json::{Value, json};

use crate::form;

const NAMES: &[(&str, &str)] = &[
    ("test_input_required_result_elicitation", "Asks for the user's name, then greets them."),
    ("test_input_required_result_sampling", "Asks the client's model a question."),
    ("test_input_required_result_list_roots", "Asks for the client's roots."),
    ("test_input_required_result_request_state", "Asks for confirmation and carries state."),
    ("test_input_required_result_multiple_inputs", "Asks three questions at once."),
    ("test_input_required_result_multi_round", "Asks two questions, one per round."),
    ("test_input_required_result_tampered_state", "Carries state the server must verify."),
    ("test_input_required_result_capabilities", "Asks only what the client declared it can answer."),
];

pub fn tools() -> Vec<Tool> {
    NAMES
        .iter()
        .map(|(name, description)| Tool::new(*name, *description, json!({"type": "object", "properties": {}})))
        .collect()
}

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
fn accepted<'a>(params: &'a CallToolParams, key: &str) -> Option<&'a serde_json::Map<String, Value>> {
    match params.input_responses.as_ref()?.get(key)? {
        InputResponse::Elicit(r) if r.action == ElicitAction::Accept => r.content.as_ref(),
        _ => None,
    }
}

fn sampled(params: &CallToolParams, key: &str) -> Option<String> {
    let response = params.input_responses.as_ref()?.get(key)?.as_sample()?;
    response.content.as_slice().iter().find_map(|c| match c {
        SamplingContent::Text(t) => Some(t.text.clone()),
        _ => None,
    })
}

fn roots(params: &CallToolParams, key: &str) -> Option<usize> {
    Some(params.input_responses.as_ref()?.get(key)?.as_roots()?.roots.len())
}

fn state_is(params: &CallToolParams, expected: &str) -> bool {
    params.request_state.as_deref() == Some(expected)
}

fn done(text: String) -> Option<Result<CallToolOutcome, Error>> {
    Some(Ok(CallToolResult::text(text).into()))
}

fn ask(result: InputRequiredResult) -> Option<Result<CallToolOutcome, Error>> {
    Some(Ok(result.into()))
}

/// Serve the tool if it is one of these; `None` otherwise.
pub fn call(ctx: &RequestContext, params: &CallToolParams) -> Option<Result<CallToolOutcome, Error>> {
    match params.name.as_str() {
        "test_input_required_result_elicitation" => {
            match accepted(params, "user_name").and_then(|c| c.get("name")).and_then(Value::as_str) {
                Some(name) => done(format!("Hello, {name}!")),
                None => ask(InputRequiredResult::ask("user_name", ask_name("What is your name?"))),
            }
        }
        "test_input_required_result_sampling" => match sampled(params, "capital_question") {
            Some(answer) => done(format!("Model said: {answer}")),
            None => ask(InputRequiredResult::ask("capital_question", ask_model("What is the capital of France?", 100))),
        },
        "test_input_required_result_list_roots" => match roots(params, "client_roots") {
            Some(n) => done(format!("Client exposed {n} root(s).")),
            None => ask(InputRequiredResult::ask("client_roots", ask_roots())),
        },
        "test_input_required_result_request_state" | "test_input_required_result_tampered_state" => {
            let state = format!("{}:confirm-v1", params.name);
            if accepted(params, "confirm").is_some() && state_is(params, &state) {
                done("Confirmed: state-ok".to_owned())
            } else if params.request_state.is_some() && !state_is(params, &state) {
                Some(Err(Error::invalid_params("Invalid or expired requestState")))
            } else {
                ask(InputRequiredResult::ask("confirm", ask_confirm()).with_state(state))
            }
        }
        "test_input_required_result_multiple_inputs" => {
            let name = accepted(params, "user_name").and_then(|c| c.get("name")).and_then(Value::as_str);
            match (name, sampled(params, "greeting"), roots(params, "client_roots")) {
                (Some(name), Some(greeting), Some(n)) if state_is(params, "multiple-v1") => {
                    done(format!("{greeting} {name}; {n} root(s)."))
                }
                _ => ask(InputRequiredResult::ask("user_name", ask_name("What is your name?"))
                    .and_ask("greeting", ask_model("Generate a greeting", 50))
                    .and_ask("client_roots", ask_roots())
                    .with_state("multiple-v1")),
            }
        }
        "test_input_required_result_multi_round" => {
            let color = accepted(params, "step2").and_then(|c| c.get("color")).and_then(Value::as_str);
            let name = accepted(params, "step1").and_then(|c| c.get("name")).and_then(Value::as_str);
            if let Some(color) = color.filter(|_| state_is(params, "multi-round-2")) {
                return done(format!("Your favorite color is {color}."));
            }
            if name.is_some() && state_is(params, "multi-round-1") {
                let step2 = InputRequest::Elicit(form(
                    "Step 2: What is your favorite color?",
                    json!({"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}),
                ));
                return ask(InputRequiredResult::ask("step2", step2).with_state("multi-round-2"));
            }
            ask(InputRequiredResult::ask("step1", ask_name("Step 1: What is your name?")).with_state("multi-round-1"))
        }
        "test_input_required_result_capabilities" => {
            if params.input_responses.is_some() && state_is(params, "capabilities-v1") {
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
            ask(result)
        }
        _ => None,
    }
}
