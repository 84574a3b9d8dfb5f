//! Inlining a schema's `$defs`: each `$ref` to a definition is replaced by the definition
//! itself, for clients that cannot follow references (gemini-cli, copilot-cli). A
//! recursive type cannot be written out, so its `$ref` stays, and `$defs` keeps exactly
//! the definitions those references still need.

use std::collections::{HashMap, HashSet};

use schemars::Schema;
use schemars::transform::{Transform, transform_subschemas};
use serde_json::Value;

use crate::protocol::{JsonObject, Tool};

const DEFS_PREFIX: &str = "#/$defs/";

/// Keywords that only describe a schema: on a `$ref` they may override the definition's.
const ANNOTATIONS: &[&str] =
    &["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"];

/// Replace every `$ref` to `#/$defs/...` in `schema` with the definition it names,
/// except for recursive definitions, which keep their `$ref`; `$defs` is then left with
/// only the definitions still referenced (none, unless a type is recursive).
///
/// Keywords next to a `$ref` (a parameter's `description`, say) are kept: merged into
/// the inlined definition, or, where they would clash with one of its keywords, next to
/// an `allOf` holding it.
///
/// Tools get this from [`ServerBuilder::inline_schema_refs`](crate::server::ServerBuilder::inline_schema_refs)
/// or `#[mcp::tool(inline_refs)]`; call it directly for a schema built by hand.
///
/// ```
/// use serde_json::json;
///
/// let mut schema = json!({
///     "type": "object",
///     "properties": {"to": {"$ref": "#/$defs/Address", "description": "Where to."}},
///     "$defs": {"Address": {"type": "object", "properties": {"city": {"type": "string"}}}},
/// });
/// let object = schema.as_object_mut().unwrap();
/// mcp::items::inline_refs(object);
/// assert_eq!(
///     schema,
///     json!({
///         "type": "object",
///         "properties": {"to": {
///             "type": "object",
///             "properties": {"city": {"type": "string"}},
///             "description": "Where to.",
///         }},
///     })
/// );
/// ```
pub fn inline_refs(schema: &mut JsonObject) {
    let defs = match schema.shift_remove("$defs") {
        Some(Value::Object(defs)) => defs,
        Some(other) => {
            // Not a map of definitions: nothing this function understands.
            schema.insert("$defs".into(), other);
            return;
        }
        None => return,
    };
    let recursive = recursive_definitions(&defs);
    let mut inline = Inline { defs: &defs, recursive: &recursive };

    let mut root = Schema::from(std::mem::take(schema));
    inline.transform(&mut root);
    let mut queue = references(root.as_value());
    let mut kept: HashMap<String, Value> = HashMap::new();
    while let Some(name) = queue.pop() {
        if kept.contains_key(&name) {
            continue;
        }
        let Some(Ok(mut body)) = defs.get(&name).map(|body| Schema::try_from(body.clone())) else { continue };
        inline.transform(&mut body);
        queue.extend(references(body.as_value()));
        kept.insert(name, body.to_value());
    }
    if let Value::Object(map) = root.to_value() {
        *schema = map;
    }
    if !kept.is_empty() {
        // In the order the definitions had.
        let still: JsonObject = defs.keys().filter_map(|name| Some((name.clone(), kept.remove(name)?))).collect();
        schema.insert("$defs".into(), Value::Object(still));
    }
}

/// Inline the `$defs` of a tool's input and output schemas.
pub fn inline_tool_refs(mut tool: Tool) -> Tool {
    inline_refs(&mut tool.input_schema);
    if let Some(output) = &mut tool.output_schema {
        inline_refs(output);
    }
    tool
}

/// The definition a `$ref` names, when it points into `$defs`.
fn ref_target(reference: &str) -> Option<String> {
    let encoded = reference.strip_prefix(DEFS_PREFIX)?;
    if encoded.contains('/') {
        return None;
    }
    let bytes = percent_decode(encoded)?;
    let name = String::from_utf8(bytes).ok()?;
    Some(name.replace("~1", "/").replace("~0", "~"))
}

/// Undo URI fragment percent-encoding (schemars encodes `<`, space, ... in names).
fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hex = [bytes.next()?, bytes.next()?];
            out.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
        } else {
            out.push(b);
        }
    }
    Some(out)
}

/// The definitions referenced anywhere in `schema` (in schema positions only).
fn references(schema: &Value) -> Vec<String> {
    struct Collect(Vec<String>);
    impl Transform for Collect {
        fn transform(&mut self, schema: &mut Schema) {
            if let Some(name) = schema.get("$ref").and_then(Value::as_str).and_then(ref_target) {
                self.0.push(name);
            }
            transform_subschemas(self, schema);
        }
    }
    let mut collect = Collect(Vec::new());
    if let Ok(mut schema) = Schema::try_from(schema.clone()) {
        collect.transform(&mut schema);
    }
    collect.0
}

