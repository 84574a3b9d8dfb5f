//! Which role a parameter spelled `Context` or `State<..>` plays, decided by its type
//! rather than its name: `mcp::Context` is the request context and `mcp::State<T>` the
//! application state of type `T` (both injected); a user's own type that happens to be
//! called `Context` or `State` is an ordinary argument (a tool argument decoded from JSON,
//! a prompt argument parsed from its string, a URI template variable, or, in a resolver,
//! the tool's argument of the same name).
//!
//! Tools and prompts call methods on `&Slot::<T>::NEW`. Method resolution tries
//! [`ContextViaContext`] first, which exists only for `Slot<mcp::Context>` and
//! `Slot<mcp::State<T>>`, and falls back to [`ContextViaArgument`] (autoref dispatch: the
//! compiler decides, for the concrete type, with no runtime cost). The fallback's bounds
//! sit on its methods, so a user type that lacks one gets that trait's own message.
//!
//! A resource template's parameter named after a URI variable is that variable, whatever
//! its type; any other one must be `mcp::Context` or `mcp::State<T>` ([`TemplateContext`]).
//!
//! A resolver decides in its `where` clause, so the choice is a constant:
//! `Probe::<T>::IS_CONTEXT` (true for both injected types) selects the [`ResolverArg`] impl
//! that lends the context or the state, or the one that needs the tool's argument.
//!
//! Each item reports the state types it takes through `__mcp_state_need`, which only the
//! `State<T>` impl records.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use super::args::{StrParam, ToolParam, arg, missing_arg, prompt_arg};
use super::resolver_args::ToolArg;
use super::schema::ToolParamSchema;
use crate::handler::{State, StateNeeds};
use crate::protocol::{CallToolResult, JsonObject, PromptArgument};
use crate::{Context, Error};

/// Names a parameter type for role dispatch.
pub struct Slot<T>(PhantomData<T>);

impl<T> Slot<T> {
    /// The probe.
    pub const NEW: Self = Slot(PhantomData);
}

/// Prompt arguments as they arrive: name to string.
type PromptArgs = BTreeMap<String, String>;

/// First choice: the parameter is `mcp::Context` or `mcp::State<T>`, injected.
pub trait ContextViaContext {
    /// What the parameter receives.
    type Value;
    /// Tools: a clone of the request context or of the state.
    fn __mcp_bind(
        &self,
        ctx: &Context,
        args: &mut JsonObject,
        name: &str,
        tool: &str,
    ) -> Result<Self::Value, CallToolResult>;
    /// Tools: no schema, the context is not an argument.
    fn __mcp_param_schema(&self, generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema>;
    /// Prompts: no argument in the definition.
    fn __mcp_prompt_argument(&self, name: &str, description: Option<&str>) -> Option<PromptArgument>;
    /// Prompts: a clone of the request context or of the state.
    fn __mcp_prompt_bind(&self, ctx: &Context, args: &PromptArgs, name: &str) -> Result<Self::Value, Error>;
    /// Every item: record a state type it takes (only `State<T>` has one).
    fn __mcp_state_need(&self, needs: &mut StateNeeds) {
        let _ = needs;
    }
}

impl ContextViaContext for Slot<Context> {
    type Value = Context;

    fn __mcp_bind(&self, ctx: &Context, _: &mut JsonObject, _: &str, _: &str) -> Result<Context, CallToolResult> {
        Ok(ctx.clone())
    }

    fn __mcp_param_schema(&self, _: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        None
    }

    fn __mcp_prompt_argument(&self, _: &str, _: Option<&str>) -> Option<PromptArgument> {
        None
    }

    fn __mcp_prompt_bind(&self, ctx: &Context, _: &PromptArgs, _: &str) -> Result<Context, Error> {
        Ok(ctx.clone())
    }
}

/// The registered `State<T>`, or why there is none (only a server built without the
/// builder's check gets here).
fn state<T: Send + Sync + 'static>(ctx: &Context) -> Result<&State<T>, String> {
    ctx.state_slot::<T>().ok_or_else(|| {
        let name = std::any::type_name::<T>();
        tracing::error!(state = name, "an item takes a State that the server does not have");
        format!("the server has no `{name}` state: register it with `.state(..)` on the server builder")
    })
}

