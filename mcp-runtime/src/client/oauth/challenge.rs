//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9449 §7.1): the
//! scheme and its parameters, of every challenge in every header line.
//!
//! No maintained crate parses this grammar (the `www-authenticate` crate is tied to
//! hyper 0.10), so this is a small parser of it: schemes and parameter names are
//! case-insensitive, values are tokens or quoted strings (which may hold commas and `\"`),
//! one line may carry several challenges, and a challenge may carry a `token68` instead of
//! parameters. Anything it cannot read ends that line's parsing, keeping what came before.

/// One challenge: `Bearer resource_metadata="…", scope="…"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    scheme: String,
    params: Vec<(String, String)>,
    token68: Option<String>,
}

impl Challenge {
    /// The authentication scheme as sent (`Bearer`, `DPoP`, ...).
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// Whether the scheme is `scheme`, compared without case.
    pub fn is(&self, scheme: &str) -> bool {
        self.scheme.eq_ignore_ascii_case(scheme)
    }

    /// The value of parameter `name` (compared without case), unquoted.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The token68 form's value (`Basic dXNlcg==`), if the challenge has one.
    pub fn token68(&self) -> Option<&str> {
        self.token68.as_deref()
    }

    /// `resource_metadata`: the Protected Resource Metadata URL (RFC 9728 §5.1).
    pub fn resource_metadata(&self) -> Option<&str> {
        self.param("resource_metadata")
    }

    /// `scope`, split on spaces.
    pub fn scopes(&self) -> Option<Vec<String>> {
        self.param("scope").map(|s| s.split_ascii_whitespace().map(str::to_owned).collect())
    }

    /// `error` (`invalid_token`, `insufficient_scope`, `use_dpop_nonce`, ...).
    pub fn error(&self) -> Option<&str> {
        self.param("error")
    }
}

/// Every challenge in these header values, in order.
pub fn parse_challenges<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<Challenge> {
    let mut out = Vec::new();
    for value in values {
        Cursor { s: value.as_bytes(), i: 0 }.challenges(&mut out);
    }
    out
}

/// The challenge to act on: the first `Bearer` or `DPoP` one, else the first.
pub(crate) fn pick(challenges: &[Challenge]) -> Option<&Challenge> {
    challenges.iter().find(|c| c.is("Bearer") || c.is("DPoP")).or_else(|| challenges.first())
}

