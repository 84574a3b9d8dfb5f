//! The tasks extension on the client's side (2026-07-28, [`ClientBuilder::tasks`]): follow
//! the task a `tools/call` was answered with until it ends, answer its questions with the
//! callbacks, cancel it when the call is dropped; and [`Client::get_task`],
//! [`Client::update_task`] and [`Client::cancel_task`] for callers that drive a task they
//! persisted themselves.
//!
//! [`ClientBuilder::tasks`]: super::ClientBuilder::tasks

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::ClientError;
use super::callbacks::Asker;
use super::driver;
use super::link::Outgoing;
use super::session::{Client, Inner};
use crate::protocol::tasks::methods;
use crate::protocol::{
    CallToolResult, CreateTaskResult, DetailedTask, ErrorCode, InputRequests, InputResponses, JsonObject, TaskStatus,
};

/// The wait between polls when the server suggests none (`pollIntervalMs`).
pub(crate) const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// The shortest wait between polls, whatever the server suggests.
pub(crate) const MIN_POLL_INTERVAL: Duration = Duration::from_millis(10);
/// The longest wait between polls, whatever the server suggests.
pub(crate) const MAX_POLL_INTERVAL: Duration = Duration::from_secs(30);
/// How long the `tasks/cancel` sent for a dropped call may take.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);

/// The wait before the next poll: the server's suggestion, kept within sane bounds.
fn poll_interval(suggested_ms: Option<u64>) -> Duration {
    suggested_ms
        .map_or(DEFAULT_POLL_INTERVAL, |ms| Duration::from_millis(ms).clamp(MIN_POLL_INTERVAL, MAX_POLL_INTERVAL))
}

/// Send a `tasks/*` request about `task_id` (with `Mcp-Name: <taskId>` over HTTP, and the
/// extension in `_meta`).
async fn task_request(
    inner: &Inner,
    method: &str,
    task_id: &str,
    responses: Option<InputResponses>,
) -> Result<Value, ClientError> {
    if !inner.is_modern() {
        return Err(ClientError::Unsupported("tasks need protocol 2026-07-28; this session is 2025-11-25".into()));
    }
    let mut params = JsonObject::new();
    params.insert("taskId".into(), Value::String(task_id.to_owned()));
    if let Some(responses) = responses {
        let responses =
            serde_json::to_value(responses).map_err(|e| ClientError::Protocol(format!("encoding the answers: {e}")))?;
        params.insert("inputResponses".into(), responses);
    }
    let mut out = Outgoing::new(method, params);
    out.name = Some(task_id.to_owned());
    inner.send(out).await
}

/// Cancels the task (`tasks/cancel`, in the background) if the call following it is
/// dropped before the task ended.
struct CancelOnDrop {
    inner: Arc<Inner>,
    task_id: Option<String>,
}

impl CancelOnDrop {
    /// The task ended (or is gone): nothing to cancel.
    fn disarm(&mut self) {
        self.task_id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(task_id) = self.task_id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!("a call following a task was dropped outside a runtime; the task is not cancelled");
            return;
        };
        let inner = Arc::clone(&self.inner);
        runtime.spawn(async move {
            let cancel = task_request(&inner, methods::TASKS_CANCEL, &task_id, None);
            match tokio::time::timeout(CANCEL_TIMEOUT, cancel).await {
                Ok(Ok(_)) => tracing::debug!("cancelled the task of a dropped call"),
                Ok(Err(e)) => tracing::debug!(error = %e, "could not cancel the task of a dropped call"),
                Err(_) => tracing::debug!("cancelling the task of a dropped call timed out"),
            }
        });
    }
}

impl Client {
    /// The task `task_id` as the server has it now (`tasks/get`): its status, and its
    /// open questions (`input_required`), result (`completed`) or error (`failed`).
    ///
    /// For a caller that persisted the id of a task ([`Outcome::Task`] from
    /// [`call_tool_once`](Self::call_tool_once)) and polls it itself, here or after a
    /// restart; an unknown or expired task is a [`ClientError::Rpc`] with `-32602`. The
    /// request always declares the tasks extension, which the method needs. Tasks exist
    /// under 2026-07-28 only: in a 2025-11-25 session this is [`ClientError::Unsupported`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp::client::ClientError> {
    /// use std::time::Duration;
    ///
    /// use mcp::protocol::{Outcome, TaskStatus};
    ///
    /// /// Export the warehouse: minutes of work.
    /// #[mcp::tool(task = "required")]
    /// async fn export() -> String {
    ///     "exported".to_owned()
    /// }
    ///
    /// let server = mcp::Server::builder("warehouse", "1.0.0")
    ///     .tool::<export>()
    ///     .tasks(mcp::tasks::TaskConfig::builder().poll_interval(Duration::from_millis(20)).build())
    ///     .build();
    /// let client = mcp::client::Client::builder().tasks(true).connect_in_process(&server).await?;
    /// let outcome = client.call_tool_once("export", serde_json::json!({}), Default::default()).await?;
    /// let Outcome::Task(created) = outcome else { panic!("a required task") };
    /// // Persist `created.task.task_id` here; later, or elsewhere:
    /// let task = loop {
    ///     let task = client.get_task(&created.task.task_id).await?;
    ///     if task.task.status.is_terminal() {
    ///         break task;
    ///     }
    ///     tokio::time::sleep(Duration::from_millis(task.task.poll_interval_ms.unwrap_or(1000))).await;
    /// };
    /// assert_eq!(task.task.status, TaskStatus::Completed);
    /// assert!(task.result.is_some());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// [`Outcome::Task`]: crate::protocol::Outcome::Task
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, ClientError> {
        let value = task_request(&self.inner, methods::TASKS_GET, task_id, None).await?;
        serde_json::from_value(value).map_err(|e| ClientError::Protocol(format!("malformed tasks/get result: {e}")))
    }

