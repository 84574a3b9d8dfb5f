//! The server's tasks: create one and run its work, and serve `tasks/get`,
//! `tasks/update` and `tasks/cancel` for the principal that created it.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use ring::rand::SecureRandom;
use serde_json::Value;
use tokio::sync::{Notify, broadcast, watch};

use super::TaskConfig;
use super::handle::TaskHandle;
use super::record::{Applied, TaskChange, TaskRecord, now_ms};
use super::store::{TaskStore, TaskStoreError, TaskStoreErrorKind};
use crate::bus::{BusMessage, ChangeBus};
use crate::protocol::{
    CallToolOutcome, CreateMessageResult, CreateTaskResult, DetailedTask, ElicitResult, Error, ErrorCode, InputRequest,
    InputResponse, ListRootsResult,
};

/// How many task changes a slow listener may fall behind before it skips some.
const UPDATE_BUFFER: usize = 256;

/// The id on the change feed that means "any task may have changed" (no task has it:
/// ids are 32 hex digits).
pub(crate) const EVERY_TASK: &str = "";

/// What a worker and the request handlers share about one running task.
#[derive(Debug)]
pub(crate) struct Signals {
    /// Set once the task is cancelled.
    pub(crate) cancelled: watch::Sender<bool>,
    /// Woken when answers arrive.
    pub(crate) answers: Notify,
    /// Stops the work.
    abort: Mutex<Option<tokio::task::AbortHandle>>,
    /// Woken when the task changed elsewhere (another instance): its supervisor reads it
    /// again, and stops the work if it ended (cancelled through another instance).
    recheck: Notify,
}

