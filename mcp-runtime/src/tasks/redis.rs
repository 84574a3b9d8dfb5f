//! [`RedisTaskStore`]: tasks in Redis, shared by every instance that uses the same Redis
//! and key prefix.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::record::{Applied, TaskChange, TaskRecord, now_ms};
use super::store::{StoreFuture, TaskStore, TaskStoreError, TaskStoreErrorKind};

/// The default bound on one store call, retries included: two seconds.
pub const DEFAULT_REDIS_TIMEOUT: Duration = Duration::from_secs(2);
/// The default key prefix: a task `id` is kept under `mcp:task:{id}`.
pub const DEFAULT_TASK_PREFIX: &str = "mcp:task:";
/// How many times [`RedisTaskStore::apply`](TaskStore::apply) reads and writes again when
/// another instance changed the task in between.
const APPLY_ATTEMPTS: usize = 16;

/// Compare and set: write `ARGV[2]` under `KEYS[1]`, keeping its expiry, only if it still
/// holds `ARGV[1]` (what the caller read). 1 when written, 0 when the task changed (or
/// expired) since.
const COMPARE_AND_SET: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0
";

/// Tasks in Redis: several instances sharing a Redis (and a prefix, and an
/// [`owner_key`](super::TaskConfigBuilder::owner_key)) serve the same tasks, and tasks
/// survive the restart of any instance.
///
/// **Layout.** Each task is one string key, `{prefix}{id}`, holding the [`TaskRecord`] as
/// JSON, with a Redis expiry at [`TaskRecord::expires_ms`] (`SET … PX … NX` on
/// creation), so Redis drops expired tasks by itself. A task without a ttl never expires:
/// give the server a ttl ([`TaskConfigBuilder::ttl`](super::TaskConfigBuilder::ttl), one
/// hour by default) when using this store.
///
/// **Memory.** The store has no capacity bound of its own: a task costs its JSON (a few
/// hundred bytes, plus its result and any open questions) and about 100 bytes of Redis
/// overhead, for its ttl. Bound memory in Redis (`maxmemory` with the `noeviction`
/// policy, so that a full Redis refuses new tasks, which this store reports as
/// `Unavailable`, rather than evicting live ones) and by the server's
/// [`max_running`](super::TaskConfigBuilder::max_running) and rate limits.
///
/// **Changes** are optimistic: read the task, run [`TaskRecord::apply`] here, and write
/// it back only if the stored JSON is still what was read (a compare-and-set script), or
/// else read again, up to 16 times. Redis `WATCH` would do the same but holds per
/// connection, and this store multiplexes one connection for all its calls.
///
/// **Failures.** Every call is bounded by a timeout ([`DEFAULT_REDIS_TIMEOUT`]), retries
/// included; a Redis that is down, slow or answering wrongly gives
/// [`TaskStoreErrorKind::Unavailable`] with the cause as its source, never a hang, and the
/// connection is re-established with backoff, so service resumes when Redis does.
/// Error messages name neither keys nor their contents.
///
/// ```no_run
/// use mcp::tasks::{RedisTaskStore, TaskConfig};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcp::tasks::TaskStoreError> {
/// let store = RedisTaskStore::new("redis://127.0.0.1:6379/0")?;
/// // Every instance sharing the store needs the same owner key.
/// let tasks = TaskConfig::builder().store(store).owner_key([7u8; 32]).build();
/// let server = mcp::Server::builder("svc", "1.0.0").tasks(tasks).build();
/// # let _ = server;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisTaskStore {
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// A manager for `url` that connects on first use, bounding each connection attempt and
/// each answer by `timeout`, and reconnecting with exponential backoff. It runs a task of
/// its own, so it needs a tokio runtime: outside one it is an error, not a panic.
pub(crate) fn connection_manager(url: &str, timeout: Duration) -> redis::RedisResult<ConnectionManager> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(redis::RedisError::from((
            redis::ErrorKind::Client,
            "a Redis store must be built inside a tokio runtime",
        )));
    }
    let client = redis::Client::open(url)?;
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(timeout))
        .set_response_timeout(Some(timeout))
        .set_min_delay(Duration::from_millis(50))
        .set_max_delay(Duration::from_secs(2));
    ConnectionManager::new_lazy_with_config(client, config)
}

fn unavailable(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> TaskStoreError {
    TaskStoreError::new(TaskStoreErrorKind::Unavailable, Some(source.into()))
}

/// Why a call failed without Redis saying so.
#[derive(Debug)]
enum Failure {
    TimedOut(Duration),
    Conflicts,
    Duplicate,
    Malformed(serde_json::Error),
    Unserializable(serde_json::Error),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::TimedOut(after) => write!(f, "no answer from Redis within {after:?}"),
            Failure::Conflicts => write!(f, "the task kept changing: {APPLY_ATTEMPTS} attempts conflicted"),
            Failure::Duplicate => f.write_str("a task with this id already exists"),
            Failure::Malformed(_) => f.write_str("a stored task is not a valid record"),
            Failure::Unserializable(_) => f.write_str("the task record could not be serialized"),
        }
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Failure::Malformed(e) | Failure::Unserializable(e) => Some(e),
            _ => None,
        }
    }
}