/// The definitions that reach themselves through references.
fn recursive_definitions(defs: &JsonObject) -> HashSet<String> {
    let edges: Vec<(&String, Vec<String>)> = defs.iter().map(|(name, body)| (name, references(body))).collect();
    let successors = |name: &str| edges.iter().find(|(n, _)| *n == name).map(|(_, e)| e.as_slice()).unwrap_or(&[]);
    let mut recursive = HashSet::new();
    for (start, first) in &edges {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut stack: Vec<&str> = first.iter().map(String::as_str).collect();
        while let Some(name) = stack.pop() {
            if name == start.as_str() {
                recursive.insert((*start).clone());
                break;
            }
            if seen.insert(name) {
                stack.extend(successors(name).iter().map(String::as_str));
            }
        }
    }
    recursive
}

/// Replaces references to non-recursive definitions, at every level.
struct Inline<'a> {
    defs: &'a JsonObject,
    recursive: &'a HashSet<String>,
}

impl Inline<'_> {
    /// The definition `schema` refers to, if it is one to inline.
    fn target(&self, schema: &Schema) -> Option<&Value> {
        let name = ref_target(schema.get("$ref")?.as_str()?)?;
        if self.recursive.contains(&name) {
            return None;
        }
        self.defs.get(&name)
    }
}

impl Transform for Inline<'_> {
    fn transform(&mut self, schema: &mut Schema) {
        // A definition may itself be a bare `$ref`; without cycles this ends.
        while let Some(body) = self.target(schema).cloned() {
            let mut siblings = schema.as_object_mut().map(std::mem::take).unwrap_or_default();
            siblings.shift_remove("$ref");
            *schema = merge(body, siblings);
        }
        transform_subschemas(self, schema);
    }
}

/// A definition with the keywords that sat next to its `$ref`.
fn merge(body: Value, siblings: JsonObject) -> Schema {
    if siblings.is_empty() {
        return Schema::try_from(body).unwrap_or_default();
    }
    match body {
        Value::Object(mut body)
            if siblings.keys().all(|k| !body.contains_key(k) || ANNOTATIONS.contains(&k.as_str())) =>
        {
            body.extend(siblings);
            Schema::from(body)
        }
        Value::Bool(true) => Schema::from(siblings),
        body => {
            let mut wrapper = JsonObject::new();
            wrapper.insert("allOf".into(), Value::Array(vec![body]));
            wrapper.extend(siblings);
            Schema::from(wrapper)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn inlined(mut schema: Value) -> Value {
        inline_refs(schema.as_object_mut().expect("an object"));
        schema
    }

    #[test]
    fn nested_definitions_are_inlined_and_defs_removed() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                "B": {"type": "integer", "minimum": 0},
            },
        });
        assert_eq!(
            inlined(schema),
            json!({
                "type": "object",
                "properties": {"a": {"type": "object", "properties": {"b": {"type": "integer", "minimum": 0}}}},
            })
        );
    }

    #[test]
    fn recursive_definitions_keep_their_ref_and_only_needed_defs() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tree": {"$ref": "#/$defs/Node"},
                "label": {"$ref": "#/$defs/Label"},
            },
            "$defs": {
                "Node": {"type": "object", "properties": {
                    "label": {"$ref": "#/$defs/Label"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                }},
                "Label": {"type": "string"},
                "Unused": {"type": "boolean"},
            },
        });
        assert_eq!(
            inlined(schema),
            json!({
                "type": "object",
                "properties": {"tree": {"$ref": "#/$defs/Node"}, "label": {"type": "string"}},
                "$defs": {"Node": {"type": "object", "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                }}},
            })
        );
    }

    #[test]
    fn mutual_recursion_is_kept() {
        let schema = json!({
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
                "B": {"properties": {"a": {"$ref": "#/$defs/A"}}},
            },
        });
        let out = inlined(schema.clone());
        assert_eq!(out, schema);
    }

    #[test]
    fn sibling_keywords_are_merged_or_wrapped() {
        let schema = json!({
            "properties": {
                "x": {"$ref": "#/$defs/D", "description": "mine"},
                "y": {"$ref": "#/$defs/D", "minimum": 3},
                "z": {"$ref": "#/$defs/F", "description": "never"},
            },
            "$defs": {"D": {"type": "integer", "minimum": 1, "description": "theirs"}, "F": false},
        });
        assert_eq!(
            inlined(schema),
            json!({"properties": {
                "x": {"type": "integer", "minimum": 1, "description": "mine"},
                "y": {"allOf": [{"type": "integer", "minimum": 1, "description": "theirs"}], "minimum": 3},
                "z": {"allOf": [false], "description": "never"},
            }})
        );
    }

    #[test]
    fn encoded_names_and_other_refs() {
        let schema = json!({
            "properties": {
                "g": {"$ref": "#/$defs/Wrapper%3Ca~1b%3E"},
                "root": {"$ref": "#"},
                "far": {"$ref": "https://example.com/s.json"},
            },
            "$defs": {"Wrapper<a/b>": {"type": "string"}},
        });
        assert_eq!(
            inlined(schema),
            json!({"properties": {
                "g": {"type": "string"},
                "root": {"$ref": "#"},
                "far": {"$ref": "https://example.com/s.json"},
            }})
        );
    }

    #[test]
    fn no_defs_is_unchanged() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(inlined(schema.clone()), schema);
    }
}
