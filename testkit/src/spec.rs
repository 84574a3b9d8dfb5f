//! The MCP specification's schemas and examples, as test data.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

/// The modern revision.
pub const MODERN: &str = "2026-07-28";
/// The legacy revision.
pub const LEGACY: &str = "2025-11-25";

/// The folder holding `2026-07-28/` and `2025-11-25/`: `$MCP_SPEC_DIR`, or `shared/spec`
/// beside the repository. Panics with a clear message when it is missing, so a test
/// never passes for want of data.
pub fn spec_dir() -> PathBuf {
    let dir = match std::env::var_os("MCP_SPEC_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/spec")),
    };
    assert!(
        dir.join(MODERN).join("schema.json").is_file(),
        "the MCP spec data is missing at {} (set MCP_SPEC_DIR to the folder holding 2026-07-28/schema.json)",
        dir.display()
    );
    dir
}

fn schema_document(version: &str) -> Arc<Value> {
    static DOCS: OnceLock<Mutex<HashMap<String, Arc<Value>>>> = OnceLock::new();
    let mut docs = DOCS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    Arc::clone(docs.entry(version.to_owned()).or_insert_with(|| {
        let path = spec_dir().join(version).join("schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        Arc::new(serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display())))
    }))
}

/// Whether the schema of `version` defines `def`.
pub fn has_definition(version: &str, def: &str) -> bool {
    schema_document(version).get("$defs").and_then(|d| d.get(def)).is_some()
}

/// A validator for the definition `def` (e.g. `CallToolResultResponse`) of revision `version`.
pub fn validator(version: &str, def: &str) -> Arc<jsonschema::Validator> {
    type Cache = Mutex<HashMap<(String, String), Arc<jsonschema::Validator>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = (version.to_owned(), def.to_owned());
    if let Some(v) = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Arc::clone(v);
    }
    assert!(has_definition(version, def), "schema {version} has no definition {def}");
    let mut schema = (*schema_document(version)).clone();
    if let Value::Object(map) = &mut schema {
        map.insert("$ref".into(), Value::String(format!("#/$defs/{def}")));
    }
    let validator =
        Arc::new(jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("compiling {version} {def}: {e}")));
    CACHE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).insert(key, Arc::clone(&validator));
    validator
}

/// Check `instance` against `def` of `version`; the error lists every violation.
pub fn check(version: &str, def: &str, instance: &Value) -> Result<(), String> {
    let validator = validator(version, def);
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
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
