//! Ending sessions that stayed idle too long or outlived their lifetime, without waiting
//! for a request to name them: a background task scans every open session a few times
//! per timeout (1,024 sessions by default, a few microseconds each scan).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::{Instant, MissedTickBehavior};

use super::{Entry, Policy, Sessions, lock};

/// The shortest and longest pause between two sweeps.
const MIN_PERIOD: Duration = Duration::from_millis(10);
const MAX_PERIOD: Duration = Duration::from_secs(30);

impl Policy {
    /// How often to sweep: a quarter of the shortest timeout, so a session ends at most a
    /// quarter late (a lookup in between sees the exact deadline); `None` with no timeout.
    fn sweep_period(&self) -> Option<Duration> {
        let shortest = match (self.idle_timeout, self.max_lifetime) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return None,
        };
        Some((shortest / 4).clamp(MIN_PERIOD, MAX_PERIOD))
    }
}

impl Sessions {
    /// Whether `entry` is past its lifetime, or idle for longer than the idle timeout.
    pub(super) fn expired(&self, entry: &Entry, now: Instant) -> bool {
        let Policy { idle_timeout, max_lifetime, .. } = self.policy;
        max_lifetime.is_some_and(|lifetime| now.duration_since(entry.opened) >= lifetime)
            || idle_timeout.is_some_and(|timeout| {
                entry.session.idle_since().is_some_and(|since| now.duration_since(since) >= timeout)
            })
    }

    /// Remove the expired entries (ending them is the caller's, outside the lock).
    pub(super) fn take_expired(&self, map: &mut HashMap<String, Entry>, now: Instant) -> Vec<Entry> {
        let expired: Vec<String> =
            map.iter().filter(|(_, entry)| self.expired(entry, now)).map(|(id, _)| id.clone()).collect();
        expired.iter().filter_map(|id| map.remove(id)).collect()
    }

    /// End every expired session.
    fn sweep(&self) {
        let expired = self.take_expired(&mut lock(&self.map), Instant::now());
        if !expired.is_empty() {
            tracing::info!(count = expired.len(), "ending sessions past their idle timeout or lifetime");
        }
        expired.into_iter().for_each(Entry::end);
    }

    /// Start the background sweep, once, on the current runtime. It stops when the
    /// endpoint is dropped.
    pub(super) fn start_sweep(self: &Arc<Self>) {
        let Some(period) = self.policy.sweep_period() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        if self.sweeping.swap(true, Ordering::AcqRel) {
            return;
        }
        let sessions = Arc::downgrade(self);
        runtime.spawn(async move {
            let mut ticks = tokio::time::interval_at(Instant::now() + period, period);
            ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(sessions) = sessions.upgrade() else { return };
                sessions.sweep();
            }
        });
    }
}
