//! Tasks (the `io.modelcontextprotocol/tasks` extension): a long `tools/call` answered
//! at once with a task, which the client polls with `tasks/get` until it has the result.
//!
//! Mark a tool with `#[mcp::tool(task = "optional")]` (a task when the client supports
//! them, an ordinary call otherwise) or `task = "required"` (only as a task: a client
//! without the extension gets `-32021`). The server decides; a client opts in per request
//! by declaring the extension. A tool with `Resolve<...>` parameters asks its questions
//! first, in multi round-trip rounds, and becomes a task on the final round. While it
//! runs, its work reaches the task through [`RequestContext::task`](crate::RequestContext::task):
//! status messages, cancellation, and questions for the client
//! ([`resolve::ask`](crate::resolve::ask)), answered through `tasks/update`.
//!
//! A task belongs to the principal that created it: another one (or an unknown id, or an
//! expired task) gets the same `-32602`. Task ids are 128 random bits.
//!
//! ```
//! use std::time::Duration;
//!
//! /// Export the warehouse: minutes of work.
//! #[mcp::tool(task = "required")]
//! async fn export(ctx: mcp::Context) -> String {
//!     // A 2025-11-25 session has no tasks: there the tool runs as an ordinary call.
//!     match ctx.task() {
//!         Some(task) => {
//!             task.set_status_message("exporting").await;
//!             format!("exported by task {}", task.id())
//!         }
//!         None => "exported".to_owned(),
//!     }
//! }
//!
//! let server = mcp::Server::builder("warehouse", "1.0.0")
//!     .tool::<export>()
//!     .tasks(mcp::tasks::TaskConfig::builder().ttl(Duration::from_secs(3600)).build())
//!     .build();
//! let extensions = server.capabilities().extensions.as_ref().expect("declared");
//! assert!(extensions.contains_key(mcp::protocol::TASKS_EXTENSION));
//! ```

mod handle;
mod manager;
mod record;
#[cfg(feature = "redis")]
mod redis;
mod store;

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "redis")]
pub(crate) use self::redis::connection_manager as redis_connection_manager;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use self::redis::{DEFAULT_REDIS_TIMEOUT, DEFAULT_TASK_PREFIX, RedisTaskStore};
pub use handle::TaskHandle;
pub(crate) use manager::{EVERY_TASK, TaskManager};
pub use record::{Applied, TaskChange, TaskRecord};
pub use store::{MemoryTaskStore, StoreFuture, TaskStore, TaskStoreError, TaskStoreErrorKind};

/// Whether a tool runs as a task: `#[mcp::tool(task = "optional" | "required")]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never (the default): always an ordinary call.
    #[default]
    Forbidden,
    /// As a task when the request declares the extension; an ordinary call otherwise.
    Optional,
    /// Only as a task: a 2026-07-28 request without the extension gets `-32021`. (A
    /// 2025-11-25 session, which has no tasks, runs it as an ordinary call.)
    Required,
}

/// The default time a task is kept, from its creation: one hour.
pub const DEFAULT_TTL: Duration = Duration::from_secs(3600);
/// The default polling interval suggested to clients: one second.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// The default number of live tasks the in-memory store keeps.
pub const DEFAULT_MAX_TASKS: usize = 10_000;
/// The default number of tasks whose work may run at once.
pub const DEFAULT_MAX_RUNNING: usize = 1_000;
/// The default lease of the instance running a task's work: ten seconds, renewed every
/// third of that.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// The default name of this instance as a task's worker: the host name (`HOSTNAME`, else
/// the kernel's, else `localhost`) and the process id.
fn default_worker_id() -> String {
    let usable = |h: &String| !h.is_empty() && h.len() <= 253 && h.bytes().all(|b| b.is_ascii_graphic());
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_owned())
        .filter(usable);
    format!("{}:{}", host.as_deref().unwrap_or("localhost"), std::process::id())
}

/// How a server keeps its tasks: [`TaskConfig::builder`].
#[derive(Clone)]
pub struct TaskConfig {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Option<Duration>,
    pub(crate) poll_interval: Duration,
    pub(crate) max_running: usize,
    pub(crate) owner_key: Vec<u8>,
    pub(crate) lease: Duration,
    pub(crate) worker_id: String,
}

