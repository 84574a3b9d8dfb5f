//! Where tasks live: the [`TaskStore`] trait and the in-memory store every server has by
//! default.

use std::collections::{BTreeSet, HashMap};
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
/// tasks), then expired tasks are swept, and only a store full of unfinished tasks
/// refuses a new one. Making room takes a lookup in an index of finished tasks, not a
/// pass over the store.
pub struct MemoryTaskStore {
    capacity: usize,
    tasks: Mutex<Tasks>,
    created: std::sync::atomic::AtomicU64,
}

/// The records, and the finished ones by when they finished.
#[derive(Default)]
struct Tasks {
    records: HashMap<String, TaskRecord>,
    /// `(updated_ms, id)` of every finished record (a finished record never changes).
    finished: BTreeSet<(u64, String)>,
}

impl Tasks {
    fn len(&self) -> usize {
        self.records.len()
    }

    fn insert(&mut self, record: TaskRecord) {
        if record.status.is_terminal() {
            self.finished.insert((record.updated_ms, record.id.clone()));
        }
        if let Some(old) = self.records.insert(record.id.clone(), record) {
            self.forget_finished(&old);
        }
    }

    fn remove(&mut self, id: &str) {
        if let Some(old) = self.records.remove(id) {
            self.forget_finished(&old);
        }
    }

    fn forget_finished(&mut self, record: &TaskRecord) {
        if record.status.is_terminal() {
            self.finished.remove(&(record.updated_ms, record.id.clone()));
        }
    }

    /// Drop the records expired at `now`.
    fn sweep(&mut self, now: u64) {
        let finished = &mut self.finished;
        self.records.retain(|_, t| {
            let expired = t.is_expired_at(now);
            if expired && t.status.is_terminal() {
                finished.remove(&(t.updated_ms, t.id.clone()));
            }
            !expired
        });
    }

    /// Drop the record that finished longest ago; `false` when none has finished.
    fn drop_oldest_finished(&mut self) -> bool {
        let Some((_, id)) = self.finished.pop_first() else { return false };
        self.records.remove(&id);
        true
    }

    /// Apply `change` to the live record `id` (see [`MemoryTaskStore::live`]), keeping
    /// the index of finished records.
    fn apply(&mut self, id: &str, change: TaskChange, now: u64) -> Option<(Applied, TaskRecord)> {
        let task = MemoryTaskStore::live(self, id, now)?;
        let was_finished = task.status.is_terminal();
        let applied = task.apply(change, now);
        let record = task.clone();
        if !was_finished && record.status.is_terminal() {
            self.finished.insert((record.updated_ms, record.id.clone()));
        }
        Some((applied, record))
    }
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
        MemoryTaskStore { capacity, tasks: Mutex::default(), created: std::sync::atomic::AtomicU64::new(0) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tasks> {
        self.tasks.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The live task `id`, dropping it if it expired.
    fn live<'m>(tasks: &'m mut Tasks, id: &str, now: u64) -> Option<&'m mut TaskRecord> {
        if tasks.records.get(id).is_some_and(|t| t.is_expired_at(now)) {
            tasks.remove(id);
        }
        tasks.records.get_mut(id)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        let mut tasks = self.lock();
        let created = self.created.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if created % SWEEP_EVERY == SWEEP_EVERY - 1 {
            tasks.sweep(now_ms());
        }
        if tasks.len() >= self.capacity && !tasks.drop_oldest_finished() {
            tasks.sweep(now_ms());
        }
        let result = if tasks.len() >= self.capacity {
            Err(TaskStoreError::new(TaskStoreErrorKind::Full, None))
        } else {
            tasks.insert(record);
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
        let result = self.lock().apply(id, change, now_ms());
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
    async fn a_full_store_keeps_making_room_and_its_index_of_finished_tasks_matches() {
        let store = MemoryTaskStore::new(4);
        for n in 0..50 {
            let id = format!("t{n}");
            store.create(TaskRecord::new(id.clone(), None, None, None)).await.expect("room was made");
            if n % 20 != 19 {
                store.apply(&id, TaskChange::Cancel).await.expect("applied");
                // Applying to a finished task changes nothing, the index included.
                store.apply(&id, TaskChange::Cancel).await.expect("applied");
            }
            // Each task finishes in a millisecond of its own: "finished first" is clear.
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            let tasks = store.lock();
            assert!(tasks.len() <= 4);
            let finished = tasks.records.values().filter(|t| t.status.is_terminal()).count();
            assert_eq!(tasks.finished.len(), finished, "after {id}");
        }
        // The unfinished tasks and the newest finished ones are kept.
        for kept in ["t19", "t39", "t48", "t49"] {
            assert!(store.get(kept).await.expect("read").is_some(), "{kept} went");
        }
        assert!(store.get("t47").await.expect("read").is_none());
        // Four unfinished tasks: no room.
        let store = MemoryTaskStore::new(4);
        for n in 0..4 {
            store.create(TaskRecord::new(format!("u{n}"), None, None, None)).await.expect("room");
        }
        let refused = store.create(TaskRecord::new("u4".into(), None, None, None)).await.expect_err("full");
        assert_eq!(refused.kind(), TaskStoreErrorKind::Full);
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
