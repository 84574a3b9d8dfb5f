//! Support for the code the macros generate. Not a public API: no semver promise.

pub use schemars;
pub use serde;
pub use serde_json;

use std::marker::PhantomData;

use crate::Error;
pub use crate::handler::BoxFuture;
use crate::items::{IntoPromptOutcome, IntoResourceOutcome, IntoToolOutcome};
use crate::protocol::{CallToolOutcome, CallToolResult, GetPromptOutcome, JsonObject, ReadResourceOutcome};

/// A prompt argument by name, parsed from its string form.
pub fn prompt_arg<T: StrParam>(
    arguments: &std::collections::BTreeMap<String, String>,
    name: &str,
) -> Result<Option<T>, Error> {
    match arguments.get(name) {
        None => Ok(None),
        Some(raw) => T::parse_param(raw)
            .map(Some)
            .map_err(|e| Error::invalid_params(format!("Invalid value for argument '{name}': {e}"))),
    }
}

/// The error for a required prompt argument that is missing.
pub fn missing_arg(name: &str) -> Error {
    Error::invalid_params(format!("Missing required argument: {name}"))
}

/// A resource template variable, parsed from its string form.
pub fn template_var<T: StrParam>(vars: &crate::items::template::Variables, name: &str) -> Result<T, Error> {
    let raw = vars.get(name).ok_or_else(|| Error::internal(format!("template variable '{name}' is missing")))?;
    T::parse_param(raw).map_err(|e| Error::invalid_params(format!("Invalid value for '{name}' in the URI: {e}")))
}

/// Wraps a tool's return value for conversion (autoref dispatch: a type implementing
/// `IntoToolOutcome` converts through it; any other `Serialize + JsonSchema` type is
/// structured output).
pub struct Ret<T>(pub T);

/// First choice: the value knows how to become a tool result.
pub trait ViaIntoTool {
    /// Convert.
    fn __mcp_tool(self) -> Result<CallToolOutcome, Error>;
}

impl<T: IntoToolOutcome> ViaIntoTool for Ret<T> {
    fn __mcp_tool(self) -> Result<CallToolOutcome, Error> {
        self.0.into_tool_outcome()
    }
}

/// Second choice: structured output.
pub trait ViaStructured {
    /// Convert.
    fn __mcp_tool(self) -> Result<CallToolOutcome, Error>;
}

impl<T: serde::Serialize + schemars::JsonSchema> ViaStructured for &Ret<T> {
    fn __mcp_tool(self) -> Result<CallToolOutcome, Error> {
        crate::items::returns_structured(&self.0)
    }
}

/// Last choice, taken only when neither of the above applies: the method's bound then
/// fails and reports `IntoToolOutcome`'s message at the return type (rather than a
/// "method exists but its trait bounds were not satisfied" error about internals).
pub trait ViaNeither<T> {
    /// Never runs: when `T: IntoToolOutcome`, [`ViaIntoTool`] is chosen first.
    fn __mcp_tool(self) -> Result<CallToolOutcome, Error>
    where
        T: IntoToolOutcome;
}

impl<T> ViaNeither<T> for &mut Ret<T> {
    fn __mcp_tool(self) -> Result<CallToolOutcome, Error>
    where
        T: IntoToolOutcome,
    {
        Err(Error::internal("unreachable: the return value converts through `IntoToolOutcome`"))
    }
}

/// Names a return type for schema dispatch.
pub struct RetType<T>(PhantomData<T>);

impl<T> RetType<T> {
    /// The probe.
    pub const NEW: Self = RetType(PhantomData);
}

/// First choice: the return type states its output schema.
pub trait SchemaViaIntoTool {
    /// The output schema.
    fn __mcp_output_schema(&self) -> Option<JsonObject>;
}

impl<T: IntoToolOutcome> SchemaViaIntoTool for RetType<T> {
    fn __mcp_output_schema(&self) -> Option<JsonObject> {
        T::output_schema()
    }
}

/// Second choice: structured output's schema.
pub trait SchemaViaStructured {
    /// The output schema.
    fn __mcp_output_schema(&self) -> Option<JsonObject>;
}

impl<T: schemars::JsonSchema> SchemaViaStructured for &RetType<T> {
    fn __mcp_output_schema(&self) -> Option<JsonObject> {
        Some(crate::items::output_schema_of::<T>())
    }
}

