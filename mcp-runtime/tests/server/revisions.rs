//! Clients pinned to each `initialize` revision (2024-11-05 to 2025-11-25): the server
//! answers with the client's version, and every result holds only what that revision
//! defines, checked against the revision's own JSON Schema.

use std::sync::Arc;

use mcp::client::RawClient;
use mcp::protocol::{CallToolResult, ContentBlock, JsonRpcMessage, ResourceLink};
use mcp::{Resolve, Server};
use mcp_testkit::spec::assert_valid;
use serde_json::{Value, json};

const REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// A point.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

/// Mirror a point.
#[mcp::tool(title = "Mirror", icons = ["https://example.com/mirror.png"], annotations(read_only))]
fn mirror(point: Point) -> Point {
    Point { x: -point.x, y: -point.y }
}

/// Link to a file.
#[mcp::tool]
fn link() -> CallToolResult {
    let link = ResourceLink { uri: "file:///notes.txt".into(), name: "notes".into(), ..Default::default() };
    CallToolResult::content(vec![ContentBlock::text("see"), ContentBlock::ResourceLink(link)])
}

/// A name.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Name {
    /// Your name.
    name: String,
}

#[mcp::resolver]
fn ask_name() -> mcp::resolve::Elicit<Name> {
    mcp::resolve::Elicit::new("Who are you?")
}

/// Greet whoever answers.
#[mcp::tool]
fn hello(name: Resolve<ask_name>) -> String {
    format!("hello {}", name.name)
}

/// Review some code.
#[mcp::prompt(title = "Code review")]
fn review(
    /// The code.
    code: String,
) -> String {
    format!("Review:\n{code}")
}

/// A note.
#[mcp::resource("notes://{id}", title = "Note", mime_type = "text/plain")]
fn note(id: u32) -> String {
    format!("note {id}")
}

fn server() -> Server {
    Server::builder("revisions", "1.0.0")
        .title("Revisions")
        .tool::<mirror>()
        .tool::<link>()
        .tool::<hello>()
        .prompt::<review>()
        .resource::<note>()
        .build()
}

async fn session(version: &str, capabilities: Value) -> (Arc<RawClient>, Value) {
    let client = Arc::new(mcp::client::in_process(&server()));
    let init = client
        .request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "pinned", "version": "1"}}),
        )
        .await
        .unwrap_or_else(|e| panic!("initialize {version}: {e:?}"));
    (client, init)
}

async fn call(client: &RawClient, method: &str, params: Value) -> Value {
    client.request(method, params).await.unwrap_or_else(|e| panic!("{method}: {e:?}"))
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    keys.sort_unstable();
    keys
}

#[tokio::test]
async fn initialize_answers_with_the_clients_revision() {
    for version in REVISIONS {
        let (_client, init) = session(version, json!({})).await;
        assert_eq!(init["protocolVersion"], version);
        assert_valid(version, "InitializeResult", &init);
        let title = init["serverInfo"].get("title");
        assert_eq!(title.is_some(), version >= "2025-06-18", "{version}: serverInfo.title");
    }
}

/// The `completions` capability is 2025-03-26.
#[tokio::test]
async fn capabilities_are_those_of_the_revision() {
    let server = Server::builder("completing", "1.0.0")
        .on_complete(|_ctx, _params| async { Ok(mcp::protocol::CompleteResult::default()) })
        .build();
    for version in REVISIONS {
        let client = mcp::client::in_process(&server);
        let init = client
            .request(
                "initialize",
                json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
            )
            .await
            .unwrap_or_else(|e| panic!("initialize {version}: {e:?}"));
        assert_valid(version, "InitializeResult", &init);
        assert_eq!(init["capabilities"].get("completions").is_some(), version >= "2025-03-26", "{version}: {init}");
        assert!(init["capabilities"].get("logging").is_some(), "{version}");
    }
}

