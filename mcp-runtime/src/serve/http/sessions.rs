//! 2025-11-25 sessions over HTTP: `initialize` mints an `Mcp-Session-Id`, later
//! requests name it, DELETE ends it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ring::rand::{SecureRandom, SystemRandom};
use tokio::sync::watch;

use crate::handler::Session;

/// The open legacy sessions of one HTTP endpoint.
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Entry>>,
    max: usize,
    rng: SystemRandom,
}

struct Entry {
    session: Arc<Session>,
    /// Never sent on; dropped with the entry, which wakes every [`watch::Receiver`] of it.
    end: watch::Sender<()>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Sessions {
    pub(crate) fn new(max: usize) -> Self {
        Sessions { map: Mutex::new(HashMap::new()), max, rng: SystemRandom::new() }
    }

    /// A new session with an unguessable id, or `None` when the limit is reached.
    pub(crate) fn create(&self) -> Option<(String, Arc<Session>)> {
        let mut bytes = [0u8; 16];
        self.rng.fill(&mut bytes).ok()?;
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let session = Arc::new(Session::new());
        let mut map = lock(&self.map);
        if map.len() >= self.max {
            return None;
        }
        map.insert(id.clone(), Entry { session: Arc::clone(&session), end: watch::channel(()).0 });
        Some((id, session))
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.map).get(id).map(|e| Arc::clone(&e.session))
    }

    /// A session and a receiver whose `changed()` resolves when the session ends.
    pub(crate) fn get_with_end(&self, id: &str) -> Option<(Arc<Session>, watch::Receiver<()>)> {
        lock(&self.map).get(id).map(|e| (Arc::clone(&e.session), e.end.subscribe()))
    }

    /// End a session: its running requests stop and its questions to the client fail.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let removed = lock(&self.map).remove(id);
        match removed {
            Some(Entry { session, end }) => {
                drop(end);
                session.abort_all();
                session.fail_pending();
                true
            }
            None => false,
        }
    }
}
