//! A `#[mcp::tool]`'s definition as data: the macro writes a `const` [`ToolSpec`] and
//! [`tool_definition`] builds the [`Tool`] from it. One function for every tool, so a crate
//! with many tools compiles its definitions once rather than a builder chain per tool.

use super::schema::{InputSchema, ToolParamSchema};
use crate::protocol::{Icon, JsonObject, Tool, ToolAnnotations};

/// The schema of a parameter, added to a tool's input schema; `None` for a parameter that
/// turns out to be injected (`mcp::Context`, `mcp::State<T>`), which is no argument.
pub type SchemaFn = fn(&mut schemars::SchemaGenerator) -> Option<schemars::Schema>;

/// Everything `#[mcp::tool]` states about a tool's definition.
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// Its parameters read from the arguments, in declaration order.
    pub params: &'static [ParamSpec],
    /// `title = "..."`.
    pub title: Option<&'static str>,
    /// The attribute's description or the doc comment.
    pub description: Option<&'static str>,
    /// Trim the description (it was computed by `concat!` of doc attributes).
    pub trim_description: bool,
    /// `icons = [...]`.
    pub icons: &'static [&'static str],
    /// `meta = "{...}"`, checked at compile time to be a JSON object.
    pub meta: Option<&'static str>,
    /// `annotations(...)`.
    pub annotations: Option<AnnotationsSpec>,
    /// The output schema, for a return type that has one.
    pub output_schema: Option<fn() -> Option<JsonObject>>,
    /// `inline_refs = true`.
    pub inline_refs: bool,
}

/// One parameter of a [`ToolSpec`].
pub struct ParamSpec {
    /// The argument's name.
    pub name: &'static str,
    /// Its description (the parameter's doc comment).
    pub description: Option<&'static str>,
    /// Its schema.
    pub schema: SchemaFn,
    /// Listed in `required`.
    pub required: bool,
    /// Its default, for the schema's `default`.
    pub default: Option<fn() -> Option<serde_json::Value>>,
}

/// The behaviour hints of `annotations(...)`.
pub struct AnnotationsSpec {
    /// `title = "..."`.
    pub title: Option<&'static str>,
    /// `read_only`.
    pub read_only: Option<bool>,
    /// `destructive`.
    pub destructive: Option<bool>,
    /// `idempotent`.
    pub idempotent: Option<bool>,
    /// `open_world`.
    pub open_world: Option<bool>,
}

/// The schema of a parameter of type `T` (a [`SchemaFn`]).
pub fn schema_of<T: ToolParamSchema>(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
    Some(T::schema(generator))
}

/// The schema of a parameter of type `Option<T>` (a [`SchemaFn`]).
pub fn optional_schema_of<T: ToolParamSchema>(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
    Some(T::optional_schema(generator))
}

