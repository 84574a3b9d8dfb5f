//! Tools: definitions, `tools/list` and `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CacheScope, Cursor};
use super::{ContentBlock, Icon, InputResponses, JsonObject, Meta, Params, RequestMeta, ResultType};

/// A tool the model can call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name (1–128 characters of `[A-Za-z0-9_.-]`).
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; its root is `type: object`.
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Tool {
    /// A tool with a name, a description and an input schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        let input_schema = match input_schema {
            Value::Object(map) => map,
            _ => {
                let mut map = JsonObject::new();
                map.insert("type".into(), Value::String("object".into()));
                map
            }
        };
        Tool { name: name.into(), description: Some(description.into()), input_schema, ..Default::default() }
    }

    /// A tool with a name and an input schema (an object schema), and nothing else set.
    pub fn with_input_schema(name: impl Into<String>, input_schema: JsonObject) -> Self {
        Tool { name: name.into(), input_schema, ..Default::default() }
    }

    optional_setter!(
        /// Set the display name.
        with_title => title: into String
    );

    optional_setter!(
        /// Set the description.
        with_description => description: into String
    );

    optional_setter!(
        /// Set the JSON Schema of `structuredContent`.
        with_output_schema => output_schema: JsonObject
    );

    optional_setter!(
        /// Set the behaviour hints.
        with_annotations => annotations: ToolAnnotations
    );

    optional_setter!(
        /// Set the icons.
        with_icons => icons: Vec<Icon>
    );

    optional_setter!(
        /// Set the `_meta` object.
        with_meta => meta: Meta
    );
}

/// Hints about a tool's behaviour. Untrusted unless the server is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// No hints set.
    pub fn new() -> Self {
        Self::default()
    }

    optional_setter!(
        /// Set the display name.
        with_title => title: into String
    );

    optional_setter!(
        /// Say whether the tool leaves its environment unchanged.
        with_read_only_hint => read_only_hint: bool
    );

    optional_setter!(
        /// Say whether the tool may perform destructive updates.
        with_destructive_hint => destructive_hint: bool
    );

    optional_setter!(
        /// Say whether repeating a call with the same arguments has no further effect.
        with_idempotent_hint => idempotent_hint: bool
    );

    optional_setter!(
        /// Say whether the tool interacts with an open world of external entities.
        with_open_world_hint => open_world_hint: bool
    );
}

/// Parameters of list requests (`tools/list`, `prompts/list`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
    /// Where to continue, from a previous `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
}

/// The result of `tools/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// The tools.
    pub tools: Vec<Tool>,
    /// Cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// How long the client may cache this, in milliseconds (the server fills a default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache this (the server fills a default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListToolsResult {
    /// A complete list.
    pub fn new(tools: Vec<Tool>) -> Self {
        ListToolsResult { tools, ..Default::default() }
    }
}

/// Parameters of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RequestMeta>>,
    /// The tool to call.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Answers to the previous round's `inputRequests`, under the same keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`, echoed unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl CallToolParams {
    /// Read the params of a `tools/call` from their JSON object, moving the arguments and
    /// answers out of it instead of copying them into new maps (what deserializing from a
    /// tree does). It accepts and refuses what `Deserialize` does, with the same messages.
    pub fn from_object(object: JsonObject) -> Result<Self, serde_json::Error> {
        Self::read_object(object, true)
    }

    /// [`from_object`](Self::from_object), reading `_meta` into [`meta`](Self::meta) only
    /// if `meta` is set (otherwise it is dropped unread, and `meta` is `None`): for a
    /// receiver that never looks at it, of a request whose `_meta` was checked already.
    pub(crate) fn read_object(object: JsonObject, meta: bool) -> Result<Self, serde_json::Error> {
        Self::read_params(Params::from(object), meta)
    }

    /// [`read_object`](Self::read_object) for params as a request holds them: a member
    /// kept as text is built only if it is read (so an unread `_meta` is never built).
    pub(crate) fn read_params(params: Params, meta: bool) -> Result<Self, serde_json::Error> {
        let mut read = CallToolParams::default();
        let mut named = false;
        params.take_each(|key, value| {
            match key {
                "_meta" if meta => read.meta = Option::<Box<RequestMeta>>::deserialize(value.into_value())?,
                "name" => {
                    read.name = String::deserialize(value.into_value())?;
                    named = true;
                }
                "arguments" => {
                    read.arguments = match value.into_value() {
                        Value::Object(arguments) => Some(arguments),
                        other => Option::<JsonObject>::deserialize(other)?,
                    }
                }
                "inputResponses" => read.input_responses = input_responses(value.into_value())?,
                "requestState" => read.request_state = Option::<String>::deserialize(value.into_value())?,
                _ => {}
            }
            Ok::<(), serde_json::Error>(())
        })?;
        if !named {
            return Err(serde::de::Error::missing_field("name"));
        }
        Ok(read)
    }
}

/// `inputResponses` read from its tree, each answer from its own value.
pub(crate) fn input_responses(value: Value) -> Result<Option<InputResponses>, serde_json::Error> {
    let Value::Object(answers) = value else {
        return Option::<InputResponses>::deserialize(value);
    };
    let mut read = InputResponses::new();
    for (key, answer) in answers {
        let answer = super::InputResponse::from_value(&answer).map_err(serde::de::Error::custom)?;
        read.insert(key, answer);
    }
    Ok(Some(read))
}