/// How a task's supervision ended.
enum Ended<T> {
    /// The work finished (or panicked, or was aborted here).
    Finished(T),
    /// The ttl ran out.
    Expired,
    /// The task ended elsewhere (cancelled through another instance, or failed for a lost
    /// lease) or is gone from the store.
    Elsewhere,
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
    /// The bus to the other instances sharing the store, when there is one.
    bus: OnceLock<Arc<dyn ChangeBus>>,
    /// This instance, as the worker of the tasks it runs.
    worker: String,
    /// How long a worker's lease holds without renewal.
    lease_ms: u64,
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
            bus: OnceLock::new(),
            worker: config.worker_id,
            lease_ms: u64::try_from(config.lease.as_millis()).unwrap_or(u64::MAX).max(1),
        }
    }

    /// Tell the other instances about task changes through `bus` (once, when the server is
    /// built).
    pub(crate) fn attach_bus(&self, bus: Arc<dyn ChangeBus>) {
        let _ = self.bus.set(bus);
    }

    /// Task `id` changed, maybe through another instance (it came over the bus): tell
    /// listeners, and have its work here, if any, read it again.
    pub(crate) fn changed_elsewhere(&self, id: &str) {
        let _ = self.updates.send(Arc::from(id));
        if let Some(signals) = self.running().get(id) {
            signals.recheck.notify_one();
            signals.answers.notify_waiters();
        }
    }

    /// Changes may have been missed (the bus was cut off): listeners resend every task
    /// they watch, and work running here re-reads its task.
    pub(crate) fn resync(&self) {
        let _ = self.updates.send(Arc::from(EVERY_TASK));
        for signals in self.running().values() {
            signals.recheck.notify_one();
            signals.answers.notify_waiters();
        }
    }

    /// Tell listeners, on every instance when there is a bus, that task `id` changed.
    fn announce(&self, id: &str) {
        match self.bus.get() {
            Some(bus) => bus.publish(BusMessage::Task(id.to_owned())),
            None => {
                let _ = self.updates.send(Arc::from(id));
            }
        }
    }

    /// Renew this instance's lease on task `id`. False when the task ended (or is gone,
    /// or another worker holds it): its work here must stop. A store that cannot be
    /// reached keeps the work going; the lease runs out if it stays unreachable.
    async fn renew(&self, id: &str) -> bool {
        let until_ms = now_ms().saturating_add(self.lease_ms);
        match self.store.apply(id, TaskChange::Renew { worker: self.worker.clone(), until_ms }).await {
            Ok(Some((Applied::Renewed, _))) => true,
            Ok(_) => false,
            Err(error) => {
                tracing::warn!(error = %error, "could not renew a task's lease");
                true
            }
        }
    }

    /// Whether task `id` is still unfinished in the store (true when it cannot be read).
    async fn unfinished(&self, id: &str) -> bool {
        match self.store.get(id).await {
            Ok(Some(record)) => !record.status.is_terminal(),
            Ok(None) => false,
            Err(_) => true,
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
            && !matches!(outcome, Applied::Ignored | Applied::Taken(_) | Applied::Renewed)
        {
            self.announce(id);
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
        let record = TaskRecord::new(self.new_id()?, owner, self.ttl_ms, self.poll_interval_ms)
            .with_lease(self.worker.clone(), now_ms().saturating_add(self.lease_ms));
        let created = CreateTaskResult::new(record.detailed().task);
        let id = record.id.clone();
        let expires = record.expires_ms();
        self.store.create(record).await.map_err(store_error)?;
        let signals = Arc::new(Signals {
            cancelled: watch::channel(false).0,
            answers: Notify::new(),
            abort: Mutex::new(None),
            recheck: Notify::new(),
        });
        self.running().insert(id.clone(), Arc::clone(&signals));
        let handle = TaskHandle::new(Arc::from(id.as_str()), Arc::clone(self), Arc::clone(&signals));
        let worker = tokio::spawn(work(handle));
        *signals.abort.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(worker.abort_handle());
        let manager = Arc::clone(self);
        tokio::spawn(async move {
            let lifetime = expires.map(|at| Duration::from_millis(at.saturating_sub(now_ms())));
            let abort = worker.abort_handle();
            let ended = manager.supervise(&id, worker, lifetime, &signals).await;
            let joined = match ended {
                Ended::Finished(joined) => Some(joined),
                Ended::Expired => None,
                Ended::Elsewhere => {
                    tracing::info!(
                        "a task ended elsewhere (cancelled through another instance, or its lease lost); its work was stopped"
                    );
                    signals.cancelled.send_replace(true);
                    abort.abort();
                    manager.running().remove(&id);
                    return;
                }
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
            if let Some(change) = change {
                manager.record_outcome(&id, change, expires).await;
            }
            manager.running().remove(&id);
        });
        Ok(created)
    }

    /// Record how task `id` ended. A store that does not answer (Redis restarting) is tried
    /// again every second, the lease renewed meanwhile, until the task expires (at most an
    /// hour without a ttl): the work's result is not dropped for a blink of the store.
    async fn record_outcome(&self, id: &str, change: TaskChange, expires_ms: Option<u64>) {
        let give_up = expires_ms.unwrap_or_else(|| now_ms().saturating_add(3_600_000));
        let mut warned = false;
        loop {
            match self.apply(id, change.clone()).await {
                Ok(_) => return,
                Err(error) if !warned => {
                    tracing::warn!(code = error.code, "could not record a task's outcome; trying again every second");
                    warned = true;
                }
                Err(_) => {}
            }
            if now_ms() >= give_up {
                tracing::warn!("gave up recording a task's outcome: the task expired first");
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
            if !self.renew(id).await {
                return;
            }
        }
    }

    /// Wait for the work of task `id` to finish, for its ttl to run out, or for the task to
    /// end elsewhere, renewing this instance's lease meanwhile.
    async fn supervise<T>(
        &self,
        id: &str,
        mut worker: tokio::task::JoinHandle<T>,
        lifetime: Option<Duration>,
        signals: &Signals,
    ) -> Ended<Result<T, tokio::task::JoinError>> {
        let deadline = lifetime.and_then(|lifetime| tokio::time::Instant::now().checked_add(lifetime));
        let until_deadline = async {
            match deadline {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(until_deadline);
        let mut renew = tokio::time::interval(Duration::from_millis((self.lease_ms / 3).max(1)));
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick is now, and the lease was taken at creation.
        renew.tick().await;
        loop {
            tokio::select! {
                joined = &mut worker => return Ended::Finished(joined),
                () = &mut until_deadline => return Ended::Expired,
                _ = renew.tick() => if !self.renew(id).await {
                    return Ended::Elsewhere;
                },
                () = signals.recheck.notified() => if !self.unfinished(id).await {
                    return Ended::Elsewhere;
                },
            }
        }
    }

    /// How long a worker's lease holds: listeners check their tasks' leases this often.
    pub(crate) fn lease(&self) -> Duration {
        Duration::from_millis(self.lease_ms)
    }

    /// Fail task `id` if its worker's lease ran out (listeners hear of it). Nothing
    /// happens to a task that is gone, finished, or still held. False when the store did
    /// not answer.
    pub(crate) async fn check_lease(&self, id: &str) -> bool {
        let record = match self.store.get(id).await {
            Ok(Some(record)) => record,
            Ok(None) => return true,
            Err(_) => return false,
        };
        match self.fail_if_lost(record).await {
            Ok(_) => true,
            Err(error) => {
                tracing::debug!(code = error.code, "could not check a task's lease");
                false
            }
        }
    }

    /// The task `id` for `owner`, or the unknown-task error. A task whose worker's lease
    /// ran out (its instance died) fails first, with an error naming the worker.
    async fn owned(&self, id: &str, owner: Option<&str>) -> Result<TaskRecord, Error> {
        let record = match self.store.get(id).await.map_err(store_error)? {
            Some(record) if record.owner.as_deref() == owner => record,
            _ => return Err(unknown_task()),
        };
        self.fail_if_lost(record).await
    }

    /// `record`, failed first if its worker's lease ran out and its work does not run here.
    async fn fail_if_lost(&self, record: TaskRecord) -> Result<TaskRecord, Error> {
        let id = record.id.as_str();
        if record.lease_lost_at(now_ms())
            && !self.running().contains_key(id)
            && let Some((Applied::Done, failed)) = self.apply(id, TaskChange::LeaseLost).await?
        {
            tracing::warn!(worker = ?record.worker, "a task's worker stopped renewing its lease: the task failed");
            return Ok(failed);
        }
        Ok(record)
    }

    /// `tasks/get`.
    pub(crate) async fn get(&self, id: &str, owner: Option<&str>) -> Result<DetailedTask, Error> {
        Ok(self.owned(id, owner).await?.detailed())
    }

    /// A snapshot for a listener: `None` when `owner` may not see the task (or it is gone),
    /// an error when the store does not answer.
    pub(crate) async fn snapshot(&self, id: &str, owner: Option<&str>) -> Result<Option<DetailedTask>, Error> {
        match self.get(id, owner).await {
            Ok(task) => Ok(Some(task)),
            Err(error) if error.code == ErrorCode::INVALID_PARAMS => Ok(None),
            Err(error) => Err(error),
        }
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
