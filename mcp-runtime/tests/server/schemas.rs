//! Schemas every client accepts: properties in declaration order (input schemas, output
//! schemas, forms), only standard JSON Schema formats, and `$defs` inlined on request.

use mcp::{Json, Server};
use serde_json::{Value, json};

use crate::support::meta;

/// A ticket, fields deliberately not in alphabetical order.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Ticket {
    title: String,
    severity: u8,
    body: String,
    assignee: Option<String>,
}

/// File a ticket for a team.
#[mcp::tool]
fn triage(
    team: String,
    note: Option<String>,
    priority: u8,
    #[mcp(default = 1)] copies: u32,
    assignee: String,
    ticket: Ticket,
) -> Json<Ticket> {
    let _ = (team, note, priority, copies, assignee);
    Json(ticket)
}

/// Every numeric width.
#[mcp::tool]
#[allow(clippy::too_many_arguments)]
fn widths(a: u8, b: u32, c: i64, d: f64, e: Option<u16>, f: Vec<i32>, g: u64, h: f32, i: i8) -> Json<Measured> {
    let _ = (a, b, c, d, e, f, g, h, i);
    Json(Measured { count: 0, ratio: 0.0, offset: 0 })
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Measured {
    count: u64,
    ratio: f64,
    offset: i32,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Address {
    street: String,
    city: String,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Line {
    sku: String,
    qty: u32,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Order {
    to: Address,
    lines: Vec<Line>,
}

/// Place an order (schemas inlined for this tool).
#[mcp::tool(inline_refs)]
fn place(order: Order) -> Json<Order> {
    Json(order)
}

/// Place an order (schemas as schemars makes them).
#[mcp::tool]
fn place_plain(order: Order) -> Json<Order> {
    Json(order)
}

/// A tree: recursive, so it cannot be inlined.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Node {
    label: String,
    children: Vec<Node>,
}

/// Count a tree's nodes.
#[mcp::tool(inline_refs)]
fn count(tree: Node, to: Address) -> usize {
    fn size(node: &Node) -> usize {
        1 + node.children.iter().map(size).sum::<usize>()
    }
    let _ = to;
    size(&tree)
}

async fn tools(server: &Server) -> Vec<Value> {
    let client = mcp::client::in_process(server);
    let list =
        client.request("tools/list", json!({"_meta": meta(&json!({}))})).await.unwrap_or_else(|e| panic!("{e:?}"));
    let tools = list["tools"].as_array().cloned().unwrap_or_default();
    for tool in &tools {
        mcp_testkit::spec::assert_valid(mcp_testkit::spec::MODERN, "Tool", tool);
    }
    tools
}

fn by_name(tools: &[Value], name: &str) -> Value {
    tools.iter().find(|t| t["name"] == name).cloned().unwrap_or_else(|| panic!("no tool {name}"))
}

fn keys(object: &Value) -> Vec<String> {
    object.as_object().unwrap_or_else(|| panic!("not an object: {object}")).keys().cloned().collect()
}

/// Every value of the keyword `key` anywhere in `value`, with its path.
fn find_all(value: &Value, key: &str, path: &str, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let here = format!("{path}/{k}");
                if k == key {
                    out.push((here.clone(), v.clone()));
                }
                find_all(v, key, &here, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                find_all(v, key, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[tokio::test]
async fn tool_properties_and_required_come_in_declaration_order() {
    let tools = tools(&Server::builder("s", "1.0.0").tool::<triage>().build()).await;
    let schema = &by_name(&tools, "triage")["inputSchema"];
    assert_eq!(keys(&schema["properties"]), ["team", "note", "priority", "copies", "assignee", "ticket"]);
    assert_eq!(schema["required"], json!(["team", "priority", "assignee", "ticket"]));
    // On the wire too, not only in a map that happens to keep them.
    let text = serde_json::to_string(schema).expect("text");
    let at = |name: &str| text.find(&format!("\"{name}\":")).unwrap_or_else(|| panic!("{name} in {text}"));
    assert!(at("team") < at("note") && at("note") < at("priority") && at("copies") < at("assignee"), "{text}");
}

#[tokio::test]
async fn struct_arguments_and_structured_outputs_come_in_field_order() {
    let tools = tools(&Server::builder("s", "1.0.0").tool::<triage>().build()).await;
    let tool = by_name(&tools, "triage");
    let field_order = ["title", "severity", "body", "assignee"];
    assert_eq!(keys(&tool["inputSchema"]["$defs"]["Ticket"]["properties"]), field_order);
    assert_eq!(tool["inputSchema"]["$defs"]["Ticket"]["required"], json!(["title", "severity", "body"]));
    assert_eq!(keys(&tool["outputSchema"]["properties"]), field_order);
    assert_eq!(tool["outputSchema"]["required"], json!(["title", "severity", "body"]));
}

/// The answers of a form, fields deliberately not in alphabetical order.
#[derive(serde::Deserialize, mcp::ElicitForm)]
#[allow(dead_code)]
struct Assignment {
    /// The team that takes it.
    team: String,
    /// Anything to add.
    note: Option<String>,
    /// How urgent, 0 to 9.
    urgency: u8,
    accepted: bool,
}

#[test]
fn form_fields_come_in_field_order() {
    let schema = <Assignment as mcp::ElicitForm>::schema();
    let wire = serde_json::to_value(schema).expect("json");
    assert_eq!(keys(&wire["properties"]), ["team", "note", "urgency", "accepted"]);
    assert_eq!(wire["required"], json!(["team", "urgency", "accepted"]));
    let text = serde_json::to_string(schema).expect("text");
    assert!(text.find("\"team\"") < text.find("\"note\""), "{text}");
    // And a form read back keeps the order it was sent in.
    let back: mcp::protocol::ElicitationSchema = serde_json::from_str(&text).expect("parses");
    assert_eq!(back.properties.keys().collect::<Vec<_>>(), ["team", "note", "urgency", "accepted"]);
    assert_eq!(&back, schema);
}

#[tokio::test]
async fn integer_widths_become_bounds_and_no_format_is_non_standard() {
    let tools = tools(&Server::builder("s", "1.0.0").tool::<widths>().tool::<triage>().build()).await;
    let mut formats = Vec::new();
    for tool in &tools {
        find_all(tool, "format", "", &mut formats);
    }
    assert_eq!(formats, [], "non-standard formats");

    let widths = by_name(&tools, "widths");
    let props = &widths["inputSchema"]["properties"];
    assert_eq!(props["a"], json!({"type": "integer", "minimum": 0, "maximum": 255}));
    assert_eq!(props["b"], json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295u64}));
    assert_eq!(props["c"], json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}));
    assert_eq!(props["d"], json!({"type": "number"}));
    assert_eq!(props["e"], json!({"type": ["integer", "null"], "minimum": 0, "maximum": 65535}));
    assert_eq!(props["f"]["items"], json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX}));
    assert_eq!(props["g"], json!({"type": "integer", "minimum": 0, "maximum": u64::MAX}));
    assert_eq!(props["h"], json!({"type": "number"}));
    assert_eq!(props["i"], json!({"type": "integer", "minimum": -128, "maximum": 127}));
    // 64-bit bounds are exact JSON integers on the wire, not rounded floats.
    let text = serde_json::to_string(&widths).expect("text");
    assert!(text.contains("\"maximum\":18446744073709551615"), "{text}");
    assert!(text.contains("\"minimum\":-9223372036854775808"), "{text}");

    let output = &widths["outputSchema"]["properties"];
    assert_eq!(output["count"], json!({"type": "integer", "minimum": 0, "maximum": u64::MAX}));
    assert_eq!(output["ratio"], json!({"type": "number"}));
    // In `$defs` too.
    let ticket = &by_name(&tools, "triage")["inputSchema"]["$defs"]["Ticket"]["properties"]["severity"];
    assert_eq!(ticket, &json!({"type": "integer", "minimum": 0, "maximum": 255}));
}

