//! The low-level method table: one type-erased async handler per method, served as a
//! [`Handler`]. The item router fills the same table from `#[mcp::tool]` and friends.

use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Error;
use crate::handler::{BoxFuture, Handler, Reply, Request, RequestContext};
use crate::protocol::{
    CallToolOutcome, CallToolParams, CallToolResult, CompleteParams, CompleteResult, DiscoverResult, GetPromptOutcome,
    GetPromptParams, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Outcome,
    PaginatedParams, Params, ReadResourceOutcome, ReadResourceParams, SUPPORTED_MODERN_VERSIONS, ServerCapabilities,
    methods, tasks::methods as task_methods,
};

/// A type-erased handler of one method, from params `P` to a result `R`.
pub type MethodHandler<P, R> = Arc<dyn Fn(RequestContext, P) -> BoxFuture<Result<R, Error>> + Send + Sync>;

pub(crate) fn boxed<P, R, F, Fut>(handler: F) -> MethodHandler<P, R>
where
    F: Fn(RequestContext, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, Error>> + Send + 'static,
{
    Arc::new(move |ctx, params| Box::pin(handler(ctx, params)))
}

/// The handlers a server has.
#[derive(Default)]
pub(crate) struct Handlers {
    pub(crate) list_tools: Option<MethodHandler<PaginatedParams, ListToolsResult>>,
    pub(crate) call_tool: Option<MethodHandler<CallToolParams, CallToolOutcome>>,
    /// `tools/call` served by the macro items, which read the params object themselves
    /// (what a macro tool never looks at stays unread); set instead of `call_tool`.
    pub(crate) items_call_tool: Option<MethodHandler<Option<Params>, CallToolOutcome>>,
    pub(crate) list_prompts: Option<MethodHandler<PaginatedParams, ListPromptsResult>>,
    pub(crate) get_prompt: Option<MethodHandler<GetPromptParams, GetPromptOutcome>>,
    pub(crate) list_resources: Option<MethodHandler<PaginatedParams, ListResourcesResult>>,
    pub(crate) list_resource_templates: Option<MethodHandler<PaginatedParams, ListResourceTemplatesResult>>,
    pub(crate) read_resource: Option<MethodHandler<ReadResourceParams, ReadResourceOutcome>>,
    pub(crate) complete: Option<MethodHandler<CompleteParams, CompleteResult>>,
    /// Methods beyond MCP's own (`ServerBuilder::method`).
    pub(crate) extra: super::methods::ExtraMethods,
}

/// The methods a handler can serve, in both eras.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    Discover,
    ListTools,
    CallTool,
    ListPrompts,
    GetPrompt,
    ListResources,
    ListResourceTemplates,
    ReadResource,
    Complete,
    Listen,
    /// `tasks/get`, `tasks/update`, `tasks/cancel` (a server that runs tasks, 2026-07-28).
    Tasks,
    /// A custom method (`ServerBuilder::method`).
    Extra,
}

/// The method table as the innermost [`Handler`] of a server's stack.
pub(crate) struct Routes {
    pub(crate) handlers: Handlers,
    pub(crate) capabilities: Arc<ServerCapabilities>,
    pub(crate) discover: DiscoverResult,
    /// Whether the server runs tasks (and so serves the `tasks/*` methods).
    pub(crate) tasks: bool,
}

impl Routes {
    pub(crate) fn new(
        handlers: Handlers,
        capabilities: ServerCapabilities,
        instructions: Option<String>,
        tasks: bool,
    ) -> Self {
        let discover = DiscoverResult {
            supported_versions: SUPPORTED_MODERN_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
            capabilities: capabilities.clone(),
            instructions,
            ..Default::default()
        };
        Routes { handlers, capabilities: Arc::new(capabilities), discover, tasks }
    }

    fn supports_listen(&self) -> bool {
        let caps = &self.capabilities;
        caps.tools.is_some() || caps.prompts.is_some() || caps.resources.is_some()
    }

    /// The route for `method`, if this server has a handler for it.
    pub(crate) fn find(&self, method: &str, modern: bool) -> Option<Route> {
        let h = &self.handlers;
        let (route, available) = match method {
            methods::SERVER_DISCOVER if modern => (Route::Discover, true),
            methods::TOOLS_LIST => (Route::ListTools, h.list_tools.is_some()),
            methods::TOOLS_CALL => (Route::CallTool, h.call_tool.is_some() || h.items_call_tool.is_some()),
            methods::PROMPTS_LIST => (Route::ListPrompts, h.list_prompts.is_some()),
            methods::PROMPTS_GET => (Route::GetPrompt, h.get_prompt.is_some()),
            methods::RESOURCES_LIST => (Route::ListResources, h.list_resources.is_some()),
            methods::RESOURCES_TEMPLATES_LIST => (Route::ListResourceTemplates, h.list_resource_templates.is_some()),
            methods::RESOURCES_READ => (Route::ReadResource, h.read_resource.is_some()),
            methods::COMPLETION_COMPLETE => (Route::Complete, h.complete.is_some()),
            methods::SUBSCRIPTIONS_LISTEN if modern => (Route::Listen, self.supports_listen() || self.tasks),
            task_methods::TASKS_GET | task_methods::TASKS_UPDATE | task_methods::TASKS_CANCEL if modern => {
                (Route::Tasks, self.tasks)
            }
            _ if h.extra.get(method).is_some() => (Route::Extra, true),
            _ => return None,
        };
        available.then_some(route)
    }
}

