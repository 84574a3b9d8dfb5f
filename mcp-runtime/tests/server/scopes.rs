//! Scopes per item (`scopes = [...]`): enforced before the item (or any of its resolvers)
//! runs, failing closed without an authenticated caller, collected for `scopes_supported`,
//! and optionally hidden from the lists of callers that lack them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp::handler::AuthInfo;
use mcp::items::DynamicTool;
use mcp::protocol::{CallToolResult, ErrorCode, Tool};
use mcp::resolve::Elicit;
use mcp::{Resolve, Server};
use serde_json::{Value, json};

use crate::support::{dispatch_as, meta};

/// The rows written, by every test of this file (they run at once: count your own row).
static WRITES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
static ASKED: AtomicUsize = AtomicUsize::new(0);
static CONFIRMED: AtomicUsize = AtomicUsize::new(0);

/// Writes to the database.
#[mcp::tool(scopes = ["db:write"])]
fn write_row(row: String) -> String {
    let reply = format!("wrote {row}");
    WRITES.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(row);
    reply
}

/// How many times `row` was written.
fn writes_of(row: &str) -> usize {
    WRITES.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().filter(|r| *r == row).count()
}

/// Needs two scopes at once.
#[mcp::tool(scopes = ["db:read", "db:admin"])]
fn vacuum() -> String {
    "vacuumed".into()
}

/// No scopes: open to everyone.
#[mcp::tool]
fn ping_db() -> String {
    "pong".into()
}

#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Confirm {
    /// Really drop it?
    ok: bool,
}

#[mcp::resolver]
fn ask_confirm() -> Elicit<Confirm> {
    ASKED.fetch_add(1, Ordering::SeqCst);
    Elicit::new("Drop the table?")
}

/// Asks before dropping: a scoped tool with a resolver.
#[mcp::tool(scopes = ["db:admin"])]
fn drop_table(confirm: Resolve<ask_confirm>) -> String {
    CONFIRMED.fetch_add(1, Ordering::SeqCst);
    format!("dropped: {}", confirm.ok)
}

/// A scoped prompt.
#[mcp::prompt(scopes = ["db:read"])]
fn briefing() -> String {
    "Summarise the database.".into()
}

/// A scoped static resource.
#[mcp::resource("db://main/config", scopes = ["db:read"])]
fn config() -> String {
    "max_connections = 10".into()
}

fn table_names(typed: &str) -> Vec<String> {
    ["users", "orders"].into_iter().filter(|t| t.starts_with(typed)).map(str::to_owned).collect()
}

/// A scoped resource template, with a completer.
#[mcp::resource("db://{name}/rows", scopes = ["db:read"])]
fn rows(#[mcp(complete = table_names)] name: String) -> String {
    format!("rows of {name}")
}

fn server(hide: bool) -> Server {
    Server::builder("scoped", "1.0.0")
        .tool::<write_row>()
        .tool::<vacuum>()
        .tool::<ping_db>()
        .tool::<drop_table>()
        .prompt::<briefing>()
        .resource::<config>()
        .resource::<rows>()
        .hide_unauthorized_items(hide)
        .build()
}

fn caller(scopes: &[&str]) -> Arc<AuthInfo> {
    Arc::new(AuthInfo {
        client_id: "client".into(),
        subject: Some("alice".into()),
        scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
        ..AuthInfo::default()
    })
}

async fn send(server: &Server, method: &str, params: Value, auth: Option<Arc<AuthInfo>>) -> Result<Value, mcp::Error> {
    let mut params = params;
    params["_meta"] = meta(&json!({"elicitation": {}}));
    dispatch_as(server, method, params, auth).await
}

fn assert_insufficient(result: Result<Value, mcp::Error>, required: &[&str]) {
    let error = result.expect_err("the call should be refused");
    assert_eq!(error.code, ErrorCode::INSUFFICIENT_SCOPE);
    assert_eq!(error.message, format!("Insufficient scope: requires {}", required.join(" ")));
    assert_eq!(error.data, Some(json!({ "requiredScopes": required })));
}

