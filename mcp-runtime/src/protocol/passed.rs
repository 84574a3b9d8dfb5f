//! The texts that last passed the strict rules on this thread, of those a client repeats in
//! every request: a 2026-07-28 client sends the same capabilities and client info in each
//! request's `_meta`, and checking them again (a full reading for depth and duplicate keys)
//! was a twentieth of the cost of serving a small call; comparing a text with one that
//! passed is a `memcmp`. Only those two members are kept (so other members, which may
//! change with each request, never push them out), and only passes: a text that breaks a
//! rule is checked, and refused, every time.

use std::cell::RefCell;

use super::recent::Recent;

thread_local! {
    /// Texts that passed, each with the levels it was allowed to open below it (room for
    /// two clients' capabilities and client info).
    static PASSED: RefCell<Recent<usize, 4>> = const { RefCell::new(Recent::new()) };
}

/// Whether `text` passed the rules on this thread with at most `depth_left` levels below
/// it (so it passes with `depth_left`).
pub(super) fn passed(text: &str, depth_left: usize) -> bool {
    PASSED.try_with(|kept| kept.borrow().find(text.as_bytes(), |depth| *depth <= depth_left).is_some()).unwrap_or(false)
}

/// Keep `text`, which just passed with `depth_left` levels below it.
pub(super) fn remember(text: &str, depth_left: usize) {
    // `try_with`: a thread whose locals are being torn down keeps nothing.
    let _ = PASSED.try_with(|kept| kept.borrow_mut().keep(text.as_bytes(), depth_left));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_passes_again_only_with_as_much_room() {
        assert!(!passed(r#"{"a":1}"#, 10));
        remember(r#"{"a":1}"#, 10);
        assert!(passed(r#"{"a":1}"#, 10));
        assert!(passed(r#"{"a":1}"#, 11), "more room than it was checked with");
        assert!(!passed(r#"{"a":1}"#, 9), "less room than it was checked with");
        assert!(!passed(r#"{"a":2}"#, 10), "another text");
        assert!(!passed(r#"{"a":1} "#, 10), "another text, however alike");
    }
}
