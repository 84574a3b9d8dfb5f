//! The last few texts a thread met and what it made of them, for work that a client
//! repeats request after request (the same `_meta` members each time, the same arguments
//! and question in each round of a call): a hit costs a `memcmp` against each text kept.

/// The longest text kept by default, so that what a thread keeps stays small.
pub(crate) const LONGEST: usize = 1024;

/// Up to `N` texts (each at most `MAX` bytes) with their values; a new one takes the
/// oldest one's slot.
pub(crate) struct Recent<V, const N: usize, const MAX: usize = LONGEST> {
    slots: [Option<(Box<[u8]>, V)>; N],
    next: usize,
}

impl<V, const N: usize, const MAX: usize> Recent<V, N, MAX> {
    pub(crate) const fn new() -> Self {
        Recent { slots: [const { None }; N], next: 0 }
    }

    /// The value kept with `text`, among those that `fits`.
    pub(crate) fn find(&self, text: &[u8], fits: impl Fn(&V) -> bool) -> Option<&V> {
        if text.len() > MAX {
            return None;
        }
        self.slots
            .iter()
            .flatten()
            .find(|(seen, value)| seen.len() == text.len() && fits(value) && **seen == *text)
            .map(|(_, value)| value)
    }

    /// Keep `value` with `text` (unless the text is too long to keep).
    pub(crate) fn keep(&mut self, text: &[u8], value: V) {
        if text.len() > MAX || N == 0 {
            return;
        }
        self.slots[self.next] = Some((text.into(), value));
        self.next = (self.next + 1) % N;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_n_texts() {
        let mut recent = Recent::<u32, 2>::new();
        assert_eq!(recent.find(b"a", |_| true), None);
        recent.keep(b"a", 1);
        recent.keep(b"b", 2);
        assert_eq!((recent.find(b"a", |_| true), recent.find(b"b", |_| true)), (Some(&1), Some(&2)));
        assert_eq!(recent.find(b"a", |v| *v > 1), None, "kept, but does not fit");
        assert_eq!(recent.find(b"a ", |_| true), None);
        recent.keep(b"c", 3);
        assert_eq!(recent.find(b"a", |_| true), None, "the oldest made room");
        assert_eq!((recent.find(b"b", |_| true), recent.find(b"c", |_| true)), (Some(&2), Some(&3)));
        let long = "x".repeat(LONGEST + 1);
        recent.keep(long.as_bytes(), 4);
        assert_eq!(recent.find(long.as_bytes(), |_| true), None, "too long to keep");
        assert_eq!(recent.find(b"b", |_| true), Some(&2), "and it took no slot");
        // A longer limit of its own.
        let mut roomy = Recent::<u32, 1, { LONGEST + 1 }>::new();
        roomy.keep(long.as_bytes(), 5);
        assert_eq!(roomy.find(long.as_bytes(), |_| true), Some(&5));
    }
}
