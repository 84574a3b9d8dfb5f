//! Hostile input over Streamable HTTP: an in-process server (macro tools, one of them
//! asking through a resolver, so `requestState` is sealed and `inputResponses` are read)
//! on a real socket, fed malformed, truncated, oversized, deeply nested, duplicated,
//! mis-encoded and mis-typed requests, with wrong, unknown and garbage headers.
//!
//! After every hostile request the same server must still answer an ordinary call and
//! finish a two-round call (see [`assert_still_serving`]). Each test captures the
//! server's logs (the test runtime is single-threaded, so the server's tasks log through
//! the test's own subscriber) to check that limits log a WARN and that no secret value or
//! sealed token ever reaches them.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp::limits::Limits;
use mcp::protocol::{CallToolParams, CallToolResult, ListToolsResult, Tool};
use mcp::resolve::Elicit;
use mcp::serve::http::HttpConfig;
use mcp::wire::headers;
use mcp::{Resolve, Server};
use mcp_testkit::http::{self, Headers, PATH, Reply};
use mcp_testkit::spec::{MODERN, assert_valid};
use mcp_testkit::stdio::modern_params;
use serde_json::{Value, json};

use crate::support::logs::capture_logs;
use crate::support::rounds::{complete_text, tool_error_text};

mod bodies;
mod connections;
mod limits;
mod messages;
mod public_bind;
mod request_headers;
mod retry_fields;
mod streams;

// ---------------------------------------------------------------------------------------
// The server under test
// ---------------------------------------------------------------------------------------

/// Where something lives.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Region {
    /// Cloud region.
    region: String,
}

#[mcp::resolver]
fn ask_region() -> Elicit<Region> {
    Elicit::new("Which region?")
}

/// Provision a database, asking for its region.
#[mcp::tool]
fn provision(
    /// The database's name.
    name: String,
    region: Resolve<ask_region>,
) -> String {
    format!("Provisioned '{name}' in {}.", region.region)
}

/// Echo the text back.
#[mcp::tool]
fn echo(text: String) -> String {
    text
}

/// `tally` calls (used by one test only).
static TALLIED: AtomicUsize = AtomicUsize::new(0);

/// Count the call.
#[mcp::tool]
fn tally() -> String {
    format!("tally {}", TALLIED.fetch_add(1, Ordering::SeqCst) + 1)
}

/// `hold` calls that have started (used by one test only).
static HOLD_STARTED: AtomicUsize = AtomicUsize::new(0);
/// `slow` calls that ran to the end (used by one test only).
static SLOW_FINISHED: AtomicUsize = AtomicUsize::new(0);

/// Sleep `ms` milliseconds, counted when it starts.
#[mcp::tool]
async fn hold(ms: u64) -> String {
    HOLD_STARTED.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("held {ms} ms")
}

/// Sleep `ms` milliseconds, counted when it finishes.
#[mcp::tool]
async fn slow(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    SLOW_FINISHED.fetch_add(1, Ordering::SeqCst);
    format!("slept {ms} ms")
}

const REGION_KEY: &str = "streamable_http::hostile::ask_region";
const INVALID_STATE: &str = "Invalid or expired requestState";
/// The default body limit (4 MiB).
const BODY_LIMIT: usize = 4 * 1024 * 1024;
/// The default nesting limit; the message object is level 1.
const MAX_DEPTH: usize = 64;
/// The default largest `requestState`, in bytes.
const MAX_STATE: usize = 65_536;
/// The default number of `inputResponses` entries.
const MAX_RESPONSES: usize = 64;
/// The default largest `inputResponses` entry (its JSON encoding), in bytes.
const MAX_RESPONSE_BYTES: usize = 262_144;

fn server_with(limits: Limits) -> Server {
    Server::builder("hostile-http", "1.0.0")
        .tool::<provision>()
        .tool::<echo>()
        .tool::<tally>()
        .tool::<hold>()
        .tool::<slow>()
        .limits(limits)
        .build()
}

async fn start() -> SocketAddr {
    http::serve(&server_with(Limits::default()), HttpConfig::default()).await
}

// ---------------------------------------------------------------------------------------
// Requests and assertions
// ---------------------------------------------------------------------------------------

