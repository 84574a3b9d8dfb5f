//! The verified-token cache of a [`JwtVerifier`](super::JwtVerifier): tokens that passed
//! every check, by the SHA-256 of their text, so that a client sending the same token on
//! every request pays for one signature verification, not one per request.
//!
//! An entry is served only for the audience it was verified for, and only before the
//! token's `exp` (without the leeway: past `exp` the token is verified in full again) and
//! before its maximum age. At most `max_entries` are kept: expired entries go first, then
//! the one that expires soonest. Only digests are kept, never a token.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::handler::AuthInfo;

/// The SHA-256 of a token.
pub(super) type Digest = [u8; 32];

/// The key of `token` in the cache.
pub(super) fn digest(token: &str) -> Digest {
    let mut out = [0u8; 32];
    out.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, token.as_bytes()).as_ref());
    out
}

struct Entry {
    /// Shared with every request it is served to: a hit copies no string.
    auth: Arc<AuthInfo>,
    /// The audience the token was verified for.
    audience: Box<str>,
    /// Served while now (seconds since the Unix epoch) is before this.
    until: u64,
}

#[derive(Default)]
struct State {
    entries: HashMap<Digest, Entry>,
    /// `(until, digest)` of every entry: the next to expire first.
    by_expiry: BTreeSet<(u64, Digest)>,
}

impl State {
    fn remove(&mut self, key: &Digest) {
        if let Some(old) = self.entries.remove(key) {
            self.by_expiry.remove(&(old.until, *key));
        }
    }

    /// Drop the entries expired at `now`.
    fn sweep(&mut self, now: u64) {
        while let Some(&(until, key)) = self.by_expiry.first() {
            if until > now {
                break;
            }
            self.by_expiry.pop_first();
            self.entries.remove(&key);
        }
    }
}

/// Tokens verified recently, bounded in number and age.
pub(super) struct VerifiedTokens {
    max_entries: usize,
    max_age: u64,
    state: Mutex<State>,
}

impl std::fmt::Debug for VerifiedTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Counts only: the entries hold principals.
        f.debug_struct("VerifiedTokens")
            .field("max_entries", &self.max_entries)
            .field("max_age_secs", &self.max_age)
            .field("entries", &self.len())
            .finish()
    }
}

