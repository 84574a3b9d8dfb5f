//! One call and the slot loop that makes calls one after the other, over any transport.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::args::{Era, Mode};
use crate::http::{HttpConn, Route};
use crate::reply::{Reply, TaskState};
use crate::state::{Ctx, Fail, Record};
use crate::stdio::Pipe;

/// One call: one request (plain, or legacy MRTR where the server asks over the
/// back-channel during it), the request and its retry (modern MRTR), or the request and
/// the `tasks/get` requests until its task is done (task).
pub(crate) async fn one_call(conn: &mut Conn, ctx: &Ctx) -> Result<(), Fail> {
    let id = ctx.next_id();
    let reply = conn.request(ctx, id, ctx.call_body(id), Route::ToolsCall).await?;
    if ctx.mode == Mode::Task {
        return task_result(conn, ctx, &reply.created_task()?).await;
    }
    if ctx.era == Era::Legacy || ctx.mode == Mode::Plain {
        return reply.check_complete(ctx);
    }
    let (key, state) = reply.input_required()?;
    let id = ctx.next_id();
    conn.request(ctx, id, ctx.retry_body(id, &key, state.as_deref()), Route::ToolsCall).await?.check_complete(ctx)
}

/// `tasks/get` of `task_id`, again at once while it is working, until it has its result
/// (after the window too: a call in flight is finished, as in the other modes).
async fn task_result(conn: &mut Conn, ctx: &Ctx, task_id: &str) -> Result<(), Fail> {
    loop {
        let id = ctx.next_id();
        ctx.task_polls.fetch_add(1, Ordering::Relaxed);
        let reply = conn.request(ctx, id, ctx.task_get_body(id, task_id), Route::TasksGet(task_id)).await?;
        match reply.task_state(ctx)? {
            TaskState::Done => return Ok(()),
            // A task that never finishes keeps its slot busy until the run's drain gives up.
            TaskState::Pending => tokio::task::yield_now().await,
        }
    }
}

/// A slot: one call in flight at a time, until the run stops.
pub(crate) async fn slot(mut conn: Conn, ctx: Arc<Ctx>) -> Vec<Record> {
    let mut records = Vec::with_capacity(4096);
    while !ctx.is_done() {
        let start = Instant::now();
        let outcome = one_call(&mut conn, &ctx).await;
        let end = conn.answered_at().unwrap_or_else(Instant::now);
        let ok = match outcome {
            Ok(()) => true,
            Err(Fail::Rejected(text)) => {
                ctx.error(text);
                false
            }
            Err(Fail::Fatal(text)) => {
                if !ctx.stop.load(Ordering::Relaxed) {
                    ctx.fail(text);
                }
                break;
            }
        };
        records.push(Record {
            end_us: end.duration_since(ctx.origin).as_micros() as u64,
            latency_us: end.duration_since(start).as_micros() as u64,
            ok,
        });
    }
    records
}

/// A slot's way to the server.
pub(crate) enum Conn {
    Stdio(Arc<Pipe>),
    Http(Box<HttpConn>),
}

impl Conn {
    /// When the last response arrived, if that was before its exchange ended.
    pub(crate) fn answered_at(&mut self) -> Option<Instant> {
        match self {
            Conn::Stdio(_) => None,
            Conn::Http(http) => http.answered_at.take(),
        }
    }

    /// Send request `id` (its JSON body given) and return the server's response message.
    pub(crate) async fn request(&mut self, ctx: &Ctx, id: u64, body: Vec<u8>, route: Route<'_>) -> Result<Reply, Fail> {
        match self {
            Conn::Stdio(pipe) => pipe.request(id, body).await,
            Conn::Http(http) => http.request(ctx, id, body, route).await,
        }
    }
}
