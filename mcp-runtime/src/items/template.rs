//! RFC 6570 URI templates, as far as resource templates need them: literal text,
//! simple `{var}` expressions (one path segment, percent-decoded) and reserved
//! `{+var}` expressions (may contain `/`).

use std::collections::BTreeMap;

/// Template variables extracted from a URI, by name.
pub type Variables = BTreeMap<String, String>;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Simple(String),
    Reserved(String),
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

/// Why a template could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError(pub String);

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl UriTemplate {
    /// Parse `template`.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(TemplateError(format!("unclosed `{{` in `{template}`")));
            };
            let expr = &rest[open + 1..open + close];
            let part = match expr.strip_prefix('+') {
                Some(name) if valid_name(name) => Part::Reserved(name.to_owned()),
                None if valid_name(expr) => Part::Simple(expr.to_owned()),
                _ => {
                    return Err(TemplateError(format!(
                        "unsupported expression `{{{expr}}}`: use `{{name}}` or `{{+name}}` with letters, digits and `_`"
                    )));
                }
            };
            if matches!(parts.last(), Some(Part::Simple(_) | Part::Reserved(_))) {
                return Err(TemplateError(format!("two variables in a row in `{template}` cannot be told apart")));
            }
            parts.push(part);
            rest = &rest[open + close + 1..];
        }
        if rest.contains('}') {
            return Err(TemplateError(format!("stray `}}` in `{template}`")));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate { parts })
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Simple(n) | Part::Reserved(n) => Some(n.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables of `uri`, if it matches.
    pub fn matches(&self, uri: &str) -> Option<Variables> {
        let mut vars = Variables::new();
        let mut rest = uri;
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(lit) => rest = rest.strip_prefix(lit.as_str())?,
                Part::Simple(name) | Part::Reserved(name) => {
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let raw = &rest[..end];
                    if raw.is_empty() {
                        return None;
                    }
                    let value = match part {
                        Part::Simple(_) => {
                            if raw.contains('/') {
                                return None;
                            }
                            percent_decode(raw)?
                        }
                        _ => percent_decode(raw)?,
                    };
                    vars.insert(name.clone(), value);
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            // `%` HEXDIG HEXDIG only: `from_str_radix` alone would also take a sign (`%+9`).
            let hex = s.get(i + 1..i + 3).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Option<Variables> {
        Some(pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
    }

    #[test]
    fn matches_simple_and_reserved_variables() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.variables().collect::<Vec<_>>(), ["id"]);
        assert_eq!(t.matches("test://template/123/data"), vars(&[("id", "123")]));
        assert_eq!(t.matches("test://template/a%20b/data"), vars(&[("id", "a b")]));
        assert_eq!(t.matches("test://template/1/2/data"), None, "a simple variable is one segment");
        assert_eq!(t.matches("test://template//data"), None);
        assert_eq!(t.matches("test://template/123/data/more"), None);
        let files = UriTemplate::parse("file:///{+path}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(files.matches("file:///src/main.rs"), vars(&[("path", "src/main.rs")]));
        let two = UriTemplate::parse("db://{cluster}/tables/{table}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(two.matches("db://eu/tables/users"), vars(&[("cluster", "eu"), ("table", "users")]));
        assert_eq!(two.matches("db://eu/tables/%zz"), None, "bad percent-encoding");
        assert_eq!(two.matches("db://eu/tables/%+9"), None, "a sign is not a hex digit");
        assert_eq!(two.matches("db://eu/tables/%2f%2F"), vars(&[("cluster", "eu"), ("table", "//")]));
    }

    #[test]
    fn rejects_what_it_cannot_match_unambiguously() {
        for bad in ["x://{a}{b}", "x://{a", "x://a}", "x://{?q}", "x://{}", "x://{a-b}"] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }
}
