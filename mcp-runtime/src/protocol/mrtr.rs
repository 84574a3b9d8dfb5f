//! Multi round-trip requests (2026-07-28): `InputRequiredResult`, the questions it
//! carries, the answers a retry carries, and [`Outcome`], what a carrier method returns.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    CreateMessageParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ListRootsParams, ListRootsResult,
    Meta, ResultType,
};

/// Method names of the three kinds of input request.
pub mod methods {
    /// Elicitation.
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// Sampling.
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    /// Roots.
    pub const ROOTS_LIST: &str = "roots/list";
}

/// One question a server asks the client: `{method, params}` without id.
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
    /// `sampling/createMessage`.
    Sample(CreateMessageParams),
    /// `roots/list` (params are optional).
    ListRoots(Option<ListRootsParams>),
}

impl InputRequest {
    /// The method name.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => methods::ELICITATION_CREATE,
            InputRequest::Sample(_) => methods::SAMPLING_CREATE_MESSAGE,
            InputRequest::ListRoots(_) => methods::ROOTS_LIST,
        }
    }

    /// The params as JSON (absent for a bare `roots/list`).
    pub fn params_value(&self) -> Result<Option<Value>, serde_json::Error> {
        Ok(match self {
            InputRequest::Elicit(p) => Some(serde_json::to_value(p)?),
            InputRequest::Sample(p) => Some(serde_json::to_value(p)?),
            InputRequest::ListRoots(Some(p)) => Some(serde_json::to_value(p)?),
            InputRequest::ListRoots(None) => None,
        })
    }

    /// Decode from a method name and its params.
    pub fn from_method(method: &str, params: Option<Value>) -> Result<Self, String> {
        let parse = |v: Option<Value>| v.ok_or_else(|| format!("{method} requires params"));
        match method {
            methods::ELICITATION_CREATE => serde_json::from_value(parse(params)?)
                .map(InputRequest::Elicit)
                .map_err(|e| format!("invalid {method} params: {e}")),
            methods::SAMPLING_CREATE_MESSAGE => serde_json::from_value(parse(params)?)
                .map(InputRequest::Sample)
                .map_err(|e| format!("invalid {method} params: {e}")),
            methods::ROOTS_LIST => match params {
                None | Some(Value::Null) => Ok(InputRequest::ListRoots(None)),
                Some(v) => serde_json::from_value(v)
                    .map(|p| InputRequest::ListRoots(Some(p)))
                    .map_err(|e| format!("invalid {method} params: {e}")),
            },
            other => Err(format!("unsupported input request method {other:?}")),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct InputRequestWire {
    method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    params: Option<Value>,
}

/// Written field by field, straight from the params (the same bytes as `InputRequestWire`
/// of [`params_value`](InputRequest::params_value), without building that tree first).
impl Serialize for InputRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let has_params = !matches!(self, InputRequest::ListRoots(None));
        let mut wire = serializer.serialize_struct("InputRequest", 1 + usize::from(has_params))?;
        wire.serialize_field("method", self.method())?;
        match self {
            InputRequest::Elicit(params) => wire.serialize_field("params", params)?,
            InputRequest::Sample(params) => wire.serialize_field("params", params)?,
            InputRequest::ListRoots(Some(params)) => wire.serialize_field("params", params)?,
            InputRequest::ListRoots(None) => wire.skip_field("params")?,
        }
        wire.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = InputRequestWire::deserialize(deserializer)?;
        InputRequest::from_method(&wire.method, wire.params).map_err(serde::de::Error::custom)
    }
}

/// One answer, under the key of the question it answers.
///
/// Read as an untagged enum would (the first variant that accepts the answer), but from
/// a JSON tree instead of serde's buffered copy of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// Answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// Answer to `sampling/createMessage`.
    Sample(CreateMessageResult),
    /// Answer to `roots/list`.
    ListRoots(ListRootsResult),
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        InputResponse::from_value(&Value::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl InputResponse {
    /// Read an answer from its JSON: the first of elicitation, sampling and roots that
    /// accepts it (the order `#[serde(untagged)]` would try).
    pub(crate) fn from_value(value: &Value) -> Result<Self, &'static str> {
        if let Ok(answer) = ElicitResult::deserialize(value) {
            return Ok(InputResponse::Elicit(answer));
        }
        if let Ok(answer) = CreateMessageResult::deserialize(value) {
            return Ok(InputResponse::Sample(answer));
        }
        if let Ok(answer) = ListRootsResult::deserialize(value) {
            return Ok(InputResponse::ListRoots(answer));
        }
        Err("data did not match any variant of untagged enum InputResponse")
    }

    /// The elicitation answer, if this is one.
    pub fn as_elicit(&self) -> Option<&ElicitResult> {
        match self {
            InputResponse::Elicit(r) => Some(r),
            _ => None,
        }
    }

    /// The sampling answer, if this is one.
    pub fn as_sample(&self) -> Option<&CreateMessageResult> {
        match self {
            InputResponse::Sample(r) => Some(r),
            _ => None,
        }
    }

    /// The roots answer, if this is one.
    pub fn as_roots(&self) -> Option<&ListRootsResult> {
        match self {
            InputResponse::ListRoots(r) => Some(r),
            _ => None,
        }
    }
}

/// Questions by server-chosen key.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// Answers by the same keys.
pub type InputResponses = BTreeMap<String, InputResponse>;

fn input_required() -> ResultType {
    ResultType::InputRequired
}

