//! Servers written with `#[mcp::tool]`, `#[mcp::prompt]` and `#[mcp::resource]`,
//! exercised over the in-memory pairing.

use mcp::protocol::{CallToolResult, ContentBlock, InputRequest, InputRequiredResult, PromptMessage};
use mcp::{Context, Json, Server};
use serde_json::{Value, json};

use crate::support::meta;

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
/// A point on the plane.
struct Point {
    /// Horizontal.
    x: f64,
    /// Vertical.
    y: f64,
}

/// Add two numbers.
#[mcp::tool(annotations(read_only, idempotent = true))]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Greet someone, politely or not.
#[mcp::tool(name = "greet", title = "Greeter")]
async fn greet_person(name: String, #[mcp(default = true)] polite: bool, suffix: Option<String>) -> String {
    let base = if polite { format!("Good day, {name}") } else { format!("Hi {name}") };
    format!("{base}{}", suffix.unwrap_or_default())
}

/// Mirror a point.
#[mcp::tool]
fn mirror(point: Point) -> Point {
    Point { x: -point.x, y: -point.y }
}

/// Divide, failing on zero.
#[mcp::tool]
fn divide(a: f64, b: f64) -> Result<Json<Point>, String> {
    if b == 0.0 { Err("cannot divide by zero".into()) } else { Ok(Json(Point { x: a / b, y: 0.0 })) }
}

/// Ask for a name, then greet.
#[mcp::tool]
async fn ask_name(ctx: Context) -> mcp::protocol::CallToolOutcome {
    let answer = ctx.input_response("name").and_then(|r| r.as_elicit()).and_then(|r| r.content.clone());
    match answer.and_then(|c| c.get("name").and_then(Value::as_str).map(str::to_owned)) {
        Some(name) => CallToolResult::text(format!("Hello, {name}! (state {:?})", ctx.request_state())).into(),
        None => {
            let schema = serde_json::from_value(json!({"type": "object", "properties": {"name": {"type": "string"}}}))
                .unwrap_or_default();
            InputRequiredResult::ask(
                "name",
                InputRequest::Elicit(mcp::protocol::ElicitRequestParams::form("Name?", schema)),
            )
            .with_state("plain:s1")
            .into()
        }
    }
}

/// Blocks.
#[mcp::tool(output_schema = false)]
fn blocks() -> Vec<ContentBlock> {
    vec![ContentBlock::text("one"), ContentBlock::text("two")]
}

/// A prompt with typed arguments.
#[mcp::prompt]
fn review(
    /// The code to review.
    code: String,
    /// How strict to be, 1 to 5.
    strictness: Option<u8>,
) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("Review (strictness {}): {code}", strictness.unwrap_or(3)))]
}

/// A prompt that fails.
#[mcp::prompt]
fn broken() -> Result<String, mcp::Error> {
    Err(mcp::Error::invalid_params("broken on purpose"))
}

/// The readme.
#[mcp::resource("file:///readme.md", mime_type = "text/markdown")]
fn readme() -> String {
    "# Hello".into()
}

/// A row of a table.
#[mcp::resource("db://{table}/rows/{id}", mime_type = "application/json")]
async fn row(table: String, id: u32) -> Result<String, String> {
    if id == 0 { Err("no row 0".into()) } else { Ok(json!({"table": table, "id": id}).to_string()) }
}

/// Raw bytes.
#[mcp::resource("bin://{name}")]
fn bytes(name: String) -> Vec<u8> {
    name.into_bytes()
}

fn server() -> Server {
    Server::builder("macros", "1.0.0")
        .tool::<add>()
        .tool::<greet_person>()
        .tool::<mirror>()
        .tool::<divide>()
        .tool::<ask_name>()
        .tool::<blocks>()
        .prompt::<review>()
        .prompt::<broken>()
        .resource::<readme>()
        .resource::<row>()
        .resource::<bytes>()
        .build()
}

