//! `mcp::items::template::UriTemplate`: the resource-template parser and matcher.
//!
//! The input's text is split on `\n`: line 1 is a template, line 2 a URI to match against
//! it, further lines are variable values. Parsing and matching never panic; a match binds
//! exactly the template's variables; a template without `%` of its own matches no URI with
//! a malformed percent sequence; and a URI built from the template and the values (every
//! byte percent-encoded) matches back to exactly those values, whenever that URI is
//! unambiguous (no literal after a variable starts with `%` or a hex digit).

#![no_main]

use std::collections::{BTreeMap, BTreeSet};

use libfuzzer_sys::fuzz_target;
use mcp::items::template::UriTemplate;
use mcp_fuzz::{Piece, percent_encode_all, split_template, text_prefix, well_formed_percents};

fn check_match(template: &UriTemplate, source: &str, uri: &str) {
    let Some(vars) = template.matches(uri) else { return };
    let names: BTreeSet<&str> = template.variables().collect();
    let bound: BTreeSet<&str> = vars.keys().map(String::as_str).collect();
    assert_eq!(bound, names, "{source:?} matched {uri:?} binding {vars:?}");
    if !source.contains('%') {
        assert!(well_formed_percents(uri), "{source:?} matched {uri:?}, a malformed percent-encoding, as {vars:?}");
    }
}

fn check_round_trip(template: &UriTemplate, source: &str, values: &[&str], lower: bool) {
    let pieces = split_template(source).unwrap_or_else(|| panic!("accepted template {source:?} does not split"));
    let names: Vec<&str> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Variable { name, .. } => Some(*name),
            Piece::Literal(_) => None,
        })
        .collect();
    assert_eq!(names, template.variables().collect::<Vec<_>>(), "variables of {source:?}");
    let ambiguous = pieces.windows(2).any(|w| match w {
        [Piece::Variable { .. }, Piece::Literal(next)] => next.starts_with(|c: char| c == '%' || c.is_ascii_hexdigit()),
        _ => false,
    });
    if ambiguous {
        return;
    }
    // One value per distinct name (a name used twice takes the same value), never empty.
    let mut expected = BTreeMap::new();
    for name in &names {
        if !expected.contains_key(*name) {
            let i = expected.len();
            let value = values.get(i).copied().filter(|v| !v.is_empty()).map_or_else(|| format!("v{i}"), str::to_owned);
            expected.insert((*name).to_owned(), value);
        }
    }
    let mut uri = String::new();
    for piece in &pieces {
        match piece {
            Piece::Literal(text) => uri.push_str(text),
            Piece::Variable { name, .. } => uri.push_str(&percent_encode_all(&expected[*name], lower)),
        }
    }
    assert_eq!(template.matches(&uri), Some(expected), "{source:?} built {uri:?}");
}

fuzz_target!(|data: &[u8]| {
    let text = text_prefix(data);
    let mut lines = text.split('\n');
    let source = lines.next().unwrap_or_default();
    let uri = lines.next().unwrap_or_default();
    let values: Vec<&str> = lines.collect();
    let Ok(template) = UriTemplate::parse(source) else { return };
    check_match(&template, source, uri);
    check_round_trip(&template, source, &values, data.len() % 2 == 1);
});