/// An interim result: the server needs answers before it can finish.
///
/// The client answers every request in `input_requests` and retries the same
/// request with `inputResponses` under the same keys and `requestState` echoed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Always `input_required`.
    #[serde(default = "input_required")]
    pub result_type: ResultType,
    /// The questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client echoes on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Default for InputRequiredResult {
    fn default() -> Self {
        InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: None,
            request_state: None,
            meta: None,
        }
    }
}

impl InputRequiredResult {
    /// A result asking one question under `key`.
    pub fn ask(key: impl Into<String>, request: InputRequest) -> Self {
        let mut requests = InputRequests::new();
        requests.insert(key.into(), request);
        InputRequiredResult { input_requests: Some(requests), ..Default::default() }
    }

    /// Add a question under `key`.
    #[must_use]
    pub fn and_ask(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.input_requests.get_or_insert_with(InputRequests::new).insert(key.into(), request);
        self
    }

    /// Set the state the client echoes back.
    #[must_use]
    pub fn with_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }

    /// A result that only asks the client to retry with this state.
    pub fn state_only(state: impl Into<String>) -> Self {
        InputRequiredResult { request_state: Some(state.into()), ..Default::default() }
    }

    /// Whether the result carries what the spec requires: questions, state, or both.
    pub fn is_well_formed(&self) -> bool {
        self.input_requests.as_ref().is_some_and(|r| !r.is_empty()) || self.request_state.is_some()
    }
}

/// What a carrier method (`tools/call`, `prompts/get`, `resources/read`) returns:
/// a final result or an [`InputRequiredResult`].
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<T> {
    /// The final result.
    Complete(T),
    /// The server needs input first.
    InputRequired(InputRequiredResult),
    /// The server runs the request as a task (`tools/call` only, for a client that
    /// declared the tasks extension): the client polls `tasks/get` for the result.
    Task(super::CreateTaskResult),
}

impl<T> From<InputRequiredResult> for Outcome<T> {
    fn from(value: InputRequiredResult) -> Self {
        Outcome::InputRequired(value)
    }
}

macro_rules! outcome_from {
    ($($ty:ty),*) => {$(
        impl From<$ty> for Outcome<$ty> {
            fn from(value: $ty) -> Self {
                Outcome::Complete(value)
            }
        }
    )*};
}
outcome_from!(super::CallToolResult, super::GetPromptResult, super::ReadResourceResult);

impl<T: Serialize> Serialize for Outcome<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Complete(r) => r.serialize(serializer),
            Outcome::InputRequired(r) => r.serialize(serializer),
            Outcome::Task(r) => r.serialize(serializer),
        }
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Outcome<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match value.get("resultType").and_then(Value::as_str) {
            Some("input_required") => {
                serde_json::from_value(value).map(Outcome::InputRequired).map_err(serde::de::Error::custom)
            }
            Some("task") => serde_json::from_value(value).map(Outcome::Task).map_err(serde::de::Error::custom),
            _ => serde_json::from_value(value).map(Outcome::Complete).map_err(serde::de::Error::custom),
        }
    }
}

/// `tools/call` outcome.
pub type CallToolOutcome = Outcome<super::CallToolResult>;
/// `prompts/get` outcome.
pub type GetPromptOutcome = Outcome<super::GetPromptResult>;
/// `resources/read` outcome.
pub type ReadResourceOutcome = Outcome<super::ReadResourceResult>;

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{InputRequest, InputRequestWire};

    /// The bytes the tree-free `Serialize` writes are those of the wire struct around
    /// `params_value()`, key order and number formatting included: sealed request state
    /// binds a digest of them, so a change would refuse rounds across an upgrade.
    #[test]
    fn serializes_the_same_bytes_as_through_a_tree() {
        let cases: [(&str, Option<Value>); 6] = [
            (
                "elicitation/create",
                Some(json!({"message": "Which region?\n\u{e9}\u{1F600} \"q\"", "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "title": "Region", "minLength": 2, "default": "eu-west-1"},
                        "size": {"type": "number", "minimum": 0.5, "maximum": 1e21},
                        "tier": {"type": "string", "enum": ["a", "b"]},
                        "ok": {"type": "boolean", "default": true}
                    },
                    "required": ["region", "ok"]
                }})),
            ),
            (
                "elicitation/create",
                Some(
                    json!({"mode": "url", "message": "Sign in", "url": "https://example.com/a?b=c", "elicitationId": "e-1"}),
                ),
            ),
            (
                "sampling/createMessage",
                Some(json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                    "maxTokens": 100, "temperature": 0.7, "stopSequences": ["\n"],
                    "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.25},
                    "metadata": {"k": [1, -2, 3.5e-7]}
                })),
            ),
            ("roots/list", None),
            ("roots/list", Some(json!({}))),
            ("roots/list", Some(json!({"_meta": {"x": 1}}))),
        ];
        for (method, params) in cases {
            let request = InputRequest::from_method(method, params).expect("a valid input request");
            let direct = serde_json::to_string(&request).expect("serializes");
            let through_tree = serde_json::to_string(&InputRequestWire {
                method: request.method().to_owned(),
                params: request.params_value().expect("params to a tree"),
            })
            .expect("serializes");
            assert_eq!(direct, through_tree, "{method}");
            let back: InputRequest = serde_json::from_str(&direct).expect("reads back");
            assert_eq!(back, request, "{method}");
        }
    }
}
