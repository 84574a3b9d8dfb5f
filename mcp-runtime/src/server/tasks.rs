//! `tasks/get`, `tasks/update` and `tasks/cancel` (the tasks extension, 2026-07-28): for
//! a request that declares the extension, on a task its principal created.

use crate::Error;
use crate::handler::{Reply, RequestContext};
use crate::protocol::tasks::methods;
use crate::protocol::{Params, TaskIdParams, UpdateTaskParams, declares_tasks, tasks_capability};

use super::routes::parse;

/// Serve one `tasks/*` request. The capability is checked before the params, so a client
/// without the extension learns that first, whatever id it sent.
pub(crate) async fn serve(ctx: RequestContext, method: String, params: Option<Params>) -> Result<Reply, Error> {
    if !declares_tasks(ctx.client_capabilities()) {
        return Err(Error::missing_client_capability(
            format!("{method} needs the tasks extension in this request's client capabilities"),
            &tasks_capability(),
        ));
    }
    let Some(tasks) = ctx.server().tasks().cloned() else {
        return Err(Error::method_not_found(&method));
    };
    let owner = ctx.task_owner();
    let owner = owner.as_deref();
    match method.as_str() {
        methods::TASKS_GET => {
            let p: TaskIdParams = parse(params)?;
            Reply::plain(&tasks.get(&p.task_id, owner).await?)
        }
        methods::TASKS_UPDATE => {
            let p: UpdateTaskParams = parse(params)?;
            tasks.update(&p.task_id, owner, p.input_responses).await?;
            Ok(Reply::complete(crate::protocol::JsonObject::new()))
        }
        methods::TASKS_CANCEL => {
            let p: TaskIdParams = parse(params)?;
            tasks.cancel(&p.task_id, owner).await?;
            Ok(Reply::complete(crate::protocol::JsonObject::new()))
        }
        _ => Err(Error::method_not_found(&method)),
    }
}