impl VerifiedTokens {
    /// A cache of at most `max_entries` tokens, each kept at most `max_age` (whole seconds);
    /// `None` when either is zero (nothing would be cached).
    pub(super) fn new(max_entries: usize, max_age: Duration) -> Option<VerifiedTokens> {
        let max_age = max_age.as_secs();
        (max_entries > 0 && max_age > 0).then(|| VerifiedTokens { max_entries, max_age, state: Mutex::default() })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the token with digest `key` was verified as, if it was verified for `audience`
    /// and its entry is still live at `now`.
    pub(super) fn get(&self, key: &Digest, audience: &str, now: u64) -> Option<Arc<AuthInfo>> {
        let mut state = self.lock();
        let entry = state.entries.get(key)?;
        if entry.until <= now {
            state.remove(key);
            return None;
        }
        (*entry.audience == *audience).then(|| Arc::clone(&entry.auth))
    }

    /// Keep `auth`, verified at `now` for `audience` from a token with digest `key`
    /// expiring at `exp`, until `exp` or the maximum age, whichever comes first.
    pub(super) fn insert(&self, key: Digest, audience: &str, auth: &Arc<AuthInfo>, exp: u64, now: u64) {
        let until = exp.min(now.saturating_add(self.max_age));
        if until <= now {
            return;
        }
        let mut state = self.lock();
        state.remove(&key);
        if state.entries.len() >= self.max_entries {
            state.sweep(now);
        }
        while state.entries.len() >= self.max_entries {
            let Some((_, soonest)) = state.by_expiry.pop_first() else { break };
            state.entries.remove(&soonest);
        }
        state.by_expiry.insert((until, key));
        state.entries.insert(key, Entry { auth: Arc::clone(auth), audience: audience.into(), until });
    }

    /// How many entries there are (live or not yet swept).
    pub(super) fn len(&self) -> usize {
        self.lock().entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000;
    const AUD: &str = "https://mcp.example.com/mcp";

    fn auth(subject: &str) -> Arc<AuthInfo> {
        Arc::new(AuthInfo { client_id: "app".into(), subject: Some(subject.into()), ..AuthInfo::default() })
    }

    fn cache(max_entries: usize, max_age_secs: u64) -> VerifiedTokens {
        VerifiedTokens::new(max_entries, Duration::from_secs(max_age_secs)).expect("a cache")
    }

    #[test]
    fn an_entry_is_served_until_exp_and_not_after() {
        let tokens = cache(8, 600);
        let key = digest("token-a");
        tokens.insert(key, AUD, &auth("alice"), NOW + 10, NOW);
        assert_eq!(tokens.get(&key, AUD, NOW + 9).and_then(|a| a.subject.clone()).as_deref(), Some("alice"));
        assert!(tokens.get(&key, AUD, NOW + 10).is_none(), "served at exp");
        assert_eq!(tokens.len(), 0, "the expired entry is dropped when read");
    }

    #[test]
    fn an_entry_is_served_no_longer_than_the_maximum_age() {
        let tokens = cache(8, 30);
        let key = digest("token-a");
        tokens.insert(key, AUD, &auth("alice"), NOW + 3600, NOW);
        assert!(tokens.get(&key, AUD, NOW + 29).is_some());
        assert!(tokens.get(&key, AUD, NOW + 30).is_none(), "served past the maximum age");
        // A token already past exp is not kept at all.
        tokens.insert(key, AUD, &auth("alice"), NOW, NOW);
        assert_eq!(tokens.len(), 0);
    }

    #[test]
    fn another_token_or_audience_misses() {
        let tokens = cache(8, 600);
        tokens.insert(digest("token-a"), AUD, &auth("alice"), NOW + 60, NOW);
        assert!(tokens.get(&digest("token-b"), AUD, NOW).is_none());
        assert!(tokens.get(&digest("token-a "), AUD, NOW).is_none());
        assert!(tokens.get(&digest("token-a"), "https://other.example/mcp", NOW).is_none());
        assert!(tokens.get(&digest("token-a"), AUD, NOW).is_some());
    }

    #[test]
    fn the_bound_holds_expired_entries_first_then_the_soonest_to_expire() {
        let tokens = cache(3, 600);
        tokens.insert(digest("a"), AUD, &auth("a"), NOW + 5, NOW);
        tokens.insert(digest("b"), AUD, &auth("b"), NOW + 50, NOW);
        tokens.insert(digest("c"), AUD, &auth("c"), NOW + 20, NOW);
        // At NOW + 6 `a` has expired: it makes room.
        tokens.insert(digest("d"), AUD, &auth("d"), NOW + 100, NOW + 6);
        assert_eq!(tokens.len(), 3);
        assert!(tokens.get(&digest("a"), AUD, NOW + 6).is_none());
        // Full of live entries: `c`, which expires soonest, makes room.
        tokens.insert(digest("e"), AUD, &auth("e"), NOW + 100, NOW + 6);
        assert_eq!(tokens.len(), 3);
        assert!(tokens.get(&digest("c"), AUD, NOW + 6).is_none());
        for kept in ["b", "d", "e"] {
            assert!(tokens.get(&digest(kept), AUD, NOW + 6).is_some(), "{kept} was evicted");
        }
        // Many more: never above the bound, and a token seen again replaces its entry.
        for n in 0..100 {
            tokens.insert(digest(&format!("t{n}")), AUD, &auth("t"), NOW + 100 + n, NOW + 6);
            tokens.insert(digest("e"), AUD, &auth("e"), NOW + 500, NOW + 6);
            assert!(tokens.len() <= 3);
        }
        assert!(tokens.get(&digest("e"), AUD, NOW + 6).is_some());
        let state = tokens.lock();
        assert_eq!(state.entries.len(), state.by_expiry.len(), "the index matches the entries");
    }

    #[test]
    fn a_zero_bound_or_age_caches_nothing_and_debug_shows_no_principal() {
        assert!(VerifiedTokens::new(0, Duration::from_secs(60)).is_none());
        assert!(VerifiedTokens::new(10, Duration::from_millis(999)).is_none());
        let tokens = cache(8, 600);
        tokens.insert(digest("token-a"), AUD, &auth("secret-subject"), NOW + 60, NOW);
        let shown = format!("{tokens:?}");
        assert!(shown.contains("entries: 1") && !shown.contains("secret-subject"), "{shown}");
    }
}
