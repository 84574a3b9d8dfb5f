//! The single-use store: which tokens were already used, until they expire.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use crate::tasks::StoreFuture;

/// Remembers tokens already used, for single-use mode.
///
/// The server asks the store once per `requestState` that verified, before the handler
/// runs, and awaits the answer. A store shared by several instances (such as
/// `RedisConsumedTokens` with the `redis` feature) must bound each call by a timeout:
/// the request waits for it.
///
/// What the client gets:
/// - `Ok(true)`: the round goes on;
/// - `Ok(false)`: the fixed `Invalid or expired requestState` error (JSON-RPC `-32602`),
///   as for any other token that does not verify;
/// - `Err(_)`: JSON-RPC `-32603` "The single-use store is unavailable; try again later",
///   and a WARN with the cause. A store that could not be reached recorded nothing, so
///   the client can retry the same round once it is back (after a timeout the write may
///   have landed, and then the retry is refused as a replay).
///
/// ```
/// use mcp::sealing::{ConsumedTokens, ConsumedTokensError, InMemoryConsumedTokens};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), ConsumedTokensError> {
/// let store = InMemoryConsumedTokens::bounded(100);
/// let (now, expires) = (1_800_000_000_000, 1_800_000_600_000);
/// assert!(store.consume([1; 16], expires, now).await?, "first use");
/// assert!(!store.consume([1; 16], expires, now + 1).await?, "a replay is refused");
/// # Ok(())
/// # }
/// ```
pub trait ConsumedTokens: Send + Sync + 'static {
    /// Record `id` (valid until `expires_ms`, ms since the epoch; `now_ms` is the server's
    /// clock). `Ok(false)` when the token must be refused: `id` was already recorded and
    /// has not expired, or the store has no room for it (a full store). An error when the
    /// store cannot tell (unreachable, too slow): the token is refused too.
    fn consume(&self, id: [u8; 16], expires_ms: u64, now_ms: u64)
    -> StoreFuture<'_, Result<bool, ConsumedTokensError>>;
}

