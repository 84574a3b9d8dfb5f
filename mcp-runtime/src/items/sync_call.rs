//! The future of a `#[mcp::tool]` whose function is not `async` (and that neither resolves
//! parameters nor runs as a task): one type for every such tool, so a crate with many
//! tools compiles one `poll`, not a state machine per tool.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use crate::Error;
use crate::handler::{BoxFuture, Context};
use crate::protocol::{CallToolOutcome, CallToolParams};

/// A tool's whole call, run synchronously: decode the arguments, call the function,
/// convert its value.
pub type SyncRun = fn(Context, CallToolParams) -> Result<CallToolOutcome, Error>;

/// Runs a [`SyncRun`] when first polled (as an `async` block with no `.await` would).
struct SyncCall {
    pending: Option<(Context, CallToolParams, SyncRun)>,
}

impl Future for SyncCall {
    type Output = Result<CallToolOutcome, Error>;

    fn poll(self: Pin<&mut Self>, _: &mut std::task::Context<'_>) -> Poll<Self::Output> {
        match self.get_mut().pending.take() {
            Some((ctx, params, run)) => Poll::Ready(run(ctx, params)),
            None => panic!("a tool call's future polled after it completed"),
        }
    }
}

/// The boxed future of a call to a tool that `run` serves.
pub fn sync_call(ctx: Context, params: CallToolParams, run: SyncRun) -> BoxFuture<Result<CallToolOutcome, Error>> {
    Box::pin(SyncCall { pending: Some((ctx, params, run)) })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::protocol::CallToolResult;

    static RUNS: AtomicUsize = AtomicUsize::new(0);

    fn run(_: Context, params: CallToolParams) -> Result<CallToolOutcome, Error> {
        RUNS.fetch_add(1, Ordering::SeqCst);
        Ok(CallToolResult::text(params.name).into())
    }

    #[tokio::test]
    async fn the_call_runs_when_polled_not_before() {
        let ctx = Context::new(crate::RequestContext::internal(crate::handler::ServerHandle::new()), None, None);
        let params: CallToolParams = serde_json::from_value(serde_json::json!({"name": "echo"})).expect("params");
        let future = sync_call(ctx, params, run);
        assert_eq!(RUNS.load(Ordering::SeqCst), 0, "building the future runs nothing");
        match future.await {
            Ok(CallToolOutcome::Complete(result)) => assert_eq!(result, CallToolResult::text("echo")),
            other => panic!("expected the run's result, got {other:?}"),
        }
        assert_eq!(RUNS.load(Ordering::SeqCst), 1);
    }
}