/// The tool `spec` describes. `'static`, so that the macros' `&SPEC` must be a promoted
/// constant (data in the binary) rather than a spec rebuilt on the stack at each call.
pub fn tool_definition(spec: &'static ToolSpec) -> Tool {
    let mut schema = InputSchema::default();
    for param in spec.params {
        schema.param_from(param.schema, param.name, param.description, param.required, param.default);
    }
    let mut tool = Tool::with_input_schema(spec.name, schema.finish());
    if let Some(title) = spec.title {
        tool = tool.with_title(title);
    }
    if let Some(description) = spec.description {
        tool = tool.with_description(if spec.trim_description { description.trim() } else { description });
    }
    if !spec.icons.is_empty() {
        tool = tool.with_icons(spec.icons.iter().map(|src| Icon::new(*src)).collect());
    }
    if let Some(meta) = spec.meta {
        tool = tool.with_meta(super::schema::meta_object(meta));
    }
    if let Some(a) = &spec.annotations {
        let mut annotations = ToolAnnotations::new();
        if let Some(title) = a.title {
            annotations = annotations.with_title(title);
        }
        let hints = [
            (a.read_only, ToolAnnotations::with_read_only_hint as fn(ToolAnnotations, bool) -> ToolAnnotations),
            (a.destructive, ToolAnnotations::with_destructive_hint),
            (a.idempotent, ToolAnnotations::with_idempotent_hint),
            (a.open_world, ToolAnnotations::with_open_world_hint),
        ];
        for (value, set) in hints {
            if let Some(value) = value {
                annotations = set(annotations, value);
            }
        }
        tool = tool.with_annotations(annotations);
    }
    if let Some(output_schema) = spec.output_schema.and_then(|schema_of| schema_of()) {
        tool = tool.with_output_schema(output_schema);
    }
    if spec.inline_refs { super::inline_refs::inline_tool_refs(tool) } else { tool }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn flag_default() -> Option<serde_json::Value> {
        Some(json!(false))
    }

    fn no_output_schema() -> Option<JsonObject> {
        None
    }

    const EMPTY: ToolSpec = ToolSpec {
        name: "t",
        params: &[],
        title: None,
        description: None,
        trim_description: false,
        icons: &[],
        meta: None,
        annotations: None,
        output_schema: None,
        inline_refs: false,
    };

    fn injected(_: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        None
    }

    #[test]
    fn the_spec_becomes_the_definition() {
        static PARAMS: [ParamSpec; 4] = [
            ParamSpec {
                name: "text",
                description: Some("The text."),
                schema: schema_of::<String>,
                required: true,
                default: None,
            },
            ParamSpec {
                name: "times",
                description: None,
                schema: optional_schema_of::<u32>,
                required: false,
                default: None,
            },
            ParamSpec {
                name: "shout",
                description: None,
                schema: schema_of::<bool>,
                required: false,
                default: Some(flag_default),
            },
            ParamSpec { name: "ctx", description: None, schema: injected, required: true, default: None },
        ];
        static SPEC: ToolSpec = ToolSpec {
            params: &PARAMS,
            title: Some("T"),
            description: Some("  Repeat.\n"),
            trim_description: true,
            icons: &["https://example.com/i.png"],
            meta: Some(r#"{"team": "infra"}"#),
            annotations: Some(AnnotationsSpec {
                title: None,
                read_only: Some(true),
                destructive: None,
                idempotent: Some(false),
                open_world: None,
            }),
            output_schema: Some(no_output_schema),
            ..EMPTY
        };
        let tool = tool_definition(&SPEC);
        assert_eq!(tool.name, "t");
        assert_eq!(tool.title.as_deref(), Some("T"));
        assert_eq!(tool.description.as_deref(), Some("Repeat."));
        assert_eq!(tool.icons.as_ref().map(Vec::len), Some(1));
        assert!(tool.meta.is_some());
        let annotations = tool.annotations.expect("annotations");
        assert_eq!((annotations.read_only_hint, annotations.idempotent_hint), (Some(true), Some(false)));
        assert_eq!(annotations.destructive_hint, None);
        assert!(tool.output_schema.is_none());
        let schema = serde_json::Value::Object(tool.input_schema);
        assert_eq!(schema["required"], json!(["text"]));
        assert_eq!(schema["properties"]["text"]["description"], "The text.");
        assert_eq!(schema["properties"]["shout"]["default"], false);
        assert!(schema["properties"].get("times").is_some());
        assert!(schema["properties"].get("ctx").is_none(), "an injected parameter is no argument");
    }

    #[test]
    fn an_untrimmed_description_is_kept_as_written() {
        let tool = tool_definition(&ToolSpec { description: Some(" as is "), ..EMPTY });
        assert_eq!(tool.description.as_deref(), Some(" as is "));
        assert!(tool.annotations.is_none() && tool.title.is_none() && tool.meta.is_none());
        assert_eq!(serde_json::Value::Object(tool.input_schema), json!({"type": "object", "properties": {}}));
    }
}
