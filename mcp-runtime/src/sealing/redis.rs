//! [`RedisConsumedTokens`]: the single-use store in Redis, so that a `requestState` used on
//! one instance is refused on every other.

use std::fmt::Write as _;
use std::time::Duration;

use redis::aio::ConnectionManager;

use super::consumed::{ConsumedTokens, ConsumedTokensError};
use crate::tasks::{DEFAULT_REDIS_TIMEOUT, StoreFuture, redis_connection_manager};

/// The default key prefix: a token id is kept under `mcp:used:{hex id}`.
pub const DEFAULT_CONSUMED_PREFIX: &str = "mcp:used:";

/// Token ids already used, in Redis, until their tokens expire.
///
/// **Layout.** One key per used token, `{prefix}{32 hex digits}` (the first 128 bits of
/// the token's SHA-256, never the token), holding `1`, set with `SET … NX PX {time to the expiry}`:
/// the first instance to set it wins the round, every later one (on any instance) sees it
/// taken, and Redis drops the key when the token would have expired anyway.
///
/// **Memory.** About 90 bytes per key for the token's ttl (so `R × ttl` keys for `R`
/// single-use rounds per second). There is no capacity bound here: bound Redis
/// (`maxmemory` with `noeviction`). Eviction must be off for these keys: an evicted id is
/// a token that can be replayed.
///
/// **Failures** are closed: when Redis cannot be reached or does not answer within the
/// timeout ([`DEFAULT_REDIS_TIMEOUT`] unless set), [`consume`](ConsumedTokens::consume)
/// fails as [`Unavailable`](super::ConsumedTokensErrorKind::Unavailable), and the server
/// refuses the token with JSON-RPC `-32603` ("The single-use store is unavailable; try
/// again later") rather than hang. The connection is re-established with backoff, so
/// rounds resume when Redis does.
///
/// Every instance needs the same request-state keys, and the same Redis and prefix:
///
/// ```no_run
/// use mcp::sealing::{RedisConsumedTokens, RequestStateSecurity};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let security = RequestStateSecurity::builder()
///     .keys([[7u8; 32]])
///     .single_use(RedisConsumedTokens::new("redis://127.0.0.1:6379/0")?)
///     .build()?;
/// let server = mcp::Server::builder("svc", "1.0.0").request_state_security(security).build();
/// # let _ = server;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisConsumedTokens {
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
}

impl std::fmt::Debug for RedisConsumedTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisConsumedTokens")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// A call that got no answer within the store's timeout.
#[derive(Debug)]
struct TimedOut(Duration);

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no answer from Redis within {:?}", self.0)
    }
}

impl std::error::Error for TimedOut {}

impl RedisConsumedTokens {
    /// A store on the Redis at `url` (`redis://host:port/db`), with the default prefix and
    /// timeout. It connects on first use, so it can be made while Redis is down; only a
    /// malformed URL, or a call outside a tokio runtime, fails here.
    pub fn new(url: &str) -> Result<Self, ConsumedTokensError> {
        Self::with_options(url, DEFAULT_CONSUMED_PREFIX, DEFAULT_REDIS_TIMEOUT)
    }

    /// A store keeping ids under `prefix` and bounding every call by `timeout`.
    pub fn with_options(url: &str, prefix: impl Into<String>, timeout: Duration) -> Result<Self, ConsumedTokensError> {
        let connection = redis_connection_manager(url, timeout).map_err(ConsumedTokensError::unavailable)?;
        Ok(RedisConsumedTokens { connection, prefix: prefix.into(), timeout })
    }

    /// `SET {prefix}{hex id} 1 NX PX {expires_ms - now_ms}`: true when this call set it.
    /// The lifetime is relative, so that Redis's clock running ahead of ours cannot drop the
    /// id before the token expires.
    async fn set_once(&self, id: [u8; 16], expires_ms: u64, now_ms: u64) -> Result<bool, ConsumedTokensError> {
        let mut key = String::with_capacity(self.prefix.len() + 32);
        key.push_str(&self.prefix);
        for byte in id {
            // Writing to a String cannot fail.
            let _ = write!(key, "{byte:02x}");
        }
        let mut connection = self.connection.clone();
        let mut set = redis::cmd("SET");
        set.arg(key).arg(1).arg("NX").arg("PX").arg(expires_ms.saturating_sub(now_ms).max(1));
        match tokio::time::timeout(self.timeout, set.query_async::<Option<String>>(&mut connection)).await {
            Ok(Ok(written)) => Ok(written.is_some()),
            Ok(Err(e)) => Err(ConsumedTokensError::unavailable(e)),
            Err(_) => Err(ConsumedTokensError::unavailable(TimedOut(self.timeout))),
        }
    }
}

/// Records `id` in Redis until `expires_ms`: `Ok(true)` the first time on any instance,
/// `Ok(false)` after. Redis drops the key `expires_ms - now_ms` after recording it.
impl ConsumedTokens for RedisConsumedTokens {
    fn consume(
        &self,
        id: [u8; 16],
        expires_ms: u64,
        now_ms: u64,
    ) -> StoreFuture<'_, Result<bool, ConsumedTokensError>> {
        Box::pin(self.set_once(id, expires_ms, now_ms))
    }
}