async fn call(client: &mcp::client::RawClient, name: &str, args: Value) -> Value {
    client
        .request("tools/call", json!({"_meta": meta(&json!({"elicitation": {}})), "name": name, "arguments": args}))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

#[tokio::test]
async fn tools_list_carries_schemas_descriptions_and_options() {
    let client = mcp::client::in_process(&server());
    let list =
        client.request("tools/list", json!({"_meta": meta(&json!({}))})).await.unwrap_or_else(|e| panic!("{e:?}"));
    let tools = list["tools"].as_array().cloned().unwrap_or_default();
    let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).cloned().unwrap_or_else(|| panic!("no tool {n}"));
    let add = by_name("add");
    assert_eq!(add["description"], "Add two numbers.");
    assert_eq!(add["inputSchema"]["type"], "object");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(add["inputSchema"]["properties"]["a"]["type"], "integer");
    assert_eq!(add["inputSchema"]["properties"]["a"]["description"], "The first addend.");
    assert_eq!(add["annotations"], json!({"readOnlyHint": true, "idempotentHint": true}));
    assert_eq!(add["outputSchema"]["properties"]["result"]["type"], "integer");
    let greet = by_name("greet");
    assert_eq!(greet["title"], "Greeter");
    assert_eq!(greet["inputSchema"]["required"], json!(["name"]));
    assert_eq!(greet["inputSchema"]["properties"]["polite"]["default"], true);
    assert!(greet.get("outputSchema").is_none(), "text tools have no output schema");
    let mirror = by_name("mirror");
    assert!(mirror["inputSchema"]["$defs"]["Point"].is_object(), "{mirror}");
    assert_eq!(mirror["outputSchema"]["properties"]["x"]["type"], "number");
    assert!(by_name("blocks").get("outputSchema").is_none());
    for tool in &tools {
        mcp_testkit::spec::assert_valid(mcp_testkit::spec::MODERN, "Tool", tool);
    }
}

