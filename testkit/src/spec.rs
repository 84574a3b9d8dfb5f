//! The MCP specification's schemas and examples, as test data: where they live, and
//! JSON Schema validators for any of their `$defs`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

/// The environment variable that overrides where the spec folder is.
pub const SPEC_DIR_ENV: &str = "MCP_SPEC_DIR";

/// The folder holding one subfolder per spec version (`2026-07-28/schema.json`,
/// `2026-07-28/examples/...`).
///
/// `MCP_SPEC_DIR` when set, else the repository's own `spec/` folder (a copy of the MCP
/// specification's data; see `spec/README.md`). Panics with an explanation when the folder
/// does not exist, so a missing folder fails the tests instead of letting them pass with
/// nothing checked.
pub fn spec_dir() -> PathBuf {
    let (dir, origin) = match std::env::var_os(SPEC_DIR_ENV) {
        Some(dir) => (PathBuf::from(dir), format!("from ${SPEC_DIR_ENV}")),
        None => (
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec")),
            format!("the default; set ${SPEC_DIR_ENV} to override"),
        ),
    };
    assert!(
        dir.is_dir(),
        "MCP spec folder not found at {} ({origin}). These tests need the spec's schema and \
         examples, which the repository keeps in `spec/` (see spec/README.md); restore that folder \
         or point ${SPEC_DIR_ENV} at a copy of it.",
        dir.display(),
    );
    dir
}

/// The folder of one spec version, e.g. `spec_dir()/2026-07-28`. Panics if it is missing.
pub fn version_dir(schema_version: &str) -> PathBuf {
    let dir = spec_dir().join(schema_version);
    assert!(dir.is_dir(), "MCP spec version folder not found: {}", dir.display());
    dir
}

/// The canonical examples of one spec version: `<version>/examples/<TypeName>/*.json`.
pub fn examples_dir(schema_version: &str) -> PathBuf {
    let dir = version_dir(schema_version).join("examples");
    assert!(dir.is_dir(), "MCP spec examples folder not found: {}", dir.display());
    dir
}

/// Read and parse a JSON file, panicking with the path on failure.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid JSON: {e}", path.display()))
}

/// The parsed `schema.json` of a spec version, loaded once per process.
pub fn schema(schema_version: &str) -> Arc<Value> {
    static SCHEMAS: OnceLock<Mutex<HashMap<String, Arc<Value>>>> = OnceLock::new();
    let mut schemas = SCHEMAS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    schemas
        .entry(schema_version.to_owned())
        .or_insert_with(|| Arc::new(read_json(&version_dir(schema_version).join("schema.json"))))
        .clone()
}

/// Where a schema keeps its definitions: `$defs` (2020-12, from 2025-11-25 on) or
/// `definitions` (draft-07, the older revisions).
fn definitions_key(document: &Value) -> &'static str {
    if document.get("$defs").is_some() { "$defs" } else { "definitions" }
}

/// A validator for the definition `def` (a key of `$defs`, or `definitions` in the draft-07
/// schemas of 2024-11-05 to 2025-06-18) of a spec version's schema.
///
/// It is the whole schema document with its root `$ref` pointed at `#/$defs/<def>`, so
/// every other definition stays resolvable. Formats (`uri`, ...) are asserted, not just
/// annotated. Validators are built once per (version, definition) and cached.
pub fn validator(schema_version: &str, def: &str) -> jsonschema::Validator {
    type Cache = Mutex<HashMap<(String, String), jsonschema::Validator>>;
    static VALIDATORS: OnceLock<Cache> = OnceLock::new();
    let key = (schema_version.to_owned(), def.to_owned());
    if let Some(v) = VALIDATORS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return v.clone();
    }
    let document = schema(schema_version);
    let pointer = format!("/{}/{def}", definitions_key(&document));
    assert!(document.pointer(&pointer).is_some(), "schema {schema_version} has no definition {def:?}");
    let mut root = (*document).clone();
    let Value::Object(map) = &mut root else {
        panic!("schema {schema_version} is not a JSON object");
    };
    map.insert("$ref".to_owned(), Value::String(format!("#{pointer}")));
    let built = jsonschema::options()
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|e| panic!("cannot build a validator for {schema_version} #/$defs/{def}: {e}"));
    VALIDATORS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(built)
        .clone()
}

/// Every way `instance` violates `def`, one line each (`<path>: <message>`); empty when valid.
pub fn schema_errors(schema_version: &str, def: &str, instance: &Value) -> Vec<String> {
    validator(schema_version, def).iter_errors(instance).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

/// The modern revision.
pub const MODERN: &str = "2026-07-28";
/// The legacy revision.
pub const LEGACY: &str = "2025-11-25";

/// Whether the schema of `version` defines `def`.
pub fn has_definition(version: &str, def: &str) -> bool {
    let document = schema(version);
    document.pointer(&format!("/{}/{def}", definitions_key(&document))).is_some()
}

/// Check `instance` against `def` of `version`; the error lists every violation.
pub fn check(version: &str, def: &str, instance: &Value) -> Result<(), String> {
    let errors = schema_errors(version, def, instance);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("not a valid {version} {def}: {}\n  instance: {instance}", errors.join("; ")))
    }
}

/// Panic unless `instance` is a valid `def` of `version`.
#[track_caller]
pub fn assert_valid(version: &str, def: &str, instance: &Value) {
    if let Err(e) = check(version, def, instance) {
        panic!("{e}");
    }
}
