//! Which role a tool parameter spelled `Context` plays, decided by its type rather than
//! its name: `mcp::Context` is the request context; a user's own type that happens to be
//! called `Context` is an ordinary argument (in the input schema, decoded from JSON).
//!
//! The generated code calls methods on `&Slot::<T>::NEW`. Method resolution tries
//! [`ContextViaContext`] first, which exists only for `Slot<mcp::Context>`, and falls
//! back to [`ContextViaArgument`] (autoref dispatch: the compiler decides, for the
//! concrete type, with no runtime cost).

use std::marker::PhantomData;

use super::args::{ToolParam, arg};
use super::schema::{InputSchema, ToolParamSchema};
use crate::Context;
use crate::protocol::{CallToolResult, JsonObject};

/// Names a parameter type for role dispatch.
pub struct Slot<T>(PhantomData<T>);

impl<T> Slot<T> {
    /// The probe.
    pub const NEW: Self = Slot(PhantomData);
}

/// First choice: the parameter is `mcp::Context`, injected.
pub trait ContextViaContext {
    /// A clone of the request context.
    fn __mcp_bind(
        &self,
        ctx: &Context,
        args: &mut JsonObject,
        name: &str,
        tool: &str,
    ) -> Result<Context, CallToolResult>;
    /// Nothing: the context is not an argument.
    fn __mcp_schema(&self, schema: &mut InputSchema, name: &str, description: Option<&str>);
}

impl ContextViaContext for Slot<Context> {
    fn __mcp_bind(&self, ctx: &Context, _: &mut JsonObject, _: &str, _: &str) -> Result<Context, CallToolResult> {
        Ok(ctx.clone())
    }

    fn __mcp_schema(&self, _: &mut InputSchema, _: &str, _: Option<&str>) {}
}

/// Second choice: any other type is a required argument.
pub trait ContextViaArgument<T> {
    /// The decoded argument.
    fn __mcp_bind(&self, ctx: &Context, args: &mut JsonObject, name: &str, tool: &str) -> Result<T, CallToolResult>;
    /// Its entry in the input schema.
    fn __mcp_schema(&self, schema: &mut InputSchema, name: &str, description: Option<&str>);
}

impl<T: ToolParam + ToolParamSchema> ContextViaArgument<T> for &Slot<T> {
    fn __mcp_bind(&self, _: &Context, args: &mut JsonObject, name: &str, tool: &str) -> Result<T, CallToolResult> {
        arg::<T>(args, name, tool)
    }

    fn __mcp_schema(&self, schema: &mut InputSchema, name: &str, description: Option<&str>) {
        schema.param::<T>(name, description, true, None);
    }
}

#[cfg(test)]
// The borrows spell the calls exactly as generated code does.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use super::{ContextViaArgument as _, ContextViaContext as _};

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)] // only its schema is used
    struct Context {
        depth: u32,
    }

    #[test]
    fn a_user_type_named_context_is_an_argument() {
        let mut schema = InputSchema::default();
        (&Slot::<Context>::NEW).__mcp_schema(&mut schema, "context", None);
        (&Slot::<crate::Context>::NEW).__mcp_schema(&mut schema, "ctx", None);
        let schema = schema.finish();
        let properties = schema.get("properties").and_then(|p| p.as_object()).expect("properties");
        assert!(properties.contains_key("context"));
        assert!(!properties.contains_key("ctx"), "mcp::Context is not an argument");
    }
}
