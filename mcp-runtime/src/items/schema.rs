//! The parts of a macro-defined item's definition that are computed: a tool's input
//! schema, built parameter by parameter, and the `_meta` object given as JSON text.

use schemars::transform::Transform;

use super::standard_formats::{StandardFormats, schema_generator};
use crate::protocol::JsonObject;

/// A tool parameter type, described by a JSON Schema in the tool's input schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `schemars::JsonSchema`",
    label = "tool parameter types must be `Deserialize + JsonSchema`",
    note = "derive `schemars::JsonSchema` for it (tool parameters need both `serde::Deserialize` and `schemars::JsonSchema`)"
)]
pub trait ToolParamSchema {
    /// Its schema.
    fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
    /// The schema of `Option<Self>`.
    fn optional_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
}

impl<T: schemars::JsonSchema> ToolParamSchema for T {
    fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        generator.subschema_for::<T>()
    }
    fn optional_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        generator.subschema_for::<Option<T>>()
    }
}

/// Builds a tool's input schema parameter by parameter: properties and `required` come
/// in the order the parameters are declared, and only standard `format`s are emitted
/// ([`StandardFormats`]).
pub struct InputSchema {
    generator: schemars::SchemaGenerator,
    properties: JsonObject,
    required: Vec<serde_json::Value>,
}

impl Default for InputSchema {
    fn default() -> Self {
        InputSchema { generator: schema_generator(), properties: JsonObject::new(), required: Vec::new() }
    }
}

impl InputSchema {
    /// Add the parameter `name` of type `T`.
    pub fn param<T: ToolParamSchema>(
        &mut self,
        name: &str,
        description: Option<&str>,
        required: bool,
        default: Option<serde_json::Value>,
    ) {
        let schema = T::schema(&mut self.generator);
        self.insert(schema, name, description, required, default);
    }

    /// Add the parameter `name` of type `Option<T>`.
    pub fn param_optional<T: ToolParamSchema>(&mut self, name: &str, description: Option<&str>) {
        let schema = T::optional_schema(&mut self.generator);
        self.insert(schema, name, description, false, None);
    }

    /// Add the parameter `name` whose schema `schema_of` gives, if it gives one (a
    /// [`ToolSpec`](super::tool_spec::ToolSpec)'s parameter). `default` is asked only then.
    pub(crate) fn param_from(
        &mut self,
        schema_of: super::tool_spec::SchemaFn,
        name: &str,
        description: Option<&str>,
        required: bool,
        default: Option<fn() -> Option<serde_json::Value>>,
    ) {
        if let Some(schema) = schema_of(&mut self.generator) {
            let default = default.and_then(|default| default());
            self.insert(schema, name, description, required, default);
        }
    }

    fn insert(
        &mut self,
        schema: schemars::Schema,
        name: &str,
        description: Option<&str>,
        required: bool,
        default: Option<serde_json::Value>,
    ) {
        let mut schema = schema;
        // The generator transforms root schemas and definitions, not the subschemas it
        // returns: an inline one (an integer, an `Option`) is transformed here.
        StandardFormats.transform(&mut schema);
        let mut schema = schema.to_value();
        if let serde_json::Value::Object(map) = &mut schema {
            if let Some(d) = description {
                map.insert("description".into(), d.into());
            }
            if let Some(default) = default {
                map.insert("default".into(), default);
            }
        } else if description.is_some() {
            // A boolean schema cannot hold keywords: wrap it.
            let mut map = JsonObject::new();
            map.insert("allOf".into(), serde_json::Value::Array(vec![schema]));
            if let Some(d) = description {
                map.insert("description".into(), d.into());
            }
            schema = serde_json::Value::Object(map);
        }
        self.properties.insert(name.to_owned(), schema);
        if required {
            self.required.push(name.into());
        }
    }

    /// The finished schema: `type: object`, `properties`, `required`, and `$defs` when used.
    pub fn finish(mut self) -> JsonObject {
        let mut root = JsonObject::new();
        root.insert("type".into(), "object".into());
        root.insert("properties".into(), serde_json::Value::Object(self.properties));
        if !self.required.is_empty() {
            root.insert("required".into(), serde_json::Value::Array(self.required));
        }
        let defs = self.generator.take_definitions(true);
        if !defs.is_empty() {
            root.insert("$defs".into(), serde_json::Value::Object(defs));
        }
        root
    }
}

/// Serialize a parameter's default for the schema.
pub fn default_json<T: serde::Serialize>(value: &T) -> Option<serde_json::Value> {
    serde_json::to_value(value).ok()
}

/// The `_meta` object of `meta = "{...}"`. The macro checked at compile time that the
/// text is a JSON object; anything else gives an empty object.
pub fn meta_object(json: &str) -> JsonObject {
    serde_json::from_str(json).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn required_optional_and_defaulted_params() {
        let mut schema = InputSchema::default();
        schema.param::<u32>("count", Some("How many."), true, None);
        schema.param::<String>("label", None, false, default_json(&"x".to_owned()));
        schema.param_optional::<bool>("flag", None);
        let schema = serde_json::Value::Object(schema.finish());
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["count"]));
        assert_eq!(schema["properties"]["count"]["description"], "How many.");
        assert_eq!(schema["properties"]["label"]["default"], "x");
        assert!(schema["properties"].get("flag").is_some());
        assert!(schema.get("$defs").is_none());
    }

    #[test]
    fn no_params_is_an_empty_object_schema() {
        let schema = InputSchema::default().finish();
        assert_eq!(serde_json::Value::Object(schema), json!({"type": "object", "properties": {}}));
    }

    #[test]
    fn meta_text_becomes_an_object() {
        assert_eq!(serde_json::Value::Object(meta_object(r#"{"team": "infra"}"#)), json!({"team": "infra"}));
        assert!(meta_object("[1]").is_empty());
    }
}
