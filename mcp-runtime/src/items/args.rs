//! Reading a call's arguments into the parameters of a macro-defined item: tool
//! arguments from JSON, prompt arguments and URI template variables from strings. The
//! error texts here are what a client sees when an argument is missing or malformed.

use crate::Error;
use crate::protocol::{CallToolOutcome, CallToolParams, CallToolResult, JsonObject};

use super::template::Variables;

/// A tool parameter type, decoded from JSON. (Its schema comes from
/// [`ToolParamSchema`](super::schema::ToolParamSchema); the two are separate bounds so
/// that each missing derive is one precise error.)
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

/// Take the argument `name` of type `T` out of `args`; absent means JSON `null`
/// (so `Option` parameters become `None`), and a failure is the `isError` result.
pub fn arg<T: ToolParam>(args: &mut JsonObject, name: &str, tool: &str) -> Result<T, CallToolResult> {
    arg_with(args, name, tool, T::decode)
}

/// [`arg`] with the decoding given.
fn arg_with<T>(args: &mut JsonObject, name: &str, tool: &str, decode: Decode<T>) -> Result<T, CallToolResult> {
    let present = args.contains_key(name);
    let value = args.remove(name).unwrap_or(serde_json::Value::Null);
    decode(value).map_err(|e| {
        if present {
            CallToolResult::error(format!("Invalid arguments for tool {tool}: `{name}`: {e}"))
        } else {
            CallToolResult::error(format!("Invalid arguments for tool {tool}: missing required argument `{name}`"))
        }
    })
}

/// Take the argument `name` of type `Option<T>` out of `args`: absent or `null` is `None`.
pub fn arg_optional<T: ToolParam>(args: &mut JsonObject, name: &str, tool: &str) -> Result<Option<T>, CallToolResult> {
    arg_optional_with(args, name, tool, T::decode_optional)
}

/// [`arg_optional`] with the decoding given.
fn arg_optional_with<T>(
    args: &mut JsonObject,
    name: &str,
    tool: &str,
    decode: Decode<Option<T>>,
) -> Result<Option<T>, CallToolResult> {
    let value = args.remove(name).unwrap_or(serde_json::Value::Null);
    decode(value).map_err(|e| CallToolResult::error(format!("Invalid arguments for tool {tool}: `{name}`: {e}")))
}

/// Like [`arg`], but an absent (or `null`) argument takes `default()`.
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

/// Like [`arg`], but an absent (or `null`) argument is `None`, for the caller to put
/// the parameter's default in its place. (What [`arg_or`] does, without a closure: the
/// macros use this one, so a tool's default adds no instance of a generic function.)
pub fn arg_unless_absent<T: ToolParam>(
    args: &mut JsonObject,
    name: &str,
    tool: &str,
) -> Result<Option<T>, CallToolResult> {
    arg_unless_absent_with(args, name, tool, T::decode)
}

/// [`arg_unless_absent`] with the decoding given.
fn arg_unless_absent_with<T>(
    args: &mut JsonObject,
    name: &str,
    tool: &str,
    decode: Decode<T>,
) -> Result<Option<T>, CallToolResult> {
    match args.get(name) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(_) => arg_with(args, name, tool, decode).map(Some),
    }
}

/// A tool's argument as the macros describe it: its name and how it is decoded, as
/// [`arg`], [`arg_optional`] or [`arg_unless_absent`] would. Built by [`required`],
/// [`optional`] and [`defaulted`], which check the type; [`decode_args`] reads a tuple
/// of them, in one instance of a generic function for each shape of parameter list
/// (rather than code for each argument of each tool).
pub struct ArgSpec<T, V> {
    name: &'static str,
    decode: Decode<V>,
    take: fn(&mut JsonObject, &str, &str, Decode<V>) -> Result<T, CallToolResult>,
}

/// Decoding a parameter type from the argument's JSON.
type Decode<V> = fn(serde_json::Value) -> Result<V, serde_json::Error>;

