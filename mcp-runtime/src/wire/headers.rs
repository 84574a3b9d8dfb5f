//! The request-metadata headers of 2026-07-28 (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*`): their names, the `x-mcp-header` arguments of a tool, and
//! the encoding of values. The server's check of headers against the body is in
//! `serve::http`.

use std::borrow::Cow;
use std::collections::HashMap;

use base64::Engine;
use serde_json::Value;

use crate::protocol::Tool;

/// `MCP-Protocol-Version`.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method`.
pub const METHOD: &str = "mcp-method";
/// `Mcp-Name`.
pub const NAME: &str = "mcp-name";
/// Prefix of `Mcp-Param-{Name}`.
pub const PARAM_PREFIX: &str = "mcp-param-";
/// `Mcp-Session-Id` (2025-11-25 sessions).
pub const SESSION_ID: &str = "mcp-session-id";

/// The JSON type of a header-mirrored argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamKind {
    /// A string, sent as is.
    String,
    /// An integer, sent in decimal.
    Integer,
    /// A boolean, sent as `true` or `false`.
    Boolean,
}

/// A tool argument mirrored into an `Mcp-Param-{header}` header.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeaderParam {
    /// The header suffix as the schema spells it (`Region` for `Mcp-Param-Region`).
    pub header: String,
    /// The argument's name.
    pub property: String,
    /// Its type.
    pub kind: ParamKind,
}

/// The `x-mcp-header` annotations of a tool's top-level properties.
pub fn header_params(tool: &Tool) -> Vec<HeaderParam> {
    let Some(Value::Object(properties)) = tool.input_schema.get("properties") else {
        return Vec::new();
    };
    properties
        .iter()
        .filter_map(|(property, schema)| {
            let header = schema.get("x-mcp-header")?.as_str()?;
            let kind = match schema.get("type")?.as_str()? {
                "string" => ParamKind::String,
                "integer" => ParamKind::Integer,
                "boolean" => ParamKind::Boolean,
                _ => return None,
            };
            Some(HeaderParam { header: header.to_owned(), property: property.clone(), kind })
        })
        .collect()
}

/// The `x-mcp-header` annotations of a tool, checked as a client must before using it:
/// each a non-empty RFC 9110 token, unique case-insensitively, on a top-level `string`,
/// `integer` or `boolean` property (reached only through `properties`). `Err` says why the
/// tool must be dropped.
pub fn checked_header_params(tool: &Tool) -> Result<Vec<HeaderParam>, String> {
    fn walk(value: &Value, path: &mut Vec<String>, found: &mut Vec<Vec<String>>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    if key == "x-mcp-header" {
                        found.push(path.clone());
                    }
                    path.push(key.clone());
                    walk(child, path, found);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    path.push(i.to_string());
                    walk(child, path, found);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    let root = Value::Object(tool.input_schema.clone());
    walk(&root, &mut Vec::new(), &mut found);
    let mut params: Vec<HeaderParam> = Vec::new();
    for path in found {
        let [first, property] = path.as_slice() else {
            return Err(format!("x-mcp-header at /{} is not on a top-level property", path.join("/")));
        };
        if first != "properties" {
            return Err(format!("x-mcp-header at /{} is not on a top-level property", path.join("/")));
        }
        let schema = &root["properties"][property];
        let header =
            schema["x-mcp-header"].as_str().ok_or_else(|| format!("x-mcp-header of `{property}` is not a string"))?;
        let is_token =
            !header.is_empty() && header.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !is_token {
            return Err(format!("x-mcp-header {header:?} of `{property}` is not a valid header name"));
        }
        let kind = match schema.get("type").and_then(Value::as_str) {
            Some("string") => ParamKind::String,
            Some("integer") => ParamKind::Integer,
            Some("boolean") => ParamKind::Boolean,
            _ => return Err(format!("x-mcp-header on `{property}`, which is not a string, integer or boolean")),
        };
        if params.iter().any(|p| p.header.eq_ignore_ascii_case(header)) {
            return Err(format!("x-mcp-header {header:?} is used twice"));
        }
        params.push(HeaderParam { header: header.to_owned(), property: property.clone(), kind });
    }
    Ok(params)
}

/// Header params of every tool, by tool name.
pub fn index_tools(tools: &[Tool]) -> HashMap<String, Vec<HeaderParam>> {
    tools.iter().map(|t| (t.name.clone(), header_params(t))).filter(|(_, params)| !params.is_empty()).collect()
}

const B64_PREFIX: &str = "=?base64?";
const B64_SUFFIX: &str = "?=";

/// Decode a header value: trimmed, and unwrapped from `=?base64?...?=` when it has both
/// markers. A value sent as is is borrowed from `raw` (the server checks three headers on
/// every request, and most values are plain).
pub fn decode_value(raw: &[u8]) -> Result<Cow<'_, str>, String> {
    // Blanks are ASCII, so the trimmed value is text exactly when the whole one is.
    let text = std::str::from_utf8(trim_blanks(raw)).map_err(|_| "is not valid text".to_owned())?;
    if let Some(inner) = text.strip_prefix(B64_PREFIX).and_then(|t| t.strip_suffix(B64_SUFFIX)) {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(inner)
            .map_err(|_| "has invalid base64 inside =?base64?...?=".to_owned())?;
        return String::from_utf8(bytes).map(Cow::Owned).map_err(|_| "decodes to bytes that are not UTF-8".to_owned());
    }
    Ok(Cow::Borrowed(text))
}

