//! The server's tasks: create one and run its work, and serve `tasks/get`,
//! `tasks/update` and `tasks/cancel` for the principal that created it.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ring::rand::SecureRandom;
use serde_json::Value;
use tokio::sync::{Notify, broadcast, watch};

use super::TaskConfig;
use super::handle::TaskHandle;
use super::record::{Applied, TaskChange, TaskRecord, now_ms};
use super::store::{TaskStore, TaskStoreError, TaskStoreErrorKind};
use crate::protocol::{
    CallToolOutcome, CreateMessageResult, CreateTaskResult, DetailedTask, ElicitResult, Error, ErrorCode, InputRequest,
    InputResponse, ListRootsResult,
};

/// How many task changes a slow listener may fall behind before it skips some.
const UPDATE_BUFFER: usize = 256;

/// What a worker and the request handlers share about one running task.
#[derive(Debug)]
pub(crate) struct Signals {
    /// Set once the task is cancelled.
    pub(crate) cancelled: watch::Sender<bool>,
    /// Woken when answers arrive.
    pub(crate) answers: Notify,
    /// Stops the work.
    abort: Mutex<Option<tokio::task::AbortHandle>>,
}

/// The error for a task that is unknown, expired, or another principal's: one message for
/// all three, so an id reveals nothing.
fn unknown_task() -> Error {
    Error::invalid_params("Failed to retrieve task: Task not found")
}

fn store_error(error: TaskStoreError) -> Error {
    match error.kind() {
        TaskStoreErrorKind::Full => {
            tracing::warn!("task store full: refusing a new task");
            Error::new(ErrorCode::INTERNAL_ERROR, "The server is running too many tasks; try again later")
        }
        _ => {
            tracing::error!(error = %error, source = ?std::error::Error::source(&error).map(ToString::to_string), "task store failed");
            Error::new(ErrorCode::INTERNAL_ERROR, "The task store is unavailable; try again later")
        }
    }
}

/// The server's tasks: their store, the workers running here, and the change feed.
pub(crate) struct TaskManager {
    store: Arc<dyn TaskStore>,
    ttl_ms: Option<u64>,
    poll_interval_ms: Option<u64>,
    rng: ring::rand::SystemRandom,
    running: Mutex<HashMap<String, Arc<Signals>>>,
    max_running: usize,
    updates: broadcast::Sender<Arc<str>>,
    /// Keys the owner digests, so a stored owner reveals no principal.
    owner_key: ring::hmac::Key,
}

impl std::fmt::Debug for TaskManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskManager").field("ttl_ms", &self.ttl_ms).finish_non_exhaustive()
    }
}