/// A required argument of type `T` (absent is JSON `null`, as for [`arg`]).
pub const fn required<T: ToolParam>(name: &'static str) -> ArgSpec<T, T> {
    ArgSpec { name, decode: T::decode, take: arg_with }
}

/// An `Option<T>` argument: absent or `null` is `None`.
pub const fn optional<T: ToolParam>(name: &'static str) -> ArgSpec<Option<T>, Option<T>> {
    ArgSpec { name, decode: T::decode_optional, take: arg_optional_with }
}

/// An argument with a default: absent or `null` is `None`, for the caller to put the
/// default in its place.
pub const fn defaulted<T: ToolParam>(name: &'static str) -> ArgSpec<Option<T>, T> {
    ArgSpec { name, decode: T::decode, take: arg_unless_absent_with }
}

/// A tuple of [`ArgSpec`]s, up to 12 (the macros decode longer lists one argument at a time).
pub trait ArgSpecs {
    /// The decoded values, a tuple in the same order.
    type Values;
    /// Take each argument out of `args` in order, stopping at the first that fails.
    fn take_all(&self, args: &mut JsonObject, tool: &str) -> Result<Self::Values, CallToolResult>;
}

macro_rules! arg_specs {
    ($($t:ident $v:ident $x:ident),*) => {
        impl<$($t, $v),*> ArgSpecs for ($(ArgSpec<$t, $v>,)*) {
            type Values = ($($t,)*);
            fn take_all(&self, args: &mut JsonObject, tool: &str) -> Result<Self::Values, CallToolResult> {
                let ($($x,)*) = self;
                Ok(($(($x.take)(args, $x.name, tool, $x.decode)?,)*))
            }
        }
    };
}

arg_specs!(T0 V0 a0);
arg_specs!(T0 V0 a0, T1 V1 a1);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2, T3 V3 a3);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2, T3 V3 a3, T4 V4 a4);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2, T3 V3 a3, T4 V4 a4, T5 V5 a5);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2, T3 V3 a3, T4 V4 a4, T5 V5 a5, T6 V6 a6);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2, T3 V3 a3, T4 V4 a4, T5 V5 a5, T6 V6 a6, T7 V7 a7);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2, T3 V3 a3, T4 V4 a4, T5 V5 a5, T6 V6 a6, T7 V7 a7, T8 V8 a8);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2, T3 V3 a3, T4 V4 a4, T5 V5 a5, T6 V6 a6, T7 V7 a7, T8 V8 a8, T9 V9 a9);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2, T3 V3 a3, T4 V4 a4, T5 V5 a5, T6 V6 a6, T7 V7 a7, T8 V8 a8, T9 V9 a9, T10 V10 a10);
arg_specs!(T0 V0 a0, T1 V1 a1, T2 V2 a2, T3 V3 a3, T4 V4 a4, T5 V5 a5, T6 V6 a6, T7 V7 a7, T8 V8 a8, T9 V9 a9, T10 V10 a10, T11 V11 a11);

