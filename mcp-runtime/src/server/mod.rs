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

mod client_meta;
mod describe;
mod dispatch;
mod dynamic_tools;
mod listen;
mod methods;
mod results;
mod routes;
mod tasks;

use std::sync::Arc;

#[cfg(feature = "http")]
pub(crate) use listen::ListenLifetime;
pub use routes::MethodHandler;

use crate::handler::RequestContext;
use crate::handler::{Change, Handler, Layer, ServerHandle};
use crate::hooks::{HookChain, HooksLayer};
pub use crate::items::{BuildProblem, ItemKind};
use crate::limits::{Limits, LimitsLayer};
use crate::protocol::{
    CacheScope, CallToolOutcome, CallToolParams, CompleteParams, CompleteResult, GetPromptOutcome, GetPromptParams,
    Implementation, JsonObject, ListCapability, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedParams, ReadResourceOutcome, ReadResourceParams, ResourcesCapability, ServerCapabilities,
};
use crate::sealing::SealingLayer;
use routes::{Handlers, Routes};

/// Default `ttlMs` for cacheable results whose handler set none: 0 (do not reuse).
pub const DEFAULT_TTL_MS: u64 = 0;

/// An MCP server serving both protocol eras. Cheap to clone.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    /// `"_meta":{"io.modelcontextprotocol/serverInfo":…}`, encoded once: every
    /// 2026-07-28 result ends with it.
    pub(crate) server_info_meta: String,
    pub(crate) instructions: Option<String>,
    pub(crate) ttl_ms: u64,
    pub(crate) cache_scope: CacheScope,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) handle: ServerHandle,
    pub(crate) items: Option<Arc<crate::items::SharedItems>>,
    pub(crate) limits: Limits,
    /// The method table, the innermost handler (availability checks, `list_all_tools`).
    pub(crate) routes: Arc<Routes>,
    /// The whole stack: hooks, user layers, limits, then sealing, then the method table.
    pub(crate) stack: Arc<dyn Handler>,
    /// Whether request hooks wrap the stack: every request then goes through it, the
    /// macro items' lists included (they are otherwise answered from their cached
    /// encoding without reaching the stack).
    pub(crate) hooked: bool,
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
            items: crate::items::Items::default(),
            security: SecuritySetting::Default,
            sealing: None,
            layers: Vec::new(),
            hooks: HookChain::default(),
            limits: Limits::default(),
            extensions: methods::Extensions::default(),
            problems: Vec::new(),
            state: crate::handler::StateMap::default(),
            tasks: None,
            bus: None,
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

    /// The per-request limits this server enforces.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// Every OAuth scope the items declare, sorted, each once; see
    /// [`ServerBuilder::declared_scopes`].
    pub fn declared_scopes(&self) -> Vec<String> {
        self.inner.items.as_ref().map(|items| items.declared_scopes()).unwrap_or_default()
    }

    pub(crate) fn inner(&self) -> &ServerInner {
        &self.inner
    }

    /// What handlers see of this server: announce changes, switch items on and off.
    pub fn handle(&self) -> &ServerHandle {
        &self.inner.handle
    }

    /// Tell listeners (`subscriptions/listen`, legacy GET streams) that the tool list changed.
    pub fn notify_tools_list_changed(&self) {
        self.inner.handle.notify_tools_list_changed();
    }

    /// Take a `#[mcp::tool]` or a run-time tool out of `tools/list` and `tools/call` (or put
    /// it back), and tell listeners the list changed. Returns false when no such tool is
    /// registered or nothing changed.
    pub fn set_tool_enabled(&self, name: &str, enabled: bool) -> bool {
        self.inner.handle.set_tool_enabled(name, enabled)
    }

    /// Take a `#[mcp::prompt]` out of service (or put it back), and tell listeners.
    /// Returns false when nothing changed.
    pub fn set_prompt_enabled(&self, name: &str, enabled: bool) -> bool {
        self.inner.handle.set_prompt_enabled(name, enabled)
    }

    /// Tell listeners that the prompt list changed.
    pub fn notify_prompts_list_changed(&self) {
        self.inner.handle.notify_prompts_list_changed();
    }

    /// Tell listeners that the resource list changed.
    pub fn notify_resources_list_changed(&self) {
        self.inner.handle.notify_resources_list_changed();
    }

    /// Tell listeners subscribed to `uri` that its contents changed.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.inner.handle.notify_resource_updated(uri);
    }

    /// Receive every change announced from now on.
    pub fn subscribe_changes(&self) -> tokio::sync::broadcast::Receiver<Change> {
        self.inner.handle.subscribe_changes()
    }

    /// A counter bumped whenever the tool list changes (caches of tool schemas key on it).
    pub fn tools_generation(&self) -> u64 {
        self.inner.handle.tools_generation()
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
    items: crate::items::Items,
    security: SecuritySetting,
    sealing: Option<SealingLayer>,
    layers: Vec<WrapFn>,
    hooks: HookChain,
    limits: Limits,
    /// `capabilities.extensions`.
    extensions: methods::Extensions,
    /// Problems with custom methods and extensions, reported by `try_build`.
    problems: Vec<BuildProblem>,
    state: crate::handler::StateMap,
    /// How tasks are kept, when the server runs them.
    tasks: Option<crate::tasks::TaskConfig>,
    /// The change bus shared with other instances.
    bus: Option<Arc<dyn crate::bus::ChangeBus>>,
}

