//! The low-level server: a name, a version and one async handler per method.
//!
//! This is the manual form of the framework. Handlers receive typed params and a
//! [`RequestContext`]; the three carrier methods (`tools/call`, `prompts/get`,
//! `resources/read`) return an [`Outcome`](crate::protocol::Outcome), either the final
//! result or an [`InputRequiredResult`](crate::protocol::InputRequiredResult).
//!
//! ```
//! use mcp::protocol::{CallToolOutcome, CallToolResult, ListToolsResult, Tool};
//! use mcp::Server;
//! use serde_json::json;
//!
//! let server = Server::builder("Echo", "1.0.0")
//!     .on_list_tools(|_ctx, _params| async {
//!         Ok(ListToolsResult::new(vec![Tool::new(
//!             "echo",
//!             "Echo the text back.",
//!             json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
//!         )]))
//!     })
//!     .on_call_tool(|_ctx, params| async move {
//!         let text = params.arguments.as_ref().and_then(|a| a.get("text")).and_then(|t| t.as_str());
//!         Ok(CallToolOutcome::from(CallToolResult::text(text.unwrap_or_default())))
//!     })
//!     .build();
//! assert_eq!(server.info().name, "Echo");
//! ```

mod connection;
mod context;
mod dispatch;
mod handlers;
mod panic;
mod results;
mod session;

use std::sync::Arc;

pub use connection::ConnectionConfig;
pub use context::RequestContext;
pub use handlers::{BoxFuture, Handler};
pub use session::Session;

use crate::protocol::{
    CacheScope, CallToolOutcome, CallToolParams, CompleteParams, CompleteResult, GetPromptOutcome, GetPromptParams,
    Implementation, JsonObject, ListCapability, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedParams, ReadResourceOutcome, ReadResourceParams, ResourcesCapability, ServerCapabilities,
};
use handlers::Handlers;

/// Default `ttlMs` for cacheable results whose handler set none: 0 (do not reuse).
pub const DEFAULT_TTL_MS: u64 = 0;

/// An MCP server serving both protocol eras. Cheap to clone.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) handlers: Handlers,
    pub(crate) ttl_ms: u64,
    pub(crate) cache_scope: CacheScope,
    pub(crate) capabilities: ServerCapabilities,
}

impl Server {
    /// Start building a server with a name and a version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            handlers: Handlers::default(),
            ttl_ms: DEFAULT_TTL_MS,
            cache_scope: CacheScope::Public,
        }
    }

    /// The server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The capabilities derived from the handlers that are set.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.inner.capabilities
    }

    pub(crate) fn inner(&self) -> &ServerInner {
        &self.inner
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("info", &self.inner.info).finish_non_exhaustive()
    }
}

/// Builds a [`Server`]. Every method whose handler is not set answers `-32601`.
#[must_use]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    handlers: Handlers,
    ttl_ms: u64,
    cache_scope: CacheScope,
}

macro_rules! handler_setter {
    ($(#[$doc:meta])* $fn_name:ident, $field:ident, $params:ty, $result:ty) => {
        $(#[$doc])*
        pub fn $fn_name<F, Fut>(mut self, handler: F) -> Self
        where
            F: Fn(RequestContext, $params) -> Fut + Send + Sync + 'static,
            Fut: ::core::future::Future<Output = Result<$result, crate::Error>> + Send + 'static,
        {
            self.handlers.$field = Some(handlers::boxed(handler));
            self
        }
    };
}

impl ServerBuilder {
    /// Instructions for the model, sent in `server/discover` and `initialize`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// A display title for the server.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// The `ttlMs` and `cacheScope` filled into cacheable results that set none.
    pub fn cache_hints(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.ttl_ms = ttl_ms;
        self.cache_scope = scope;
        self
    }

    handler_setter!(
        /// Handle `tools/list`.
        on_list_tools, list_tools, PaginatedParams, ListToolsResult
    );
    handler_setter!(
        /// Handle `tools/call`; return a result or an `InputRequiredResult`.
        on_call_tool, call_tool, CallToolParams, CallToolOutcome
    );
    handler_setter!(
        /// Handle `prompts/list`.
        on_list_prompts, list_prompts, PaginatedParams, ListPromptsResult
    );
    handler_setter!(
        /// Handle `prompts/get`; return a result or an `InputRequiredResult`.
        on_get_prompt, get_prompt, GetPromptParams, GetPromptOutcome
    );
    handler_setter!(
        /// Handle `resources/list`.
        on_list_resources, list_resources, PaginatedParams, ListResourcesResult
    );
    handler_setter!(
        /// Handle `resources/templates/list`.
        on_list_resource_templates, list_resource_templates, PaginatedParams, ListResourceTemplatesResult
    );
    handler_setter!(
        /// Handle `resources/read`; return a result or an `InputRequiredResult`.
        on_read_resource, read_resource, ReadResourceParams, ReadResourceOutcome
    );
    handler_setter!(
        /// Handle `completion/complete`.
        on_complete, complete, CompleteParams, CompleteResult
    );

    /// Finish: capabilities are derived from the handlers that are set.
    pub fn build(self) -> Server {
        let h = &self.handlers;
        let capabilities = ServerCapabilities {
            logging: Some(JsonObject::new()),
            completions: h.complete.is_some().then(JsonObject::new),
            prompts: (h.list_prompts.is_some() || h.get_prompt.is_some()).then(ListCapability::default),
            resources: (h.list_resources.is_some() || h.list_resource_templates.is_some() || h.read_resource.is_some())
                .then(ResourcesCapability::default),
            tools: (h.list_tools.is_some() || h.call_tool.is_some()).then(ListCapability::default),
            ..Default::default()
        };
        Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                instructions: self.instructions,
                handlers: self.handlers,
                ttl_ms: self.ttl_ms,
                cache_scope: self.cache_scope,
                capabilities,
            }),
        }
    }
}