fn names(list: &Value, key: &str, field: &str) -> Vec<String> {
    let items = list[key].as_array().unwrap_or_else(|| panic!("no {key} in {list}"));
    items.iter().map(|i| i[field].as_str().unwrap_or_default().to_owned()).collect()
}

#[tokio::test]
async fn a_tool_runs_only_for_a_caller_holding_its_scopes() {
    let server = server(false);
    // A row no other test writes: the tests of this file run at once.
    let call = json!({"name": "write_row", "arguments": {"row": "r1"}});
    let before = writes_of("r1");

    let refused = send(&server, "tools/call", call.clone(), Some(caller(&["db:read"]))).await;
    assert_insufficient(refused, &["db:write"]);
    assert_eq!(writes_of("r1"), before, "the handler must not run");

    let result = send(&server, "tools/call", call, Some(caller(&["db:read", "db:write"]))).await.expect("allowed");
    assert_eq!(result["content"][0]["text"], "wrote r1");
    assert_eq!(writes_of("r1"), before + 1);
}

#[tokio::test]
async fn every_declared_scope_is_required_and_all_are_named_in_the_refusal() {
    let server = server(false);
    let call = json!({"name": "vacuum", "arguments": {}});
    assert_insufficient(
        send(&server, "tools/call", call.clone(), Some(caller(&["db:read"]))).await,
        &["db:read", "db:admin"],
    );
    // Scopes compare exactly: case matters and no scope implies another.
    assert_insufficient(
        send(&server, "tools/call", call.clone(), Some(caller(&["DB:READ", "db:admin"]))).await,
        &["db:read", "db:admin"],
    );
    let result = send(&server, "tools/call", call, Some(caller(&["db:admin", "db:read"]))).await.expect("allowed");
    assert_eq!(result["content"][0]["text"], "vacuumed");
}

#[tokio::test]
async fn without_an_authenticated_caller_scoped_items_are_refused_and_others_served() {
    let server = server(false);
    let refused = send(&server, "tools/call", json!({"name": "write_row", "arguments": {"row": "r"}}), None).await;
    assert_insufficient(refused, &["db:write"]);
    let open = send(&server, "tools/call", json!({"name": "ping_db", "arguments": {}}), None).await.expect("open");
    assert_eq!(open["content"][0]["text"], "pong");
}

#[tokio::test]
async fn allowing_scoped_items_without_auth_opens_them_only_to_unauthenticated_requests() {
    let server = Server::builder("scoped", "1.0.0")
        .tool::<write_row>()
        .prompt::<briefing>()
        .allow_scoped_items_without_auth(true)
        .hide_unauthorized_items(true)
        .build();
    let call = json!({"name": "write_row", "arguments": {"row": "open"}});
    let result = send(&server, "tools/call", call.clone(), None).await.expect("no auth at all: allowed");
    assert_eq!(result["content"][0]["text"], "wrote open");
    let listed = send(&server, "tools/list", json!({}), None).await.expect("list");
    assert_eq!(names(&listed, "tools", "name"), ["write_row"]);

    // An authenticated caller is still held to the item's scopes.
    assert_insufficient(send(&server, "tools/call", call, Some(caller(&["db:read"]))).await, &["db:write"]);
    let listed = send(&server, "tools/list", json!({}), Some(caller(&["db:read"]))).await.expect("list");
    assert!(names(&listed, "tools", "name").is_empty());
    assert_insufficient(
        send(&server, "prompts/get", json!({"name": "briefing"}), Some(caller(&[]))).await,
        &["db:read"],
    );
}

#[tokio::test]
async fn a_resolver_asks_nothing_when_the_scope_is_missing() {
    let server = server(false);
    let call = json!({"name": "drop_table", "arguments": {}});
    let (asked, confirmed) = (ASKED.load(Ordering::SeqCst), CONFIRMED.load(Ordering::SeqCst));

    assert_insufficient(send(&server, "tools/call", call.clone(), Some(caller(&["db:read"]))).await, &["db:admin"]);
    assert_insufficient(send(&server, "tools/call", call.clone(), None).await, &["db:admin"]);
    assert_eq!(ASKED.load(Ordering::SeqCst), asked, "no resolver may run");
    assert_eq!(CONFIRMED.load(Ordering::SeqCst), confirmed);

    // With the scope, the resolver asks its question.
    let result = send(&server, "tools/call", call, Some(caller(&["db:admin"]))).await.expect("a round");
    assert_eq!(result["resultType"], "input_required", "{result}");
    assert_eq!(ASKED.load(Ordering::SeqCst), asked + 1);
}

