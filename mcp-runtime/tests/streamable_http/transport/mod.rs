//! The Streamable HTTP transport over a real socket: a server on 127.0.0.1 and an HTTP/1.1
//! client (hyper, or requests written by hand where the exact bytes matter).
//!
//! Each test starts its own server (a free port, its own handler probe), so tests run in
//! parallel without sharing state.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp::protocol::{
    CallToolOutcome, CallToolParams, CallToolResult, ElicitRequestParams, ElicitationSchema, InputRequest,
    InputRequiredResult, ListToolsResult, PrimitiveSchema, StringSchema, Tool,
};
use mcp::serve::http::HttpConfig;
use mcp::{Error, RequestContext, Server};
use mcp_testkit::http::{self, Headers, PATH, Reply};
use mcp_testkit::spec::{LEGACY, MODERN, assert_valid};
use mcp_testkit::stdio::modern_params;
use serde_json::{Value, json};

mod http_level;
mod legacy;
mod lifecycle;
mod modern;
mod sessions;

// ---------------------------------------------------------------------------------------
// The test server
// ---------------------------------------------------------------------------------------

/// What the `slow` tool's handler went through.
#[derive(Debug, Default)]
struct Probe {
    started: AtomicUsize,
    finished: AtomicUsize,
    dropped: AtomicUsize,
}

impl Probe {
    fn started(&self) -> usize {
        self.started.load(Ordering::SeqCst)
    }
    fn finished(&self) -> usize {
        self.finished.load(Ordering::SeqCst)
    }
    fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }
}

/// Counts the handler future as dropped unless it ran to the end.
struct DropWatch {
    probe: Arc<Probe>,
    finished: bool,
}

impl Drop for DropWatch {
    fn drop(&mut self) {
        if !self.finished {
            self.probe.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "echo",
            "Echo the text back.",
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        ),
        Tool::new(
            "region",
            "Echo the header-mirrored arguments.",
            json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "count": {"type": "integer", "x-mcp-header": "Count"},
            }}),
        ),
        Tool::new("progress", "Report progress three times.", json!({"type": "object"})),
        Tool::new(
            "slow",
            "Sleep for `ms` milliseconds.",
            json!({"type": "object", "properties": {"ms": {"type": "integer"}}}),
        ),
        Tool::new("ask", "Ask the user for a name.", json!({"type": "object"})),
    ]
}

fn ask_name() -> ElicitRequestParams {
    let schema = ElicitationSchema {
        properties: [("name".to_owned(), PrimitiveSchema::String(StringSchema::default()))].into(),
        required: Some(vec!["name".to_owned()]),
        ..Default::default()
    };
    ElicitRequestParams::form("What is your name?", schema)
}

async fn call_tool(probe: Arc<Probe>, ctx: RequestContext, params: CallToolParams) -> Result<CallToolOutcome, Error> {
    let args = params.arguments.clone().unwrap_or_default();
    let text = |t: String| Ok(CallToolResult::text(t).into());
    match params.name.as_str() {
        "echo" => text(args.get("text").and_then(Value::as_str).unwrap_or_default().to_owned()),
        "region" => {
            let region = args.get("region").cloned().unwrap_or(Value::Null);
            let count = args.get("count").cloned().unwrap_or(Value::Null);
            text(format!("region={region} count={count}"))
        }
        "progress" => {
            for step in 1..=3 {
                ctx.progress(f64::from(step), Some(3.0), Some(format!("step {step}"))).await;
            }
            text("done".to_owned())
        }
        "slow" => {
            let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(5_000);
            let mut watch = DropWatch { probe: Arc::clone(&probe), finished: false };
            probe.started.fetch_add(1, Ordering::SeqCst);
            ctx.progress(0.0, None, Some("started".to_owned())).await;
            tokio::time::sleep(Duration::from_millis(ms)).await;
            watch.finished = true;
            probe.finished.fetch_add(1, Ordering::SeqCst);
            text(format!("slept {ms} ms"))
        }
        "ask" if ctx.is_legacy() => {
            let answer = ctx.elicit(ask_name()).await?;
            let name = answer.content.as_ref().and_then(|c| c.get("name")).and_then(Value::as_str);
            text(format!("Hello, {}!", name.unwrap_or("stranger")))
        }
        "ask" => {
            let answer = params.input_responses.as_ref().and_then(|r| r.get("name")).and_then(|a| a.as_elicit());
            let name = answer.and_then(|a| a.content.as_ref()).and_then(|c| c.get("name")).and_then(Value::as_str);
            match name {
                Some(name) => text(format!("Hello, {name}!")),
                None => {
                    Ok(InputRequiredResult::ask("name", InputRequest::Elicit(ask_name())).with_state("ask-v1").into())
                }
            }
        }
        "peer" => text(ctx.peer_addr().map(|addr| addr.ip().to_string()).unwrap_or_default()),
        "panic" => panic!("a bug in a handler"),
        other => Err(Error::unknown_tool(other)),
    }
}

