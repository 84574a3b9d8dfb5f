//! Text from the peer (its name and version, method names, tool names, error messages)
//! made safe to log: escaped, so a newline cannot forge a log line, and bounded.

use std::fmt;

/// The most characters of one untrusted string that reach a log.
pub(crate) const MAX_LOGGED_CHARS: usize = 128;

/// Untrusted text as a log field (`field = ?Untrusted(text)`): quoted, with control
/// characters, quotes and backslashes escaped as Rust's `Debug` does, and cut after
/// [`MAX_LOGGED_CHARS`] characters with an ellipsis and the full length in bytes.
/// `Display` writes the same, so `%` is just as safe.
pub(crate) struct Untrusted<'a>(pub(crate) &'a str);

impl fmt::Debug for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(MAX_LOGGED_CHARS) {
            None => write!(f, "{:?}", self.0),
            Some((cut, _)) => write!(f, "{:?}… ({} bytes)", &self.0[..cut], self.0.len()),
        }
    }
}

impl fmt::Display for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_LOGGED_CHARS, Untrusted};

    #[test]
    fn escapes_line_breaks_and_control_characters() {
        let shown = format!("{:?}", Untrusted("evil\nINFO forged\r\u{1b}[2J\"\\"));
        assert_eq!(shown, r#""evil\nINFO forged\r\u{1b}[2J\"\\""#);
        assert_eq!(format!("{}", Untrusted("a\nb")), r#""a\nb""#);
    }

    #[test]
    fn cuts_long_text_and_says_how_long_it_was() {
        let long = "é".repeat(10_000);
        let shown = format!("{:?}", Untrusted(&long));
        assert_eq!(shown, format!("{:?}… (20000 bytes)", "é".repeat(MAX_LOGGED_CHARS)));
        assert_eq!(
            format!("{:?}", Untrusted(&long[..2 * MAX_LOGGED_CHARS])),
            format!("{:?}", &long[..2 * MAX_LOGGED_CHARS])
        );
    }
}