#[tokio::test]
async fn prompts_and_resources_are_checked_too() {
    let server = server(false);
    let reader = || Some(caller(&["db:read"]));
    let get = json!({"name": "briefing"});
    assert_insufficient(send(&server, "prompts/get", get.clone(), Some(caller(&[]))).await, &["db:read"]);
    let prompt = send(&server, "prompts/get", get, reader()).await.expect("allowed");
    assert_eq!(prompt["messages"][0]["content"]["text"], "Summarise the database.");

    for uri in ["db://main/config", "db://users/rows"] {
        let read = json!({"uri": uri});
        assert_insufficient(send(&server, "resources/read", read.clone(), None).await, &["db:read"]);
        let contents = send(&server, "resources/read", read, reader()).await.expect("allowed");
        assert_eq!(contents["contents"][0]["uri"], uri);
    }

    let complete =
        json!({"ref": {"type": "ref/resource", "uri": "db://{name}/rows"}, "argument": {"name": "name", "value": "u"}});
    assert_insufficient(send(&server, "completion/complete", complete.clone(), None).await, &["db:read"]);
    let completed = send(&server, "completion/complete", complete, reader()).await.expect("allowed");
    assert_eq!(completed["completion"]["values"], json!(["users"]));
}

#[tokio::test]
async fn declared_scopes_lists_every_items_scopes_once() {
    let expected = ["db:admin", "db:read", "db:write"];
    let builder = Server::builder("scoped", "1.0.0")
        .tool::<write_row>()
        .tool::<vacuum>()
        .tool::<ping_db>()
        .prompt::<briefing>()
        .resource::<rows>();
    assert_eq!(builder.declared_scopes(), expected);
    assert_eq!(server(false).declared_scopes(), expected);
    assert!(Server::builder("plain", "1.0.0").tool::<ping_db>().build().declared_scopes().is_empty());
}

#[tokio::test]
async fn scoped_items_are_listed_to_everyone_by_default() {
    let server = server(false);
    let tools = send(&server, "tools/list", json!({}), None).await.expect("tools");
    assert_eq!(names(&tools, "tools", "name").len(), 4);
    let prompts = send(&server, "prompts/list", json!({}), None).await.expect("prompts");
    assert_eq!(names(&prompts, "prompts", "name"), ["briefing"]);
}

#[tokio::test]
async fn hidden_items_are_listed_only_to_callers_holding_their_scopes() {
    let server = server(true);
    let list = |method: &'static str, auth: Option<Arc<AuthInfo>>| {
        let server = &server;
        async move { send(server, method, json!({}), auth).await.expect(method) }
    };

    let tools = list("tools/list", None).await;
    assert_eq!(names(&tools, "tools", "name"), ["ping_db"]);
    let tools = list("tools/list", Some(caller(&["db:write"]))).await;
    assert_eq!(names(&tools, "tools", "name"), ["write_row", "ping_db"]);
    let tools = list("tools/list", Some(caller(&["db:write", "db:read", "db:admin"]))).await;
    assert_eq!(names(&tools, "tools", "name"), ["write_row", "vacuum", "ping_db", "drop_table"]);

    assert!(names(&list("prompts/list", None).await, "prompts", "name").is_empty());
    assert!(names(&list("resources/list", None).await, "resources", "uri").is_empty());
    assert!(names(&list("resources/templates/list", None).await, "resourceTemplates", "uriTemplate").is_empty());
    let reader = || Some(caller(&["db:read"]));
    assert_eq!(names(&list("prompts/list", reader()).await, "prompts", "name"), ["briefing"]);
    assert_eq!(names(&list("resources/list", reader()).await, "resources", "uri"), ["db://main/config"]);
    let templates = list("resources/templates/list", reader()).await;
    assert_eq!(names(&templates, "resourceTemplates", "uriTemplate"), ["db://{name}/rows"]);

    // Hidden or not, the tool schemas the transports read are all there.
    assert_eq!(server.list_all_tools().await.expect("all tools").len(), 4);
}

