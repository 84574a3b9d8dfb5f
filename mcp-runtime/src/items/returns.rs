//! What item functions may return, and how each becomes a protocol result.

use serde::Serialize;
use serde_json::Value;

use crate::Error;
use crate::protocol::{
    BlobResourceContents, CallToolOutcome, CallToolResult, ContentBlock, GetPromptOutcome, GetPromptResult,
    InputRequiredResult, JsonObject, Outcome, PromptMessage, ReadResourceOutcome, ReadResourceResult, ResourceContents,
    TextResourceContents,
};

/// Structured tool output: `T` is sent as `structuredContent` (and as JSON text), and its
/// JSON Schema becomes the tool's `outputSchema`. Non-object values are wrapped as
/// `{"result": value}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// Binary resource contents, sent base64-encoded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Blob(pub Vec<u8>);

/// A value a `#[mcp::tool]` function can return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this return type",
    note = "return `String`, `CallToolResult`, content blocks, `InputRequiredResult`, `Json<T>`, any `Serialize + JsonSchema` type, or `Result<_, E: Display>`"
)]
pub trait IntoToolOutcome {
    /// Whether the value can be an `InputRequiredResult` (checked at compile time against
    /// `Resolve<...>` parameters: one call has one input channel). A tool whose return
    /// type says `false` gets `ToolDef::MAY_REQUIRE_INPUT = false`: should the conversion
    /// produce an `InputRequiredResult` all the same, the call fails with a JSON-RPC
    /// internal error.
    const MAY_REQUIRE_INPUT: bool = true;
    /// The conversion.
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error>;
    /// The `outputSchema` this return type implies.
    fn output_schema() -> Option<JsonObject> {
        None
    }
}

impl IntoToolOutcome for String {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        Ok(CallToolResult::text(self).into())
    }
}

impl IntoToolOutcome for &str {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        Ok(CallToolResult::text(self).into())
    }
}

impl IntoToolOutcome for () {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        Ok(CallToolResult::content(Vec::new()).into())
    }
}

impl IntoToolOutcome for CallToolResult {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        Ok(self.into())
    }
}

impl IntoToolOutcome for ContentBlock {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        Ok(CallToolResult::content(vec![self]).into())
    }
}

impl IntoToolOutcome for Vec<ContentBlock> {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        Ok(CallToolResult::content(self).into())
    }
}

impl IntoToolOutcome for InputRequiredResult {
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        Ok(Outcome::InputRequired(self))
    }
}

impl IntoToolOutcome for CallToolOutcome {
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        Ok(self)
    }
}

/// The `outputSchema` of `T`: its JSON Schema, wrapped as `{result: ...}` unless it is an
/// object. Properties come in field order, and only standard `format`s are emitted
/// ([`StandardFormats`](super::StandardFormats)).
pub fn output_schema_of<T: schemars::JsonSchema>() -> JsonObject {
    let schema = super::standard_formats::schema_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.shift_remove("$schema");
        map.shift_remove("title");
    }
    let is_object = value.get("type").and_then(Value::as_str) == Some("object");
    if is_object && let Value::Object(map) = value {
        return map;
    }
    let mut defs = None;
    if let Value::Object(map) = &mut value {
        defs = map.shift_remove("$defs");
    }
    let mut wrapped = serde_json::json!({
        "type": "object",
        "properties": {"result": value},
        "required": ["result"],
    });
    if let (Some(defs), Value::Object(map)) = (defs, &mut wrapped) {
        map.insert("$defs".into(), defs);
    }
    match wrapped {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// A structured result: `structuredContent` plus the same JSON as text.
pub fn structured<T: Serialize + schemars::JsonSchema>(value: &T) -> Result<CallToolOutcome, Error> {
    let json =
        serde_json::to_value(value).map_err(|e| Error::internal(format!("could not encode the tool's output: {e}")))?;
    let structured = if json.is_object() { json } else { serde_json::json!({ "result": json }) };
    let text = structured.to_string();
    Ok(CallToolResult { structured_content: Some(structured), ..CallToolResult::text(text) }.into())
}

impl<T: Serialize + schemars::JsonSchema> IntoToolOutcome for Json<T> {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        structured(&self.0)
    }
    fn output_schema() -> Option<JsonObject> {
        Some(output_schema_of::<T>())
    }
}

/// A value a `#[mcp::prompt]` function can return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    label = "this return type",
    note = "return `String`, `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, `InputRequiredResult`, or `Result<_, E: Display>`"
)]
pub trait IntoPromptOutcome {
    /// The conversion.
    fn into_prompt_outcome(self) -> Result<GetPromptOutcome, Error>;
}

impl IntoPromptOutcome for String {
    fn into_prompt_outcome(self) -> Result<GetPromptOutcome, Error> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]).into())
    }
}

