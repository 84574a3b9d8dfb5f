//! Where tasks live: the [`TaskStore`] trait and the in-memory store every server has by
//! default.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use super::record::{Applied, TaskChange, TaskRecord, now_ms};

/// A boxed future borrowing the store.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Keeps tasks for a server: create, read, change, and forget them once their ttl is over.
///
/// A store only persists: the state machine is [`TaskRecord::apply`], which every store
/// runs atomically per task (under a lock, in a transaction, or in a script), so that
/// every store behaves alike. Records are serializable for stores outside the process.
///
/// Creation is durable: once [`create`](Self::create) returns, [`get`](Self::get) finds
/// the task, on any instance sharing the store. A task past its ttl is unknown
/// (`Ok(None)`), as is one never created.
///
/// # Examples
///
/// ```
/// use mcp::tasks::{MemoryTaskStore, TaskChange, TaskRecord, TaskStore};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcp::tasks::TaskStoreError> {
/// let store = MemoryTaskStore::new(100);
/// store.create(TaskRecord::new("t1".into(), None, Some(60_000), None)).await?;
/// store.apply("t1", TaskChange::Message("halfway".into())).await?;
/// let task = store.get("t1").await?.expect("created");
/// assert_eq!(task.status_message.as_deref(), Some("halfway"));
/// assert!(store.get("t2").await?.is_none());
/// # Ok(())
/// # }
/// ```
pub trait TaskStore: Send + Sync + 'static {
    /// Keep a new task. Fails with [`TaskStoreErrorKind::Full`] when the store holds as
    /// many live tasks as it may.
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>>;

    /// The task `id`, unless it is unknown or expired.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Apply `change` to task `id` atomically; `Ok(None)` when it is unknown or expired,
    /// else what the change did and the record after it.
    fn apply<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> StoreFuture<'a, Result<Option<(Applied, TaskRecord)>, TaskStoreError>>;
}

/// Why a [`TaskStore`] failed.
#[derive(Debug)]
pub struct TaskStoreError {
    kind: TaskStoreErrorKind,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What kind of failure a [`TaskStoreError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskStoreErrorKind {
    /// The store holds as many live tasks as it may.
    Full,
    /// The store could not be reached or answered wrongly (a shared store's backend).
    Unavailable,
}

impl TaskStoreError {
    /// An error of `kind`, caused by `source` if any.
    pub fn new(kind: TaskStoreErrorKind, source: Option<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        TaskStoreError { kind, source }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> TaskStoreErrorKind {
        self.kind
    }
}

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            TaskStoreErrorKind::Full => f.write_str("the task store is full"),
            TaskStoreErrorKind::Unavailable => f.write_str("the task store is unavailable"),
        }
    }
}

impl std::error::Error for TaskStoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Tasks in this process's memory, up to a number of live tasks. Expired tasks are
/// dropped when read and swept every 256 creations; when the store is full,
/// the task that finished longest ago makes room (the extension allows purging finished
/// tasks), and only a store full of unfinished tasks refuses a new one.
pub struct MemoryTaskStore {
    capacity: usize,
    tasks: Mutex<HashMap<String, TaskRecord>>,
    created: std::sync::atomic::AtomicU64,
}

/// How many creations pass between two sweeps of expired tasks.
const SWEEP_EVERY: u64 = 256;

impl std::fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("capacity", &self.capacity)
            .field("tasks", &self.lock().len())
            .finish_non_exhaustive()
    }
}

impl MemoryTaskStore {
    /// A store holding at most `capacity` live tasks.
    pub fn new(capacity: usize) -> Self {
        MemoryTaskStore { capacity, tasks: Mutex::new(HashMap::new()), created: std::sync::atomic::AtomicU64::new(0) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.tasks.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The live task `id`, dropping it if it expired.
    fn live<'m>(tasks: &'m mut HashMap<String, TaskRecord>, id: &str, now: u64) -> Option<&'m mut TaskRecord> {
        if tasks.get(id).is_some_and(|t| t.is_expired_at(now)) {
            tasks.remove(id);
        }
        tasks.get_mut(id)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        let mut tasks = self.lock();
        let created = self.created.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if tasks.len() >= self.capacity || created % SWEEP_EVERY == SWEEP_EVERY - 1 {
            let now = now_ms();
            tasks.retain(|_, t| !t.is_expired_at(now));
        }
        if tasks.len() >= self.capacity {
            let finished = tasks.values().filter(|t| t.status.is_terminal());
            let oldest = finished.min_by_key(|t| t.updated_ms).map(|t| t.id.clone());
            if let Some(oldest) = oldest {
                tasks.remove(&oldest);
            }
        }
        let result = if tasks.len() >= self.capacity {
            Err(TaskStoreError::new(TaskStoreErrorKind::Full, None))
        } else {
            tasks.insert(record.id.clone(), record);
            Ok(())
        };
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let found = Self::live(&mut self.lock(), id, now_ms()).map(|t| t.clone());
        Box::pin(std::future::ready(Ok(found)))
    }

    fn apply<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> StoreFuture<'a, Result<Option<(Applied, TaskRecord)>, TaskStoreError>> {
        let now = now_ms();
        let mut tasks = self.lock();
        let result = Self::live(&mut tasks, id, now).map(|task| (task.apply(change, now), task.clone()));
        Box::pin(std::future::ready(Ok(result)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_store_makes_room_by_dropping_the_task_that_finished_first() {
        let store = MemoryTaskStore::new(2);
        for id in ["done-first", "done-later"] {
            store.create(TaskRecord::new(id.into(), None, None, None)).await.expect("room");
            store.apply(id, TaskChange::Cancel).await.expect("applied");
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        store.create(TaskRecord::new("new".into(), None, None, None)).await.expect("room was made");
        assert!(store.get("done-first").await.expect("read").is_none(), "the oldest finished task went");
        assert!(store.get("done-later").await.expect("read").is_some());
        assert!(!format!("{store:?}").contains("done"), "Debug shows no task");
    }

    #[tokio::test]
    async fn a_full_store_sweeps_expired_tasks_before_refusing() {
        let store = MemoryTaskStore::new(2);
        let mut old = TaskRecord::new("old".into(), None, Some(1), None);
        old.created_ms -= 10;
        store.create(old).await.expect("as set up");
        store.create(TaskRecord::new("a".into(), None, None, None)).await.expect("as set up");
        store.create(TaskRecord::new("b".into(), None, None, None)).await.expect("as set up");
        let refused = store.create(TaskRecord::new("c".into(), None, None, None)).await.expect_err("an error");
        assert_eq!(refused.kind(), TaskStoreErrorKind::Full);
        assert!(store.get("old").await.expect("as set up").is_none(), "expired");
        assert!(store.apply("old", TaskChange::Cancel).await.expect("as set up").is_none());
    }
}
