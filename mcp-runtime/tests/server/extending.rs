//! What a server adds to MCP: custom request methods (both eras, in process and over
//! loopback HTTP), `capabilities.extensions`, and tools built at run time next to
//! `#[mcp::tool]` items (listed, called, added and removed while serving, behind the
//! sealing and limits layers).

use std::time::Duration;

use mcp::Server;
use mcp::items::{AddToolError, BuildProblem, DynamicTool, ItemKind};
use mcp::protocol::{CallToolOutcome, CallToolResult, InputRequiredResult, JsonRpcMessage, Tool};
use mcp::serve::http::HttpConfig;
use mcp_testkit::http::{self, modern_headers};
use mcp_testkit::spec::{LEGACY, MODERN, assert_valid};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::support::legacy_http::{initialize, legacy_headers};
use crate::support::{meta, within};

#[derive(Deserialize)]
struct Lookup {
    sku: String,
    #[serde(default)]
    warehouse: Option<String>,
}

#[derive(Serialize)]
struct Stock {
    sku: String,
    count: u32,
    era: &'static str,
}

/// A server with two custom methods and one declared extension.
fn vendor_server() -> Server {
    Server::builder("warehouse", "1.0.0")
        .method("acme/stock", |ctx, p: Lookup| async move {
            let count = if p.warehouse.as_deref() == Some("north") { 7 } else { 3 };
            Ok(Stock { sku: p.sku, count, era: if ctx.is_legacy() { "legacy" } else { "modern" } })
        })
        .method("acme/ping", |_ctx, (): ()| async { Ok(json!({"pong": true})) })
        .extension("com.acme/stock", json!({"units": "boxes"}))
        .extension("io.modelcontextprotocol/ui", json!({}))
        .build()
}

fn legacy_init() -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
}

/// Add two numbers.
#[mcp::tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn echo_tool(name: &str) -> DynamicTool {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let label = name.to_owned();
    DynamicTool::new(Tool::new(name, "Echo the text back.", schema), move |_ctx, params| {
        let label = label.clone();
        async move {
            let text = params.arguments.as_ref().and_then(|a| a.get("text")).and_then(Value::as_str);
            Ok(CallToolResult::text(format!("{label}: {}", text.unwrap_or_default())))
        }
    })
}

fn tool_names(list: &Value) -> Vec<String> {
    list["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect()
}

#[tokio::test]
async fn a_custom_method_answers_in_the_2026_era() {
    let client = mcp::client::in_process(&vendor_server());
    let params = json!({"_meta": meta(&json!({})), "sku": "A-1", "warehouse": "north"});
    let result = within("acme/stock", client.request("acme/stock", params)).await.expect("served");
    assert_eq!((result["sku"].clone(), result["count"].clone()), (json!("A-1"), json!(7)));
    assert_eq!(result["era"], "modern");
    assert_eq!(result["resultType"], "complete", "finished like any 2026-07-28 result");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "warehouse");
    let pong = within("acme/ping", client.request("acme/ping", json!({"_meta": meta(&json!({}))}))).await;
    assert_eq!(pong.expect("a method without params")["pong"], true);
}

#[tokio::test]
async fn a_custom_method_answers_in_a_legacy_session() {
    let client = mcp::client::in_process(&vendor_server());
    within("initialize", client.request("initialize", legacy_init())).await.expect("initialized");
    let result = within("acme/stock", client.request("acme/stock", json!({"sku": "B-2"}))).await.expect("served");
    assert_eq!(result, json!({"sku": "B-2", "count": 3, "era": "legacy"}), "no 2026-07-28 fields in legacy");
    let pong = within("acme/ping", client.request("acme/ping", json!({}))).await.expect("no params");
    assert_eq!(pong, json!({"pong": true}));
}

