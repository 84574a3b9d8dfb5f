//! Registering tools built at run time: at build, and while serving.

use super::{Server, ServerBuilder};
use crate::items::{AddToolError, DynamicTool};

impl ServerBuilder {
    /// Register a tool built at run time next to the `#[mcp::tool]` items: one name space
    /// (a clash is a [`BuildProblem`](crate::items::BuildProblem)) and one `tools/list`.
    ///
    /// ```
    /// use mcp::items::DynamicTool;
    /// use mcp::protocol::{CallToolResult, Tool};
    ///
    /// /// Add two numbers.
    /// #[mcp::tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let ping = Tool::new("ping", "Answer pong.", serde_json::json!({"type": "object"}));
    /// let server = mcp::Server::builder("mixed", "1.0.0")
    ///     .tool::<add>()
    ///     .dynamic_tool(DynamicTool::new(ping, |_ctx, _p| async { Ok(CallToolResult::text("pong")) }))
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn dynamic_tool(mut self, tool: DynamicTool) -> Self {
        self.items.add_dynamic_tool(tool);
        self
    }

    /// Serve `tools/list` and `tools/call` from the tool registry (and declare the `tools`
    /// capability) even though no tool is registered yet, so that tools can be added
    /// while serving with [`Server::add_tool`]. Not needed once any tool is registered.
    ///
    /// ```
    /// let server = mcp::Server::builder("empty for now", "1.0.0").allow_dynamic_tools().build();
    /// assert!(server.capabilities().tools.is_some());
    /// ```
    pub fn allow_dynamic_tools(mut self) -> Self {
        self.items.allow_dynamic_tools();
        self
    }
}

impl Server {
    /// Add a tool while serving, and tell listeners the tool list changed; a name already
    /// taken is an error. Same as [`ServerHandle::add_tool`](crate::handler::ServerHandle::add_tool).
    ///
    /// ```
    /// use mcp::items::DynamicTool;
    /// use mcp::protocol::{CallToolResult, Tool};
    ///
    /// let server = mcp::Server::builder("grows", "1.0.0").allow_dynamic_tools().build();
    /// let ping = Tool::new("ping", "Answer pong.", serde_json::json!({"type": "object"}));
    /// server.add_tool(DynamicTool::new(ping, |_ctx, _p| async { Ok(CallToolResult::text("pong")) }))?;
    /// # Ok::<(), mcp::items::AddToolError>(())
    /// ```
    pub fn add_tool(&self, tool: DynamicTool) -> Result<(), AddToolError> {
        self.handle().add_tool(tool)
    }

    /// Remove a tool added at run time, and tell listeners the tool list changed. Returns
    /// false when no such tool was added. Same as
    /// [`ServerHandle::remove_tool`](crate::handler::ServerHandle::remove_tool).
    ///
    /// ```
    /// # use mcp::items::DynamicTool;
    /// # use mcp::protocol::{CallToolResult, Tool};
    /// let ping = Tool::new("ping", "Answer pong.", serde_json::json!({"type": "object"}));
    /// let tool = DynamicTool::new(ping, |_ctx, _p| async { Ok(CallToolResult::text("pong")) });
    /// let server = mcp::Server::builder("shrinks", "1.0.0").dynamic_tool(tool).build();
    /// assert!(server.remove_tool("ping"));
    /// ```
    pub fn remove_tool(&self, name: &str) -> bool {
        self.handle().remove_tool(name)
    }
}