/// Why a [`ConsumedTokens`] store could not tell whether a token was used. Its message
/// names neither the token nor its id; the cause, if any, is its
/// [`source`](std::error::Error::source).
#[derive(Debug)]
#[non_exhaustive]
pub struct ConsumedTokensError {
    kind: ConsumedTokensErrorKind,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What kind of failure a [`ConsumedTokensError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConsumedTokensErrorKind {
    /// The store could not be reached, did not answer in time, or answered wrongly.
    Unavailable,
}

impl ConsumedTokensError {
    /// An error of `kind`, caused by `source` if any.
    pub fn new(kind: ConsumedTokensErrorKind, source: Option<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        ConsumedTokensError { kind, source }
    }

    /// An [`Unavailable`](ConsumedTokensErrorKind::Unavailable) error caused by `source`.
    pub fn unavailable(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        ConsumedTokensError::new(ConsumedTokensErrorKind::Unavailable, Some(source.into()))
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ConsumedTokensErrorKind {
        self.kind
    }
}

impl std::fmt::Display for ConsumedTokensError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ConsumedTokensErrorKind::Unavailable => f.write_str("the single-use store is unavailable"),
        }
    }
}

impl std::error::Error for ConsumedTokensError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// The width of an expiry bucket: ids are dropped one whole bucket at a time, at most this
/// long after they expire.
const BUCKET_MS: u64 = 1_000;

/// An in-memory [`ConsumedTokens`], bounded. Per process: with several instances, use a
/// shared store.
///
/// **Capacity.** It holds at most [`capacity`](Self::capacity) unexpired ids (default
/// [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY), 2^18 = 262,144). Each id costs 65 to 90
/// bytes (its 16 bytes and 8-byte expiry in a hash map kept at most 7/8 full and grown by
/// doubling, plus the 16 bytes again in its expiry bucket), so a full default store takes
/// about 20 MiB; memory is taken as ids arrive, not up front. A store sized for
/// a steady `R` single-use rounds per second needs `R × ttl` ids (the default 262,144 over
/// the default 600 s ttl is about 430 rounds per second).
///
/// **When it is full** of unexpired ids, a new token is refused: its retry gets the fixed
/// `Invalid or expired requestState` error (JSON-RPC `-32602`) and a WARN is logged
/// (`single-use store full`), until ids expire and free room. The store fails closed
/// because the alternative, forgetting the oldest ids to make room, would let every
/// forgotten token be replayed, and whoever can fill the store could choose when that
/// happens: it would turn a flood into a way around single use. Refusing keeps the
/// guarantee; the cost is that a flood of consumed tokens can deny new rounds for at most
/// one ttl. Size the capacity and the ttl for your traffic, and rate-limit callers.
///
/// **Expiry** is by time bucket: each id is filed under the second its token expires in,
/// and whole buckets are dropped once past, so a call never scans the store (amortized
/// O(1): each id is filed and dropped once). An id is kept up to a second past its
/// expiry, where it still counts towards the capacity.
///
/// ```
/// use mcp::sealing::{InMemoryConsumedTokens, RequestStateSecurity};
/// let security = RequestStateSecurity::builder()
///     .keys([[7u8; 32]])
///     .single_use(InMemoryConsumedTokens::bounded(100_000))
///     .build()
///     .unwrap();
/// # let _ = security;
/// ```
#[derive(Debug)]
pub struct InMemoryConsumedTokens {
    capacity: usize,
    inner: Mutex<Ids>,
}

/// The ids, by id (membership) and by expiry bucket (dropping).
#[derive(Debug, Default)]
struct Ids {
    /// Each id and when it expires.
    expiry: HashMap<[u8; 16], u64>,
    /// Bucket number (the expiry in whole seconds, rounded up) to the ids filed there. An
    /// id recorded again after it expired is filed again; its older entry is skipped when
    /// that bucket goes.
    buckets: BTreeMap<u64, Vec<[u8; 16]>>,
}

fn bucket_of(expires_ms: u64) -> u64 {
    expires_ms.div_ceil(BUCKET_MS)
}

impl Ids {
    /// Drop every bucket whose ids have all expired at `now_ms`.
    fn drop_expired(&mut self, now_ms: u64) {
        // Bucket `b` holds expiries in `((b - 1) s, b s]`: all past once `b s <= now`.
        while let Some(entry) = self.buckets.first_entry() {
            if entry.key().saturating_mul(BUCKET_MS) > now_ms {
                break;
            }
            let (bucket, ids) = entry.remove_entry();
            for id in ids {
                if self.expiry.get(&id).is_some_and(|exp| bucket_of(*exp) == bucket) {
                    self.expiry.remove(&id);
                }
            }
        }
    }
}

impl InMemoryConsumedTokens {
    /// The capacity of [`Default`]: 2^18 ids, about 20 MiB when full.
    pub const DEFAULT_CAPACITY: usize = 1 << 18;

    /// A store holding at most `capacity` unexpired ids (refusing new tokens beyond; `0`
    /// refuses every token).
    pub fn bounded(capacity: usize) -> Self {
        InMemoryConsumedTokens { capacity, inner: Mutex::new(Ids::default()) }
    }

    /// The most ids it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many ids it holds now (including ids expired less than a second ago).
    pub fn len(&self) -> usize {
        self.lock().expiry.len()
    }

    /// Whether it holds no ids.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ids> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Default for InMemoryConsumedTokens {
    fn default() -> Self {
        InMemoryConsumedTokens::bounded(Self::DEFAULT_CAPACITY)
    }
}

impl ConsumedTokens for InMemoryConsumedTokens {
    /// Answers at once, never with an error.
    fn consume(
        &self,
        id: [u8; 16],
        expires_ms: u64,
        now_ms: u64,
    ) -> StoreFuture<'_, Result<bool, ConsumedTokensError>> {
        Box::pin(std::future::ready(Ok(self.record(id, expires_ms, now_ms))))
    }
}

impl InMemoryConsumedTokens {
    /// [`consume`](ConsumedTokens::consume) without a future: record `id` (valid until
    /// `expires_ms`), false when it must be refused (already recorded and unexpired, or
    /// the store is full).
    fn record(&self, id: [u8; 16], expires_ms: u64, now_ms: u64) -> bool {
        let mut ids = self.lock();
        ids.drop_expired(now_ms);
        if ids.expiry.get(&id).is_some_and(|exp| *exp > now_ms) {
            return false;
        }
        if expires_ms <= now_ms {
            // Nothing to remember: an expired token is refused before it gets here.
            return true;
        }
        if !ids.expiry.contains_key(&id) && ids.expiry.len() >= self.capacity {
            tracing::warn!(
                capacity = self.capacity,
                "single-use store full: refusing new requestState tokens until recorded ones expire"
            );
            return false;
        }
        ids.expiry.insert(id, expires_ms);
        ids.buckets.entry(bucket_of(expires_ms)).or_default().push(id);
        true
    }
}