/// Last choice: no schema (the conversion reports the error for such a type).
pub trait SchemaViaNeither {
    /// No output schema.
    fn __mcp_output_schema(&mut self) -> Option<JsonObject>;
}

impl<T> SchemaViaNeither for &RetType<T> {
    fn __mcp_output_schema(&mut self) -> Option<JsonObject> {
        None
    }
}

/// Whether a return type may carry an `InputRequiredResult`, for compile-time checks
/// (true only when it converts through `IntoToolOutcome`/`IntoResourceOutcome` and says so).
pub struct Probe<T>(PhantomData<T>);

/// Fallback: types that convert as structured output never ask for input.
pub trait ProbeFallback {
    /// False.
    const TOOL_MAY_REQUIRE_INPUT: bool = false;
    /// False.
    const RESOURCE_MAY_REQUIRE_INPUT: bool = false;
    /// False.
    const IS_QUESTION: bool = false;
}

impl<T> ProbeFallback for Probe<T> {}

impl<T: IntoToolOutcome> Probe<T> {
    /// What the return type says.
    pub const TOOL_MAY_REQUIRE_INPUT: bool = T::MAY_REQUIRE_INPUT;
}

impl<T: Question> Probe<T> {
    /// A resolver's return type that asks a question.
    pub const IS_QUESTION: bool = true;
}

/// The resolver behind a `Resolve<R, W>` parameter.
pub trait ResolveParam {
    /// `R`.
    type Resolver: Resolver;
}

impl<R: Resolver, W: crate::resolve::Want> ResolveParam for crate::Resolve<R, W> {
    type Resolver = R;
}

/// Resource returns, probed separately.
pub struct ResourceProbe<T>(PhantomData<T>);

impl<T> ProbeFallback for ResourceProbe<T> {}

impl<T: IntoResourceOutcome> ResourceProbe<T> {
    /// What the return type says.
    pub const RESOURCE_MAY_REQUIRE_INPUT: bool = T::MAY_REQUIRE_INPUT;
}

/// Wraps an error for conversion: `mcp::Error` keeps its code, anything `Display`
/// becomes `-32603` with its text.
pub struct ErrWrap<E>(pub E);

/// First choice: already an `mcp::Error`.
pub trait ErrViaMcp {
    /// Convert.
    fn __mcp_error(&self) -> Error;
}

impl ErrViaMcp for ErrWrap<Error> {
    fn __mcp_error(&self) -> Error {
        self.0.clone()
    }
}

/// Second choice: anything printable.
pub trait ErrViaDisplay {
    /// Convert.
    fn __mcp_error(&self) -> Error;
}

impl<E: std::fmt::Display> ErrViaDisplay for &ErrWrap<E> {
    fn __mcp_error(&self) -> Error {
        Error::internal(self.0.to_string())
    }
}

/// First choice for a tool's `Err`: an `mcp::Error` is a JSON-RPC error.
pub trait ToolErrViaMcp {
    /// Convert.
    fn __mcp_tool_error(&self) -> Result<CallToolOutcome, Error>;
}

impl ToolErrViaMcp for ErrWrap<Error> {
    fn __mcp_tool_error(&self) -> Result<CallToolOutcome, Error> {
        Err(self.0.clone())
    }
}

/// Second choice: anything printable is an `isError` result the model can read.
pub trait ToolErrViaDisplay {
    /// Convert.
    fn __mcp_tool_error(&self) -> Result<CallToolOutcome, Error>;
}

impl<E: std::fmt::Display> ToolErrViaDisplay for &ErrWrap<E> {
    fn __mcp_tool_error(&self) -> Result<CallToolOutcome, Error> {
        Ok(CallToolResult::error(self.0.to_string()).into())
    }
}

/// Convert a prompt function's value.
pub fn prompt_outcome<T: IntoPromptOutcome>(value: T) -> Result<GetPromptOutcome, Error> {
    value.into_prompt_outcome()
}

/// Convert a resource function's value.
pub fn resource_outcome<T: IntoResourceOutcome>(
    value: T,
    uri: &str,
    mime_type: Option<&str>,
) -> Result<ReadResourceOutcome, Error> {
    value.into_resource_outcome(uri, mime_type)
}