#[tokio::test]
async fn a_custom_method_needs_the_2026_meta_without_a_session() {
    let client = mcp::client::in_process(&vendor_server());
    let error = within("no _meta", client.request("acme/stock", json!({"sku": "A-1"}))).await.expect_err("refused");
    assert_eq!((error.code, error.message.as_str()), (-32602, "Invalid params: missing required _meta"));
}

#[tokio::test]
async fn custom_method_params_that_do_not_decode_are_invalid_params() {
    let client = mcp::client::in_process(&vendor_server());
    let missing = client.request("acme/stock", json!({"_meta": meta(&json!({})), "warehouse": "north"}));
    let error = within("missing sku", missing).await.expect_err("refused");
    assert_eq!(error.code, -32602);
    assert!(error.message.starts_with("Invalid params for `acme/stock`: missing field `sku`"), "{}", error.message);
    let wrong = client.request("acme/stock", json!({"_meta": meta(&json!({})), "sku": 5}));
    let error = within("numeric sku", wrong).await.expect_err("refused");
    assert_eq!(error.code, -32602);
    assert!(
        error.message.starts_with("Invalid params for `acme/stock`: invalid type: integer `5`"),
        "{}",
        error.message
    );
    let extra = client.request("acme/ping", json!({"_meta": meta(&json!({})), "unexpected": 1}));
    let error = within("params for a method without", extra).await.expect_err("refused");
    assert_eq!(error.code, -32602, "{}", error.message);
}

#[tokio::test]
async fn unknown_methods_are_still_method_not_found() {
    let client = mcp::client::in_process(&vendor_server());
    let error = within("acme/unknown", client.request("acme/unknown", json!({"_meta": meta(&json!({}))}))).await;
    let error = error.expect_err("not registered");
    assert_eq!((error.code, error.message.as_str()), (-32601, "Method not found: acme/unknown"));
    within("initialize", client.request("initialize", legacy_init())).await.expect("initialized");
    let error = within("legacy unknown", client.request("acme/unknown", json!({}))).await.expect_err("unknown");
    assert_eq!(error.code, -32601);
}

#[tokio::test]
async fn custom_methods_answer_over_http_in_both_eras() {
    let addr = http::serve(&vendor_server(), HttpConfig::default()).await;
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "acme/stock",
        "params": {"_meta": meta(&json!({})), "sku": "H-1"}});
    let reply = http::post(addr, &modern_headers("acme/stock", None), &message).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    let body = reply.json();
    assert_eq!((body["result"]["sku"].clone(), body["result"]["era"].clone()), (json!("H-1"), json!("modern")));

    let session = initialize(addr, json!({})).await;
    let message = json!({"jsonrpc": "2.0", "id": 2, "method": "acme/stock", "params": {"sku": "H-2"}});
    let reply = http::post(addr, &legacy_headers(Some(&session)), &message).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert_eq!(reply.json()["result"], json!({"sku": "H-2", "count": 3, "era": "legacy"}));
}