/// A tool built at run time that needs `db:write`, counting its runs in `runs`.
fn dynamic_truncate(runs: Arc<AtomicUsize>) -> DynamicTool {
    let definition = Tool::new("truncate", "Empty a table.", json!({"type": "object"}));
    DynamicTool::new(definition, move |_ctx, _params| {
        let runs = Arc::clone(&runs);
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            Ok(CallToolResult::text("truncated"))
        }
    })
    .scopes(["db:write", "db:admin"])
}

#[tokio::test]
async fn a_dynamic_tool_runs_only_for_a_caller_holding_its_scopes() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("scoped", "1.0.0").dynamic_tool(dynamic_truncate(Arc::clone(&runs))).build();
    let call = json!({"name": "truncate", "arguments": {}});

    let refused = send(&server, "tools/call", call.clone(), Some(caller(&["db:write"]))).await;
    assert_insufficient(refused, &["db:write", "db:admin"]);
    assert_insufficient(send(&server, "tools/call", call.clone(), None).await, &["db:write", "db:admin"]);
    assert_eq!(runs.load(Ordering::SeqCst), 0, "the handler must not run");

    let result = send(&server, "tools/call", call, Some(caller(&["db:admin", "db:write"]))).await.expect("allowed");
    assert_eq!(result["content"][0]["text"], "truncated");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_dynamic_tools_scopes_are_declared_whether_registered_at_build_or_while_serving() {
    let runs = Arc::new(AtomicUsize::new(0));
    let builder =
        Server::builder("scoped", "1.0.0").tool::<write_row>().dynamic_tool(dynamic_truncate(Arc::clone(&runs)));
    assert_eq!(builder.declared_scopes(), ["db:admin", "db:write"]);
    assert_eq!(builder.build().declared_scopes(), ["db:admin", "db:write"]);

    let server = Server::builder("scoped", "1.0.0").tool::<ping_db>().allow_dynamic_tools().build();
    assert!(server.declared_scopes().is_empty());
    server.add_tool(dynamic_truncate(runs)).expect("added");
    assert_eq!(server.declared_scopes(), ["db:admin", "db:write"]);
    assert!(server.remove_tool("truncate"));
    assert!(server.declared_scopes().is_empty());
}

#[tokio::test]
async fn a_dynamic_tool_added_while_serving_is_hidden_from_callers_lacking_its_scopes() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("scoped", "1.0.0")
        .tool::<ping_db>()
        .allow_dynamic_tools()
        .hide_unauthorized_items(true)
        .build();
    server.add_tool(dynamic_truncate(Arc::clone(&runs))).expect("added");
    let tools = send(&server, "tools/list", json!({}), Some(caller(&["db:write"]))).await.expect("tools");
    assert_eq!(names(&tools, "tools", "name"), ["ping_db"]);
    let tools = send(&server, "tools/list", json!({}), Some(caller(&["db:write", "db:admin"]))).await.expect("tools");
    assert_eq!(names(&tools, "tools", "name"), ["ping_db", "truncate"]);

    // Listed to everyone by default, still refused.
    let open = Server::builder("scoped", "1.0.0").dynamic_tool(dynamic_truncate(Arc::clone(&runs))).build();
    let tools = send(&open, "tools/list", json!({}), None).await.expect("tools");
    assert_eq!(names(&tools, "tools", "name"), ["truncate"]);
}

#[test]
#[should_panic(expected = "is not an OAuth scope")]
fn a_dynamic_tool_scope_must_be_a_scope_token() {
    let _ = dynamic_truncate(Arc::new(AtomicUsize::new(0))).scopes(["db write"]);
}
