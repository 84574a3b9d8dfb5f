//! Tools built at run time: a [`Tool`] definition and an async handler, served from the
//! same name space and the same `tools/list` as `#[mcp::tool]` items.

use std::future::Future;
use std::sync::Arc;

use super::SharedItems;
use crate::Error;
use crate::handler::{BoxFuture, Context, ServerHandle};
use crate::protocol::{CallToolOutcome, CallToolParams, Tool};

type DynamicCall = Arc<dyn Fn(Context, CallToolParams) -> BoxFuture<Result<CallToolOutcome, Error>> + Send + Sync>;

/// A tool defined at run time: its definition (name, description, schemas) and the
/// handler that serves its calls.
///
/// Register it when building ([`ServerBuilder::dynamic_tool`](crate::server::ServerBuilder::dynamic_tool))
/// or while serving ([`ServerHandle::add_tool`](crate::handler::ServerHandle::add_tool)).
/// It shares one name space and one `tools/list` with the `#[mcp::tool]` items, and runs
/// behind the same layers (request-state sealing, limits). The handler returns a
/// [`CallToolResult`](crate::protocol::CallToolResult) or a
/// [`CallToolOutcome`] (which may ask the client for input).
///
/// ```
/// use mcp::items::DynamicTool;
/// use mcp::protocol::{CallToolResult, Tool};
/// use serde_json::json;
///
/// let shout = DynamicTool::new(
///     Tool::new("shout", "Upper-case the text.", json!({"type": "object", "properties": {"text": {"type": "string"}}})),
///     |_ctx, params| async move {
///         let text = params.arguments.as_ref().and_then(|a| a.get("text")).and_then(|t| t.as_str()).unwrap_or_default();
///         Ok(CallToolResult::text(text.to_uppercase()))
///     },
/// );
/// assert_eq!(shout.name(), "shout");
/// let server = mcp::Server::builder("loud", "1.0.0").dynamic_tool(shout).build();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct DynamicTool {
    definition: Tool,
    call: DynamicCall,
    /// The OAuth scopes a caller must hold (`scopes`); empty: none.
    scopes: Arc<[String]>,
}

impl DynamicTool {
    /// A tool described by `definition` whose calls `handler` serves.
    pub fn new<F, Fut, O>(definition: Tool, handler: F) -> Self
    where
        F: Fn(Context, CallToolParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, Error>> + Send + 'static,
        O: Into<CallToolOutcome>,
    {
        let call: DynamicCall = Arc::new(move |ctx, params| {
            let future = handler(ctx, params);
            Box::pin(async move { future.await.map(Into::into) })
        });
        DynamicTool { definition, call, scopes: Arc::from([]) }
    }

    /// Require the OAuth scopes `scopes` of every caller, as `#[mcp::tool(scopes = [...])]`
    /// does for a macro tool (replacing any set before): a caller lacking one gets
    /// [`Error::insufficient_scope`] naming them all before the handler runs (over HTTP, a
    /// 403 step-up challenge); [`hide_unauthorized_items`](crate::server::ServerBuilder::hide_unauthorized_items)
    /// leaves the tool out of such a caller's `tools/list`; and
    /// [`Server::declared_scopes`](crate::server::Server::declared_scopes) lists them. See
    /// [`items::scopes`](crate::items::scopes) for the rules.
    ///
    /// ```
    /// use mcp::items::DynamicTool;
    /// use mcp::protocol::{CallToolResult, Tool};
    ///
    /// let drop_table = Tool::new("drop_table", "Drop a table.", serde_json::json!({"type": "object"}));
    /// let tool = DynamicTool::new(drop_table, |_ctx, _p| async { Ok(CallToolResult::text("dropped")) })
    ///     .scopes(["db:write", "db:admin"]);
    /// assert_eq!(tool.required_scopes(), ["db:write", "db:admin"]);
    /// let server = mcp::Server::builder("db", "1.0.0").dynamic_tool(tool).build();
    /// assert_eq!(server.declared_scopes(), ["db:admin", "db:write"]);
    /// ```
    ///
    /// # Panics
    ///
    /// When a scope is not an RFC 6749 §3.3 scope-token (empty, or holding a space, `"`,
    /// `\`, or a character outside visible ASCII): the check the macro makes at compile time.
    #[must_use]
    pub fn scopes<I>(mut self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        if let Some(bad) = scopes.iter().find(|s| !super::scopes::is_scope_token(s)) {
            panic!(
                "tool `{}`: `{bad}` is not an OAuth scope (RFC 6749 §3.3: one or more visible ASCII characters, \
                 not `\"` or `\\`)",
                self.definition.name
            );
        }
        self.scopes = scopes.into();
        self
    }

    /// The scopes set with [`scopes`](Self::scopes); empty when the tool needs none.
    pub fn required_scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The tool's name, as `tools/list` shows it and `tools/call` names it.
    ///
    /// ```
    /// # use mcp::items::DynamicTool;
    /// # use mcp::protocol::{CallToolResult, Tool};
    /// let tool = DynamicTool::new(Tool::new("ping", "Answer pong.", serde_json::json!({"type": "object"})), |_ctx, _p| async {
    ///     Ok(CallToolResult::text("pong"))
    /// });
    /// assert_eq!(tool.name(), "ping");
    /// ```
    pub fn name(&self) -> &str {
        &self.definition.name
    }

    /// The definition `tools/list` shows.
    ///
    /// ```
    /// # use mcp::items::DynamicTool;
    /// # use mcp::protocol::{CallToolResult, Tool};
    /// let tool = DynamicTool::new(Tool::new("ping", "Answer pong.", serde_json::json!({"type": "object"})), |_ctx, _p| async {
    ///     Ok(CallToolResult::text("pong"))
    /// });
    /// assert_eq!(tool.definition().description.as_deref(), Some("Answer pong."));
    /// ```
    pub fn definition(&self) -> &Tool {
        &self.definition
    }

    /// Serve one call.
    pub(crate) fn call(&self, ctx: Context, params: CallToolParams) -> BoxFuture<Result<CallToolOutcome, Error>> {
        (self.call)(ctx, params)
    }
}

impl std::fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.definition.name)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// Why a tool could not be added while serving.
///
/// ```
/// use mcp::items::{AddToolError, DynamicTool};
/// use mcp::protocol::{CallToolResult, Tool};
///
/// let tool = || DynamicTool::new(Tool::new("ping", "Answer pong.", serde_json::json!({"type": "object"})), |_ctx, _p| async {
///     Ok(CallToolResult::text("pong"))
/// });
/// let server = mcp::Server::builder("pinger", "1.0.0").dynamic_tool(tool()).build();
/// let clash = server.add_tool(tool()).unwrap_err();
/// assert_eq!(clash, AddToolError::NameTaken("ping".into()));
/// assert_eq!(clash.to_string(), "a tool named `ping` is already registered");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AddToolError {
    /// A tool (from a macro or added at run time) already has this name.
    NameTaken(String),
    /// The server has no tool registry to add to: its tools are served by
    /// `on_list_tools`/`on_call_tool`, or it was built without tools (call
    /// [`ServerBuilder::allow_dynamic_tools`](crate::server::ServerBuilder::allow_dynamic_tools)).
    NoRegistry(String),
}

