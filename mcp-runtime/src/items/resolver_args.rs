//! What a `#[mcp::resolver]` needs from the tool it serves: the tool's arguments by
//! name (a name is spelled as a type, one [`Ch`] per letter, so the compiler matches
//! it), a form's fields, and how a resolver's `Err` ends the call.
//!
//! A resolver does not bound the tool's arguments with [`ToolArg`] directly: its
//! expansion defines a trait per parameter whose `on_unimplemented` message spells the
//! names, so a missing or mistyped argument reads as a sentence, not as letters.

use crate::Error;
use crate::protocol::{CallToolOutcome, ContentBlock, PrimitiveSchema};
use crate::resolve::{ElicitField, Stop};

/// One letter of an argument name, so a name can be spelled as a type: `name` is
/// `(Ch<'n'>, Ch<'a'>, Ch<'m'>, Ch<'e'>)`.
pub struct Ch<const C: char>;

/// The arguments of a tool with resolvers (implemented by `#[mcp::tool]`): `Tool` is the
/// tool's companion type, so a resolver's compile errors can name the tool.
pub trait ToolArgs {
    /// The tool.
    type Tool: ?Sized;
}

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

/// One form field for `form_schema`: its wire name, whether it is required (not an
/// `Option`, not `#[serde(default)]`), and its schema.
pub fn form_field<T: ElicitField>(
    name: &'static str,
    defaulted: bool,
    description: Option<String>,
) -> (&'static str, bool, PrimitiveSchema) {
    (name, T::REQUIRED && !defaulted, T::field_schema(description))
}

/// End a resolver with its `Err`: an `mcp::Error` stays a JSON-RPC error, anything else
/// printable becomes an `isError` result that names the resolver.
pub fn resolver_error(key: &str, outcome: Result<CallToolOutcome, Error>) -> Stop {
    match outcome {
        Ok(CallToolOutcome::Complete(mut result)) => {
            if let Some(ContentBlock::Text(text)) = result.content.first_mut() {
                text.text = format!("Resolver '{key}' failed: {}", text.text);
            }
            Stop::from_outcome(Ok(result.into()))
        }
        other => Stop::from_outcome(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::CallToolResult;

    #[test]
    fn a_resolver_failure_names_the_resolver() {
        let stop = resolver_error("app::ask", Ok(CallToolResult::error("no answer").into()));
        match stop.0 {
            Ok(CallToolOutcome::Complete(result)) => {
                assert_eq!(result, CallToolResult::error("Resolver 'app::ask' failed: no answer"));
            }
            other => panic!("expected an isError result, got {other:?}"),
        }
    }

    #[test]
    fn an_mcp_error_passes_through() {
        let stop = resolver_error("app::ask", Err(Error::internal("down")));
        assert_eq!(stop.0, Err(Error::internal("down")));
    }

    #[test]
    fn optional_and_defaulted_fields_are_not_required() {
        assert!(form_field::<String>("a", false, None).1);
        assert!(!form_field::<String>("a", true, None).1);
        assert!(!form_field::<Option<String>>("a", false, None).1);
    }
}