#[tokio::test]
async fn tools_convert_arguments_and_results() {
    let client = mcp::client::in_process(&server());
    let sum = call(&client, "add", json!({"a": 2, "b": 40})).await;
    assert_eq!(sum["structuredContent"], json!({"result": 42}));
    assert_eq!(sum["content"][0]["text"], r#"{"result":42}"#);
    let greet = call(&client, "greet", json!({"name": "Ada"})).await;
    assert_eq!(greet["content"][0]["text"], "Good day, Ada");
    let rude = call(&client, "greet", json!({"name": "Ada", "polite": false, "suffix": "!"})).await;
    assert_eq!(rude["content"][0]["text"], "Hi Ada!");
    let mirrored = call(&client, "mirror", json!({"point": {"x": 1.5, "y": -2}})).await;
    assert_eq!(mirrored["structuredContent"], json!({"x": -1.5, "y": 2.0}));
    let bad = call(&client, "add", json!({"a": "two", "b": 1})).await;
    assert_eq!(bad["isError"], true);
    assert!(bad["content"][0]["text"].as_str().unwrap_or_default().contains("`a`"), "{bad}");
    let missing = call(&client, "add", json!({"a": 1})).await;
    assert_eq!(missing["isError"], true);
    assert!(missing["content"][0]["text"].as_str().unwrap_or_default().contains("missing required argument `b`"));
    let zero = call(&client, "divide", json!({"a": 1, "b": 0})).await;
    assert_eq!(
        (zero["isError"].clone(), zero["content"][0]["text"].clone()),
        (json!(true), json!("cannot divide by zero"))
    );
    let half = call(&client, "divide", json!({"a": 1, "b": 2})).await;
    assert_eq!(half["structuredContent"], json!({"x": 0.5, "y": 0.0}));
    let blocks = call(&client, "blocks", json!({})).await;
    assert_eq!(blocks["content"].as_array().map(Vec::len), Some(2));
    let unknown = client.request("tools/call", json!({"_meta": meta(&json!({})), "name": "nope"})).await;
    assert_eq!(unknown.expect_err("unknown tool").code, -32602);
}

#[tokio::test]
async fn a_tool_reads_answers_and_state_from_context() {
    let client = mcp::client::in_process(&server());
    let first = call(&client, "ask_name", json!({})).await;
    assert_eq!(first["resultType"], "input_required");
    let sealed = first["requestState"].as_str().unwrap_or_default().to_owned();
    assert!(sealed.starts_with("v1.") && !sealed.contains("plain:s1"), "macro servers seal state by default: {sealed}");
    let retry = client
        .request(
            "tools/call",
            json!({"_meta": meta(&json!({"elicitation": {}})), "name": "ask_name",
                   "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}, "requestState": sealed}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(retry["content"][0]["text"], "Hello, Ada! (state Some(\"plain:s1\"))");
}

#[tokio::test]
async fn prompts_parse_string_arguments() {
    let client = mcp::client::in_process(&server());
    let list =
        client.request("prompts/list", json!({"_meta": meta(&json!({}))})).await.unwrap_or_else(|e| panic!("{e:?}"));
    let review =
        list["prompts"].as_array().and_then(|p| p.iter().find(|p| p["name"] == "review").cloned()).unwrap_or_default();
    assert_eq!(
        review["arguments"],
        json!([{"name": "code", "description": "The code to review.", "required": true},
               {"name": "strictness", "description": "How strict to be, 1 to 5.", "required": false}])
    );
    let get = |args: Value| {
        client.request("prompts/get", json!({"_meta": meta(&json!({})), "name": "review", "arguments": args}))
    };
    let ok = get(json!({"code": "fn main() {}", "strictness": "5"})).await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(ok["messages"][0]["content"]["text"], "Review (strictness 5): fn main() {}");
    let bad = get(json!({"code": "x", "strictness": "loud"})).await.expect_err("not a number");
    assert_eq!(bad.code, -32602);
    assert!(bad.message.contains("strictness"), "{}", bad.message);
    let missing = get(json!({})).await.expect_err("code is required");
    assert_eq!((missing.code, missing.message.as_str()), (-32602, "Missing required argument: code"));
    let broken = client.request("prompts/get", json!({"_meta": meta(&json!({})), "name": "broken"})).await;
    let broken = broken.expect_err("fails");
    assert_eq!((broken.code, broken.message.as_str()), (-32602, "broken on purpose"), "an mcp::Error keeps its code");
}

#[tokio::test]
async fn resources_match_static_uris_and_templates() {
    let client = mcp::client::in_process(&server());
    let read = |uri: &str| client.request("resources/read", json!({"_meta": meta(&json!({})), "uri": uri}));
    let readme = read("file:///readme.md").await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        readme["contents"],
        json!([{"uri": "file:///readme.md", "mimeType": "text/markdown", "text": "# Hello"}])
    );
    let row = read("db://users/rows/7").await.unwrap_or_else(|e| panic!("{e:?}"));
    // The text is the `json!` object as written: keys keep their order (`preserve_order`).
    assert_eq!(row["contents"][0]["text"], r#"{"table":"users","id":7}"#);
    assert_eq!(row["contents"][0]["mimeType"], "application/json");
    let bad_id = read("db://users/rows/seven").await.expect_err("id is a u32");
    assert_eq!(bad_id.code, -32602);
    let zero = read("db://users/rows/0").await.expect_err("the function fails");
    assert_eq!((zero.code, zero.message.as_str()), (-32603, "no row 0"));
    let blob = read("bin://abc").await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(blob["contents"][0]["blob"], "YWJj");
    let missing = read("nothing://here").await.expect_err("not found");
    assert_eq!((missing.code, missing.data), (-32602, Some(json!({"uri": "nothing://here"}))));
    let templates = client
        .request("resources/templates/list", json!({"_meta": meta(&json!({}))}))
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    let uris: Vec<&str> = templates["resourceTemplates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["uriTemplate"].as_str())
        .collect();
    assert_eq!(uris, ["db://{table}/rows/{id}", "bin://{name}"]);
}

#[test]
fn the_functions_stay_callable() {
    assert_eq!(add(1, 2), 3);
    assert_eq!(mirror(Point { x: 1.0, y: 1.0 }), Point { x: -1.0, y: -1.0 });
    assert_eq!(readme(), "# Hello");
}

#[test]
fn duplicate_names_are_a_startup_error() {
    use mcp::server::{BuildProblem, ItemKind};

    let error = Server::builder("dup", "1").tool::<add>().tool::<add>().try_build().expect_err("duplicate");
    assert_eq!(error.problems(), [BuildProblem::Duplicate { kind: ItemKind::Tool, name: "add".into() }]);
    assert_eq!(error.to_string(), "invalid MCP server: two tools are named `add`; tool names must be unique");
    let mixed = Server::builder("mixed", "1")
        .tool::<add>()
        .tool::<add>()
        .on_call_tool(|_ctx, _p| async { Ok(CallToolResult::text("x").into()) })
        .try_build()
        .expect_err("mixing");
    assert!(
        matches!(
            mixed.problems(),
            [BuildProblem::Duplicate { .. }, BuildProblem::MixedRegistration { what: "tools", .. }]
        ),
        "{:?}",
        mixed.problems()
    );
    assert!(mixed.to_string().contains("; tools were registered with macros and with"), "{mixed}");
}

#[tokio::test]
async fn describe_renders_markdown() {
    let text = server().describe_markdown().await;
    assert!(text.contains("## Tools (6)"), "{text}");
    assert!(text.contains("| `a` | integer | yes | The first addend. |"), "{text}");
    assert!(text.contains("## Prompts (2)") && text.contains("`code` (required)"), "{text}");
    assert!(text.contains("`db://{table}/rows/{id}`"), "{text}");
}
