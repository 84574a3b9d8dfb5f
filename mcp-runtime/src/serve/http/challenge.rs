//! `WWW-Authenticate: Bearer` challenges (RFC 6750 §3, RFC 9728 §5.1): the 401 that
//! starts discovery and the 403 that asks for more scopes.

use http::HeaderValue;

use super::HttpConfig;

/// The RFC 6750 error code of a refused token.
pub(super) const INVALID_TOKEN: &str = "invalid_token";
/// The RFC 6750 error code of a token whose scopes are too narrow.
pub(super) const INSUFFICIENT_SCOPE: &str = "insufficient_scope";

/// A `Bearer` challenge: the error code (if any), the absolute URL of the protected
/// resource metadata, and the scopes this request needs (space-delimited).
///
/// Without [`HttpConfig::protected_resource`], the 401 stays a bare `Bearer` (plus the
/// error), as before: there is no document to point to.
pub(super) fn bearer(config: &HttpConfig, error: Option<&str>, scopes: Option<&[String]>) -> HeaderValue {
    let metadata = config.protected_resource.as_deref();
    let url = metadata.map(super::ProtectedResourceMetadata::document_url);
    let scope = match scopes {
        Some(scopes) => scopes.join(" "),
        None => metadata.map(|m| m.challenge_scopes().join(" ")).unwrap_or_default(),
    };
    let scope = Some(scope).filter(|s| !s.is_empty());
    let params: Vec<(&str, &str)> =
        [("error", error), ("resource_metadata", url.as_deref()), ("scope", scope.as_deref())]
            .into_iter()
            .filter_map(|(name, value)| value.map(|v| (name, v)))
            .collect();
    header_value(&params)
}

/// `Bearer` followed by `name="value"` auth-params, each value a quoted-string.
fn header_value(params: &[(&str, &str)]) -> HeaderValue {
    let mut value = String::from("Bearer");
    for (i, (name, param)) in params.iter().enumerate() {
        value.push_str(if i == 0 { " " } else { ", " });
        value.push_str(name);
        value.push('=');
        push_quoted(&mut value, param);
    }
    // Every byte is visible ASCII, space or tab by construction; the fallback is unreachable.
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

/// `text` as an RFC 9110 §5.6.4 quoted-string: `"` and `\` become quoted-pairs, and
/// anything that may not appear in a header value (control characters other than tab,
/// DEL, non-ASCII) becomes `?`.
fn push_quoted(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\t' | ' '..='~' => out.push(c),
            _ => out.push('?'),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::header_value;

    #[test]
    fn values_are_quoted_and_escaped() {
        let value = header_value(&[("error", "invalid_token"), ("scope", "a\"b\\c d\u{7}é")]);
        assert_eq!(value, r#"Bearer error="invalid_token", scope="a\"b\\c d??""#);
        assert_eq!(header_value(&[]), "Bearer");
    }
}
