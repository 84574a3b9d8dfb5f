//! The texts that last passed the strict rules on this thread. A 2026-07-28 client sends
//! the same `_meta` containers (its capabilities, its client info) with every request, and
//! checking them again (a full reading for depth and duplicate keys) was a twentieth of
//! the cost of serving a small call; comparing a text with one that passed is a `memcmp`.
//! Only passes are kept: a text that breaks a rule is checked, and refused, every time.

use std::cell::RefCell;

/// How many texts a thread keeps (the requests of one client carry two or three).
const KEPT: usize = 4;

/// The longest text kept, so that what a thread keeps stays small.
const LONGEST: usize = 1024;

/// A text that passed, with the levels it was allowed to open below it.
type Passed = Option<(Box<str>, usize)>;

thread_local! {
    /// The texts kept, and the slot the next one takes (the oldest).
    static PASSED: RefCell<([Passed; KEPT], usize)> = const { RefCell::new(([const { None }; KEPT], 0)) };
}

/// Whether `text` passed the rules on this thread with at most `depth_left` levels below
/// it (so it passes with `depth_left`).
pub(super) fn passed(text: &str, depth_left: usize) -> bool {
    text.len() <= LONGEST
        && PASSED
            .try_with(|kept| {
                kept.borrow().0.iter().flatten().any(|(seen, depth)| *depth <= depth_left && **seen == *text)
            })
            .unwrap_or(false)
}

/// Keep `text`, which just passed with `depth_left` levels below it, in the oldest slot.
pub(super) fn remember(text: &str, depth_left: usize) {
    if text.len() > LONGEST {
        return;
    }
    // `try_with`: a thread whose locals are being torn down keeps nothing.
    let _ = PASSED.try_with(|kept| {
        let (slots, next) = &mut *kept.borrow_mut();
        slots[*next] = Some((text.into(), depth_left));
        *next = (*next + 1) % KEPT;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_few_texts_that_passed() {
        assert!(!passed(r#"{"a":1}"#, 10));
        remember(r#"{"a":1}"#, 10);
        assert!(passed(r#"{"a":1}"#, 10));
        assert!(passed(r#"{"a":1}"#, 11), "more room than it was checked with");
        assert!(!passed(r#"{"a":1}"#, 9), "less room than it was checked with");
        assert!(!passed(r#"{"a":2}"#, 10), "another text");
        assert!(!passed(r#"{"a":1} "#, 10), "another text, however alike");
        // Four more push the first out.
        for i in 0..KEPT {
            remember(&format!("[{i}]"), 10);
        }
        assert!(!passed(r#"{"a":1}"#, 10));
        assert!((0..KEPT).all(|i| passed(&format!("[{i}]"), 10)));
        // Past the longest kept: never kept.
        let long = format!("[{}]", "1,".repeat(LONGEST) + "1");
        remember(&long, 10);
        assert!(!passed(&long, 10));
    }
}