fn test_server() -> (Server, Arc<Probe>) {
    let probe = Arc::new(Probe::default());
    let handler_probe = Arc::clone(&probe);
    let server = Server::builder("http-transport-test", "1.0.0")
        .on_list_tools(|_ctx, _params| async { Ok(ListToolsResult::new(tools())) })
        .on_call_tool(move |ctx, params| call_tool(Arc::clone(&handler_probe), ctx, params))
        .build();
    (server, probe)
}

async fn start_with(config: HttpConfig) -> (SocketAddr, Arc<Probe>) {
    let (server, probe) = test_server();
    (http::serve(&server, config).await, probe)
}

async fn start() -> (SocketAddr, Arc<Probe>) {
    start_with(HttpConfig::default()).await
}

// ---------------------------------------------------------------------------------------
// Messages, headers and assertions
// ---------------------------------------------------------------------------------------

/// A 2026-07-28 request with `extra` params and `_meta` declaring no capabilities.
fn modern_request(id: Value, method: &str, extra: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": modern_params(json!({}), extra)})
}

/// A 2026-07-28 `tools/call`.
fn call(id: Value, tool: &str, arguments: Value) -> Value {
    modern_request(id, "tools/call", json!({"name": tool, "arguments": arguments}))
}

fn with_progress_token(mut message: Value, token: &str) -> Value {
    message["params"]["_meta"]["progressToken"] = json!(token);
    message
}

fn call_headers(tool: &str) -> Headers {
    Headers::modern("tools/call", Some(tool))
}

async fn post(addr: SocketAddr, headers: &Headers, message: &Value) -> Reply {
    http::post(addr, headers, message).await
}

/// Assert a JSON-RPC error answer: the status, the code, the echoed id (`Value::Null` when
/// the request's id could not be read) and the schema's shape. Returns the error object.
#[track_caller]
fn assert_error(reply: &Reply, status: u16, code: i64, id: &Value) -> Value {
    assert_eq!(reply.status.as_u16(), status, "status; body: {}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("application/json"), "content type; body: {}", reply.body);
    let body = reply.json();
    assert_eq!(body["error"]["code"], json!(code), "error code in {body}");
    if id.is_null() {
        assert!(body.get("id").is_none_or(Value::is_null), "no id to echo, yet: {body}");
    } else {
        assert_eq!(body.get("id"), Some(id), "the error must echo the request id: {body}");
    }
    assert_valid(MODERN, "JSONRPCErrorResponse", &body);
    body["error"].clone()
}

/// Assert 400 + `-32020` for request `id`; returns the error message.
#[track_caller]
fn assert_mismatch(reply: &Reply, id: &Value) -> String {
    let error = assert_error(reply, 400, -32020, id);
    assert_valid(MODERN, "HeaderMismatchError", &reply.json());
    let message = error["message"].as_str().unwrap_or_default().to_owned();
    assert!(message.starts_with("Header mismatch"), "{message}");
    message
}

/// Assert a 200 JSON `CallToolResultResponse` (complete) for `id`; returns its first text.
#[track_caller]
fn assert_tool_text(reply: &Reply, id: &Value) -> String {
    assert_eq!(reply.status.as_u16(), 200, "status; body: {}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("application/json"), "body: {}", reply.body);
    let body = reply.json();
    assert_eq!(body.get("id"), Some(id), "{body}");
    assert_eq!(body["result"]["resultType"], "complete", "{body}");
    assert_valid(MODERN, "CallToolResultResponse", &body);
    body["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content: {body}")).to_owned()
}

/// Assert that the server answers an ordinary modern `tools/call`.
async fn assert_serving(addr: SocketAddr) {
    let id = json!("still-serving");
    let reply = post(addr, &call_headers("echo"), &call(id.clone(), "echo", json!({"text": "alive"}))).await;
    assert_eq!(assert_tool_text(&reply, &id), "alive");
}

async fn wait_until(what: &str, within: Duration, condition: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + within;
    while !condition() {
        assert!(tokio::time::Instant::now() < deadline, "{what}: did not happen within {within:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
