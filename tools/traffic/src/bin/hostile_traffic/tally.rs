//! The run's tallies, shared by every worker: overall, per answer label, per case and per
//! kind of hostile traffic.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// How many unexpected answers are described on stderr.
const REPORTED: usize = 10;

/// What an answer means for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Served as a well-behaved client would be (a listen stream opened, a session
    /// initialized, a call answered while streams are held).
    Accepted,
    /// Refused the way the server should refuse it (a 4xx, a JSON-RPC error, a 429/503 with
    /// `Retry-After` at a cap, a stalled connection closed).
    Refused,
    /// Anything else: a failure of the run.
    Unexpected,
}

/// The counts of one kind of traffic. The field order is part of the output format:
/// `scripts/soak.sh` reads `"KIND":{"requests":N,"accepted":N,"refused":N,"unexpected":N}`.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct KindTally {
    pub(crate) requests: u64,
    pub(crate) accepted: u64,
    pub(crate) refused: u64,
    pub(crate) unexpected: u64,
}

#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) sent: u64,
    pub(crate) unexpected: u64,
    pub(crate) answered: BTreeMap<String, u64>,
    pub(crate) cases: BTreeMap<&'static str, BTreeMap<String, u64>>,
    pub(crate) kinds: BTreeMap<&'static str, KindTally>,
    reported: usize,
}

impl Tally {
    /// Count one answer to request `case` of traffic `kind`, labelled `label`.
    pub(crate) fn record(&mut self, kind: &'static str, case: &'static str, label: String, verdict: Verdict) {
        self.sent += 1;
        let counts = self.kinds.entry(kind).or_default();
        counts.requests += 1;
        let label = match verdict {
            Verdict::Accepted => {
                counts.accepted += 1;
                label
            }
            Verdict::Refused => {
                counts.refused += 1;
                label
            }
            Verdict::Unexpected => {
                counts.unexpected += 1;
                self.unexpected += 1;
                if self.reported < REPORTED {
                    self.reported += 1;
                    tracing::warn!("{case}: unexpected answer: {label}");
                }
                format!("unexpected: {label}")
            }
        };
        *self.answered.entry(label.clone()).or_default() += 1;
        *self.cases.entry(case).or_default().entry(label).or_default() += 1;
    }

    /// Make `kind` show in the output even if it sent nothing (a slow kind whose cycle does
    /// not fit in the run).
    pub(crate) fn declare(&mut self, kind: &'static str) {
        self.kinds.entry(kind).or_default();
    }
}

pub(crate) fn lock(tally: &Mutex<Tally>) -> MutexGuard<'_, Tally> {
    tally.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_counted_per_kind_and_only_unexpected_ones_fail() {
        let mut tally = Tally::default();
        tally.declare("slow_bodies");
        tally.record("listen_flood", "listen", "stream".into(), Verdict::Accepted);
        tally.record("listen_flood", "listen", "429".into(), Verdict::Refused);
        tally.record("listen_flood", "probe", "503 -32000".into(), Verdict::Unexpected);
        tally.record("cases", "get", "405".into(), Verdict::Refused);
        assert_eq!((tally.sent, tally.unexpected), (4, 1));
        assert_eq!(tally.kinds["listen_flood"], KindTally { requests: 3, accepted: 1, refused: 1, unexpected: 1 });
        assert_eq!(tally.kinds["cases"], KindTally { requests: 1, accepted: 0, refused: 1, unexpected: 0 });
        assert_eq!(tally.kinds["slow_bodies"], KindTally::default());
        assert_eq!(tally.cases["probe"]["unexpected: 503 -32000"], 1);
        assert_eq!(tally.answered["stream"], 1);
    }

    #[test]
    fn a_kind_serializes_in_the_order_soak_sh_reads() {
        let counts = KindTally { requests: 4, accepted: 3, refused: 1, unexpected: 0 };
        assert_eq!(
            serde_json::to_string(&counts).expect("serializable"),
            r#"{"requests":4,"accepted":3,"refused":1,"unexpected":0}"#
        );
    }
}