impl<T: Clone + Send + Sync + 'static> ContextViaContext for Slot<State<T>> {
    type Value = State<T>;

    fn __mcp_bind(&self, ctx: &Context, _: &mut JsonObject, _: &str, _: &str) -> Result<State<T>, CallToolResult> {
        state::<T>(ctx).cloned().map_err(CallToolResult::error)
    }

    fn __mcp_param_schema(&self, _: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        None
    }

    fn __mcp_prompt_argument(&self, _: &str, _: Option<&str>) -> Option<PromptArgument> {
        None
    }

    fn __mcp_prompt_bind(&self, ctx: &Context, _: &PromptArgs, _: &str) -> Result<State<T>, Error> {
        state::<T>(ctx).cloned().map_err(Error::internal)
    }

    fn __mcp_state_need(&self, needs: &mut StateNeeds) {
        needs.need::<T>();
    }
}

/// Second choice: any other type is a required argument.
pub trait ContextViaArgument<T> {
    /// Tools: the decoded argument.
    fn __mcp_bind(&self, ctx: &Context, args: &mut JsonObject, name: &str, tool: &str) -> Result<T, CallToolResult>
    where
        T: ToolParam;
    /// Tools: its schema in the input schema (required: a `Context` type is not an `Option`).
    fn __mcp_param_schema(&self, generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema>
    where
        T: ToolParamSchema;
    /// Prompts: its entry in the definition (required: a `Context` type is not an `Option`).
    fn __mcp_prompt_argument(&self, name: &str, description: Option<&str>) -> Option<PromptArgument>;
    /// Prompts: the parsed argument.
    fn __mcp_prompt_bind(&self, ctx: &Context, args: &PromptArgs, name: &str) -> Result<T, Error>
    where
        T: StrParam;
    /// Every item: an argument is no state.
    fn __mcp_state_need(&self, needs: &mut StateNeeds) {
        let _ = needs;
    }
}

impl<T> ContextViaArgument<T> for &Slot<T> {
    fn __mcp_bind(&self, _: &Context, args: &mut JsonObject, name: &str, tool: &str) -> Result<T, CallToolResult>
    where
        T: ToolParam,
    {
        arg::<T>(args, name, tool)
    }

    fn __mcp_param_schema(&self, generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema>
    where
        T: ToolParamSchema,
    {
        Some(T::schema(generator))
    }

    fn __mcp_prompt_argument(&self, name: &str, description: Option<&str>) -> Option<PromptArgument> {
        let argument = PromptArgument::new(name).with_required(true);
        Some(match description {
            Some(description) => argument.with_description(description),
            None => argument,
        })
    }

    fn __mcp_prompt_bind(&self, _: &Context, args: &PromptArgs, name: &str) -> Result<T, Error>
    where
        T: StrParam,
    {
        prompt_arg::<T>(args, name)?.ok_or_else(|| missing_arg(name))
    }
}

/// A resource template's parameter that names no URI variable: only the request context
/// or application state can be one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `mcp::Context`, and no variable of the URI template has this parameter's name",
    label = "not a URI template variable",
    note = "name the parameter after a `{{variable}}` of the URI (or `#[mcp(rename = \"variable\")]`), or take `mcp::Context` or `mcp::State<T>` here"
)]
pub trait TemplateContext: Sized {
    /// The value, from the request context.
    fn template_context(ctx: &Context) -> Result<Self, Error>;
}

impl TemplateContext for Context {
    fn template_context(ctx: &Context) -> Result<Self, Error> {
        Ok(ctx.clone())
    }
}

impl<T: Clone + Send + Sync + 'static> TemplateContext for State<T> {
    fn template_context(ctx: &Context) -> Result<Self, Error> {
        state::<T>(ctx).cloned().map_err(Error::internal)
    }
}

/// A resolver parameter spelled `Context` or `State<..>` (by value or by reference), as
/// the tools arguments type `Self` provides it: with `CONTEXT` (`Probe::<T>::IS_CONTEXT`),
/// the request context or the registered state; without, the tool's argument named `Name`.
pub trait ResolverArg<T, Name, const CONTEXT: bool> {
    /// The value, lent.
    fn resolver_arg<'a>(&'a self, ctx: &'a Context) -> &'a T;
}