impl std::fmt::Debug for TaskConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskConfig")
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .field("lease", &self.lease)
            .field("worker_id", &self.worker_id)
            .finish_non_exhaustive()
    }
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig::builder().build()
    }
}

impl TaskConfig {
    /// Start from the defaults: in memory ([`DEFAULT_MAX_TASKS`]), [`DEFAULT_TTL`],
    /// [`DEFAULT_POLL_INTERVAL`].
    pub fn builder() -> TaskConfigBuilder {
        TaskConfigBuilder {
            store: None,
            ttl: Some(DEFAULT_TTL),
            poll_interval: DEFAULT_POLL_INTERVAL,
            max_running: DEFAULT_MAX_RUNNING,
            owner_key: None,
            lease: DEFAULT_LEASE,
            worker_id: None,
        }
    }
}

/// Builds a [`TaskConfig`].
#[must_use]
#[derive(Clone)]
pub struct TaskConfigBuilder {
    store: Option<Arc<dyn TaskStore>>,
    ttl: Option<Duration>,
    poll_interval: Duration,
    max_running: usize,
    owner_key: Option<Vec<u8>>,
    lease: Duration,
    worker_id: Option<String>,
}

impl std::fmt::Debug for TaskConfigBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskConfigBuilder").field("ttl", &self.ttl).finish_non_exhaustive()
    }
}

impl TaskConfigBuilder {
    /// Keep tasks in `store` (a shared one lets several instances serve the same tasks).
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// How long a task is kept, from its creation (`ttlMs`); its work is stopped if it is
    /// still running then. `None` keeps tasks until the process ends: only for stores
    /// that bound themselves.
    pub fn ttl(mut self, ttl: impl Into<Option<Duration>>) -> Self {
        self.ttl = ttl.into();
        self
    }

    /// The polling interval suggested to clients (`pollIntervalMs`).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// How many tasks may run at once ([`DEFAULT_MAX_RUNNING`]); a request that would start
    /// one more is refused with a clear `-32603` (task work is not bounded by the transport's
    /// in-flight limit, which ends with the request).
    pub fn max_running(mut self, max: usize) -> Self {
        self.max_running = max;
        self
    }

    /// The key that digests each task's owner (its principal) before it is stored, so a
    /// store holds no principal. Random per process by default; instances sharing a store
    /// must share a key (at least 32 random bytes), or each refuses the others' tasks.
    pub fn owner_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.owner_key = Some(key.into());
        self
    }

    /// How long the instance running a task's work holds it without renewing
    /// ([`DEFAULT_LEASE`]; at least 100 ms). The instance renews it every third of that
    /// while the work runs; if the instance dies, the lease runs out and the task becomes
    /// `failed`, with an error naming the lost worker, when it is next read (`tasks/get`
    /// through any instance): at most one lease after the last renewal. With a shared
    /// store, the instances' clocks must agree to well within a lease.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }

    /// This instance's name as a task's worker, shown in the error of a task whose worker
    /// was lost (default: the host name and the process id, `host:pid`). Give each instance sharing a
    /// store its own.
    pub fn worker_id(mut self, id: impl Into<String>) -> Self {
        self.worker_id = Some(id.into());
        self
    }

    /// Finish.
    pub fn build(self) -> TaskConfig {
        let owner_key = self.owner_key.unwrap_or_else(|| {
            use ring::rand::SecureRandom;
            let mut key = vec![0u8; 32];
            // A failing system RNG leaves a zero key: owners are still told apart, only
            // without the secret.
            if ring::rand::SystemRandom::new().fill(&mut key).is_err() {
                tracing::error!("no randomness for the task owner key");
            }
            key
        });
        TaskConfig {
            store: self.store.unwrap_or_else(|| Arc::new(MemoryTaskStore::new(DEFAULT_MAX_TASKS))),
            ttl: self.ttl,
            poll_interval: self.poll_interval,
            max_running: self.max_running,
            owner_key,
            lease: self.lease,
            worker_id: self.worker_id.unwrap_or_else(default_worker_id),
        }
    }
}
