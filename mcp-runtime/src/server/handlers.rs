//! Type-erased async handlers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::RequestContext;
use crate::protocol::{
    CallToolOutcome, CallToolParams, CompleteParams, CompleteResult, GetPromptOutcome, GetPromptParams,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedParams,
    ReadResourceOutcome, ReadResourceParams,
};

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A type-erased handler from params `P` to a result `R`.
pub type Handler<P, R> = Arc<dyn Fn(RequestContext, P) -> BoxFuture<Result<R, crate::Error>> + Send + Sync>;

pub(crate) fn boxed<P, R, F, Fut>(handler: F) -> Handler<P, R>
where
    F: Fn(RequestContext, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, crate::Error>> + Send + 'static,
{
    Arc::new(move |ctx, params| Box::pin(handler(ctx, params)))
}

/// The handlers a server has.
#[derive(Default)]
pub(crate) struct Handlers {
    pub(crate) list_tools: Option<Handler<PaginatedParams, ListToolsResult>>,
    pub(crate) call_tool: Option<Handler<CallToolParams, CallToolOutcome>>,
    pub(crate) list_prompts: Option<Handler<PaginatedParams, ListPromptsResult>>,
    pub(crate) get_prompt: Option<Handler<GetPromptParams, GetPromptOutcome>>,
    pub(crate) list_resources: Option<Handler<PaginatedParams, ListResourcesResult>>,
    pub(crate) list_resource_templates: Option<Handler<PaginatedParams, ListResourceTemplatesResult>>,
    pub(crate) read_resource: Option<Handler<ReadResourceParams, ReadResourceOutcome>>,
    pub(crate) complete: Option<Handler<CompleteParams, CompleteResult>>,
}