/// The error the request hook is told about: `use_dpop_nonce` if any challenge carries it
/// (`Bearer realm=.., DPoP error="use_dpop_nonce"` asks for a nonce, not a new
/// authorization), else the error of the challenge [`pick`] chooses.
pub(crate) fn hook_error(challenges: &[Challenge]) -> Option<&str> {
    const NONCE: &str = "use_dpop_nonce";
    if challenges.iter().any(|c| c.error() == Some(NONCE)) {
        return Some(NONCE);
    }
    pick(challenges).and_then(Challenge::error)
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    fn skip_ws_and_commas(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.i += 1;
        }
    }

    fn token(&mut self) -> Option<String> {
        let start = self.i;
        while self.peek().is_some_and(is_tchar) {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// A quoted string starting at `"`; `None` if it is not closed.
    fn quoted(&mut self) -> Option<String> {
        let mut value = Vec::new();
        let mut i = self.i + 1;
        loop {
            match self.s.get(i).copied()? {
                b'\\' => {
                    value.push(self.s.get(i + 1).copied()?);
                    i += 2;
                }
                b'"' => {
                    self.i = i + 1;
                    return Some(String::from_utf8_lossy(&value).into_owned());
                }
                b => {
                    value.push(b);
                    i += 1;
                }
            }
        }
    }

    /// After a scheme and a space: a token68 that ends the challenge (`abc==` then the end
    /// or a comma), or `None` (rewinding) when what follows is a parameter list.
    fn token68(&mut self) -> Option<String> {
        let start = self.i;
        while self.peek().is_some_and(is_token68_char) {
            self.i += 1;
        }
        if self.i == start {
            return None;
        }
        while self.peek() == Some(b'=') {
            self.i += 1;
        }
        let end = self.i;
        self.skip_ws();
        if matches!(self.peek(), None | Some(b',')) {
            return Some(String::from_utf8_lossy(&self.s[start..end]).into_owned());
        }
        self.i = start;
        None
    }

    fn challenges(&mut self, out: &mut Vec<Challenge>) {
        loop {
            self.skip_ws_and_commas();
            if self.peek().is_none() {
                return;
            }
            let Some(scheme) = self.token() else { return };
            let mut challenge = Challenge { scheme, params: Vec::new(), token68: None };
            let spaced = matches!(self.peek(), Some(b' ' | b'\t'));
            self.skip_ws();
            if spaced && let Some(t) = self.token68() {
                challenge.token68 = Some(t);
                out.push(challenge);
                continue;
            }
            let complete = self.params(&mut challenge);
            out.push(challenge);
            if !complete {
                return;
            }
        }
    }

    /// Reads `name=value` pairs until the next challenge's scheme (left unread) or the end;
    /// `false` if the input is malformed.
    fn params(&mut self, challenge: &mut Challenge) -> bool {
        loop {
            self.skip_ws_and_commas();
            let save = self.i;
            let Some(name) = self.token() else { return self.peek().is_none() };
            self.skip_ws();
            if self.peek() != Some(b'=') {
                // A bare token: the scheme of the next challenge.
                self.i = save;
                return true;
            }
            self.i += 1;
            self.skip_ws();
            let value = if self.peek() == Some(b'"') { self.quoted() } else { self.token() };
            let Some(value) = value else { return false };
            challenge.params.push((name, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(header: &str) -> Challenge {
        let mut all = parse_challenges([header]);
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0)
    }

    #[test]
    fn a_nonce_request_in_any_challenge_reaches_the_hook() {
        let all = parse_challenges([r#"Bearer realm="mcp", DPoP error="use_dpop_nonce", algs="ES256""#]);
        assert_eq!(all.len(), 2, "{all:?}");
        assert_eq!(hook_error(&all), Some("use_dpop_nonce"));
        let all = parse_challenges([r#"Bearer error="invalid_token""#]);
        assert_eq!(hook_error(&all), Some("invalid_token"));
    }

    #[test]
    fn bearer_with_resource_metadata_and_scope() {
        let c = one(
            r#"Bearer resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp", scope="mcp:basic mcp:read""#,
        );
        assert!(c.is("bearer"));
        assert_eq!(c.resource_metadata(), Some("http://localhost:1/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(c.scopes(), Some(vec!["mcp:basic".to_owned(), "mcp:read".to_owned()]));
        assert_eq!(c.error(), None);
    }

    #[test]
    fn quoted_strings_keep_commas_and_escaped_quotes() {
        let c = one(
            r#"Bearer error="invalid_token", error_description="Invalid Authorization header format, expected 'Bearer TOKEN' or \"x\"", scope=a"#,
        );
        assert_eq!(c.error(), Some("invalid_token"));
        assert_eq!(
            c.param("error_description"),
            Some(r#"Invalid Authorization header format, expected 'Bearer TOKEN' or "x""#)
        );
        assert_eq!(c.param("SCOPE"), Some("a"));
    }

    #[test]
    fn several_challenges_in_one_line_and_across_lines() {
        let all = parse_challenges([
            r#"Basic realm="x", DPoP error="use_dpop_nonce", algs="ES256""#,
            "Bearer scope=\"files:read\"",
            "Negotiate abc123==",
        ]);
        let schemes: Vec<_> = all.iter().map(Challenge::scheme).collect();
        assert_eq!(schemes, ["Basic", "DPoP", "Bearer", "Negotiate"]);
        assert_eq!(all[0].param("realm"), Some("x"));
        assert_eq!(all[1].error(), Some("use_dpop_nonce"));
        assert_eq!(all[1].param("algs"), Some("ES256"));
        assert_eq!(all[3].token68(), Some("abc123=="));
        assert_eq!(pick(&all).map(Challenge::scheme), Some("DPoP"));
    }

    #[test]
    fn bare_schemes_and_odd_spacing() {
        let all = parse_challenges(["Bearer, DPoP  ,Basic realm = \"r\" ,scope=x"]);
        let schemes: Vec<_> = all.iter().map(Challenge::scheme).collect();
        assert_eq!(schemes, ["Bearer", "DPoP", "Basic"]);
        assert_eq!(all[2].param("realm"), Some("r"));
        assert_eq!(all[2].param("scope"), Some("x"));
    }

    #[test]
    fn malformed_input_keeps_what_came_before() {
        let all = parse_challenges([r#"Bearer scope="a", error="unterminated"#]);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].param("scope"), Some("a"));
        assert_eq!(all[0].error(), None);
        assert!(parse_challenges([""]).is_empty());
        assert!(parse_challenges(["=,="]).is_empty());
    }
}