/// A tool call's arguments decoded as `specs` describe, or the `isError` result for
/// the first that is missing or malformed. `'static`, so that the macros' `&SPECS` must be
/// a promoted constant rather than a tuple rebuilt on the stack at each call.
pub fn decode_args<S: ArgSpecs>(
    params: &mut CallToolParams,
    tool: &str,
    specs: &'static S,
) -> Result<S::Values, CallToolOutcome> {
    let mut args = params.arguments.take().unwrap_or_default();
    specs.take_all(&mut args, tool).map_err(CallToolOutcome::from)
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

/// A prompt argument by name, parsed from its string form; `None` when absent.
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
pub fn template_var<T: StrParam>(vars: &Variables, name: &str) -> Result<T, Error> {
    let raw = vars.get(name).ok_or_else(|| Error::internal(format!("template variable '{name}' is missing")))?;
    T::parse_param(raw).map_err(|e| Error::invalid_params(format!("Invalid value for '{name}' in the URI: {e}")))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::protocol::ContentBlock;

    fn object(value: serde_json::Value) -> JsonObject {
        match value {
            serde_json::Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    fn error_text(result: CallToolResult) -> String {
        assert_eq!(result.is_error, Some(true));
        match result.content.first() {
            Some(ContentBlock::Text(text)) => text.text.clone(),
            other => panic!("expected text, got {other:?}"),
        }
    }

    #[test]
    fn arg_takes_the_value_out() {
        let mut args = object(json!({"n": 3, "other": true}));
        assert_eq!(arg::<u32>(&mut args, "n", "t").ok(), Some(3));
        assert!(!args.contains_key("n"));
        assert!(args.contains_key("other"));
    }

    #[test]
    fn a_missing_required_arg_names_it() {
        let mut args = JsonObject::new();
        let text = error_text(arg::<u32>(&mut args, "n", "count").expect_err("missing"));
        assert_eq!(text, "Invalid arguments for tool count: missing required argument `n`");
    }

    #[test]
    fn a_malformed_arg_says_why() {
        let mut args = object(json!({"n": "three"}));
        let text = error_text(arg::<u32>(&mut args, "n", "count").expect_err("malformed"));
        assert!(text.starts_with("Invalid arguments for tool count: `n`: invalid type"), "{text}");
    }

    #[test]
    fn optional_args_accept_absent_and_null() {
        let mut args = object(json!({"a": null, "b": 2}));
        assert_eq!(arg_optional::<u32>(&mut args, "a", "t").ok(), Some(None));
        assert_eq!(arg_optional::<u32>(&mut args, "b", "t").ok(), Some(Some(2)));
        assert_eq!(arg_optional::<u32>(&mut args, "c", "t").ok(), Some(None));
        let mut bad = object(json!({"a": "x"}));
        assert!(arg_optional::<u32>(&mut bad, "a", "t").is_err());
    }

    #[test]
    fn defaults_apply_to_absent_and_null_only() {
        let mut args = object(json!({"a": null, "b": 2}));
        assert_eq!(arg_or::<u32>(&mut args, "a", "t", || 7).ok(), Some(7));
        assert_eq!(arg_or::<u32>(&mut args, "b", "t", || 7).ok(), Some(2));
        assert_eq!(arg_or::<u32>(&mut args, "c", "t", || 7).ok(), Some(7));
        let mut args = object(json!({"a": null, "b": 2, "bad": "x"}));
        assert_eq!(arg_unless_absent::<u32>(&mut args, "a", "t").ok(), Some(None));
        assert_eq!(arg_unless_absent::<u32>(&mut args, "b", "t").ok(), Some(Some(2)));
        assert!(!args.contains_key("b"), "a present argument is taken out");
        assert_eq!(arg_unless_absent::<u32>(&mut args, "c", "t").ok(), Some(None));
        assert!(arg_unless_absent::<u32>(&mut args, "bad", "t").is_err());
    }

    #[test]
    fn prompt_args_parse_from_strings() {
        let args = BTreeMap::from([("n".to_owned(), "12".to_owned()), ("bad".to_owned(), "x".to_owned())]);
        assert_eq!(prompt_arg::<u8>(&args, "n").ok(), Some(Some(12)));
        assert_eq!(prompt_arg::<u8>(&args, "absent").ok(), Some(None));
        let err = prompt_arg::<u8>(&args, "bad").expect_err("not a number");
        assert!(err.to_string().starts_with("Invalid value for argument 'bad': "), "{err}");
        assert!(missing_arg("n").to_string().starts_with("Missing required argument: n ("));
    }

    #[test]
    fn template_vars_parse_and_report() {
        let vars = Variables::from([("id".to_owned(), "42".to_owned()), ("bad".to_owned(), "x".to_owned())]);
        assert_eq!(template_var::<u64>(&vars, "id").ok(), Some(42));
        let err = template_var::<u64>(&vars, "bad").expect_err("not a number");
        assert!(err.to_string().starts_with("Invalid value for 'bad' in the URI: "), "{err}");
        assert!(template_var::<u64>(&vars, "absent").is_err());
    }
}
