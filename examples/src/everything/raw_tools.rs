//! Two tools whose input schemas must be listed exactly as written, so they implement
//! [`ToolDef`] by hand instead of deriving a schema from parameters.

use mcp::items::ToolDef;
use mcp::protocol::{CallToolOutcome, CallToolParams, CallToolResult, JsonObject, Tool};
use mcp::{Context, Error};
use serde_json::{Value, json};

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    Tool::new(name, description, schema)
}

/// `json_schema_2020_12_tool`: its input schema uses `$defs`, `$anchor`, composition and
/// `if`/`then`/`else`, and must reach the client verbatim.
pub struct JsonSchema202012 {}

impl ToolDef for JsonSchema202012 {
    const NAME: &'static str = "json_schema_2020_12_tool";

    fn definition() -> Tool {
        tool(
            Self::NAME,
            "Has a JSON Schema 2020-12 input schema.",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }),
        )
    }

    fn call(_ctx: Context, params: CallToolParams) -> mcp::handler::BoxFuture<Result<CallToolOutcome, Error>> {
        let args = Value::Object(params.arguments.unwrap_or_default());
        Box::pin(async move { Ok(CallToolResult::text(format!("Received {args}")).into()) })
    }
}

/// `test_x_mcp_header`: its `region` argument is mirrored in the `Mcp-Param-Region` header.
pub struct XMcpHeader {}

impl ToolDef for XMcpHeader {
    const NAME: &'static str = "test_x_mcp_header";

    fn definition() -> Tool {
        tool(
            Self::NAME,
            "Echoes the region, which HTTP clients mirror in the Mcp-Param-Region header.",
            json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}),
        )
    }

    fn call(_ctx: Context, params: CallToolParams) -> mcp::handler::BoxFuture<Result<CallToolOutcome, Error>> {
        let args: JsonObject = params.arguments.unwrap_or_default();
        let region = args.get("region").and_then(Value::as_str).unwrap_or("<none>").to_owned();
        Box::pin(async move { Ok(CallToolResult::text(format!("region={region}")).into()) })
    }
}
