//! What a task's work sees of its task: the id, status messages, cancellation, and
//! questions for the client answered through `tasks/update`.

use std::sync::Arc;
use std::time::Duration;

use super::manager::{Signals, TaskManager};
use super::record::{Applied, TaskChange};
use crate::protocol::{Error, ErrorCode, InputRequest, InputResponse};

/// How often a waiting question re-reads the store, in case its wake-up was missed (a
/// shared store's answers may arrive through another instance).
const RECHECK: Duration = Duration::from_secs(1);

/// The task a request's work runs as: its id, its status message, its cancellation, and
/// the questions it asks the client. Reach it with
/// [`RequestContext::task`](crate::RequestContext::task) from the work of a tool marked
/// `#[mcp::tool(task = "...")]`.
///
/// # Examples
///
/// ```
/// /// Reindex everything: long, so it runs as a task when the client supports them.
/// #[mcp::tool(task = "optional")]
/// async fn reindex(ctx: mcp::Context) -> String {
///     if let Some(task) = ctx.task() {
///         task.set_status_message("reindexing").await;
///     }
///     "reindexed".to_owned()
/// }
/// # let _ = mcp::Server::builder("search", "1.0.0").tool::<reindex>().build();
/// ```
#[derive(Clone)]
pub struct TaskHandle {
    id: Arc<str>,
    manager: Arc<TaskManager>,
    signals: Arc<Signals>,
}

impl std::fmt::Debug for TaskHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle").field("id", &self.id).finish_non_exhaustive()
    }
}

/// Withdraws a question its asker stopped waiting for.
struct Asked {
    key: Option<String>,
    id: Arc<str>,
    manager: Arc<TaskManager>,
}

impl Drop for Asked {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else { return };
        let (id, manager) = (Arc::clone(&self.id), Arc::clone(&self.manager));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = manager.apply(&id, TaskChange::Withdraw { key }).await;
            });
        }
    }
}

impl TaskHandle {
    pub(crate) fn new(id: Arc<str>, manager: Arc<TaskManager>, signals: Arc<Signals>) -> Self {
        TaskHandle { id, manager, signals }
    }

    /// The task's id, as the client sees it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Set the task's `statusMessage`, which `tasks/get` shows (to the user or the model).
    /// Nothing happens once the task is over.
    pub async fn set_status_message(&self, message: impl Into<String>) {
        if let Err(error) = self.manager.apply(&self.id, TaskChange::Message(message.into())).await {
            tracing::warn!(code = error.code, "could not set a task's status message");
        }
    }

    /// Report progress as the status message: `"{progress}/{total}: {message}"` (each
    /// part when given). Tasks carry no progress notifications; their status message is
    /// what the client polls.
    pub async fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let mut text = match total {
            Some(total) => format!("{progress}/{total}"),
            None => format!("{progress}"),
        };
        if let Some(message) = message {
            text.push_str(": ");
            text.push_str(message);
        }
        self.set_status_message(text).await;
    }

    /// Whether the client cancelled the task (`tasks/cancel`). The work is also dropped
    /// at its next `.await`; this lets work running elsewhere (a blocking thread, a
    /// spawned task) stop too.
    pub fn is_cancelled(&self) -> bool {
        *self.signals.cancelled.borrow()
    }

    /// Resolves once the task is cancelled.
    pub async fn cancelled(&self) {
        let mut cancelled = self.signals.cancelled.subscribe();
        let _ = cancelled.wait_for(|c| *c).await;
    }

    /// Ask the client `request` and wait for its answer: the task becomes
    /// `input_required` with the question in its `inputRequests`, and the answer comes in
    /// through `tasks/update`. Several questions can be open at once (ask them
    /// concurrently). The typed way is [`resolve::ask`](crate::resolve::ask).
    ///
    /// Fails when the task is cancelled or expires while waiting.
    pub async fn input(&self, request: InputRequest) -> Result<InputResponse, Error> {
        let key = match self.manager.apply(&self.id, TaskChange::Ask { request: Box::new(request) }).await? {
            Some((Applied::Asked(key), _)) => key,
            _ => return Err(gone()),
        };
        let mut asked = Asked { key: Some(key.clone()), id: Arc::clone(&self.id), manager: Arc::clone(&self.manager) };
        loop {
            let woken = self.signals.answers.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            match self.manager.apply(&self.id, TaskChange::Take { key: key.clone() }).await {
                Ok(Some((Applied::Taken(answer), _))) => {
                    asked.key = None;
                    return Ok(*answer);
                }
                Ok(Some((_, record))) if !record.status.is_terminal() => {}
                Ok(_) => return Err(gone()),
                // A shared store that does not answer now may answer at the next check; the
                // task's ttl still bounds the wait.
                Err(error) => tracing::debug!(code = error.code, "could not read a task's answers; trying again"),
            }
            tokio::select! {
                () = &mut woken => {}
                () = tokio::time::sleep(RECHECK) => {}
                () = self.cancelled() => return Err(gone()),
            }
        }
    }
}

fn gone() -> Error {
    Error::new(ErrorCode::INTERNAL_ERROR, "The task was cancelled or expired while it waited for input")
}
