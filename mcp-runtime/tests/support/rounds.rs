//! Multi-round calls as a client sees them: the answers a test gives (elicitation, sampling,
//! roots), how a question reads, and what an `input_required` or final result holds.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// Form elicitation, sampling and roots.
pub fn every_capability() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

/// An accepted elicitation.
pub fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

pub fn decline() -> Value {
    json!({"action": "decline"})
}

pub fn cancel() -> Value {
    json!({"action": "cancel"})
}

/// A sampling answer with one text block.
pub fn sampled(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "test-model"})
}

/// A roots answer.
pub fn roots_answer(uris: &[&str]) -> Value {
    json!({"roots": uris.iter().map(|uri| json!({"uri": uri})).collect::<Vec<_>>()})
}

/// How a question reads, for scripts and assertions: an elicitation's message,
/// `sample: <first message text>`, or the method (`roots/list`).
pub fn label(method: &str, params: &Value) -> String {
    match method {
        "elicitation/create" => params["message"].as_str().unwrap_or_default().to_owned(),
        "sampling/createMessage" => {
            let content = &params["messages"][0]["content"];
            let text = content["text"].as_str().or_else(|| content[0]["text"].as_str());
            format!("sample: {}", text.unwrap_or_default())
        }
        other => other.to_owned(),
    }
}

/// Answers by question label (see [`label`]); the same label always gets the same answer.
#[derive(Debug, Clone, Default)]
pub struct Script(Vec<(String, Value)>);

impl Script {
    pub fn new() -> Self {
        Script::default()
    }

    pub fn on(mut self, label: impl Into<String>, answer: Value) -> Self {
        self.0.push((label.into(), answer));
        self
    }

    #[track_caller]
    pub fn answer(&self, label: &str) -> Value {
        self.0
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, answer)| answer.clone())
            .unwrap_or_else(|| panic!("the script has no answer for {label:?}"))
    }
}

/// An `input_required` result's questions: key → label.
#[track_caller]
pub fn questions(result: &Value) -> BTreeMap<String, String> {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let requests = result["inputRequests"].as_object().unwrap_or_else(|| panic!("no inputRequests: {result}"));
    requests
        .iter()
        .map(|(key, request)| {
            let method = request["method"].as_str().unwrap_or_default();
            (key.clone(), label(method, &request["params"]))
        })
        .collect()
}

/// An `input_required` result's `requestState`.
#[track_caller]
pub fn state_of(result: &Value) -> String {
    assert_eq!(result["resultType"], "input_required", "{result}");
    result["requestState"].as_str().unwrap_or_else(|| panic!("no requestState: {result}")).to_owned()
}

/// The text of a complete, successful tool result.
#[track_caller]
pub fn complete_text(result: &Value) -> String {
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_ne!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {result}")).to_owned()
}

/// The text of an `isError` tool result (either era).
#[track_caller]
pub fn tool_error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "expected an isError result: {result}");
    assert_ne!(result["resultType"], "input_required", "{result}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {result}")).to_owned()
}

/// `[(key, label)]` → the map [`questions`] returns.
pub fn expect_questions(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, l)| ((*k).to_owned(), (*l).to_owned())).collect()
}

/// `(method, label)` pairs as owned strings.
pub fn requests(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(m, l)| ((*m).to_owned(), (*l).to_owned())).collect()
}