impl<A: ?Sized, Name> ResolverArg<Context, Name, true> for A {
    fn resolver_arg<'a>(&'a self, ctx: &'a Context) -> &'a Context {
        ctx
    }
}

impl<A: ?Sized, Name, T: Send + Sync + 'static> ResolverArg<State<T>, Name, true> for A {
    fn resolver_arg<'a>(&'a self, ctx: &'a Context) -> &'a State<T> {
        match ctx.state_slot::<T>() {
            Some(state) => state,
            // The tool's `state_needs` names its resolvers' states, so a built server has them.
            None => panic!(
                "the server has no `{}` state: register it with `.state(..)` on the server builder",
                std::any::type_name::<T>()
            ),
        }
    }
}

impl<A: ?Sized + ToolArg<Name, Ty = T>, Name, T> ResolverArg<T, Name, false> for A {
    fn resolver_arg<'a>(&'a self, _: &'a Context) -> &'a T {
        self.tool_arg()
    }
}

#[cfg(test)]
// The borrows spell the calls exactly as generated code does.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use super::{ContextViaArgument as _, ContextViaContext as _};

    #[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
    struct Context {
        depth: u32,
    }

    impl std::str::FromStr for Context {
        type Err = std::num::ParseIntError;
        fn from_str(s: &str) -> Result<Self, Self::Err> {
            Ok(Context { depth: s.parse()? })
        }
    }

    #[test]
    fn a_user_type_named_context_is_an_argument() {
        let mut generator = schemars::SchemaGenerator::default();
        assert!((&Slot::<Context>::NEW).__mcp_param_schema(&mut generator).is_some());
        assert!((&Slot::<crate::Context>::NEW).__mcp_param_schema(&mut generator).is_none(), "not an argument");
    }

    fn request_context() -> crate::Context {
        crate::Context::new(crate::RequestContext::internal(crate::handler::ServerHandle::new()), None, None)
    }

    #[test]
    fn a_user_type_named_context_is_a_prompt_argument() {
        let argument = (&Slot::<Context>::NEW).__mcp_prompt_argument("context", Some("how deep"));
        assert_eq!(argument, Some(PromptArgument::new("context").with_description("how deep").with_required(true)));
        assert_eq!((&Slot::<crate::Context>::NEW).__mcp_prompt_argument("ctx", None), None);

        let args = PromptArgs::from([("context".to_owned(), "3".to_owned())]);
        let ctx = request_context();
        assert_eq!((&Slot::<Context>::NEW).__mcp_prompt_bind(&ctx, &args, "context").ok(), Some(Context { depth: 3 }));
        let missing = (&Slot::<Context>::NEW).__mcp_prompt_bind(&ctx, &PromptArgs::new(), "context");
        assert!(missing.expect_err("required").to_string().starts_with("Missing required argument: context"));
        assert!((&Slot::<crate::Context>::NEW).__mcp_prompt_bind(&ctx, &PromptArgs::new(), "ctx").is_ok());
    }

    struct Arguments {
        context: Context,
    }

    impl ToolArg<(super::super::resolver_args::Ch<'c'>,)> for Arguments {
        type Ty = Context;
        fn tool_arg(&self) -> &Context {
            &self.context
        }
    }

    #[test]
    fn a_resolver_reads_a_user_context_from_the_tool() {
        use super::super::resolver_args::Ch;
        let ctx = request_context();
        let args = Arguments { context: Context { depth: 5 } };
        let user: &Context = <Arguments as ResolverArg<Context, (Ch<'c'>,), false>>::resolver_arg(&args, &ctx);
        assert_eq!(user, &Context { depth: 5 });
        let _request: &crate::Context =
            <Arguments as ResolverArg<crate::Context, (Ch<'x'>,), true>>::resolver_arg(&args, &ctx);
        let _template: crate::Context =
            <crate::Context as TemplateContext>::template_context(&ctx).expect("the context is always there");
    }
}