impl TaskManager {
    pub(crate) fn new(config: TaskConfig) -> Self {
        TaskManager {
            store: config.store,
            ttl_ms: config.ttl.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX).max(1)),
            poll_interval_ms: Some(u64::try_from(config.poll_interval.as_millis()).unwrap_or(u64::MAX).max(1)),
            rng: ring::rand::SystemRandom::new(),
            running: Mutex::new(HashMap::new()),
            max_running: config.max_running,
            updates: broadcast::channel(UPDATE_BUFFER).0,
            owner_key: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &config.owner_key),
        }
    }

    /// The owner recorded for tasks `principal` creates: a keyed digest of it.
    pub(crate) fn owner_of(&self, principal: &str) -> String {
        let tag = ring::hmac::sign(&self.owner_key, principal.as_bytes());
        tag.as_ref().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Signals>>> {
        self.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The ids of tasks that changed, from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<str>> {
        self.updates.subscribe()
    }

    /// 128 random bits, hex: unguessable, and plain ASCII for the `Mcp-Name` header.
    fn new_id(&self) -> Result<String, Error> {
        let mut bytes = [0u8; 16];
        self.rng.fill(&mut bytes).map_err(|_| Error::internal("Internal error"))?;
        Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Apply `change` to task `id` and tell listeners when it changed something.
    pub(crate) async fn apply(&self, id: &str, change: TaskChange) -> Result<Option<(Applied, TaskRecord)>, Error> {
        let applied = self.store.apply(id, change).await.map_err(store_error)?;
        // Taking an answer changes nothing a client sees.
        if let Some((outcome, _)) = &applied
            && !matches!(outcome, Applied::Ignored | Applied::Taken(_))
        {
            let _ = self.updates.send(Arc::from(id));
        }
        Ok(applied)
    }

    /// Create a task owned by `owner` (durably: `tasks/get` finds it once this returns)
    /// and run `work` as its worker.
    pub(crate) async fn start<F, W>(self: &Arc<Self>, owner: Option<String>, work: W) -> Result<CreateTaskResult, Error>
    where
        W: FnOnce(TaskHandle) -> F,
        F: Future<Output = Result<CallToolOutcome, Error>> + Send + 'static,
    {
        if self.running().len() >= self.max_running {
            tracing::warn!(max_running = self.max_running, "refusing a new task: as many are running as allowed");
            return Err(Error::new(ErrorCode::INTERNAL_ERROR, "The server is running too many tasks; try again later"));
        }
        let record = TaskRecord::new(self.new_id()?, owner, self.ttl_ms, self.poll_interval_ms);
        let created = CreateTaskResult::new(record.detailed().task);
        let id = record.id.clone();
        let expires = record.expires_ms();
        self.store.create(record).await.map_err(store_error)?;
        let signals =
            Arc::new(Signals { cancelled: watch::channel(false).0, answers: Notify::new(), abort: Mutex::new(None) });
        self.running().insert(id.clone(), Arc::clone(&signals));
        let handle = TaskHandle::new(Arc::from(id.as_str()), Arc::clone(self), Arc::clone(&signals));
        let worker = tokio::spawn(work(handle));
        *signals.abort.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(worker.abort_handle());
        let manager = Arc::clone(self);
        tokio::spawn(async move {
            let lifetime = expires.map(|at| Duration::from_millis(at.saturating_sub(now_ms())));
            let abort = worker.abort_handle();
            let joined = match lifetime {
                Some(lifetime) => tokio::time::timeout(lifetime, worker).await.ok(),
                None => Some(worker.await),
            };
            let change = match joined {
                Some(Ok(Ok(CallToolOutcome::Complete(result)))) => match serde_json::to_value(&result) {
                    Ok(Value::Object(result)) => Some(TaskChange::Complete(result)),
                    _ => Some(TaskChange::Fail(Error::internal("Handler returned an invalid result"))),
                },
                Some(Ok(Ok(_))) => {
                    tracing::warn!("a task's work answered input_required or another task; it must finish");
                    Some(TaskChange::Fail(Error::internal("Handler returned an invalid result")))
                }
                Some(Ok(Err(error))) => Some(TaskChange::Fail(error)),
                Some(Err(join)) if join.is_panic() => {
                    tracing::error!("a task's work panicked");
                    Some(TaskChange::Fail(Error::internal("Internal error")))
                }
                // Aborted: cancelled, and already marked so.
                Some(Err(_)) => None,
                None => {
                    tracing::info!("a task outlived its ttl; its work was stopped");
                    abort.abort();
                    None
                }
            };
            if let Some(change) = change
                && let Err(error) = manager.apply(&id, change).await
            {
                tracing::warn!(code = error.code, "could not record a task's outcome");
            }
            manager.running().remove(&id);
        });
        Ok(created)
    }

    /// The task `id` for `owner`, or the unknown-task error.
    async fn owned(&self, id: &str, owner: Option<&str>) -> Result<TaskRecord, Error> {
        match self.store.get(id).await.map_err(store_error)? {
            Some(record) if record.owner.as_deref() == owner => Ok(record),
            _ => Err(unknown_task()),
        }
    }

    /// `tasks/get`.
    pub(crate) async fn get(&self, id: &str, owner: Option<&str>) -> Result<DetailedTask, Error> {
        Ok(self.owned(id, owner).await?.detailed())
    }

    /// A snapshot for a listener, if `owner` may see the task.
    pub(crate) async fn snapshot(&self, id: &str, owner: Option<&str>) -> Option<DetailedTask> {
        self.get(id, owner).await.ok()
    }

    /// `tasks/update`: take the answers to open questions (each read as the answer its
    /// question expects), ignore the rest unread, and wake the worker.
    pub(crate) async fn update(
        &self,
        id: &str,
        owner: Option<&str>,
        responses: serde_json::Map<String, Value>,
    ) -> Result<(), Error> {
        let record = self.owned(id, owner).await?;
        let mut answers = BTreeMap::new();
        for (key, value) in responses {
            let Some(question) = record.pending.get(&key) else { continue };
            let answer = match question {
                InputRequest::Elicit(_) => serde_json::from_value::<ElicitResult>(value).map(InputResponse::Elicit),
                InputRequest::Sample(_) => {
                    serde_json::from_value::<CreateMessageResult>(value).map(InputResponse::Sample)
                }
                InputRequest::ListRoots(_) => {
                    serde_json::from_value::<ListRootsResult>(value).map(InputResponse::ListRoots)
                }
            };
            let Ok(answer) = answer else {
                return Err(Error::invalid_params(format!(
                    "Invalid params: inputResponses[{key:?}] is not an answer to its {}",
                    question.method()
                )));
            };
            answers.insert(key, answer);
        }
        if answers.is_empty() {
            return Ok(());
        }
        self.apply(id, TaskChange::Answer(answers)).await?;
        if let Some(signals) = self.running().get(id) {
            signals.answers.notify_waiters();
        }
        Ok(())
    }

    /// `tasks/cancel`: mark the task cancelled and stop its work (a terminal task is
    /// acknowledged as is).
    pub(crate) async fn cancel(&self, id: &str, owner: Option<&str>) -> Result<(), Error> {
        self.owned(id, owner).await?;
        self.apply(id, TaskChange::Cancel).await?;
        let signals = self.running().remove(id);
        if let Some(signals) = signals {
            signals.cancelled.send_replace(true);
            if let Some(abort) = signals.abort.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
                abort.abort();
            }
        }
        Ok(())
    }
}
