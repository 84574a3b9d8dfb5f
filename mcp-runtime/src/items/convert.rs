//! How a macro-defined item's return value and error become a protocol outcome, chosen
//! at compile time by autoref dispatch: the generated code calls a method on a wrapper,
//! and method resolution picks the first impl that applies (`T`, then `&T`, then
//! `&mut T`). The last choice of each ladder exists only to report a clear error at the
//! user's return type.

use std::marker::PhantomData;

use crate::Error;
use crate::protocol::{CallToolOutcome, CallToolResult, GetPromptOutcome, JsonObject, ReadResourceOutcome};

use super::{IntoPromptOutcome, IntoResourceOutcome, IntoToolOutcome};

/// Wraps a tool's return value for conversion: a type implementing `IntoToolOutcome`
/// converts through it; any other `Serialize + JsonSchema` type is structured output.
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
        super::returns_structured(&self.0)
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

/// Names a return type for output-schema dispatch.
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
        Some(super::output_schema_of::<T>())
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

#[cfg(test)]
// The borrows spell the calls exactly as generated code does.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use super::{ErrViaDisplay as _, ErrViaMcp as _, ToolErrViaDisplay as _, ToolErrViaMcp as _};
    #[allow(unused_imports)]
    use super::{SchemaViaIntoTool as _, SchemaViaNeither as _, SchemaViaStructured as _};
    #[allow(unused_imports)]
    use super::{ViaIntoTool as _, ViaNeither as _, ViaStructured as _};

    #[test]
    fn an_mcp_error_keeps_its_code_and_others_become_internal() {
        let kept = (&ErrWrap(Error::invalid_params("bad"))).__mcp_error();
        assert_eq!(kept, Error::invalid_params("bad"));
        let text = (&ErrWrap("boom")).__mcp_error();
        assert_eq!(text, Error::internal("boom"));
    }

    #[test]
    fn a_tool_error_is_a_result_unless_it_is_an_mcp_error() {
        assert_eq!((&ErrWrap(Error::internal("x"))).__mcp_tool_error(), Err(Error::internal("x")));
        match (&ErrWrap("no such file")).__mcp_tool_error() {
            Ok(CallToolOutcome::Complete(result)) => assert_eq!(result, CallToolResult::error("no such file")),
            other => panic!("expected an isError result, got {other:?}"),
        }
    }

    #[test]
    fn strings_convert_as_text_and_structs_as_structured_output() {
        #[derive(serde::Serialize, schemars::JsonSchema)]
        struct Sum {
            total: i64,
        }
        assert!(matches!(Ret("hi".to_owned()).__mcp_tool(), Ok(CallToolOutcome::Complete(_))));
        match Ret(Sum { total: 3 }).__mcp_tool() {
            Ok(CallToolOutcome::Complete(result)) => {
                assert_eq!(result.structured_content, Some(serde_json::json!({"total": 3})));
            }
            other => panic!("expected structured output, got {other:?}"),
        }
        assert!((&RetType::<Sum>::NEW).__mcp_output_schema().is_some());
        assert!((&RetType::<String>::NEW).__mcp_output_schema().is_none());
    }
}