impl RedisTaskStore {
    /// A store on the Redis at `url` (`redis://host:port/db`), with the default prefix and
    /// timeout. It connects on first use, so it can be made while Redis is down; only a
    /// malformed URL, or a call outside a tokio runtime, fails here.
    pub fn new(url: &str) -> Result<Self, TaskStoreError> {
        Self::with_options(url, DEFAULT_TASK_PREFIX, DEFAULT_REDIS_TIMEOUT)
    }

    /// A store keeping tasks under `prefix` and bounding every call by `timeout`.
    pub fn with_options(url: &str, prefix: impl Into<String>, timeout: Duration) -> Result<Self, TaskStoreError> {
        let connection = connection_manager(url, timeout).map_err(unavailable)?;
        Ok(RedisTaskStore { connection, prefix: prefix.into(), timeout })
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    /// Run `call` within the timeout, mapping every failure to `Unavailable`.
    async fn bounded<T>(
        &self,
        call: impl Future<Output = Result<T, TaskStoreError>>,
        what: &'static str,
    ) -> Result<T, TaskStoreError> {
        let result = match tokio::time::timeout(self.timeout, call).await {
            Ok(result) => result,
            Err(_) => Err(unavailable(Failure::TimedOut(self.timeout))),
        };
        if let Err(error) = &result {
            let cause = std::error::Error::source(error).map(ToString::to_string);
            tracing::warn!(what, cause, "redis task store call failed");
        }
        result
    }

    async fn read(&self, key: &str) -> Result<Option<(String, TaskRecord)>, TaskStoreError> {
        let mut connection = self.connection.clone();
        let raw: Option<String> = redis::cmd("GET").arg(key).query_async(&mut connection).await.map_err(unavailable)?;
        let Some(raw) = raw else { return Ok(None) };
        let record: TaskRecord = serde_json::from_str(&raw).map_err(|e| unavailable(Failure::Malformed(e)))?;
        // Redis expires the key itself; this covers a clock ahead of Redis's.
        if record.is_expired_at(now_ms()) {
            return Ok(None);
        }
        Ok(Some((raw, record)))
    }

    async fn create_now(&self, record: TaskRecord) -> Result<(), TaskStoreError> {
        let json = serde_json::to_string(&record).map_err(|e| unavailable(Failure::Unserializable(e)))?;
        let mut set = redis::cmd("SET");
        set.arg(self.key(&record.id)).arg(json).arg("NX");
        // Relative, so that Redis's clock running ahead of ours cannot drop a live task.
        if let Some(at) = record.expires_ms() {
            set.arg("PX").arg(at.saturating_sub(now_ms()).max(1));
        }
        let mut connection = self.connection.clone();
        let written: Option<String> = set.query_async(&mut connection).await.map_err(unavailable)?;
        match written {
            Some(_) => Ok(()),
            None => Err(unavailable(Failure::Duplicate)),
        }
    }

    async fn apply_now(&self, id: &str, change: TaskChange) -> Result<Option<(Applied, TaskRecord)>, TaskStoreError> {
        let key = self.key(id);
        for _ in 0..APPLY_ATTEMPTS {
            let Some((before, mut record)) = self.read(&key).await? else { return Ok(None) };
            let applied = record.apply(change.clone(), now_ms());
            if applied == Applied::Ignored || record_unchanged(&before, &record) {
                return Ok(Some((applied, record)));
            }
            let after = serde_json::to_string(&record).map_err(|e| unavailable(Failure::Unserializable(e)))?;
            let mut connection = self.connection.clone();
            let written: i64 = redis::cmd("EVAL")
                .arg(COMPARE_AND_SET)
                .arg(1)
                .arg(&key)
                .arg(before)
                .arg(after)
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            if written == 1 {
                return Ok(Some((applied, record)));
            }
            tracing::debug!("task changed by another instance; applying again");
        }
        Err(unavailable(Failure::Conflicts))
    }
}

/// Whether `record` serializes to `before` (nothing to write).
fn record_unchanged(before: &str, record: &TaskRecord) -> bool {
    serde_json::to_string(record).is_ok_and(|now| now == before)
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(self.bounded(self.create_now(record), "create"))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(self.bounded(async move { Ok(self.read(&self.key(id)).await?.map(|(_, record)| record)) }, "get"))
    }

    fn apply<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> StoreFuture<'a, Result<Option<(Applied, TaskRecord)>, TaskStoreError>> {
        Box::pin(self.bounded(self.apply_now(id, change), "apply"))
    }
}