/// A 2026-07-28 `tools/call` of `tool` declaring elicitation, with `extra` params merged in.
fn call(id: Value, tool: &str, arguments: Value, extra: Value) -> Value {
    let mut params = modern_params(json!({"elicitation": {}}), json!({"name": tool, "arguments": arguments}));
    if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
        params.extend(extra);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn call_headers(tool: &str) -> Headers {
    Headers::modern("tools/call", Some(tool))
}

async fn post(addr: SocketAddr, tool: &str, message: &Value) -> Reply {
    http::post(addr, &call_headers(tool), message).await
}

/// POST `body` as it is, with the headers of a call of `tool`.
async fn post_body(addr: SocketAddr, tool: &str, body: impl Into<bytes::Bytes>) -> Reply {
    http::send(addr, "POST", PATH, &call_headers(tool), body).await
}

fn accept_region(region: &str) -> Value {
    json!({"action": "accept", "content": {"region": region}})
}

/// `n` nested arrays around `1`.
fn nested(n: usize) -> String {
    format!("{}1{}", "[".repeat(n), "]".repeat(n))
}

/// Assert a JSON error answer: the status, the code, the echoed id (`Value::Null` when the
/// request's id could not be read) and the schema's shape; returns the error object.
#[track_caller]
fn assert_error(reply: &Reply, status: u16, code: i64, id: &Value) -> Value {
    assert_eq!(reply.status.as_u16(), status, "status; body: {}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("application/json"), "content type; body: {}", reply.body);
    let body = reply.json();
    assert_valid(MODERN, "JSONRPCErrorResponse", &body);
    assert_eq!(body["error"]["code"], json!(code), "error code in {body}");
    if id.is_null() {
        assert!(body.get("id").is_none_or(Value::is_null), "no id to echo, yet: {body}");
    } else {
        assert_eq!(body.get("id"), Some(id), "the error must echo the request id: {body}");
    }
    body["error"].clone()
}

/// The result of a 200 JSON `CallToolResultResponse` for `id`.
#[track_caller]
fn assert_result(reply: &Reply, id: &Value) -> Value {
    assert_eq!(reply.status.as_u16(), 200, "status; body: {}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("application/json"), "body: {}", reply.body);
    let body = reply.json();
    assert_eq!(body.get("id"), Some(id), "{body}");
    assert_valid(MODERN, "CallToolResultResponse", &body);
    body["result"].clone()
}

/// The sealed state of an `input_required` result asking for the region.
#[track_caller]
fn asked_region(result: &Value) -> String {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let requests = result["inputRequests"].as_object().unwrap_or_else(|| panic!("no inputRequests: {result}"));
    assert_eq!(requests.keys().collect::<Vec<_>>(), [REGION_KEY], "{result}");
    assert_eq!(requests[REGION_KEY]["params"]["message"], "Which region?", "{result}");
    let state = result["requestState"].as_str().unwrap_or_else(|| panic!("no requestState: {result}"));
    assert!(state.starts_with("v1."), "the state is sealed: {state}");
    state.to_owned()
}

/// The first round of `provision` for `name`: the sealed state.
async fn first_round(addr: SocketAddr, name: &str) -> String {
    let id = json!("first-round");
    let reply = post(addr, "provision", &call(id.clone(), "provision", json!({"name": name}), json!({}))).await;
    asked_region(&assert_result(&reply, &id))
}

/// The retry of `provision` for `name` with `extra` (answers, state): the raw reply.
async fn retry(addr: SocketAddr, id: &Value, name: &str, extra: Value) -> Reply {
    post(addr, "provision", &call(id.clone(), "provision", json!({"name": name}), extra)).await
}

/// The same server still answers a plain call and finishes a two-round call.
async fn assert_still_serving(addr: SocketAddr) {
    let id = json!("still-serving");
    let reply = post(addr, "echo", &call(id.clone(), "echo", json!({"text": "alive"}), json!({}))).await;
    assert_eq!(complete_text(&assert_result(&reply, &id)), "alive");
    let state = first_round(addr, "alive").await;
    let extra = json!({"inputResponses": {REGION_KEY: accept_region("eu-west-1")}, "requestState": state});
    let reply = retry(addr, &id, "alive", extra).await;
    assert_eq!(complete_text(&assert_result(&reply, &id)), "Provisioned 'alive' in eu-west-1.");
}

/// Byte-string replacement, for editing raw requests.
trait ReplaceBytes {
    fn replacen_bytes(self, from: &[u8], to: &[u8]) -> Vec<u8>;
}

impl ReplaceBytes for Vec<u8> {
    fn replacen_bytes(mut self, from: &[u8], to: &[u8]) -> Vec<u8> {
        if let Some(at) = self.windows(from.len()).position(|w| w == from) {
            self.splice(at..at + from.len(), to.iter().copied());
        }
        self
    }
}