#[test]
fn built_in_names_and_duplicates_are_build_problems() {
    let noop = |_ctx, _p: Value| async { Ok(json!({})) };
    let error = Server::builder("clash", "1.0.0")
        .method("tools/list", noop)
        .method("initialize", noop)
        .method("notifications/acme", noop)
        .method("rpc.acme", noop)
        .method("acme/once", noop)
        .method("acme/once", noop)
        .try_build()
        .expect_err("refused");
    let methods: Vec<&str> = error
        .problems()
        .iter()
        .filter_map(|p| match p {
            BuildProblem::InvalidMethod { method, .. } => Some(method.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(methods, ["tools/list", "initialize", "notifications/acme", "rpc.acme"]);
    assert!(error.problems().contains(&BuildProblem::Duplicate { kind: ItemKind::Method, name: "acme/once".into() }));
    assert_eq!(error.problems().len(), 5, "{error}");
    let text = error.to_string();
    assert!(
        text.contains("custom method `tools/list`: it is a built-in MCP method; give yours a vendor prefix"),
        "{text}"
    );
    assert!(text.contains("two methods are named `acme/once`; method names must be unique"), "{text}");
}

#[test]
fn invalid_extensions_are_build_problems() {
    let error = Server::builder("ext", "1.0.0")
        .extension("no-prefix", json!({}))
        .extension("com.acme/list", json!([1, 2]))
        .extension("com.acme/twice", json!({}))
        .extension("com.acme/twice", json!({"again": true}))
        .try_build()
        .expect_err("refused");
    let problems = error.problems();
    assert!(matches!(&problems[0], BuildProblem::InvalidExtension { id, .. } if id == "no-prefix"), "{error}");
    assert!(
        matches!(&problems[1], BuildProblem::InvalidExtension { id, reason }
        if id == "com.acme/list" && reason.contains("must be a JSON object")),
        "{error}"
    );
    assert_eq!(problems[2], BuildProblem::Duplicate { kind: ItemKind::Extension, name: "com.acme/twice".into() });
    assert_eq!(problems.len(), 3);
}

#[tokio::test]
async fn extensions_show_in_discover_and_initialize() {
    let expected = json!({"com.acme/stock": {"units": "boxes"}, "io.modelcontextprotocol/ui": {}});
    let client = mcp::client::in_process(&vendor_server());
    let discover = within("discover", client.request("server/discover", json!({"_meta": meta(&json!({}))}))).await;
    let discover = discover.expect("discovered");
    assert_valid(MODERN, "DiscoverResult", &discover);
    assert_eq!(discover["capabilities"]["extensions"], expected);

    let init = within("initialize", client.request("initialize", legacy_init())).await.expect("initialized");
    assert_valid(LEGACY, "InitializeResult", &init);
    assert_eq!(init["capabilities"]["extensions"], expected);

    let plain = Server::builder("plain", "1.0.0").build();
    assert!(plain.capabilities().extensions.is_none(), "no extensions: no field");
}

#[tokio::test]
async fn a_dynamic_tool_is_listed_and_called_next_to_a_macro_tool() {
    let server = Server::builder("mixed", "1.0.0").tool::<add>().dynamic_tool(echo_tool("echo")).build();
    let client = mcp::client::in_process(&server);
    let list = within("tools/list", client.request("tools/list", json!({"_meta": meta(&json!({}))}))).await;
    let list = list.expect("listed");
    assert_valid(MODERN, "ListToolsResult", &list);
    assert_eq!(tool_names(&list), ["add", "echo"]);
    let call = |name: &str, arguments: Value| json!({"_meta": meta(&json!({})), "name": name, "arguments": arguments});
    let sum = within("add", client.request("tools/call", call("add", json!({"a": 2, "b": 3})))).await.expect("add");
    assert_eq!(sum["structuredContent"], json!({"result": 5}));
    let echo = within("echo", client.request("tools/call", call("echo", json!({"text": "hi"})))).await.expect("echo");
    assert_eq!(echo["content"][0]["text"], "echo: hi");

    within("initialize", client.request("initialize", legacy_init())).await.expect("initialized");
    let legacy = within("legacy list", client.request("tools/list", json!({}))).await.expect("listed");
    assert_eq!(tool_names(&legacy), ["add", "echo"]);
    let legacy_call = json!({"name": "echo", "arguments": {"text": "old"}});
    let echo = within("legacy echo", client.request("tools/call", legacy_call)).await.expect("echo");
    assert_eq!(echo["content"][0]["text"], "echo: old");
}

/// A macro tool's `_meta` is read once in 2026-07-28 (by dispatch, into the tool's
/// context) and still checked in a legacy session, where nothing else reads it.
#[tokio::test]
async fn a_macro_tool_call_checks_its_meta_in_both_eras() {
    let server = Server::builder("meta-check", "1.0.0").tool::<add>().build();
    let client = mcp::client::in_process(&server);
    let arguments = json!({"a": 1, "b": 2});
    let mut sent = meta(&json!({}));
    sent["io.example/vendor"] = json!({"nested": [1, null]});
    sent["progressToken"] = json!(3);
    let call = json!({"_meta": sent, "name": "add", "arguments": arguments});
    let sum = within("add", client.request("tools/call", call)).await.expect("add");
    assert_eq!(sum["structuredContent"], json!({"result": 3}));
    let mut odd = meta(&json!({}));
    odd["progressToken"] = json!({"not": "a token"});
    let call = json!({"_meta": odd, "name": "add", "arguments": arguments});
    let error = within("odd token", client.request("tools/call", call)).await.expect_err("refused");
    assert_eq!(error.code, -32602, "{}", error.message);

    within("initialize", client.request("initialize", legacy_init())).await.expect("initialized");
    let call = json!({"_meta": "x", "name": "add", "arguments": arguments});
    let error = within("legacy odd _meta", client.request("tools/call", call)).await.expect_err("refused");
    assert_eq!(error.code, -32602, "{}", error.message);
    let call = json!({"_meta": {"progressToken": "t"}, "name": "add", "arguments": arguments});
    let sum = within("legacy add", client.request("tools/call", call)).await.expect("add");
    assert_eq!(sum["structuredContent"], json!({"result": 3}));
}

#[tokio::test]
async fn tools_added_and_removed_while_serving_notify_listeners() {
    let server = Server::builder("growing", "1.0.0").tool::<add>().build();
    let client = mcp::client::in_process(&server);
    let listen = json!({"_meta": meta(&json!({})), "notifications": {"toolsListChanged": true}});
    let _stream = client.start_request(client.next_id(), "subscriptions/listen", listen).await;
    let next_notification = || async {
        match within("a notification", client.next_message()).await {
            Some(JsonRpcMessage::Notification(n)) => n.method,
            other => panic!("expected a notification, got {other:?}"),
        }
    };
    assert_eq!(next_notification().await, "notifications/subscriptions/acknowledged");

    let list = || async {
        let list = within("tools/list", client.request("tools/list", json!({"_meta": meta(&json!({}))}))).await;
        tool_names(&list.expect("listed"))
    };
    assert_eq!(list().await, ["add"], "the first list is encoded and cached");
    let generation = server.tools_generation();
    server.add_tool(echo_tool("echo")).expect("a free name");
    assert_eq!(next_notification().await, "notifications/tools/list_changed");
    assert_eq!(server.tools_generation(), generation + 1);
    assert_eq!(list().await, ["add", "echo"], "the cached list was dropped");
    let call = json!({"_meta": meta(&json!({})), "name": "echo", "arguments": {"text": "new"}});
    let echo = within("echo", client.request("tools/call", call.clone())).await.expect("echo");
    assert_eq!(echo["content"][0]["text"], "echo: new");

    assert!(server.set_tool_enabled("echo", false), "the switch covers dynamic tools too");
    assert_eq!(next_notification().await, "notifications/tools/list_changed");
    assert_eq!(list().await, ["add"]);
    assert!(server.set_tool_enabled("echo", true));
    assert_eq!(next_notification().await, "notifications/tools/list_changed");

    assert!(server.remove_tool("echo"));
    assert_eq!(next_notification().await, "notifications/tools/list_changed");
    assert_eq!(server.tools_generation(), generation + 4);
    assert_eq!(list().await, ["add"]);
    let gone = within("removed echo", client.request("tools/call", call)).await.expect_err("removed");
    assert_eq!(gone.code, -32602, "{}", gone.message);
    assert!(!server.remove_tool("echo"), "already gone");
    assert!(!server.remove_tool("add"), "macro tools are switched off, not removed");
    assert_eq!(server.tools_generation(), generation + 4, "nothing changed, nothing announced");
}

#[tokio::test]
async fn a_handler_can_add_a_tool_through_its_context() {
    let grow = DynamicTool::new(
        Tool::new("grow", "Add the echo tool.", json!({"type": "object"})),
        |ctx, _params| async move {
            match ctx.request().server().add_tool(echo_tool("echo")) {
                Ok(()) => Ok(CallToolResult::text("added")),
                Err(e) => Ok(CallToolResult::text(e.to_string())),
            }
        },
    );
    let server = Server::builder("self-growing", "1.0.0").dynamic_tool(grow).build();
    let client = mcp::client::in_process(&server);
    let call = json!({"_meta": meta(&json!({})), "name": "grow", "arguments": {}});
    let first = within("grow", client.request("tools/call", call.clone())).await.expect("grew");
    assert_eq!(first["content"][0]["text"], "added");
    let second = within("grow again", client.request("tools/call", call)).await.expect("answered");
    assert_eq!(second["content"][0]["text"], "a tool named `echo` is already registered");
}

#[test]
fn name_clashes_are_errors_not_panics() {
    let server = Server::builder("clash", "1.0.0").tool::<add>().dynamic_tool(echo_tool("echo")).build();
    assert_eq!(server.add_tool(echo_tool("add")), Err(AddToolError::NameTaken("add".into())));
    assert_eq!(server.add_tool(echo_tool("echo")), Err(AddToolError::NameTaken("echo".into())));
    assert_eq!(server.tools_generation(), 0, "a refused add announces nothing");

    let error = Server::builder("clash", "1.0.0")
        .tool::<add>()
        .dynamic_tool(echo_tool("add"))
        .dynamic_tool(echo_tool("echo"))
        .dynamic_tool(echo_tool("echo"))
        .try_build()
        .expect_err("refused");
    let duplicate = |name: &str| BuildProblem::Duplicate { kind: ItemKind::Tool, name: name.into() };
    assert_eq!(error.problems(), [duplicate("add"), duplicate("echo")]);
}

#[test]
fn adding_needs_a_tool_registry() {
    let low_level = Server::builder("manual", "1.0.0")
        .on_call_tool(|_ctx, _params| async { Ok(CallToolResult::text("manual").into()) })
        .build();
    assert_eq!(low_level.add_tool(echo_tool("echo")), Err(AddToolError::NoRegistry("echo".into())));
    let bare = Server::builder("bare", "1.0.0").build();
    assert!(bare.capabilities().tools.is_none());
    assert!(matches!(bare.add_tool(echo_tool("echo")), Err(AddToolError::NoRegistry(_))));
    let error = Server::builder("mixed", "1.0.0")
        .dynamic_tool(echo_tool("echo"))
        .on_list_tools(|_ctx, _params| async { Ok(mcp::protocol::ListToolsResult::new(vec![])) })
        .try_build()
        .expect_err("refused");
    assert!(matches!(error.problems(), [BuildProblem::MixedRegistration { what: "tools", .. }]), "{error}");
}

#[tokio::test]
async fn a_server_built_empty_serves_tools_added_later() {
    let server = Server::builder("empty", "1.0.0").allow_dynamic_tools().build();
    let client = mcp::client::in_process(&server);
    let list = within("empty list", client.request("tools/list", json!({"_meta": meta(&json!({}))}))).await;
    assert_eq!(tool_names(&list.expect("listed")), Vec::<String>::new());
    server.add_tool(echo_tool("echo")).expect("added");
    let list = within("list", client.request("tools/list", json!({"_meta": meta(&json!({}))}))).await;
    assert_eq!(tool_names(&list.expect("listed")), ["echo"]);
}

#[tokio::test]
async fn dynamic_tools_run_behind_sealing_and_limits() {
    let stateful =
        DynamicTool::new(Tool::new("stateful", "Round trip.", json!({"type": "object"})), |ctx, _p| async move {
            let outcome: CallToolOutcome = match ctx.request_state() {
                None => InputRequiredResult::state_only("step-1").into(),
                Some(state) => CallToolResult::text(format!("resumed from {state}")).into(),
            };
            Ok(outcome)
        });
    let slow = DynamicTool::new(Tool::new("slow", "Too slow.", json!({"type": "object"})), |_ctx, _p| async {
        tokio::time::sleep(Duration::from_secs(5)).await;
        Ok(CallToolResult::text("late"))
    });
    let limits = mcp::limits::Limits::default().handler_timeout(Some(Duration::from_millis(50)));
    let server = Server::builder("layered", "1.0.0").dynamic_tool(stateful).dynamic_tool(slow).limits(limits).build();
    let client = mcp::client::in_process(&server);

    let call = json!({"_meta": meta(&json!({})), "name": "stateful", "arguments": {}});
    let first = within("first round", client.request("tools/call", call.clone())).await.expect("input required");
    assert_eq!(first["resultType"], "input_required");
    let sealed = first["requestState"].as_str().expect("a state").to_owned();
    assert_ne!(sealed, "step-1", "the state crossed the wire sealed");
    let mut retry = call.clone();
    retry["requestState"] = json!(sealed);
    let done = within("second round", client.request("tools/call", retry)).await.expect("completed");
    assert_eq!(done["content"][0]["text"], "resumed from step-1");
    let mut forged = call;
    forged["requestState"] = json!("step-1");
    let error = within("forged state", client.request("tools/call", forged)).await.expect_err("refused");
    assert_eq!(error.code, -32602, "{}", error.message);

    let slow = json!({"_meta": meta(&json!({})), "name": "slow", "arguments": {}});
    let error = within("slow", client.request("tools/call", slow)).await.expect_err("timed out");
    assert_eq!(error.code, -32001, "{}", error.message);
}

/// A 2026-07-28 `tools/call` hands the tool its `_meta` as `params.meta`: exactly what
/// decoding the `_meta` that was sent gives, reserved and extra keys. The request's context
/// decodes the reserved keys too (to check them); this pins `params.meta` for any change
/// that would share that work between the two.
#[tokio::test]
async fn a_tool_sees_the_meta_that_was_sent() {
    let report =
        DynamicTool::new(Tool::new("meta", "Report _meta.", json!({"type": "object"})), |_ctx, params| async move {
            let meta = serde_json::to_string(&params.meta).expect("meta encodes");
            Ok(CallToolResult::text(meta))
        });
    let server = Server::builder("meta", "1.0.0").dynamic_tool(report).build();
    let client = mcp::client::in_process(&server);
    let mut sent = meta(&json!({"elicitation": {"form": {}}, "extensions": {"io.example/x": {"v": 1}}}));
    sent["io.modelcontextprotocol/clientInfo"] = json!({"name": "tester", "version": "9.1", "title": "T"});
    sent["io.modelcontextprotocol/logLevel"] = json!("warning");
    sent["progressToken"] = json!("p-7");
    sent["traceparent"] = json!("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    sent["io.example/vendor"] = json!({"nested": [1, 2.5, null]});
    let expected: mcp::protocol::RequestMeta = serde_json::from_value(sent.clone()).expect("valid _meta");
    let call = json!({"_meta": sent, "name": "meta", "arguments": {}});
    let result = within("meta", client.request("tools/call", call)).await.expect("called");
    let text = result["content"][0]["text"].as_str().expect("text");
    let seen: Option<mcp::protocol::RequestMeta> = serde_json::from_str(text).expect("meta decodes");
    assert_eq!(seen, Some(expected));
    // The same with only the required keys.
    let call = json!({"_meta": meta(&json!({})), "name": "meta", "arguments": {}});
    let result = within("meta", client.request("tools/call", call)).await.expect("called");
    let seen: Option<mcp::protocol::RequestMeta> =
        serde_json::from_str(result["content"][0]["text"].as_str().expect("text")).expect("meta decodes");
    let seen = seen.expect("a _meta");
    assert!(seen.client_info.is_none() && seen.log_level.is_none() && seen.progress_token.is_none(), "{seen:?}");
    assert_eq!(seen.protocol_version.as_deref(), Some("2026-07-28"));
    assert!(seen.other.is_empty(), "{:?}", seen.other);
}
