//! What can be wrong with a server's registrations, found when it is built.

/// The kind of a registered item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ItemKind {
    /// A `#[mcp::tool]`.
    Tool,
    /// A `#[mcp::prompt]`.
    Prompt,
    /// A static `#[mcp::resource]`.
    Resource,
    /// A `#[mcp::resource]` URI template.
    ResourceTemplate,
    /// A custom request method (`ServerBuilder::method`).
    Method,
    /// An extension declared in `capabilities.extensions` (`ServerBuilder::extension`).
    Extension,
}

impl std::fmt::Display for ItemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ItemKind::Tool => "tool",
            ItemKind::Prompt => "prompt",
            ItemKind::Resource => "resource",
            ItemKind::ResourceTemplate => "resource template",
            ItemKind::Method => "method",
            ItemKind::Extension => "extension",
        })
    }
}

/// One problem that keeps a server from being built; see
/// [`BuildError::problems`](crate::server::BuildError::problems).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildProblem {
    /// Two items of one kind share a name (tools, prompts) or a URI (resources, templates).
    Duplicate {
        /// The items' kind.
        kind: ItemKind,
        /// The shared name or URI.
        name: String,
    },
    /// A resource template that is not a valid RFC 6570 template.
    InvalidTemplate {
        /// The template as written.
        template: String,
        /// Why it is invalid.
        reason: String,
    },
    /// Items were registered with macros and with hand-written handlers for the same methods.
    MixedRegistration {
        /// What was registered twice: `"tools"`, `"prompts"`, `"resources"` or
        /// `"completions"` (completers on items next to `on_complete`).
        what: &'static str,
        /// The builder methods that conflict with the macro items.
        handlers: &'static str,
    },
    /// Request-state sealing is configured, but the server has no name to use as the
    /// sealed state's audience.
    NoAudience,
    /// Request-state sealing could not be set up (for example, no randomness for a key).
    Sealing(String),
    /// Request-state sealing is turned off (`without_request_state_security`), but a tool
    /// takes resolvers, whose recorded answers travel in the state: a client could forge them.
    UnsealedResolvers {
        /// The tool's name.
        tool: String,
    },
    /// A custom method that cannot take its name: a built-in MCP method, a notification,
    /// or a name JSON-RPC reserves.
    InvalidMethod {
        /// The method name as registered.
        method: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// An extension whose identifier or settings are not valid.
    InvalidExtension {
        /// The extension identifier as declared.
        id: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An item takes a `State<T>` (itself or through its resolvers), but no value of type
    /// `T` was registered with `.state(..)`.
    MissingState {
        /// The item's kind.
        kind: ItemKind,
        /// The item's name (the URI for resources and templates).
        name: String,
        /// The missing type, as `std::any::type_name` spells it.
        type_name: &'static str,
    },
}

impl std::fmt::Display for BuildProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildProblem::Duplicate { kind: kind @ (ItemKind::Tool | ItemKind::Prompt | ItemKind::Method), name } => {
                write!(f, "two {kind}s are named `{name}`; {kind} names must be unique")
            }
            BuildProblem::Duplicate { kind: ItemKind::Extension, name } => {
                write!(f, "extension `{name}` is declared twice")
            }
            BuildProblem::Duplicate { kind, name } => write!(f, "two {kind}s have the URI `{name}`"),
            BuildProblem::InvalidTemplate { template, reason } => write!(f, "resource template `{template}`: {reason}"),
            BuildProblem::MixedRegistration { what, handlers } => {
                write!(f, "{what} were registered with macros and with {handlers}; use one or the other")
            }
            BuildProblem::NoAudience => f.write_str(
                "request-state security is configured but the server has no name: sealed state carries the name \
                 as its audience, so give the server a name or set an audience",
            ),
            BuildProblem::Sealing(why) => write!(f, "request-state sealing: {why}"),
            BuildProblem::UnsealedResolvers { tool } => write!(
                f,
                "tool `{tool}` takes resolvers, whose answers travel in requestState, but sealing is turned \
                 off: remove `without_request_state_security()` (a per-process key then seals it), or set \
                 `request_state_security(..)` with shared keys"
            ),
            BuildProblem::InvalidMethod { method, reason } => write!(f, "custom method `{method}`: {reason}"),
            BuildProblem::InvalidExtension { id, reason } => write!(f, "extension `{id}`: {reason}"),
            BuildProblem::MissingState { kind, name, type_name } => write!(
                f,
                "{kind} `{name}` takes `State<{type_name}>`, but no `{type_name}` was registered: \
                 add `.state(value)` with a `{type_name}` value to the server builder"
            ),
        }
    }
}