/// `raw` without the spaces and tabs around it, trimmed as bytes (a `char` pattern
/// decodes each character it looks at).
fn trim_blanks(raw: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = raw.iter().position(|b| !blank(b)).unwrap_or(raw.len());
    let end = raw.iter().rposition(|b| !blank(b)).map_or(start, |at| at + 1);
    &raw[start..end]
}

/// Whether header value `raw` is `expected` as sent, without base64: then it decodes to
/// `expected` (and is text), with no copy and no check of its encoding. `false` says
/// nothing: [`decode_value`] tells.
#[cfg(any(all(feature = "server", feature = "http"), test))]
pub(crate) fn is_plainly(raw: &[u8], expected: &str) -> bool {
    let text = trim_blanks(raw);
    text == expected.as_bytes() && !(text.starts_with(B64_PREFIX.as_bytes()) && text.ends_with(B64_SUFFIX.as_bytes()))
}

/// Encode a value for a header: as is when it is plain visible ASCII, else base64-wrapped.
pub fn encode_value(value: &str) -> String {
    let wrap = value.is_empty()
        || value.bytes().any(|b| !(0x20..0x7f).contains(&b))
        || value.starts_with([' ', '\t'])
        || value.ends_with([' ', '\t'])
        || (value.starts_with(B64_PREFIX) && value.ends_with(B64_SUFFIX));
    if wrap {
        format!("{B64_PREFIX}{}{B64_SUFFIX}", base64::engine::general_purpose::STANDARD.encode(value))
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_plain_and_base64_values() {
        assert_eq!(decode_value(b"  us-west1 ").as_deref(), Ok("us-west1"));
        assert_eq!(decode_value(b"=?base64?SGVsbG8=?=").as_deref(), Ok("Hello"));
        assert_eq!(decode_value(b"SGVsbG8=").as_deref(), Ok("SGVsbG8="), "no markers: literal");
        assert_eq!(decode_value(b"=?base64?SGVsbG8=").as_deref(), Ok("=?base64?SGVsbG8="), "no suffix: literal");
        assert!(decode_value(b"=?base64?SGVsbG8?=").is_err(), "bad padding");
        assert!(decode_value(b"=?base64?SGVs!!!bG8=?=").is_err(), "bad characters");
        assert!(decode_value(&[0xff, 0xfe]).is_err());
        assert!(decode_value(b" \xff ").is_err(), "not text inside the blanks");
        assert_eq!(decode_value(b"\t\t").as_deref(), Ok(""), "blanks only");
        assert_eq!(decode_value(b"").as_deref(), Ok(""));
        assert_eq!(decode_value(b"\t=?base64?SGVsbG8=?= ").as_deref(), Ok("Hello"), "trimmed, then unwrapped");
        assert_eq!(decode_value(b"a b\t").as_deref(), Ok("a b"), "blanks inside are kept");
    }

    proptest::proptest! {
        /// A value that passes as plainly `expected` decodes to it, whatever its bytes; and
        /// a text sent as is (blanks around it aside) passes unless it reads as wrapped.
        #[test]
        fn a_plain_match_is_what_decoding_gives(
            text in "[ \t=?base64SGVsbG8:a\u{e9}]{0,12}",
            noise in proptest::collection::vec(proptest::sample::select(b" \t=?base64?SGVsbG8:a\xe9\xc3\xa9".to_vec()), 0..16),
            noisy: bool,
        ) {
            let raw = if noisy { noise } else { text.as_bytes().to_vec() };
            let expected = text.trim_matches([' ', '\t']);
            if is_plainly(&raw, expected) {
                let decoded = decode_value(&raw);
                proptest::prop_assert_eq!(decoded.as_deref(), Ok(expected));
            }
            if !noisy {
                let wrapped = expected.starts_with("=?base64?") && expected.ends_with("?=");
                proptest::prop_assert_eq!(is_plainly(&raw, expected), !wrapped);
            }
        }
    }

    /// A value sent as is matches its text; one that is not (wrapped, other bytes, not
    /// text) is not, and is left to `decode_value`.
    #[test]
    fn plain_values_match_as_sent() {
        let cases: [(&[u8], &str, bool); 9] = [
            (b"tools/call", "tools/call", true),
            (b" \ttools/call\t ", "tools/call", true),
            (b"tools/call", "tools/list", false),
            (b"Tools/call", "tools/call", false),
            (b"=?base64?SGVsbG8=?=", "Hello", false),
            (b"=?base64?x?=", "=?base64?x?=", false),
            (b"\xe9", "\u{e9}", false),
            (b"", "", true),
            (b" ", "", true),
        ];
        for (raw, expected, plain) in cases {
            assert_eq!(is_plainly(raw, expected), plain, "{raw:?}");
            if plain {
                assert_eq!(decode_value(raw).as_deref(), Ok(expected), "{raw:?}");
            }
        }
    }

    #[test]
    fn encodes_only_what_needs_it() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        for tricky in ["héllo", " padded", "line\nbreak", "=?base64?x?=", ""] {
            let encoded = encode_value(tricky);
            assert!(encoded.starts_with("=?base64?"), "{tricky:?} -> {encoded}");
            assert_eq!(decode_value(encoded.as_bytes()).as_deref(), Ok(tricky));
        }
    }
}
