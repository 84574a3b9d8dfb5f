//! Helpers shared by the fuzz targets in `fuzz_targets/` and the seed generator in
//! `examples/seeds.rs`. Nothing here is fuzzed itself.

use mcp::sealing::AesGcmCodec;

/// The longest prefix of `data` that is valid UTF-8.
///
/// The decoders under test take `&str`; cutting at the first invalid byte keeps every
/// input useful instead of throwing away those with one stray byte.
pub fn text_prefix(data: &[u8]) -> &str {
    match std::str::from_utf8(data) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&data[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Secret A of the fuzzing key ring (mints tokens). Public test material, never a real key.
pub const KEY_A: [u8; 32] = *b"mcp-fuzz request-state key A ..!";
/// Secret B of the fuzzing key ring (a rotated-in key that only verifies).
pub const KEY_B: [u8; 32] = *b"mcp-fuzz request-state key B ..!";
/// A secret outside the ring: its tokens must be refused as an unknown key.
pub const KEY_FOREIGN: [u8; 32] = *b"mcp-fuzz foreign key (not in it)";

/// The codec the `request_state` target attacks: the ring `[A, B]`, as an instance
/// looks in the middle of a key rotation.
pub fn ring_codec() -> AesGcmCodec {
    AesGcmCodec::new(&[KEY_A, KEY_B]).unwrap_or_else(|e| panic!("fuzz key ring: {e}"))
}

/// A codec over one secret (to mint seed tokens under B alone, or under a foreign key).
pub fn single_codec(secret: [u8; 32]) -> AesGcmCodec {
    AesGcmCodec::new(&[secret]).unwrap_or_else(|e| panic!("fuzz key: {e}"))
}

/// One piece of a URI template as the harness reads it, independently of the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Literal text, matched as is.
    Literal(&'a str),
    /// `{name}` (`reserved == false`) or `{+name}` (`reserved == true`).
    Variable {
        /// The variable's name.
        name: &'a str,
        /// Whether it is a `{+name}` expression.
        reserved: bool,
    },
}

/// Splits a template the runtime accepted into literals and expressions.
///
/// Only meant for templates `UriTemplate::parse` accepted (balanced braces, no nesting);
/// returns `None` for anything else so a disagreement shows up as a failed assertion in
/// the target rather than a panic here.
pub fn split_template(template: &str) -> Option<Vec<Piece<'_>>> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        match rest.find('{') {
            Some(0) => {
                let close = rest.find('}')?;
                let expr = &rest[1..close];
                pieces.push(match expr.strip_prefix('+') {
                    Some(name) => Piece::Variable { name, reserved: true },
                    None => Piece::Variable { name: expr, reserved: false },
                });
                rest = &rest[close + 1..];
            }
            Some(open) => {
                pieces.push(Piece::Literal(&rest[..open]));
                rest = &rest[open..];
            }
            None => {
                pieces.push(Piece::Literal(rest));
                rest = "";
            }
        }
    }
    Some(pieces)
}

/// Percent-encodes every byte of `value` (`%41` for `A`), upper- or lower-case hex.
///
/// Encoding every byte makes the value's text consist of `%` and hex digits only, so a
/// following literal that starts with anything else cannot be found inside it.
pub fn percent_encode_all(value: &str, lower: bool) -> String {
    const UPPER: &[u8; 16] = b"0123456789ABCDEF";
    const LOWER: &[u8; 16] = b"0123456789abcdef";
    let digits = if lower { LOWER } else { UPPER };
    let mut out = String::with_capacity(value.len() * 3);
    for b in value.bytes() {
        out.push('%');
        out.push(char::from(digits[usize::from(b >> 4)]));
        out.push(char::from(digits[usize::from(b & 0x0f)]));
    }
    out
}

/// Whether every `%` in `text` starts an RFC 3986 `pct-encoded` triplet (`%` HEXDIG HEXDIG).
pub fn well_formed_percents(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let ok = bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
            if !ok {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_templates() {
        assert_eq!(
            split_template("db://{table}/rows/{+id}"),
            Some(vec![
                Piece::Literal("db://"),
                Piece::Variable { name: "table", reserved: false },
                Piece::Literal("/rows/"),
                Piece::Variable { name: "id", reserved: true },
            ])
        );
        assert_eq!(split_template(""), Some(vec![]));
    }

    #[test]
    fn percent_helpers() {
        assert_eq!(percent_encode_all("a/é", false), "%61%2F%C3%A9");
        assert_eq!(percent_encode_all("a/", true), "%61%2f");
        assert!(well_formed_percents("%41b%2f"));
        assert!(!well_formed_percents("%4"));
        assert!(!well_formed_percents("%+1"));
        assert!(!well_formed_percents("%g1"));
    }

    #[test]
    fn text_prefix_cuts_at_the_first_bad_byte() {
        assert_eq!(text_prefix(b"ab\xffcd"), "ab");
        assert_eq!(text_prefix(b"abc"), "abc");
    }
}