impl IntoPromptOutcome for &str {
    fn into_prompt_outcome(self) -> Result<GetPromptOutcome, Error> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]).into())
    }
}

impl IntoPromptOutcome for PromptMessage {
    fn into_prompt_outcome(self) -> Result<GetPromptOutcome, Error> {
        Ok(GetPromptResult::new(vec![self]).into())
    }
}

impl IntoPromptOutcome for Vec<PromptMessage> {
    fn into_prompt_outcome(self) -> Result<GetPromptOutcome, Error> {
        Ok(GetPromptResult::new(self).into())
    }
}

impl IntoPromptOutcome for GetPromptResult {
    fn into_prompt_outcome(self) -> Result<GetPromptOutcome, Error> {
        Ok(self.into())
    }
}

impl IntoPromptOutcome for InputRequiredResult {
    fn into_prompt_outcome(self) -> Result<GetPromptOutcome, Error> {
        Ok(Outcome::InputRequired(self))
    }
}

impl IntoPromptOutcome for GetPromptOutcome {
    fn into_prompt_outcome(self) -> Result<GetPromptOutcome, Error> {
        Ok(self)
    }
}

/// A value a `#[mcp::resource]` function can return. `uri` and `mime_type` describe the
/// resource read, for values that do not carry them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "this return type",
    note = "return `String` (text), `Vec<u8>` or `Blob` (binary), `ResourceContents`, `Vec<ResourceContents>`, `ReadResourceResult`, `InputRequiredResult` (templates only), or `Result<_, E: Display>`"
)]
pub trait IntoResourceOutcome {
    /// Whether the value can be an `InputRequiredResult` (static resources may not ask).
    const MAY_REQUIRE_INPUT: bool = true;
    /// The conversion.
    fn into_resource_outcome(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceOutcome, Error>;
}

impl IntoResourceOutcome for String {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_resource_outcome(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        let contents = TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(mime_type.unwrap_or("text/plain").to_owned()),
            text: self,
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![ResourceContents::Text(contents)]).into())
    }
}

impl IntoResourceOutcome for &str {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_resource_outcome(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        self.to_owned().into_resource_outcome(uri, mime_type)
    }
}

impl IntoResourceOutcome for Blob {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_resource_outcome(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        use base64::Engine;
        let contents = BlobResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(mime_type.unwrap_or("application/octet-stream").to_owned()),
            blob: base64::engine::general_purpose::STANDARD.encode(self.0),
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![ResourceContents::Blob(contents)]).into())
    }
}

impl IntoResourceOutcome for Vec<u8> {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_resource_outcome(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        Blob(self).into_resource_outcome(uri, mime_type)
    }
}

impl IntoResourceOutcome for ResourceContents {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_resource_outcome(self, _uri: &str, _mime: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        Ok(ReadResourceResult::new(vec![self]).into())
    }
}

impl IntoResourceOutcome for Vec<ResourceContents> {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_resource_outcome(self, _uri: &str, _mime: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        Ok(ReadResourceResult::new(self).into())
    }
}

impl IntoResourceOutcome for ReadResourceResult {
    const MAY_REQUIRE_INPUT: bool = false;
    fn into_resource_outcome(self, _uri: &str, _mime: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        Ok(self.into())
    }
}

impl IntoResourceOutcome for InputRequiredResult {
    fn into_resource_outcome(self, _uri: &str, _mime: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        Ok(Outcome::InputRequired(self))
    }
}

impl IntoResourceOutcome for ReadResourceOutcome {
    fn into_resource_outcome(self, _uri: &str, _mime: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        Ok(self)
    }
}

impl<T: IntoToolOutcome, E: std::fmt::Display> IntoToolOutcome for Result<T, E> {
    const MAY_REQUIRE_INPUT: bool = T::MAY_REQUIRE_INPUT;
    fn into_tool_outcome(self) -> Result<CallToolOutcome, Error> {
        match self {
            Ok(value) => value.into_tool_outcome(),
            Err(e) => Ok(CallToolResult::error(e.to_string()).into()),
        }
    }
    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }
}

impl<T: IntoPromptOutcome, E: std::fmt::Display> IntoPromptOutcome for Result<T, E> {
    fn into_prompt_outcome(self) -> Result<GetPromptOutcome, Error> {
        match self {
            Ok(value) => value.into_prompt_outcome(),
            Err(e) => Err(Error::internal(e.to_string())),
        }
    }
}

impl<T: IntoResourceOutcome, E: std::fmt::Display> IntoResourceOutcome for Result<T, E> {
    const MAY_REQUIRE_INPUT: bool = T::MAY_REQUIRE_INPUT;
    fn into_resource_outcome(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceOutcome, Error> {
        match self {
            Ok(value) => value.into_resource_outcome(uri, mime_type),
            Err(e) => Err(Error::internal(e.to_string())),
        }
    }
}
