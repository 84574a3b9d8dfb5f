//! Running a `#[mcp::tool(task = "...")]`'s work: as a task when the request may become
//! one, in the request otherwise.

use std::future::Future;

use crate::Error;
use crate::handler::RequestContext;
use crate::protocol::{CallToolOutcome, Outcome};
use crate::tasks::TaskSupport;

/// Run `work` as a task if `support` allows it and the request may become one
/// ([`RequestContext::can_create_task`]); await it in the request otherwise.
pub async fn run_task<F>(ctx: &RequestContext, support: TaskSupport, work: F) -> Result<CallToolOutcome, Error>
where
    F: Future<Output = Result<CallToolOutcome, Error>> + Send + 'static,
{
    if support != TaskSupport::Forbidden && ctx.can_create_task() {
        return ctx.create_task(work).await.map(Outcome::Task);
    }
    work.await
}