impl std::fmt::Display for AddToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddToolError::NameTaken(name) => write!(f, "a tool named `{name}` is already registered"),
            AddToolError::NoRegistry(name) => write!(
                f,
                "cannot add tool `{name}`: this server has no tool registry (register a tool at build, or call \
                 `allow_dynamic_tools()`; servers with `on_list_tools`/`on_call_tool` manage their own tools)"
            ),
        }
    }
}

impl std::error::Error for AddToolError {}

/// The tool registry of the server behind `handle`, if it has one.
fn registry(handle: &ServerHandle) -> Option<&SharedItems> {
    handle.items().and_then(|items| items.as_any().downcast_ref::<SharedItems>())
}

impl ServerHandle {
    /// Add a tool built at run time next to the `#[mcp::tool]` items, and tell listeners
    /// the tool list changed. A name already taken is an error, and nothing changes.
    ///
    /// ```
    /// use mcp::items::DynamicTool;
    /// use mcp::protocol::{CallToolResult, Tool};
    ///
    /// let server = mcp::Server::builder("grows", "1.0.0").allow_dynamic_tools().build();
    /// let handle = server.handle().clone(); // what handlers get from `ctx.server()`
    /// let before = handle.tools_generation();
    /// let ping = Tool::new("ping", "Answer pong.", serde_json::json!({"type": "object"}));
    /// handle.add_tool(DynamicTool::new(ping, |_ctx, _p| async { Ok(CallToolResult::text("pong")) }))?;
    /// assert_eq!(handle.tools_generation(), before + 1);
    /// # Ok::<(), mcp::items::AddToolError>(())
    /// ```
    pub fn add_tool(&self, tool: DynamicTool) -> Result<(), AddToolError> {
        match registry(self) {
            Some(items) => items.add_tool(tool)?,
            None => return Err(AddToolError::NoRegistry(tool.name().to_owned())),
        }
        self.notify_tools_list_changed();
        Ok(())
    }

    /// Remove a tool added at run time (at build or while serving), and tell listeners
    /// the tool list changed. Returns false when no such tool was added; `#[mcp::tool]`
    /// items are switched off with [`set_tool_enabled`](Self::set_tool_enabled) instead.
    ///
    /// ```
    /// use mcp::items::DynamicTool;
    /// use mcp::protocol::{CallToolResult, Tool};
    ///
    /// let ping = Tool::new("ping", "Answer pong.", serde_json::json!({"type": "object"}));
    /// let tool = DynamicTool::new(ping, |_ctx, _p| async { Ok(CallToolResult::text("pong")) });
    /// let server = mcp::Server::builder("shrinks", "1.0.0").dynamic_tool(tool).build();
    /// assert!(server.handle().remove_tool("ping"));
    /// assert!(!server.handle().remove_tool("ping"));
    /// ```
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = registry(self).is_some_and(|items| items.remove_tool(name));
        if removed {
            self.notify_tools_list_changed();
        }
        removed
    }
}