#[tokio::test]
async fn listed_items_keep_only_the_fields_of_the_revision() {
    for version in REVISIONS {
        let (client, _) = session(version, json!({})).await;
        let tools = call(&client, "tools/list", json!({})).await;
        assert_valid(version, "ListToolsResult", &tools);
        let mirror = tools["tools"].as_array().and_then(|t| t.iter().find(|t| t["name"] == "mirror")).cloned();
        let mirror = mirror.unwrap_or_else(|| panic!("{version}: mirror not listed: {tools}"));
        let expected: &[&str] = match version {
            "2024-11-05" => &["description", "inputSchema", "name"],
            "2025-03-26" => &["annotations", "description", "inputSchema", "name"],
            "2025-06-18" => &["annotations", "description", "inputSchema", "name", "outputSchema", "title"],
            _ => &["annotations", "description", "icons", "inputSchema", "name", "outputSchema", "title"],
        };
        assert_eq!(keys(&mirror), expected, "{version}: tools/list entry");

        let prompts = call(&client, "prompts/list", json!({})).await;
        assert_valid(version, "ListPromptsResult", &prompts);
        assert_eq!(prompts["prompts"][0].get("title").is_some(), version >= "2025-06-18", "{version}: prompt title");

        let templates = call(&client, "resources/templates/list", json!({})).await;
        assert_valid(version, "ListResourceTemplatesResult", &templates);
        let template = &templates["resourceTemplates"][0];
        assert_eq!(template.get("title").is_some(), version >= "2025-06-18", "{version}: template title");
        assert_eq!(template["uriTemplate"], "notes://{id}");
    }
}

#[tokio::test]
async fn tool_results_keep_only_the_content_of_the_revision() {
    for version in REVISIONS {
        let (client, _) = session(version, json!({})).await;
        let mirrored =
            call(&client, "tools/call", json!({"name": "mirror", "arguments": {"point": {"x": 1, "y": 2}}})).await;
        assert_valid(version, "CallToolResult", &mirrored);
        let text = mirrored["content"][0]["text"].as_str().unwrap_or_default();
        assert_eq!(serde_json::from_str::<Value>(text).ok(), Some(json!({"x": -1, "y": -2})), "{version}");
        assert_eq!(
            mirrored.get("structuredContent").is_some(),
            version >= "2025-06-18",
            "{version}: structuredContent"
        );

        let linked = call(&client, "tools/call", json!({"name": "link"})).await;
        assert_valid(version, "CallToolResult", &linked);
        let second = &linked["content"][1];
        if version >= "2025-06-18" {
            assert_eq!(second["type"], "resource_link", "{version}");
        } else {
            assert_eq!(second, &json!({"type": "text", "text": "notes: file:///notes.txt"}), "{version}");
        }

        let read = call(&client, "resources/read", json!({"uri": "notes://7"})).await;
        assert_valid(version, "ReadResourceResult", &read);
        assert_eq!(read["contents"][0]["text"], "note 7");

        let prompt = call(&client, "prompts/get", json!({"name": "review", "arguments": {"code": "x"}})).await;
        assert_valid(version, "GetPromptResult", &prompt);
    }
}

/// Elicitation is 2025-06-18: an older session never receives `elicitation/create`, even
/// from a client that (wrongly) declares it; the call fails with an error saying why.
#[tokio::test]
async fn elicitation_is_never_sent_before_2025_06_18() {
    for version in REVISIONS {
        let (client, _) = session(version, json!({"elicitation": {}})).await;
        let caller = Arc::clone(&client);
        let pending = tokio::spawn(async move { caller.request("tools/call", json!({"name": "hello"})).await });
        if version >= "2025-06-18" {
            let Some(JsonRpcMessage::Request(ask)) = client.next_message().await else {
                panic!("{version}: expected elicitation/create")
            };
            assert_eq!(ask.method, "elicitation/create", "{version}");
            client.respond(ask.id, json!({"action": "accept", "content": {"name": "Ada"}})).await;
        }
        let result = pending.await.unwrap_or_else(|e| panic!("join: {e}"));
        if version >= "2025-06-18" {
            let result = result.unwrap_or_else(|e| panic!("{version}: tools/call: {e:?}"));
            assert_eq!(result["content"][0]["text"], "hello Ada", "{version}");
        } else {
            let error = result.expect_err("no elicitation in this revision");
            assert_eq!(error.code, -32603, "{version}");
            assert_eq!(
                error.message,
                format!("protocol {version} has no elicitation; the client would not understand it")
            );
        }
    }
}
