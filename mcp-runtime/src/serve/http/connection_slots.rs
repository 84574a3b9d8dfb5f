//! The cap on open connections: the accept loop takes a slot before it accepts, so
//! connections over the cap wait in the kernel's listen backlog (and are refused by the
//! kernel once it is full) instead of costing a file descriptor each.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// At most one WARN about the cap per this interval.
const WARN_EVERY: Duration = Duration::from_secs(60);

/// Slots for open connections; a connection keeps its slot until it closes.
pub(super) struct ConnectionSlots {
    slots: Arc<Semaphore>,
    limit: usize,
    last_warned: Option<Instant>,
}

impl ConnectionSlots {
    /// `limit` slots (at least one).
    pub(super) fn new(limit: usize) -> Self {
        let limit = limit.max(1);
        ConnectionSlots { slots: Arc::new(Semaphore::new(limit)), limit, last_warned: None }
    }

    /// A free slot, waiting for one when all are taken (logging a WARN at most once a
    /// minute). `None` only if the slots were closed, which never happens.
    pub(super) async fn take(&mut self) -> Option<OwnedSemaphorePermit> {
        if let Ok(slot) = Arc::clone(&self.slots).try_acquire_owned() {
            return Some(slot);
        }
        if self.last_warned.is_none_or(|at| at.elapsed() >= WARN_EVERY) {
            self.last_warned = Some(Instant::now());
            tracing::warn!(
                limit = self.limit,
                "connection limit reached: new connections wait in the listen backlog until one closes"
            );
        }
        Arc::clone(&self.slots).acquire_owned().await.ok()
    }
}
