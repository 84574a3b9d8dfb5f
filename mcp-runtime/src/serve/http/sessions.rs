//! 2025-11-25 sessions over HTTP: `initialize` mints an `Mcp-Session-Id`, later
//! requests name it, DELETE ends it. The server also ends a session that stays idle too
//! long or outlives its lifetime ([`sweep`]), and, at the cap, the least recently used
//! idle one to make room. A session belongs to the principal that opened it ([`Owner`]):
//! to anyone else its id is unknown.

mod owner;
mod sweep;

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ring::rand::{SecureRandom, SystemRandom};
use tokio::sync::watch;
use tokio::time::Instant;

pub(crate) use owner::Owner;

use crate::handler::{Hold, Session};

/// When sessions end on their own, and how many may be open.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Policy {
    pub(crate) max: usize,
    pub(crate) idle_timeout: Option<Duration>,
    pub(crate) max_lifetime: Option<Duration>,
}

/// The open legacy sessions of one HTTP endpoint.
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Entry>>,
    policy: Policy,
    rng: SystemRandom,
    /// Whether the background sweep runs.
    sweeping: AtomicBool,
}

struct Entry {
    session: Arc<Session>,
    /// Never sent on; dropped with the entry, which wakes every [`watch::Receiver`] of it.
    end: watch::Sender<()>,
    owner: Owner,
    opened: Instant,
}

impl Entry {
    /// End the session: its running requests stop and its questions to the client fail.
    fn end(self) {
        let Entry { session, end, .. } = self;
        drop(end);
        session.abort_all();
        session.fail_pending();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Sessions {
    pub(crate) fn new(policy: Policy) -> Self {
        Sessions { map: Mutex::new(HashMap::new()), policy, rng: SystemRandom::new(), sweeping: AtomicBool::new(false) }
    }

    /// A new session of `owner` with an unguessable id. At the cap, expired sessions go
    /// first, then the least recently used idle one; `None` when every session is busy.
    pub(crate) fn create(self: &Arc<Self>, owner: Owner) -> Option<(String, Arc<Session>)> {
        self.start_sweep();
        let mut bytes = [0u8; 16];
        self.rng.fill(&mut bytes).ok()?;
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let session = Arc::new(Session::new());
        // A 2025-11-25 session over HTTP (2026-07-28 requests have none).
        if let Some(on_end) = crate::telemetry::server::session_end("tcp") {
            session.measure(on_end);
        }
        let mut ended = Vec::new();
        let created = {
            let mut map = lock(&self.map);
            if map.len() >= self.policy.max {
                ended = self.take_expired(&mut map, Instant::now());
            }
            if map.len() >= self.policy.max
                && let Some(lru) = least_recently_used_idle(&map)
                && let Some(evicted) = map.remove(&lru)
            {
                // Never the id: it is a bearer credential for the session.
                tracing::info!(limit = self.policy.max, "evicting the least recently used idle session");
                ended.push(evicted);
            }
            if map.len() < self.policy.max {
                let end = watch::channel(()).0;
                map.insert(id.clone(), Entry { session: Arc::clone(&session), end, owner, opened: Instant::now() });
                true
            } else {
                false
            }
        };
        ended.into_iter().for_each(Entry::end);
        created.then_some((id, session))
    }

    /// Session `id`, if it is open and `owner` opened it; looking it up counts as a use.
    pub(crate) fn get(&self, id: &str, owner: Owner) -> Option<Arc<Session>> {
        self.find(id, owner, |entry| Arc::clone(&entry.session))
    }

    /// Session `id` (as [`get`](Self::get)) for a GET stream: a receiver whose `changed()`
    /// resolves when the session ends, and a hold that keeps it busy while the stream is open.
    pub(crate) fn get_stream(&self, id: &str, owner: Owner) -> Option<(Arc<Session>, watch::Receiver<()>, Hold)> {
        self.find(id, owner, |entry| (Arc::clone(&entry.session), entry.end.subscribe(), entry.session.hold()))
    }

    fn find<T>(&self, id: &str, owner: Owner, found: impl FnOnce(&Entry) -> T) -> Option<T> {
        let mut map = lock(&self.map);
        let entry = map.get(id).filter(|entry| entry.owner == owner)?;
        if self.expired(entry, Instant::now()) {
            let expired = map.remove(id);
            drop(map);
            if let Some(expired) = expired {
                expired.end();
            }
            return None;
        }
        entry.session.touch();
        Some(found(entry))
    }

    /// End session `id` if `owner` opened it (DELETE, or a failed `initialize`): its running
    /// requests stop and its questions to the client fail.
    pub(crate) fn remove(&self, id: &str, owner: Owner) -> bool {
        let removed = {
            let mut map = lock(&self.map);
            match map.get(id) {
                Some(entry) if entry.owner == owner => map.remove(id),
                _ => None,
            }
        };
        removed.map(Entry::end).is_some()
    }
}

/// The idle session used longest ago, if any is idle.
fn least_recently_used_idle(map: &HashMap<String, Entry>) -> Option<String> {
    map.iter()
        .filter_map(|(id, entry)| entry.session.idle_since().map(|since| (since, id)))
        .min_by_key(|(since, _)| *since)
        .map(|(_, id)| id.clone())
}