/// The WARN of a server built without request-state sealing (once per build).
fn warn_unsealed() {
    tracing::warn!(
        "requestState sealing is off (without_request_state_security): clients can forge the state \
         handlers receive; remove the call to seal with a per-process key, or use request_state_security"
    );
}

/// A user layer, applied to the stack when the server is built.
type WrapFn = Box<dyn FnOnce(Arc<dyn Handler>) -> Arc<dyn Handler> + Send>;

/// Whether `requestState` is sealed.
enum SecuritySetting {
    /// Sealed with a per-process key (macro and low-level servers alike).
    Default,
    /// Sealed with this policy.
    Explicit(crate::sealing::RequestStateSecurity),
    /// Never sealed; refused next to resolvers.
    Disabled,
    /// Never sealed, resolvers or not: for tests that read or forge the resolvers' state.
    #[cfg(feature = "test-util")]
    PlaintextForTests,
}

/// Why a server could not be built: every [`BuildProblem`] found (duplicate names, items
/// registered next to a hand-written handler for the same methods, sealing that cannot be
/// set up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError {
    problems: Vec<BuildProblem>,
}

impl BuildError {
    /// Every problem found, in registration order.
    pub fn problems(&self) -> &[BuildProblem] {
        &self.problems
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("invalid MCP server: ")?;
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildError {}

macro_rules! handler_setter {
    ($(#[$doc:meta])* $fn_name:ident, $field:ident, $params:ty, $result:ty) => {
        $(#[$doc])*
        pub fn $fn_name<F, Fut>(mut self, handler: F) -> Self
        where
            F: Fn(RequestContext, $params) -> Fut + Send + Sync + 'static,
            Fut: ::core::future::Future<Output = Result<$result, crate::Error>> + Send + 'static,
        {
            self.handlers.$field = Some(routes::boxed(handler));
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
        /// Handle `completion/complete` by hand. Prompts and resource templates with
        /// `#[mcp(complete = ...)]` completers answer it themselves; a server that has such
        /// completers and this handler too is not built
        /// ([`BuildProblem::MixedRegistration`]), so one never silently wins over the other.
        on_complete, complete, CompleteParams, CompleteResult
    );

    /// Wrap the server's handler stack in `layer`, outside the built-in limits and sealing
    /// layers: it sees every request that reaches a handler (after era detection and
    /// `_meta` validation) and every reply before it is finished for the wire. Layers
    /// added later wrap the ones added before, as in axum's `Router::layer`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use mcp::handler::{BoxFuture, Handler, Layer, Reply, Request};
    ///
    /// /// Counts the requests that reach the handlers.
    /// #[derive(Clone, Default)]
    /// struct Count(Arc<AtomicUsize>);
    ///
    /// struct Counted<H> { inner: H, count: Count }
    ///
    /// impl<H: Handler> Handler for Counted<H> {
    ///     fn call(&self, request: Request) -> BoxFuture<Result<Reply, mcp::Error>> {
    ///         self.count.0.fetch_add(1, Ordering::Relaxed);
    ///         self.inner.call(request)
    ///     }
    /// }
    ///
    /// impl<H: Handler> Layer<H> for Count {
    ///     type Handler = Counted<H>;
    ///     fn layer(&self, inner: H) -> Counted<H> {
    ///         Counted { inner, count: self.clone() }
    ///     }
    /// }
    ///
    /// let count = Count::default();
    /// let server = mcp::Server::builder("counted", "1.0.0").layer(count.clone()).build();
    /// # let _ = server;
    /// ```
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<Arc<dyn Handler>> + Send + 'static,
    {
        self.layers.push(Box::new(move |inner| Arc::new(layer.layer(inner))));
        self
    }

    /// Run `hooks` before and after each request that reaches the handler stack, with its
    /// method, target, verified principal, duration and outcome; see [`crate::hooks`].
    ///
    /// May be called several times: `before` runs in the order the hooks were added and
    /// stops at the first refusal, `after` runs in the reverse order for every hook. The
    /// hooks wrap everything else, layers added with [`layer`](Self::layer) included.
    ///
    /// ```
    /// use mcp::hooks::{RequestHooks, RequestInfo};
    ///
    /// /// Refuses every tool call named `drop_database`.
    /// struct Guard;
    ///
    /// impl RequestHooks for Guard {
    ///     fn before(&self, request: &RequestInfo<'_>) -> Result<(), mcp::Error> {
    ///         match (request.method(), request.target()) {
    ///             ("tools/call", Some("drop_database")) => Err(mcp::Error::new(-32000, "Not today")),
    ///             _ => Ok(()),
    ///         }
    ///     }
    /// }
    ///
    /// let server = mcp::Server::builder("guarded", "1.0.0").hooks(Guard).build();
    /// # let _ = server;
    /// ```
    pub fn hooks(mut self, hooks: impl crate::hooks::RequestHooks) -> Self {
        self.hooks.push(Arc::new(hooks));
        self
    }

    /// Per-request limits (nesting depth, `inputResponses`, `requestState` length, handler
    /// timeout); [`Limits::default`] otherwise.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Seal `requestState` with this policy: shared keys for several instances, a ttl,
    /// single use, the principal binding. Without it every server (macro or low-level)
    /// seals with a per-process key, so state minted by one process is refused by another.
    pub fn request_state_security(mut self, security: crate::sealing::RequestStateSecurity) -> Self {
        self.security = SecuritySetting::Explicit(security);
        self
    }

    /// Never seal `requestState`: it then crosses the wire as the handlers wrote it, and
    /// handlers receive whatever state a client sends, so a client can forge a round
    /// (answers included). Building logs a WARN saying so.
    ///
    /// A server with resolvers (`Resolve<..>` parameters) is not built this way: their
    /// recorded answers travel in the state, so [`try_build`](Self::try_build) reports
    /// [`BuildProblem::UnsealedResolvers`].
    pub fn without_request_state_security(mut self) -> Self {
        self.security = SecuritySetting::Disabled;
        self
    }

    /// Never seal `requestState`, even next to resolvers: for tests that read or forge
    /// the resolvers' plaintext state. Not for servers.
    #[cfg(feature = "test-util")]
    #[doc(hidden)]
    pub fn plaintext_request_state_for_tests(mut self) -> Self {
        self.security = SecuritySetting::PlaintextForTests;
        self
    }

    /// Register application state: every `State<T>` parameter of a tool, prompt, resource
    /// or resolver (and [`RequestContext::state`]) receives a clone of `value`.
    ///
    /// Register several types with several calls; a second value of the same type
    /// replaces the first (the last one wins). Each call clones the value, so make it
    /// cheap to clone: wrap a big or mutable value in an `Arc` (with a `Mutex` inside for
    /// what changes). An item that takes a `State<T>` whose `T` was never registered is a
    /// [`BuildProblem::MissingState`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp::State;
    ///
    /// #[derive(Clone)]
    /// struct Config { greeting: String }
    ///
    /// /// Greet someone.
    /// #[mcp::tool]
    /// fn greet(name: String, config: State<Arc<Config>>, calls: State<u32>) -> String {
    ///     format!("{}, {name} (limit {})", config.greeting, *calls)
    /// }
    ///
    /// let server = mcp::Server::builder("greeter", "1.0.0")
    ///     .state(Arc::new(Config { greeting: "Hello".into() }))
    ///     .state(10u32)
    ///     .tool::<greet>()
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Inline the `$defs` of every `#[mcp::tool]`'s input and output schemas: each `$ref`
    /// is replaced by the definition it names, for clients that cannot follow references.
    /// A recursive type keeps its `$ref` (it cannot be written out), and `$defs` then
    /// holds only what those references need. Off by default: `$defs` is standard JSON
    /// Schema and keeps schemas of shared types small. `#[mcp::tool(inline_refs)]` does
    /// the same for one tool; see [`items::inline_refs`](crate::items::inline_refs).
    ///
    /// ```
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Address {
    ///     city: String,
    /// }
    ///
    /// #[mcp::tool]
    /// fn ship(to: Address) -> String {
    ///     to.city
    /// }
    ///
    /// let server = mcp::Server::builder("shop", "1.0.0").inline_schema_refs(true).tool::<ship>().build();
    /// # let _ = server;
    /// ```
    pub fn inline_schema_refs(mut self, inline: bool) -> Self {
        self.items.inline_schema_refs = inline;
        self
    }

    /// Run tasks (the `io.modelcontextprotocol/tasks` extension) with this configuration:
    /// where they are kept, for how long, and the polling interval suggested to clients.
    /// A server with a `#[mcp::tool(task = "...")]` runs tasks anyway, with
    /// [`TaskConfig::default`](crate::tasks::TaskConfig); a low-level server calls this to
    /// answer with [`RequestContext::create_task`]. Either way the server declares the
    /// extension and serves `tasks/get`, `tasks/update` and `tasks/cancel`.
    pub fn tasks(mut self, config: crate::tasks::TaskConfig) -> Self {
        self.tasks = Some(config);
        self
    }

    /// Share changes with the server's other instances through `bus`: list changes and
    /// resource updates announced on any instance reach the `subscriptions/listen` streams
    /// of all of them, and a task answered or cancelled through one instance wakes its work
    /// on another. Without a bus, changes stay in this process. See
    /// [`RedisChangeBus`](crate::bus) (feature `redis`).
    pub fn change_bus(mut self, bus: impl crate::bus::ChangeBus) -> Self {
        self.bus = Some(Arc::new(bus));
        self
    }

    /// Register a `#[mcp::tool]` function: `.tool::<my_tool>()`.
    pub fn tool<T: crate::items::ToolDef>(mut self) -> Self {
        self.items.add_tool::<T>();
        self
    }

    /// Register a `#[mcp::prompt]` function: `.prompt::<my_prompt>()`.
    pub fn prompt<P: crate::items::PromptDef>(mut self) -> Self {
        self.items.add_prompt::<P>();
        self
    }

    /// Register a `#[mcp::resource]` function: `.resource::<my_resource>()`.
    pub fn resource<R: crate::items::ResourceDef>(mut self) -> Self {
        self.items.add_resource::<R>();
        self
    }

    /// Finish, reporting duplicate names and conflicting registrations.
    pub fn try_build(mut self) -> Result<Server, BuildError> {
        let mut problems = std::mem::take(&mut self.items.errors);
        problems.append(&mut self.problems);
        problems.extend(self.items.missing_state(&self.state));
        let items = std::mem::take(&mut self.items);
        if self.tasks.is_none() && items.has_task_tools() {
            self.tasks = Some(crate::tasks::TaskConfig::default());
        }
        let (tools, prompts, resources) = (items.has_tools(), items.has_prompts(), items.has_resources());
        let completes = items.has_completers();
        let h = &mut self.handlers;
        let conflicts = [
            (tools && (h.list_tools.is_some() || h.call_tool.is_some()), "tools", "on_list_tools/on_call_tool"),
            (
                prompts && (h.list_prompts.is_some() || h.get_prompt.is_some()),
                "prompts",
                "on_list_prompts/on_get_prompt",
            ),
            (
                resources
                    && (h.list_resources.is_some() || h.list_resource_templates.is_some() || h.read_resource.is_some()),
                "resources",
                "on_list_resources/on_list_resource_templates/on_read_resource",
            ),
            (completes && h.complete.is_some(), "completions", "on_complete"),
        ];
        for (conflict, what, handlers) in conflicts {
            if conflict {
                problems.push(BuildProblem::MixedRegistration { what, handlers });
            }
        }
        let security = match std::mem::replace(&mut self.security, SecuritySetting::Disabled) {
            SecuritySetting::Explicit(security) => {
                if security.explicit && security.audience.is_none() && self.info.name.trim().is_empty() {
                    problems.push(BuildProblem::NoAudience);
                }
                Some(security)
            }
            SecuritySetting::Default => match crate::sealing::RequestStateSecurity::ephemeral() {
                Ok(security) => Some(security),
                Err(e) => {
                    problems.push(BuildProblem::Sealing(e.to_string()));
                    None
                }
            },
            SecuritySetting::Disabled => {
                let unsealed = items.tools_with_resolvers();
                problems.extend(unsealed.map(|tool| BuildProblem::UnsealedResolvers { tool: tool.to_owned() }));
                warn_unsealed();
                None
            }
            #[cfg(feature = "test-util")]
            SecuritySetting::PlaintextForTests => {
                warn_unsealed();
                None
            }
        };
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        self.sealing = security.map(|s| SealingLayer::new(s, &self.info.name));
        let shared = items.into_shared();
        if tools {
            let list = Arc::clone(&shared);
            h.list_tools = Some(routes::boxed(move |ctx: RequestContext, _params: PaginatedParams| {
                let result = list.list_tools_for(ctx.auth());
                async move { Ok(result) }
            }));
            let call = Arc::clone(&shared);
            h.items_call_tool = Some(Arc::new(move |ctx, params| call.call_tool_object(ctx, params)));
            let asks = Arc::clone(&shared);
            self.sealing =
                self.sealing.map(|s| s.with_tool_hint(Arc::new(move |name| asks.tool_may_require_input(name))));
        }
        if prompts {
            let list = Arc::clone(&shared);
            h.list_prompts = Some(routes::boxed(move |ctx: RequestContext, _params: PaginatedParams| {
                let result = list.list_prompts_for(ctx.auth());
                async move { Ok(result) }
            }));
            let get = Arc::clone(&shared);
            h.get_prompt = Some(Arc::new(move |ctx, params| get.get_prompt(ctx, params)));
        }
        if resources {
            let list = Arc::clone(&shared);
            h.list_resources = Some(routes::boxed(move |ctx: RequestContext, _params: PaginatedParams| {
                let result = list.list_resources_for(ctx.auth());
                async move { Ok(result) }
            }));
            let templates = Arc::clone(&shared);
            h.list_resource_templates = Some(routes::boxed(move |ctx: RequestContext, _params: PaginatedParams| {
                let result = templates.list_templates_for(ctx.auth());
                async move { Ok(result) }
            }));
            let read = Arc::clone(&shared);
            h.read_resource = Some(Arc::new(move |ctx, params| read.read_resource(ctx, params)));
        }
        if completes {
            let complete = Arc::clone(&shared);
            h.complete = Some(Arc::new(move |ctx, params| complete.complete(ctx, params)));
        }
        let state = std::mem::take(&mut self.state);
        let mut server = self.finish();
        server.inner.handle.attach_state(state);
        if (tools || prompts || resources)
            && let Some(inner) = Arc::get_mut(&mut server.inner)
        {
            inner.handle.attach_items(Arc::clone(&shared) as Arc<dyn crate::handler::ItemSwitch>);
            inner.items = Some(shared);
        }
        Ok(server)
    }

    /// Every OAuth scope the registered items declare (`scopes = [...]`), sorted, each
    /// once: the `scopes_supported` of the protected resource metadata.
    ///
    /// ```
    /// #[mcp::tool(scopes = ["db:write"])]
    /// fn provision(name: String) -> String {
    ///     name
    /// }
    ///
    /// #[mcp::prompt(scopes = ["db:read"])]
    /// fn briefing() -> String {
    ///     "Be brief.".into()
    /// }
    ///
    /// let builder = mcp::Server::builder("s", "1.0.0").tool::<provision>().prompt::<briefing>();
    /// assert_eq!(builder.declared_scopes(), ["db:read", "db:write"]);
    /// assert_eq!(builder.build().declared_scopes(), ["db:read", "db:write"]);
    /// ```
    pub fn declared_scopes(&self) -> Vec<String> {
        self.items.declared_scopes()
    }

    /// List each caller only the tools, prompts and resources whose scopes it holds
    /// (see [`items::scopes`](crate::items::scopes)). Off by default: scoped items are
    /// listed to everyone and refused when used. With it, lists are built per request
    /// rather than encoded once.
    pub fn hide_unauthorized_items(mut self, hide: bool) -> Self {
        self.items.hide_unauthorized = hide;
        self
    }

    /// Let requests that carry no [`AuthInfo`](crate::auth::AuthInfo) at all use scoped
    /// items, for a server that runs both with and without authentication (the
    /// `provisioner` example without `MCP_AUTH_ISSUER`, a stdio build of an HTTP server).
    ///
    /// Off by default: without it, scoped items are refused to unauthenticated requests
    /// (see [`items::scopes`](crate::items::scopes)), so a missing authorization setup
    /// never opens them to everyone. Turn it on only where no verifier is configured:
    /// an authenticated caller is still checked against each item's scopes.
    ///
    /// ```
    /// #[mcp::tool(scopes = ["db:write"])]
    /// fn provision(name: String) -> String {
    ///     name
    /// }
    ///
    /// let authenticated = std::env::var_os("MCP_AUTH_ISSUER").is_some();
    /// let server = mcp::Server::builder("s", "1.0.0")
    ///     .tool::<provision>()
    ///     .allow_scoped_items_without_auth(!authenticated)
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn allow_scoped_items_without_auth(mut self, allow: bool) -> Self {
        self.items.scoped_items_without_auth = allow;
        self
    }

    /// Finish: capabilities are derived from the handlers and items that are set.
    ///
    /// # Panics
    ///
    /// When two items share a name, items and hand-written handlers serve the same
    /// methods, or an item takes a `State<T>` whose `T` was not registered;
    /// [`try_build`](Self::try_build) reports those as an error instead.
    pub fn build(self) -> Server {
        match self.try_build() {
            Ok(server) => server,
            Err(e) => panic!("{e}"),
        }
    }

    fn finish(self) -> Server {
        let h = &self.handlers;
        let listed = ListCapability { list_changed: Some(true) };
        let mut capabilities = ServerCapabilities {
            logging: Some(JsonObject::new()),
            completions: h.complete.is_some().then(JsonObject::new),
            prompts: (h.list_prompts.is_some() || h.get_prompt.is_some()).then_some(listed.clone()),
            resources: (h.list_resources.is_some() || h.list_resource_templates.is_some() || h.read_resource.is_some())
                .then_some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) }),
            tools: (h.list_tools.is_some() || h.call_tool.is_some() || h.items_call_tool.is_some()).then_some(listed),
            extensions: self.extensions.capability(),
            ..Default::default()
        };
        if self.tasks.is_some() {
            let extensions = capabilities.extensions.get_or_insert_with(Default::default);
            extensions.entry(crate::protocol::TASKS_EXTENSION.to_owned()).or_default();
        }
        let tasks = self.tasks.map(|config| Arc::new(crate::tasks::TaskManager::new(config)));
        let routes =
            Arc::new(Routes::new(self.handlers, capabilities.clone(), self.instructions.clone(), tasks.is_some()));
        let limits = LimitsLayer::new(self.limits.clone());
        let mut stack: Arc<dyn Handler> = match &self.sealing {
            Some(sealing) => Arc::new(limits.layer(sealing.layer(Arc::clone(&routes)))),
            None => Arc::new(limits.layer(Arc::clone(&routes))),
        };
        for wrap in self.layers {
            stack = wrap(stack);
        }
        // The hooks go outermost: their `after` then sees every answer the stack gives,
        // the refusals of the user layers, the limits (an oversized requestState, a
        // handler timeout) and the sealing (a forged or replayed state) included, and a
        // `before` refusal costs no work below it.
        let hooked = !self.hooks.is_empty();
        if hooked {
            stack = Arc::new(HooksLayer::from_chain(self.hooks).layer(stack));
        }
        let handle = ServerHandle::new();
        if let Some(tasks) = tasks {
            handle.attach_tasks(tasks);
        }
        if let Some(bus) = self.bus {
            handle.attach_bus(bus);
        }
        Server {
            inner: Arc::new(ServerInner {
                server_info_meta: results::server_info_meta(&self.info),
                info: self.info,
                instructions: self.instructions,
                ttl_ms: self.ttl_ms,
                cache_scope: self.cache_scope,
                capabilities,
                handle,
                items: None,
                limits: self.limits,
                routes,
                stack,
                hooked,
            }),
        }
    }
}

impl Server {
    /// Every tool the `tools/list` handler returns, following cursors (at most 100 pages).
    ///
    /// Transports use this to read tool schemas (for example `x-mcp-header` annotations).
    pub async fn list_all_tools(&self) -> Result<Vec<crate::protocol::Tool>, crate::Error> {
        // The items' own list, whole: it is not the caller's, so not filtered by scopes.
        if let Some(items) = self.inner.items.as_ref().filter(|items| items.serves(crate::items::ListKind::Tools)) {
            return Ok(items.list_tools().tools);
        }
        let Some(handler) = self.inner.routes.handlers.list_tools.clone() else {
            return Ok(Vec::new());
        };
        let mut tools = Vec::new();
        let mut cursor = None;
        for _ in 0..100 {
            let ctx = RequestContext::internal(self.inner.handle.clone());
            let page = handler(ctx, PaginatedParams { meta: None, cursor: cursor.take() }).await?;
            tools.extend(page.tools);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        Ok(tools)
    }
}