/// A tool parameter type, decoded from JSON. (Its schema comes from [`ToolParamSchema`];
/// the two are separate bounds so that each missing derive is one precise error.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `serde::Deserialize`",
    label = "tool parameter types must be `Deserialize + JsonSchema`",
    note = "derive `serde::Deserialize` for it (tool parameters need both `serde::Deserialize` and `schemars::JsonSchema`)"
)]
pub trait ToolParam: Sized {
    /// Decode from the argument's JSON.
    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error>;
    /// Decode an `Option<Self>` parameter. (Bounding the inner type rather than the
    /// `Option` keeps this trait's message when the inner type lacks a derive.)
    fn decode_optional(value: serde_json::Value) -> Result<Option<Self>, serde_json::Error>;
}

impl<T: serde::de::DeserializeOwned> ToolParam for T {
    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }
    fn decode_optional(value: serde_json::Value) -> Result<Option<Self>, serde_json::Error> {
        serde_json::from_value(value)
    }
}

/// A tool parameter type, described by a JSON Schema in the tool's input schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `schemars::JsonSchema`",
    label = "tool parameter types must be `Deserialize + JsonSchema`",
    note = "derive `schemars::JsonSchema` for it (tool parameters need both `serde::Deserialize` and `schemars::JsonSchema`)"
)]
pub trait ToolParamSchema {
    /// Its schema.
    fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
    /// The schema of `Option<Self>`.
    fn optional_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
}

impl<T: schemars::JsonSchema> ToolParamSchema for T {
    fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        generator.subschema_for::<T>()
    }
    fn optional_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        generator.subschema_for::<Option<T>>()
    }
}

/// Builds a tool's input schema parameter by parameter.
pub struct InputSchema {
    generator: schemars::SchemaGenerator,
    properties: JsonObject,
    required: Vec<serde_json::Value>,
}

impl Default for InputSchema {
    fn default() -> Self {
        InputSchema {
            generator: schemars::SchemaGenerator::default(),
            properties: JsonObject::new(),
            required: Vec::new(),
        }
    }
}

impl InputSchema {
    /// Add the parameter `name` of type `T`.
    pub fn param<T: ToolParamSchema>(
        &mut self,
        name: &str,
        description: Option<&str>,
        required: bool,
        default: Option<serde_json::Value>,
    ) {
        let schema = T::schema(&mut self.generator);
        self.insert(schema, name, description, required, default);
    }

    /// Add the parameter `name` of type `Option<T>`.
    pub fn param_optional<T: ToolParamSchema>(&mut self, name: &str, description: Option<&str>) {
        let schema = T::optional_schema(&mut self.generator);
        self.insert(schema, name, description, false, None);
    }

    fn insert(
        &mut self,
        schema: schemars::Schema,
        name: &str,
        description: Option<&str>,
        required: bool,
        default: Option<serde_json::Value>,
    ) {
        let mut schema = schema.to_value();
        if let serde_json::Value::Object(map) = &mut schema {
            if let Some(d) = description {
                map.insert("description".into(), d.into());
            }
            if let Some(default) = default {
                map.insert("default".into(), default);
            }
        } else if description.is_some() {
            let mut map = JsonObject::new();
            map.insert("allOf".into(), serde_json::Value::Array(vec![schema]));
            if let Some(d) = description {
                map.insert("description".into(), d.into());
            }
            schema = serde_json::Value::Object(map);
        }
        self.properties.insert(name.to_owned(), schema);
        if required {
            self.required.push(name.into());
        }
    }

    /// The finished schema: `type: object`, `properties`, `required`, and `$defs` when used.
    pub fn finish(mut self) -> JsonObject {
        let mut root = JsonObject::new();
        root.insert("type".into(), "object".into());
        root.insert("properties".into(), serde_json::Value::Object(self.properties));
        if !self.required.is_empty() {
            root.insert("required".into(), serde_json::Value::Array(self.required));
        }
        let defs = self.generator.take_definitions(true);
        if !defs.is_empty() {
            root.insert("$defs".into(), serde_json::Value::Object(defs));
        }
        root
    }
}

/// Serialize a parameter's default for the schema.
pub fn default_json<T: serde::Serialize>(value: &T) -> Option<serde_json::Value> {
    serde_json::to_value(value).ok()
}

