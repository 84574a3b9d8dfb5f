//! The key lists in each macro's documentation (in `lib.rs`) against the keys the
//! attribute parser accepts, so that a key cannot be added without documenting it.

use crate::attrs::{ANNOTATION_KEYS, PARAM_KEYS, keys};
use crate::form::CONTAINER_KEYS;
use crate::model::Kind;

const LIB: &str = include_str!("lib.rs");

/// The doc comment above `pub fn {name}(`.
fn docs_of(name: &str) -> Vec<&'static str> {
    let lines: Vec<&str> = LIB.lines().collect();
    let at = lines.iter().position(|l| l.starts_with(&format!("pub fn {name}("))).expect("the macro's function");
    let mut docs: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .skip_while(|l| l.starts_with("#["))
        .take_while(|l| l.starts_with("///"))
        .copied()
        .collect();
    docs.reverse();
    docs.into_iter().map(|l| l.trim_start_matches("///").trim_start()).collect()
}

/// The keys listed under `heading` (`- `key` ...` bullets, up to the next heading).
fn listed(docs: &[&str], heading: &str) -> Vec<String> {
    let Some(start) = docs.iter().position(|l| *l == heading) else { return Vec::new() };
    docs[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with('#'))
        .filter_map(|l| l.strip_prefix("- `"))
        .map(|rest| rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '"').collect::<String>())
        .map(|key| if key == "\"uri\"" { "uri".to_owned() } else { key })
        .collect()
}

fn sorted<S: AsRef<str>>(keys: &[S]) -> Vec<String> {
    let mut keys: Vec<String> = keys.iter().map(|k| k.as_ref().to_owned()).collect();
    keys.sort();
    keys
}

#[test]
fn every_attribute_key_is_documented() {
    for (kind, name) in
        [(Kind::Tool, "tool"), (Kind::Prompt, "prompt"), (Kind::Resource, "resource"), (Kind::Resolver, "resolver")]
    {
        let docs = docs_of(name);
        let mut documented = listed(&docs, "# Keys");
        documented.retain(|k| k != "uri");
        assert_eq!(sorted(&documented), sorted(keys(kind)), "the `# Keys` of `{name}`");
        let params = listed(&docs, "# Parameter keys");
        assert!(!params.is_empty(), "`{name}` documents its parameter keys");
        for key in &params {
            assert!(PARAM_KEYS.contains(&key.as_str()), "`{name}` documents `{key}`, which the parser does not accept");
        }
        assert!(docs.iter().any(|l| l.starts_with("```")), "`{name}` has an example");
        assert!(!docs.iter().any(|l| l.starts_with("```") && l.contains("ignore")), "`{name}`'s example compiles");
    }
    // The tool's page lists every parameter key and every annotation.
    let tool = docs_of("tool");
    assert_eq!(sorted(&listed(&tool, "# Parameter keys")), sorted(PARAM_KEYS));
    let annotations = tool.iter().find(|l| l.contains("`annotations(...)`")).expect("annotations documented");
    let rest = tool.iter().skip_while(|l| !l.contains("`annotations(...)`")).take(4).copied().collect::<String>();
    for key in ANNOTATION_KEYS {
        assert!(rest.contains(&format!("`{key}")), "annotation `{key}` is documented: {annotations}");
    }
    let form = docs_of("elicit_form");
    assert_eq!(sorted(&listed(&form, "# Keys")), sorted(CONTAINER_KEYS));
}