/// The result of a tool call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// Unstructured content.
    pub content: Vec<ContentBlock>,
    /// Structured content (any JSON value), matching the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed (a result the model can see, not a protocol error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult { content: vec![ContentBlock::text(text)], ..Default::default() }
    }

    /// A successful result with these blocks.
    pub fn content(content: Vec<ContentBlock>) -> Self {
        CallToolResult { content, ..Default::default() }
    }

    /// A failed result (`isError: true`) with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        CallToolResult { content: vec![ContentBlock::text(text)], is_error: Some(true), ..Default::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::InputResponse;
    use serde_json::json;

    /// What `from_object` must match: the derived reading through a tree.
    fn derived(value: &Value) -> Result<CallToolParams, String> {
        serde_json::from_value(value.clone()).map_err(|e| e.to_string())
    }

    #[test]
    fn from_object_reads_and_refuses_what_deserialize_does() {
        let elicit = json!({"action": "accept", "content": {"region": "eu-west-1"}});
        let sample = json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"});
        let roots = json!({"roots": [{"uri": "file:///tmp"}]});
        let cases = [
            json!({"name": "echo"}),
            json!({"name": "echo", "arguments": {"text": "hello", "n": [1, 2.5, {"x": null}]}}),
            json!({"name": "echo", "arguments": null, "inputResponses": null, "requestState": null, "_meta": null}),
            json!({"name": "echo", "unknown": {"deep": [1]}, "_meta": {"progressToken": 7}}),
            json!({"name": "p", "inputResponses": {"a": elicit, "b": sample, "c": roots}, "requestState": "v1.x"}),
            json!({"name": "p", "inputResponses": {"a": {"action": "decline"}}}),
            // Refused: each with the message the derived reading gives.
            json!({}),
            json!({"arguments": {}}),
            json!({"name": 7}),
            json!({"name": null}),
            json!({"name": "echo", "arguments": "text"}),
            json!({"name": "echo", "arguments": [1]}),
            json!({"name": "echo", "requestState": 5}),
            json!({"name": "echo", "inputResponses": [1]}),
            json!({"name": "echo", "inputResponses": {"a": 1}}),
            json!({"name": "echo", "inputResponses": {"a": {"action": "maybe"}}}),
            json!({"name": "echo", "_meta": "x"}),
        ];
        for case in cases {
            let Value::Object(object) = case.clone() else { panic!("cases are objects") };
            let ours = CallToolParams::from_object(object).map_err(|e| e.to_string());
            assert_eq!(ours, derived(&case), "{case}");
            // The same, from params kept as the text a request arrived as.
            let text = crate::protocol::read_params_text(&case.to_string()).expect("valid params");
            let read = CallToolParams::read_params(text, true).map_err(|e| e.to_string());
            assert_eq!(read, derived(&case), "{case} as text");
        }
    }

    /// Without `_meta`, the reading is the same but for `meta`, left `None`, and a
    /// malformed `_meta`, no longer refused.
    #[test]
    fn read_object_can_leave_meta_unread() {
        let cases = [
            json!({"name": "echo", "arguments": {"text": "hello"}, "_meta": {"progressToken": 7, "x/y": [1]}}),
            json!({"name": "echo", "requestState": "s", "_meta": null}),
            json!({"arguments": {}, "_meta": {}}),
            json!({"name": "echo", "requestState": 5, "_meta": {}}),
        ];
        for case in cases {
            let Value::Object(object) = case.clone() else { panic!("cases are objects") };
            let unread = CallToolParams::read_object(object.clone(), false).map_err(|e| e.to_string());
            let read = CallToolParams::from_object(object).map(|p| CallToolParams { meta: None, ..p });
            assert_eq!(unread, read.map_err(|e| e.to_string()), "{case}");
        }
        let Value::Object(odd) = json!({"name": "echo", "_meta": "x"}) else { panic!("an object") };
        assert!(CallToolParams::from_object(odd.clone()).is_err());
        let unread = CallToolParams::read_object(odd, false).expect("_meta is not read");
        assert_eq!((unread.name.as_str(), unread.meta), ("echo", None));
    }

    /// The untagged enum `InputResponse` used to be (same name, so the same messages);
    /// its hand-written reading must agree.
    mod untagged {
        use crate::protocol::{CreateMessageResult, ElicitResult, ListRootsResult};

        #[derive(Debug, serde::Deserialize)]
        #[serde(untagged)]
        pub(super) enum InputResponse {
            Elicit(ElicitResult),
            Sample(CreateMessageResult),
            ListRoots(ListRootsResult),
        }
    }

    #[test]
    fn input_responses_pick_the_variant_an_untagged_enum_picks() {
        let cases = [
            json!({"action": "accept", "content": {"a": 1}}),
            json!({"action": "cancel"}),
            json!({"role": "assistant", "content": {"type": "text", "text": "t"}, "model": "m"}),
            json!({"roots": []}),
            // Both an elicitation answer and a sampling one: the first variant wins.
            json!({"action": "accept", "role": "user", "content": {"type": "text", "text": "t"}, "model": "m"}),
            // Not an elicitation answer (bad action), but a sampling one.
            json!({"action": 3, "role": "user", "content": {"type": "text", "text": "t"}, "model": "m"}),
            json!({"nothing": true}),
            json!(null),
            json!("accept"),
        ];
        for case in cases {
            let ours = serde_json::from_value::<InputResponse>(case.clone()).map_err(|e| e.to_string());
            let untagged = serde_json::from_value::<untagged::InputResponse>(case.clone())
                .map_err(|e| e.to_string())
                .map(|u| match u {
                    untagged::InputResponse::Elicit(r) => InputResponse::Elicit(r),
                    untagged::InputResponse::Sample(r) => InputResponse::Sample(r),
                    untagged::InputResponse::ListRoots(r) => InputResponse::ListRoots(r),
                });
            assert_eq!(ours, untagged, "{case}");
        }
    }
}