/// Take the argument `name` of type `T` out of `args`; absent means JSON `null`
/// (so `Option` parameters become `None`), and a failure is the `isError` result.
pub fn arg<T: ToolParam>(args: &mut JsonObject, name: &str, tool: &str) -> Result<T, CallToolResult> {
    let present = args.contains_key(name);
    let value = args.remove(name).unwrap_or(serde_json::Value::Null);
    T::decode(value).map_err(|e| {
        if present {
            CallToolResult::error(format!("Invalid arguments for tool {tool}: `{name}`: {e}"))
        } else {
            CallToolResult::error(format!("Invalid arguments for tool {tool}: missing required argument `{name}`"))
        }
    })
}

/// Take the argument `name` of type `Option<T>` out of `args`: absent or `null` is `None`.
pub fn arg_optional<T: ToolParam>(args: &mut JsonObject, name: &str, tool: &str) -> Result<Option<T>, CallToolResult> {
    let value = args.remove(name).unwrap_or(serde_json::Value::Null);
    T::decode_optional(value)
        .map_err(|e| CallToolResult::error(format!("Invalid arguments for tool {tool}: `{name}`: {e}")))
}

/// Like [`arg`], but an absent argument takes `default()`.
pub fn arg_or<T: ToolParam>(
    args: &mut JsonObject,
    name: &str,
    tool: &str,
    default: impl FnOnce() -> T,
) -> Result<T, CallToolResult> {
    match args.get(name) {
        None | Some(serde_json::Value::Null) => Ok(default()),
        Some(_) => arg(args, name, tool),
    }
}

pub use crate::resolve::form::{choice_schema, form_schema};
pub use crate::resolve::{
    Answer, ElicitChoice, ElicitField, ElicitForm, FromRound, Graph, Plan, Question, ResolveWith, Resolver, Round,
    RoundFuture, Stop, Visit,
};

/// One letter of an argument name, so a name can be spelled as a type: `name` is
/// `(Ch<'n'>, Ch<'a'>, Ch<'m'>, Ch<'e'>)`.
pub struct Ch<const C: char>;

/// A tool's argument named `Name` (spelled with [`Ch`]), as a resolver takes it.
#[diagnostic::on_unimplemented(
    message = "a resolver behind this parameter takes a tool argument this tool does not have",
    label = "this tool has no argument spelled `{Name}`",
    note = "a resolver's parameters are tool arguments (matched by name), `Context`, or `Resolve<...>` of another resolver"
)]
pub trait ToolArg<Name> {
    /// The argument's type.
    type Ty;
    /// The argument's value.
    fn tool_arg(&self) -> &Self::Ty;
}

/// One form field for [`form_schema`]: its wire name, whether it is required (not an
/// `Option`, not `#[serde(default)]`), and its schema.
pub fn form_field<T: ElicitField>(
    name: &'static str,
    defaulted: bool,
    description: Option<String>,
) -> (&'static str, bool, crate::protocol::PrimitiveSchema) {
    (name, T::REQUIRED && !defaulted, T::field_schema(description))
}

/// End a resolver with its `Err`: an `mcp::Error` stays a JSON-RPC error, anything else
/// printable becomes an `isError` result.
pub fn resolver_error(key: &str, outcome: Result<CallToolOutcome, Error>) -> Stop {
    match outcome {
        Ok(CallToolOutcome::Complete(mut result)) => {
            if let Some(crate::protocol::ContentBlock::Text(text)) = result.content.first_mut() {
                text.text = format!("Resolver '{key}' failed: {}", text.text);
            }
            Stop::from_outcome(Ok(result.into()))
        }
        other => Stop::from_outcome(other),
    }
}

/// A prompt argument or URI template variable type: parsed from its string form.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from a prompt argument or URI variable",
    label = "this parameter's type must implement `FromStr` (with a `Display` error)",
    note = "prompt arguments and URI template variables are strings on the wire; use `String` or a `FromStr` type"
)]
pub trait StrParam: Sized {
    /// Parse, with the parse error as text.
    fn parse_param(raw: &str) -> Result<Self, String>;
}

impl<T: std::str::FromStr> StrParam for T
where
    T::Err: std::fmt::Display,
{
    fn parse_param(raw: &str) -> Result<Self, String> {
        raw.parse::<T>().map_err(|e| e.to_string())
    }
}