fn assert_no_refs(schema: &Value) {
    let mut refs = Vec::new();
    find_all(schema, "$ref", "", &mut refs);
    find_all(schema, "$defs", "", &mut refs);
    assert_eq!(refs, [], "{schema}");
}

#[tokio::test]
async fn inline_refs_on_a_tool_writes_nested_structs_out() {
    let tools = tools(&Server::builder("s", "1.0.0").tool::<place>().tool::<place_plain>().build()).await;
    let place = by_name(&tools, "place");
    assert_no_refs(&place["inputSchema"]);
    assert_no_refs(&place["outputSchema"]);
    let order = &place["inputSchema"]["properties"]["order"];
    assert_eq!(keys(&order["properties"]), ["to", "lines"]);
    assert_eq!(keys(&order["properties"]["to"]["properties"]), ["street", "city"]);
    assert_eq!(
        order["properties"]["lines"]["items"],
        json!({
            "type": "object",
            "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 0, "maximum": 4_294_967_295u64}},
            "required": ["sku", "qty"],
        })
    );
    assert_eq!(place["outputSchema"]["properties"]["to"]["properties"]["city"], json!({"type": "string"}));

    // Without the option, `$defs` stays (the default).
    let plain = by_name(&tools, "place_plain");
    assert_eq!(plain["inputSchema"]["properties"]["order"], json!({"$ref": "#/$defs/Order"}));
    assert_eq!(keys(&plain["inputSchema"]["$defs"]), ["Order", "Address", "Line"]);
    // Inlining gives the same schema as following the references by hand.
    let defs = &plain["inputSchema"]["$defs"];
    let mut expected = defs["Order"].clone();
    expected["properties"]["to"] = defs["Address"].clone();
    expected["properties"]["lines"]["items"] = defs["Line"].clone();
    assert_eq!(*order, expected);
}