pub(crate) fn parse<T: DeserializeOwned>(params: Option<Params>) -> Result<T, Error> {
    serde_json::from_value(Value::Object(params.map(Params::into_object).unwrap_or_default()))
        .map_err(|e| Error::invalid_params(format!("Invalid params: {e}")))
}

/// [`parse`] for `tools/call`, the hot path: its arguments are moved, not rebuilt.
fn parse_call(params: Option<Params>) -> Result<CallToolParams, Error> {
    CallToolParams::read_params(params.unwrap_or_default(), true)
        .map_err(|e| Error::invalid_params(format!("Invalid params: {e}")))
}

/// A tool's result as a reply: a modern one encoded once, straight to text; a legacy
/// session's trimmed to its revision, which needs the tree.
fn finish_call(result: CallToolResult, modern: bool) -> Result<Reply, Error> {
    if modern { Reply::tool(result) } else { Reply::plain(&result) }
}

fn ready(result: Result<Reply, Error>) -> BoxFuture<Result<Reply, Error>> {
    Box::pin(std::future::ready(result))
}

/// Call a list-like handler and encode its result.
fn list<P, R>(
    handler: &Option<MethodHandler<P, R>>,
    ctx: RequestContext,
    params: Option<Params>,
    cacheable: bool,
) -> BoxFuture<Result<Reply, Error>>
where
    P: DeserializeOwned + Send + 'static,
    R: serde::Serialize + Send + 'static,
{
    let Some(handler) = handler.clone() else { return ready(Err(Error::internal("handler missing"))) };
    Box::pin(async move {
        let result = handler(ctx, parse(params)?).await?;
        if cacheable { Reply::cacheable(&result) } else { Reply::plain(&result) }
    })
}

/// Call a carrier handler (a final result or an `InputRequiredResult`).
fn carrier<P, R>(
    handler: &Option<MethodHandler<P, Outcome<R>>>,
    ctx: RequestContext,
    params: Option<Params>,
    parse: fn(Option<Params>) -> Result<P, Error>,
    finish: fn(R, bool) -> Result<Reply, Error>,
    tasks: bool,
) -> BoxFuture<Result<Reply, Error>>
where
    P: Send + 'static,
    R: Send + 'static,
{
    let Some(handler) = handler.clone() else { return ready(Err(Error::internal("handler missing"))) };
    let modern = !ctx.is_legacy();
    Box::pin(async move {
        match handler(ctx, parse(params)?).await? {
            Outcome::Complete(result) => finish(result, modern),
            Outcome::InputRequired(ir) => Ok(Reply::InputRequired(ir)),
            Outcome::Task(task) if tasks => Ok(Reply::Task(task)),
            Outcome::Task(_) => {
                tracing::warn!("a handler answered with a task a method that has none (only tools/call does)");
                Err(Error::internal("Handler returned an invalid result"))
            }
        }
    })
}

impl Handler for Routes {
    fn call(&self, request: Request) -> BoxFuture<Result<Reply, Error>> {
        let Request { ctx, method, params } = request;
        let Some(route) = self.find(&method, !ctx.is_legacy()) else {
            return ready(Err(Error::method_not_found(&method)));
        };
        let h = &self.handlers;
        match route {
            Route::Discover => ready(Reply::cacheable(&self.discover)),
            Route::ListTools => list(&h.list_tools, ctx, params, true),
            Route::ListPrompts => list(&h.list_prompts, ctx, params, true),
            Route::ListResources => list(&h.list_resources, ctx, params, true),
            Route::ListResourceTemplates => list(&h.list_resource_templates, ctx, params, true),
            Route::Complete => list(&h.complete, ctx, params, false),
            Route::Listen => {
                let caps = Arc::clone(&self.capabilities);
                Box::pin(async move {
                    let result = super::listen::listen(&caps, ctx, parse(params)?).await?;
                    Ok(Reply::Complete { result: result.into(), cacheable: false })
                })
            }
            Route::CallTool if h.items_call_tool.is_some() => {
                carrier(&h.items_call_tool, ctx, params, Ok, finish_call, true)
            }
            Route::CallTool => carrier(&h.call_tool, ctx, params, parse_call, finish_call, true),
            Route::GetPrompt => carrier(&h.get_prompt, ctx, params, parse, |result, _| Reply::plain(&result), false),
            Route::Tasks => Box::pin(super::tasks::serve(ctx, method, params)),
            Route::ReadResource => carrier(
                &h.read_resource,
                ctx,
                params,
                parse,
                |result, _| {
                    if result.contents.is_empty() {
                        tracing::warn!("resources/read handler returned no contents");
                        return Err(Error::internal("Handler returned an invalid result"));
                    }
                    Reply::cacheable(&result)
                },
                false,
            ),
            Route::Extra => match h.extra.get(&method) {
                Some(extra) => extra(ctx, params.map(Params::into_object)),
                None => ready(Err(Error::method_not_found(&method))),
            },
        }
    }
}
