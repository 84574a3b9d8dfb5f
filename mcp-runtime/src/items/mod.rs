//! Items defined with `#[mcp::tool]`, `#[mcp::prompt]` and `#[mcp::resource]`: the traits
//! the macros implement, the conversions of their return values, and the routers that
//! serve them.
//!
//! Each macro keeps the user's function and adds a companion type of the same name (a
//! braced struct, which lives in the type namespace only) implementing one of
//! [`ToolDef`], [`PromptDef`] or [`ResourceDef`]. Register it with one line:
//!
//! ```
//! /// Add two numbers.
//! #[mcp::tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! let server = mcp::Server::builder("calc", "1.0.0").tool::<add>().build();
//! assert_eq!(add(2, 3), 5); // still an ordinary function
//! # let _ = server;
//! ```

#[cfg(feature = "macros")]
pub(crate) mod args;
pub mod completion;
#[cfg(feature = "macros")]
pub(crate) mod convert;
mod dynamic;
pub(crate) mod inline_refs;
#[cfg(feature = "macros")]
pub(crate) mod probe;
mod problem;
#[cfg(feature = "macros")]
pub(crate) mod resolver_args;
mod returns;
#[cfg(feature = "macros")]
pub(crate) mod roles;
mod router;
#[cfg(feature = "macros")]
pub(crate) mod run_task;
#[cfg(feature = "macros")]
pub(crate) mod schema;
pub mod scopes;
mod standard_formats;
#[cfg(feature = "macros")]
pub(crate) mod sync_call;
pub mod template;
#[cfg(feature = "macros")]
pub(crate) mod tool_spec;

pub use dynamic::{AddToolError, DynamicTool};
pub use inline_refs::inline_refs;
pub use problem::{BuildProblem, ItemKind};
#[cfg(feature = "macros")]
pub(crate) use returns::structured as returns_structured;
pub use returns::{Blob, IntoPromptOutcome, IntoResourceOutcome, IntoToolOutcome, Json, output_schema_of};
pub(crate) use router::{Items, ListKind, SharedItems};
pub use standard_formats::StandardFormats;

use crate::Error;
use crate::handler::{BoxFuture, Context, StateNeeds};
use crate::protocol::{
    CallToolOutcome, CallToolParams, GetPromptOutcome, GetPromptParams, Prompt, ReadResourceOutcome,
    ReadResourceParams, Resource, ResourceTemplate, Tool,
};

/// A tool defined with `#[mcp::tool]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "expected a function annotated with `#[mcp::tool]`",
    note = "put `#[mcp::tool]` on the function; register prompts with `.prompt::<name>()` and resources with `.resource::<name>()`"
)]
pub trait ToolDef: 'static {
    /// The tool's name.
    const NAME: &'static str;
    /// The OAuth scopes a caller needs, all of them (`scopes = [...]`); none by default.
    /// Checked before the item runs: see [`scopes`].
    const SCOPES: &'static [&'static str] = &[];
    /// Whether it runs as a task (`task = "optional" | "required"`); never by default.
    const TASK: crate::tasks::TaskSupport = crate::tasks::TaskSupport::Forbidden;
    /// Whether a call can end in an `InputRequiredResult` (from its resolvers or its
    /// return value). `true`, the default, is always correct; `#[mcp::tool]` sets `false`
    /// when neither its parameters nor its return type can ask, and the sealing layer then
    /// skips binding a `requestState` to such calls. A tool that says `false` and asks all
    /// the same gets a JSON-RPC internal error instead of its question.
    const MAY_REQUIRE_INPUT: bool = true;
    /// Its definition (schemas included). Called once, at registration.
    fn definition() -> Tool;
    /// Serve one call. The call's `inputResponses` and `requestState` are in `ctx` (moved
    /// there from `params`, which no longer holds them). In 2026-07-28, `params.meta` is
    /// `None`: what the request's `_meta` said (the client's capabilities and info, the
    /// progress token, the log level) is in `ctx` too.
    fn call(ctx: Context, params: CallToolParams) -> BoxFuture<Result<CallToolOutcome, Error>>;
    /// The application-state types it takes as `State<T>` (its resolvers' included);
    /// building a server without one of them fails. None by default.
    fn state_needs(needs: &mut StateNeeds) {
        let _ = needs;
    }
}

/// A prompt defined with `#[mcp::prompt]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt",
    label = "expected a function annotated with `#[mcp::prompt]`",
    note = "put `#[mcp::prompt]` on the function; register tools with `.tool::<name>()` and resources with `.resource::<name>()`"
)]
pub trait PromptDef: 'static {
    /// The prompt's name.
    const NAME: &'static str;
    /// The OAuth scopes a caller needs, all of them (`scopes = [...]`); none by default.
    /// Checked before the item runs: see [`scopes`].
    const SCOPES: &'static [&'static str] = &[];
    /// Its definition. Called once, at registration.
    fn definition() -> Prompt;
    /// Render it.
    fn get(ctx: Context, params: GetPromptParams) -> BoxFuture<Result<GetPromptOutcome, Error>>;
    /// The completer of the argument `argument`, if it has one (`#[mcp(complete = ...)]`).
    /// Asked once per declared argument, at registration.
    fn completer(argument: &str) -> Option<completion::CompleteFn> {
        let _ = argument;
        None
    }

    /// The application-state types it takes as `State<T>`;
    /// building a server without one of them fails. None by default.
    fn state_needs(needs: &mut StateNeeds) {
        let _ = needs;
    }
}

/// A static resource or a resource template.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ResourceKind {
    /// One fixed URI.
    Static(Resource),
    /// An RFC 6570 URI template.
    Template(ResourceTemplate),
}

/// A resource defined with `#[mcp::resource]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource",
    label = "expected a function annotated with `#[mcp::resource(\"uri\")]`",
    note = "put `#[mcp::resource(\"scheme://...\")]` on the function; register tools with `.tool::<name>()` and prompts with `.prompt::<name>()`"
)]
pub trait ResourceDef: 'static {
    /// The URI or URI template, as written in the attribute.
    const URI: &'static str;
    /// The OAuth scopes a caller needs, all of them (`scopes = [...]`); none by default.
    /// Checked before the item runs: see [`scopes`].
    const SCOPES: &'static [&'static str] = &[];
    /// Its definition. Called once, at registration.
    fn definition() -> ResourceKind;
    /// Read it; `variables` holds the template's variables (empty for static resources).
    fn read(
        ctx: Context,
        params: ReadResourceParams,
        variables: template::Variables,
    ) -> BoxFuture<Result<ReadResourceOutcome, Error>>;
    /// The completer of the template variable `variable`, if it has one
    /// (`#[mcp(complete = ...)]`). Asked once per variable, at registration.
    fn completer(variable: &str) -> Option<completion::CompleteFn> {
        let _ = variable;
        None
    }

    /// The application-state types it takes as `State<T>`;
    /// building a server without one of them fails. None by default.
    fn state_needs(needs: &mut StateNeeds) {
        let _ = needs;
    }
}