#[tokio::test]
async fn inline_schema_refs_on_the_server_inlines_every_tool() {
    let server = Server::builder("s", "1.0.0").tool::<place_plain>().tool::<triage>().inline_schema_refs(true).build();
    let tools = tools(&server).await;
    for tool in &tools {
        assert_no_refs(&tool["inputSchema"]);
        assert_no_refs(&tool["outputSchema"]);
    }
    let ticket = &by_name(&tools, "triage")["inputSchema"]["properties"]["ticket"];
    assert_eq!(keys(&ticket["properties"]), ["title", "severity", "body", "assignee"]);
}

#[tokio::test]
async fn recursive_types_keep_their_ref_and_only_the_needed_defs() {
    let tools = tools(&Server::builder("s", "1.0.0").tool::<count>().build()).await;
    let schema = &by_name(&tools, "count")["inputSchema"];
    assert_eq!(schema["properties"]["tree"], json!({"$ref": "#/$defs/Node"}));
    assert_eq!(keys(&schema["properties"]["to"]["properties"]), ["street", "city"]);
    assert_eq!(keys(&schema["$defs"]), ["Node"], "Address was inlined, Node kept: {schema}");
    assert_eq!(schema["$defs"]["Node"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/Node"}));
}

#[tokio::test]
async fn describe_lists_parameters_in_declaration_order() {
    let text = Server::builder("s", "1.0.0").tool::<triage>().build().describe_markdown().await;
    let rows: Vec<usize> = ["team", "note", "priority", "copies", "assignee", "ticket"]
        .iter()
        .map(|name| text.find(&format!("| `{name}` |")).unwrap_or_else(|| panic!("no row {name}: {text}")))
        .collect();
    assert!(rows.is_sorted(), "{text}");
}