    /// Answer some of a task's open questions (`tasks/update`), under the keys of its
    /// `inputRequests`; the server ignores keys it is not waiting for. A partial set is
    /// fine: the task stays `input_required` until every question is answered.
    pub async fn update_task(&self, task_id: &str, responses: InputResponses) -> Result<(), ClientError> {
        task_request(&self.inner, methods::TASKS_UPDATE, task_id, Some(responses)).await.map(|_| ())
    }

    /// Ask the server to stop a task (`tasks/cancel`). The server acknowledges at once,
    /// even for a task that already ended; the task may still end otherwise than
    /// `cancelled` if it was about to finish.
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        task_request(&self.inner, methods::TASKS_CANCEL, task_id, None).await.map(|_| ())
    }

    /// Poll the task a `tools/call` became until it ends, answering each of its new
    /// questions once; dropped before that, it cancels the task.
    pub(super) async fn follow_task(&self, created: CreateTaskResult) -> Result<CallToolResult, ClientError> {
        let task_id = created.task.task_id.clone();
        let mut guard = CancelOnDrop { inner: Arc::clone(&self.inner), task_id: Some(task_id.clone()) };
        // The task was created before this: its age is at least the time since.
        let received = Instant::now();
        let mut answered = BTreeSet::new();
        let mut current = created.task;
        // A task born terminal has its outcome ready: no need to wait for it.
        let mut wait = !current.status.is_terminal();
        loop {
            if wait {
                tokio::time::sleep(poll_interval(current.poll_interval_ms)).await;
            }
            wait = true;
            let task = match self.get_task(&task_id).await {
                // Unknown or expired: there is nothing left to cancel.
                Err(ClientError::Rpc(e)) if e.code == ErrorCode::INVALID_PARAMS => {
                    guard.disarm();
                    return Err(ClientError::Rpc(e));
                }
                other => other?,
            };
            match task.task.status {
                TaskStatus::Working => {}
                TaskStatus::InputRequired => {
                    let fresh: InputRequests = task
                        .input_requests
                        .clone()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|(key, _)| !answered.contains(key))
                        .collect();
                    if !fresh.is_empty() {
                        answered.extend(fresh.keys().cloned());
                        let callbacks = self.inner.callbacks.clone();
                        let answer = move |key, request| callbacks.answer(Asker::TaskInput(key), request);
                        let responses = driver::answer_all(fresh, &answer).await?;
                        match self.update_task(&task_id, responses).await {
                            // The task ended (or went) meanwhile: the next poll says how.
                            Err(ClientError::Rpc(e)) if e.code == ErrorCode::INVALID_PARAMS => {
                                tracing::debug!("the task refused the answers; polling it again");
                            }
                            other => other?,
                        }
                    }
                }
                TaskStatus::Completed => {
                    guard.disarm();
                    let result = task
                        .result
                        .ok_or_else(|| ClientError::Protocol("a completed task carried no result".into()))?;
                    return serde_json::from_value(Value::Object(result))
                        .map_err(|e| ClientError::Protocol(format!("malformed task result: {e}")));
                }
                TaskStatus::Failed => {
                    guard.disarm();
                    return Err(task.error.map_or_else(
                        || ClientError::Protocol("a failed task carried no error".into()),
                        ClientError::Rpc,
                    ));
                }
                TaskStatus::Cancelled => {
                    guard.disarm();
                    return Err(ClientError::TaskCancelled);
                }
            }
            // A backstop: past its ttl the server forgets the task; stop polling it.
            if let Some(ttl) = task.task.ttl_ms
                && received.elapsed() > Duration::from_millis(ttl)
            {
                return Err(ClientError::Protocol("the task outlived its ttlMs without ending".into()));
            }
            current = task.task;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_poll_interval_follows_the_server_within_bounds() {
        assert_eq!(poll_interval(None), DEFAULT_POLL_INTERVAL);
        assert_eq!(poll_interval(Some(250)), Duration::from_millis(250));
        assert_eq!(poll_interval(Some(0)), MIN_POLL_INTERVAL);
        assert_eq!(poll_interval(Some(u64::MAX)), MAX_POLL_INTERVAL);
    }
}
