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
use std::sync::{Arc, Mutex};
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

const REGION_KEY: &str = "hostile_http::ask_region";
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
// Captured logs
// ---------------------------------------------------------------------------------------

/// Everything logged on the test's thread since [`capture_logs`].
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Logs {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> LogWriter {
        LogWriter(Arc::clone(&self.0))
    }
}

impl Logs {
    fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn since(&self, from: usize) -> String {
        let bytes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(bytes.get(from..).unwrap_or_default()).into_owned()
    }

    /// A WARN line logged after byte `from` (the server logs before it answers).
    #[track_caller]
    fn assert_warned(&self, from: usize, what: &str) -> String {
        let tail = self.since(from);
        let line = tail.lines().find(|line| line.contains("WARN"));
        line.unwrap_or_else(|| panic!("{what}: no WARN was logged; the logs say:\n{tail}")).to_owned()
    }

    /// None of `secrets` was logged, and no panic.
    #[track_caller]
    fn assert_clean(&self, secrets: &[&str]) {
        let all = self.since(0);
        for secret in secrets {
            let shown: String = secret.chars().take(80).collect();
            assert!(!all.contains(secret), "the logs show the secret {shown:?}:\n{all}");
        }
        assert!(!all.contains("panicked"), "a panic was logged:\n{all}");
    }
}

/// Send every event of this thread (so: of the test's server) at DEBUG and above to the
/// returned [`Logs`] while the guard lives.
fn capture_logs() -> (Logs, tracing::subscriber::DefaultGuard) {
    let logs = Logs::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(logs.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    (logs, tracing::subscriber::set_default(subscriber))
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

/// The text of a complete, successful result.
#[track_caller]
fn complete_text(result: &Value) -> String {
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_ne!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {result}")).to_owned()
}

/// The text of an `isError` result.
#[track_caller]
fn tool_error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "expected an isError result: {result}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {result}")).to_owned()
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

// ---------------------------------------------------------------------------------------
// Malformed, truncated and cut-off bodies
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn malformed_and_truncated_bodies_are_400_parse_errors() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let secret = "SECRET-ARG-truncated-http-31b7";
    let whole = call(json!(1), "echo", json!({"text": secret}), json!({})).to_string();
    let mut bodies = vec![
        String::new(),
        "   ".to_owned(),
        "{not json".to_owned(),
        "{".to_owned(),
        "nul".to_owned(),
        "{'jsonrpc': '2.0'}".to_owned(),
        format!("{whole} trailing"),
        format!("{whole}{whole}"),
        format!("{whole}\n{whole}"),
        format!("\u{feff}{whole}"),
    ];
    for cut in [1, 10, whole.len() / 2, whole.len() - 1] {
        bodies.push(whole[..cut].to_owned());
    }
    for body in bodies {
        let reply = post_body(addr, "echo", body.clone()).await;
        let error = assert_error(&reply, 400, -32700, &Value::Null);
        assert_eq!(error, json!({"code": -32700, "message": "Parse error: Invalid JSON"}), "{body:?}");
        assert_still_serving(addr).await;
    }
    logs.assert_clean(&[secret]);
}

#[tokio::test]
async fn a_body_cut_off_by_the_client_is_400_and_the_server_keeps_serving() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let secret = "SECRET-ARG-cut-off-8c21";
    let body = call(json!(1), "echo", json!({"text": secret}), json!({})).to_string();
    let half = &body.as_bytes()[..body.len() / 2];

    // Content-Length promises more than arrives, then the client stops sending.
    let headers = call_headers("echo").set("Content-Length", &body.len().to_string());
    let request = http::raw_request(addr, "POST", PATH, &headers, half);
    assert_unreadable_body(http::send_bytes(addr, &request, true).await);
    assert_still_serving(addr).await;

    // The same, with the client closing the whole connection.
    let socket = http::write_raw(addr, "POST", PATH, &headers, half).await;
    drop(socket);
    assert_still_serving(addr).await;

    // A chunked body that stops in the middle of a chunk.
    let headers = call_headers("echo").set("Transfer-Encoding", "chunked").set("Content-Length", "none");
    let mut request =
        http::raw_request(addr, "POST", PATH, &headers, b"").replacen_bytes(b"Content-Length: none\r\n", b"");
    request.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
    request.extend_from_slice(half);
    assert_unreadable_body(http::send_bytes(addr, &request, true).await);
    assert_still_serving(addr).await;

    // Content-Length shorter than the body: the server reads a truncated message.
    let headers = call_headers("echo").set("Content-Length", &(body.len() / 2).to_string()).set("Connection", "close");
    let request = http::raw_request(addr, "POST", PATH, &headers, body.as_bytes());
    let reply = http::send_bytes(addr, &request, false).await.unwrap_or_else(|e| panic!("{e}"));
    assert_error(&reply, 400, -32700, &Value::Null);
    assert_still_serving(addr).await;
    logs.assert_clean(&[secret]);
}

/// The answer to a request whose body ended early: 400, `-32600`, on the half-closed connection.
#[track_caller]
fn assert_unreadable_body(outcome: Result<Reply, String>) {
    let reply = outcome.unwrap_or_else(|e| panic!("a 400 is due for a body cut short: {e}"));
    let error = assert_error(&reply, 400, -32600, &Value::Null);
    assert_eq!(error["message"], "Could not read the request body");
}

// ---------------------------------------------------------------------------------------
// Content types, Accept, sizes
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn wrong_content_types_are_415_and_an_unacceptable_accept_is_406() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let body = call(json!(1), "echo", json!({"text": "x"}), json!({})).to_string();
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json-seq",
        "application/jsonx",
        "json",
        "application/",
        "",
        ";application/json",
        "application/jsön",
    ] {
        let headers = call_headers("echo").set("Content-Type", content_type);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 415, -32600, &Value::Null);
        assert_eq!(error["message"], "Unsupported Media Type: Content-Type must be application/json", "{content_type}");
        assert_still_serving(addr).await;
    }
    let reply = http::send_raw(addr, "POST", PATH, &call_headers("echo").remove("Content-Type"), body.as_bytes()).await;
    assert_error(&reply, 415, -32600, &Value::Null);
    // Only the first of two Content-Type headers counts.
    let headers = call_headers("echo").set("Content-Type", "text/plain").add("Content-Type", "application/json");
    let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
    assert_error(&reply, 415, -32600, &Value::Null);

    for accept in [
        "application/json",
        "text/event-stream",
        "text/html",
        "*/json",
        "application/json-seq, text/event-streams",
        ",,,;;;",
        "applicätion/json, text/event-stream",
    ] {
        let headers = call_headers("echo").set("Accept", accept);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 406, -32600, &Value::Null);
        assert_eq!(
            error["message"], "Not Acceptable: Accept must list application/json and text/event-stream",
            "{accept}"
        );
        assert_still_serving(addr).await;
    }
    let reply = http::send_raw(addr, "POST", PATH, &call_headers("echo").remove("Accept"), body.as_bytes()).await;
    assert_error(&reply, 406, -32600, &Value::Null);
    for accept in [
        "*/*",
        "application/*, text/*",
        "APPLICATION/JSON, TEXT/EVENT-STREAM",
        "text/event-stream;q=0, application/json;q=0.1",
    ] {
        let headers = call_headers("echo").set("Accept", accept);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        assert_eq!(complete_text(&assert_result(&reply, &json!(1))), "x", "{accept}");
    }
}

#[tokio::test]
async fn a_body_over_the_limit_is_413_and_a_large_one_is_served() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let secret = "SECRET-ARG-huge-http-2aa0";
    let huge = format!("{secret}{}", "x".repeat(BODY_LIMIT));
    let body = call(json!(1), "echo", json!({"text": huge}), json!({})).to_string();
    let from = logs.len();
    let headers = call_headers("echo").set("Connection", "close");
    let request = http::raw_request(addr, "POST", PATH, &headers, body.as_bytes());
    let reply = http::send_bytes(addr, &request, false).await.unwrap_or_else(|e| panic!("{e}"));
    let error = assert_error(&reply, 413, -32600, &Value::Null);
    assert_eq!(error["message"], format!("Request body exceeds {BODY_LIMIT} bytes"));
    logs.assert_warned(from, "a body over the limit");
    assert_still_serving(addr).await;

    // Large but under the limit: served whole.
    let large = "L".repeat(BODY_LIMIT / 2);
    let reply = post(addr, "echo", &call(json!(2), "echo", json!({"text": large}), json!({}))).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(2))), large);
    let state = first_round(addr, &large).await;
    let extra = json!({"inputResponses": {REGION_KEY: accept_region("eu")}, "requestState": state});
    let reply = retry(addr, &json!(3), &large, extra).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(3))), format!("Provisioned '{large}' in eu."));
    assert_still_serving(addr).await;
    logs.assert_clean(&[secret]);
}

// ---------------------------------------------------------------------------------------
// Nesting, duplicate keys, encodings
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn json_nested_deeper_than_the_limit_is_400_invalid_request() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let secret = "SECRET-ARG-deep-http-6d0f";
    let template = call(json!("deep"), "echo", json!({"text": secret, "deep": "@@"}), json!({})).to_string();
    // The message (1), params (2) and arguments (3) are levels too.
    let at_limit = MAX_DEPTH - 3;
    let reply = post_body(addr, "echo", template.replacen("\"@@\"", &nested(at_limit), 1)).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!("deep"))), secret);
    for body in [
        template.replacen("\"@@\"", &nested(at_limit + 1), 1),
        template.replacen("\"@@\"", &nested(1_000), 1),
        template.replacen("\"@@\"", &nested(200_000), 1),
        "[".repeat(100_000),
        format!("{}{}", "{\"a\":".repeat(MAX_DEPTH + 1), "1"),
    ] {
        let from = logs.len();
        let reply = post_body(addr, "echo", body).await;
        let error = assert_error(&reply, 400, -32600, &Value::Null);
        assert_eq!(error["message"], format!("Invalid Request: JSON nested deeper than {MAX_DEPTH} levels"));
        logs.assert_warned(from, "nesting over the limit");
        assert_still_serving(addr).await;
    }
    logs.assert_clean(&[]);
}

#[tokio::test]
async fn a_duplicate_key_anywhere_is_400_invalid_request() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let params = modern_params(json!({}), json!({"name": "echo", "arguments": {"text": "dup"}})).to_string();
    let bodies = [
        format!(r#"{{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params},"params":{params}}}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}}"#,
            params.replacen(r#""text":"dup""#, r#""text":"dup","text":"other""#, 1)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}}"#,
            params.replacen(r#""name":"echo""#, r#""name":"echo","name":"hold""#, 1)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"\u006detho\u0064":"tools/list","method":"tools/call","params":{params}}}"#
        ),
    ];
    for body in bodies {
        assert!(serde_json::from_str::<Value>(&body).is_ok(), "the case must be JSON apart from the duplicate: {body}");
        let from = logs.len();
        let reply = post_body(addr, "echo", body.clone()).await;
        let error = assert_error(&reply, 400, -32600, &Value::Null);
        assert_eq!(error["message"], "Invalid Request: duplicate key in a JSON object", "{body}");
        logs.assert_warned(from, "a duplicate key");
        assert_still_serving(addr).await;
    }
}

#[tokio::test]
async fn invalid_utf8_and_unpaired_surrogates_are_400_parse_errors() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let template = call(json!(1), "echo", json!({"text": "@@"}), json!({})).to_string();
    let (before, after) = template.split_once("@@").unwrap_or_else(|| panic!("no placeholder in {template}"));
    let bad_bytes: [&[u8]; 7] =
        [b"\xff", b"\xc0\x80", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\x80", b"\xe2\x82", b"\xf4\x90\x80\x80"];
    for bad in bad_bytes {
        let mut body = before.as_bytes().to_vec();
        body.extend_from_slice(bad);
        body.extend_from_slice(after.as_bytes());
        let reply = post_body(addr, "echo", body).await;
        let error = assert_error(&reply, 400, -32700, &Value::Null);
        assert_eq!(error["message"], "Parse error: Invalid JSON", "{bad:x?}");
        assert_still_serving(addr).await;
    }
    for escaped in [r"\ud800", r"\udc00", r"\ud800x", r"\ud800\u0041", r"\udfff\ud800"] {
        let reply = post_body(addr, "echo", format!("{before}{escaped}{after}")).await;
        assert_error(&reply, 400, -32700, &Value::Null);
        assert_still_serving(addr).await;
    }
    // A paired surrogate escape is one valid character.
    let reply = post_body(addr, "echo", format!(r"{before}\ud83d\ude00{after}")).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(1))), "\u{1F600}");
}

// ---------------------------------------------------------------------------------------
// Batches, ids, methods, notifications
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn batches_are_400_and_nothing_in_them_runs() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let inner = call(json!("in-a-batch"), "tally", json!({}), json!({}));
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for batch in [json!([inner]), json!([inner, inner]), json!([notification]), json!([]), json!([[]])] {
        let reply = post(addr, "tally", &batch).await;
        let error = assert_error(&reply, 400, -32600, &Value::Null);
        assert_eq!(
            error["message"], "Invalid Request: batches are not supported; send one JSON-RPC message at a time",
            "{batch}"
        );
        assert_still_serving(addr).await;
    }
    // The first call that runs is the first one counted.
    let reply = post(addr, "tally", &inner).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!("in-a-batch"))), "tally 1", "a call inside a batch ran");
}

#[tokio::test]
async fn ids_of_odd_types_are_refused_or_echoed_exactly() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    // Not a string or an integer (the schema's RequestId): refused, nothing runs.
    for id in ["null", "true", r#"{"id":1}"#, "[1]", "[]", "1.5", "-0.0", "1e3", "100000000000000000000000000000"] {
        let body = call(json!("@@"), "echo", json!({"text": "x"}), json!({})).to_string().replacen("\"@@\"", id, 1);
        let reply = post_body(addr, "echo", body).await;
        let error = assert_error(&reply, 400, -32600, &Value::Null);
        assert_eq!(error["message"], "Invalid Request: id must be a string or an integer", "{id}");
        assert_still_serving(addr).await;
    }
    let long = format!("\"{}\"", "i".repeat(10_000));
    for id in ["\"\"", "\" \"", "\"\\u00e9\"", "0", "-1", "18446744073709551615", "-9223372036854775808"]
        .into_iter()
        .chain([long.as_str()])
    {
        let body = call(json!("@@"), "echo", json!({"text": "odd"}), json!({})).to_string().replacen("\"@@\"", id, 1);
        let reply = post_body(addr, "echo", body).await;
        assert_eq!(reply.status.as_u16(), 200, "id {}: {}", &id[..id.len().min(20)], reply.body);
        let expected: Value = serde_json::from_str(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let answer = reply.json();
        assert_eq!(answer.get("id"), Some(&expected), "the id must be echoed as sent: {answer}");
        assert_eq!(answer["result"]["content"][0]["text"], "odd", "{answer}");
        assert_still_serving(addr).await;
    }
}

#[tokio::test]
async fn unknown_methods_stray_responses_and_hybrid_messages() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let long_method = "m".repeat(50_000);
    for method in ["tools/destroy", " tools/call", "TOOLS/CALL", "rpc.discover", long_method.as_str()] {
        let message =
            json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": modern_params(json!({}), json!({}))});
        let headers = Headers::modern(&headers::encode_value(method), None);
        let reply = http::post(addr, &headers, &message).await;
        assert_error(&reply, 404, -32601, &json!(5));
        assert_still_serving(addr).await;
    }
    // An unknown notification is accepted and dropped; a response outside a session is refused.
    let message = json!({"jsonrpc": "2.0", "method": "notifications/unknown", "params": {"x": 1}});
    let reply = http::post(addr, &Headers::json().set("MCP-Protocol-Version", MODERN), &message).await;
    assert_eq!((reply.status.as_u16(), reply.body.as_str()), (202, ""));
    for message in [
        json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message": "client failure"}}),
    ] {
        let reply = http::post(addr, &Headers::json().set("MCP-Protocol-Version", MODERN), &message).await;
        assert_error(&reply, 400, -32600, &Value::Null);
        assert_still_serving(addr).await;
    }
    let message = json!({"jsonrpc": "2.0", "id": 7, "error": "boom"});
    let reply = http::post(addr, &Headers::json(), &message).await;
    let error = assert_error(&reply, 400, -32600, &json!(7));
    assert_eq!(error["message"], "Invalid Request: malformed error object");
    // A request that also carries `result` or `error` is served as the request it names.
    for extra in [json!({"result": {}}), json!({"error": {"code": 1, "message": "x"}})] {
        let mut message = call(json!(8), "echo", json!({"text": "hybrid"}), json!({}));
        if let (Value::Object(message), Value::Object(extra)) = (&mut message, extra) {
            message.extend(extra);
        }
        let reply = post(addr, "echo", &message).await;
        assert_eq!(complete_text(&assert_result(&reply, &json!(8))), "hybrid");
        assert_still_serving(addr).await;
    }
}

#[tokio::test]
async fn notifications_with_bad_params_are_202_or_400() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let headers = Headers::json().set("MCP-Protocol-Version", MODERN);
    for (method, params) in [
        ("notifications/cancelled", json!({"requestId": {"nested": true}})),
        ("notifications/cancelled", json!({"requestId": 999_999, "reason": 12})),
        ("notifications/cancelled", json!({})),
        ("notifications/progress", json!({"progressToken": {"a": 1}, "progress": "lots"})),
        ("notifications/initialized", json!({"unexpected": [1, 2, 3]})),
        ("notifications/roots/list_changed", json!({"_meta": 5})),
    ] {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let reply = http::post(addr, &headers, &message).await;
        assert_eq!((reply.status.as_u16(), reply.body.as_str()), (202, ""), "{message}");
        assert_still_serving(addr).await;
    }
    for params in [json!([1]), json!("cancel"), json!(3)] {
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        let reply = http::post(addr, &headers, &message).await;
        let error = assert_error(&reply, 400, -32602, &Value::Null);
        assert_eq!(error["message"], "Invalid params: params must be a JSON object");
        assert_still_serving(addr).await;
    }
}

// ---------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn unknown_mcp_headers_are_ignored_and_garbage_ones_refused() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let message = call(json!(1), "echo", json!({"text": "h"}), json!({}));
    let body = message.to_string();
    // Unknown headers, of the Mcp- family or not, change nothing.
    for (name, value) in [
        ("Mcp-Foo", "bar"),
        ("Mcp-Param-Nope", "1"),
        ("Mcp-Param-", "x"),
        ("Mcp-Session-Id", "no-such-session"),
        ("Mcp-Session-Id", "ünïcode"),
        ("X-Garbage", "\u{80}\u{ff}"),
        ("Mcp-Name-Extra", "other"),
    ] {
        let headers = call_headers("echo").add(name, value);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        assert_eq!(complete_text(&assert_result(&reply, &json!(1))), "h", "{name}: {value}");
    }
    // A protocol version header that is not the body's.
    for version in ["garbage", "2026-07-28x", " ", "2025-11-25", "1900-01-01", "2026-07-28, 2026-07-28", "ðŸ"] {
        let headers = call_headers("echo").set("MCP-Protocol-Version", version);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 400, -32020, &json!(1));
        assert!(error["message"].as_str().unwrap_or_default().starts_with("Header mismatch"), "{error}");
        assert_still_serving(addr).await;
    }
    // A version both header and body agree on, but unsupported.
    let mut old = message.clone();
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let headers = call_headers("echo").set("MCP-Protocol-Version", "1900-01-01");
    let reply = http::post(addr, &headers, &old).await;
    assert_error(&reply, 400, -32022, &json!(1));
    // Mcp-Method and Mcp-Name not matching the body, missing, or not text.
    for (name, value) in [
        ("Mcp-Method", "tools/list"),
        ("Mcp-Method", "TOOLS/CALL"),
        ("Mcp-Method", "tööls/call"),
        ("Mcp-Name", "hold"),
        ("Mcp-Name", "échø"),
        ("Mcp-Name", "=?base64?!!!?="),
        ("Mcp-Name", "=?base64?//79?="),
    ] {
        let headers = call_headers("echo").set(name, value);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 400, -32020, &json!(1));
        assert!(error["message"].as_str().unwrap_or_default().starts_with("Header mismatch"), "{name}: {error}");
        assert_still_serving(addr).await;
    }
    for name in ["Mcp-Method", "Mcp-Name", "MCP-Protocol-Version"] {
        let headers = call_headers("echo").remove(name);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 400, -32020, &json!(1));
        assert_eq!(error["message"], format!("Header mismatch: {name} header is required"));
    }
    // Bytes that are not UTF-8 in a header value.
    let request = http::raw_request(
        addr,
        "POST",
        PATH,
        &call_headers("echo").set("Mcp-Name", "@@@@").set("Connection", "close"),
        body.as_bytes(),
    );
    let at = request.windows(4).position(|w| w == b"@@@@").unwrap_or_else(|| panic!("no placeholder"));
    let mut request = request;
    request.splice(at..at + 4, [0xffu8, 0xfe, 0x80, 0x81]);
    let reply = http::send_bytes(addr, &request, false).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        assert_error(&reply, 400, -32020, &json!(1))["message"],
        "Header mismatch: Mcp-Name header is not valid text"
    );
    assert_still_serving(addr).await;
    logs.assert_clean(&[]);
}

#[tokio::test]
async fn a_repeated_mcp_header_with_conflicting_values_is_a_mismatch() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let body = call(json!(1), "echo", json!({"text": "h"}), json!({})).to_string();
    for (name, first, second) in [
        ("Mcp-Name", "echo", "hold"),
        ("Mcp-Method", "tools/call", "tools/list"),
        ("MCP-Protocol-Version", MODERN, "2025-11-25"),
    ] {
        // Whichever of the two an intermediary reads, the body must agree with both.
        let headers = call_headers("echo").set(name, first).add(name, second);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        assert_error(&reply, 400, -32020, &json!(1));
        assert_still_serving(addr).await;
    }
}

/// A low-level server with one tool whose `region` argument is mirrored in `Mcp-Param-Region`.
fn mirrored_server() -> Server {
    let tool = Tool::new(
        "region",
        "Echo the region.",
        json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}),
    );
    Server::builder("hostile-http-mirrored", "1.0.0")
        .on_list_tools(move |_ctx, _params| {
            let tools = vec![tool.clone()];
            async move { Ok(ListToolsResult::new(tools)) }
        })
        .on_call_tool(|_ctx, params: CallToolParams| async move {
            let region = params.arguments.as_ref().and_then(|a| a.get("region")).and_then(Value::as_str);
            Ok(CallToolResult::text(region.unwrap_or_default()).into())
        })
        .build()
}

#[tokio::test]
async fn a_mirrored_argument_that_mismatches_its_header_is_refused_and_not_logged() {
    let (logs, _guard) = capture_logs();
    let addr = http::serve(&mirrored_server(), HttpConfig::default()).await;
    let secret = "SECRET-REGION-http-5ab9";
    let message = call(json!(1), "region", json!({"region": secret}), json!({}));
    let reply = post(addr, "region", &message).await;
    let error = assert_error(&reply, 400, -32020, &json!(1));
    assert_eq!(error["message"], "Header mismatch: Mcp-Param-Region header is required");
    for header in ["other", "=?base64?!!?=", secret.to_lowercase().as_str()] {
        let headers = call_headers("region").set("Mcp-Param-Region", header);
        let reply = http::post(addr, &headers, &message).await;
        assert_error(&reply, 400, -32020, &json!(1));
    }
    let headers = call_headers("region").set("Mcp-Param-Region", secret);
    let reply = http::post(addr, &headers, &message).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(1))), secret);
    // The value travels back to the client that sent it, but not into the logs.
    logs.assert_clean(&[secret, &secret.to_lowercase()]);
}

#[tokio::test]
async fn requests_hyper_cannot_parse_are_refused_without_harm() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let body = call(json!(1), "echo", json!({"text": "h"}), json!({})).to_string();
    let cases: [(u16, Vec<u8>); 6] = [
        // A control character in a header value.
        (
            400,
            http::raw_request(addr, "POST", PATH, &call_headers("echo").set("Mcp-Name", "ec\u{1}ho"), body.as_bytes()),
        ),
        // A space in a header name.
        (400, http::raw_request(addr, "POST", PATH, &call_headers("echo").add("Mcp Name", "echo"), body.as_bytes())),
        // A header line without a colon.
        (
            400,
            http::raw_request(addr, "POST", PATH, &call_headers("echo").add("Mcp-No-Colon", "x"), body.as_bytes())
                .replacen_bytes(b"Mcp-No-Colon: x", b"Mcp-No-Colon x"),
        ),
        // A header far larger than any sane one.
        (
            431,
            http::raw_request(
                addr,
                "POST",
                PATH,
                &call_headers("echo").add("Mcp-Huge", &"h".repeat(512 * 1024)),
                body.as_bytes(),
            ),
        ),
        // Not HTTP at all.
        (400, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 garbage\r\n\r\n".to_vec()),
        // Two Content-Length headers that disagree.
        (
            400,
            http::raw_request(
                addr,
                "POST",
                PATH,
                &call_headers("echo").set("Content-Length", &body.len().to_string()).add("Content-Length", "3"),
                body.as_bytes(),
            ),
        ),
    ];
    for (status, request) in cases {
        // hyper refuses these itself, before the MCP endpoint sees them, and closes.
        let reply = http::send_bytes(addr, &request, true).await.unwrap_or_else(|e| panic!("a {status} is due: {e}"));
        assert_eq!(reply.status.as_u16(), status, "{}", String::from_utf8_lossy(&request[..request.len().min(200)]));
        assert_eq!(reply.header("connection"), Some("close"));
        assert_still_serving(addr).await;
    }
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

// ---------------------------------------------------------------------------------------
// requestState
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn request_state_of_the_wrong_type_or_origin_is_the_fixed_error_and_leaks_nothing() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "db").await;
    let answers = json!({REGION_KEY: accept_region("eu")});
    let fixed = json!({"code": -32602, "message": INVALID_STATE, "data": {"reason": "invalid_request_state"}});
    for wrong in [json!(12), json!(-1.5), json!(true), json!({"s": state}), json!([state]), json!([])] {
        let reply = retry(addr, &json!(1), "db", json!({"inputResponses": answers, "requestState": wrong})).await;
        assert_eq!(assert_error(&reply, 400, -32602, &json!(1)), fixed, "requestState {wrong}");
        assert_still_serving(addr).await;
    }
    // A null state is no state: the answer is not trusted and the question comes again.
    let reply = retry(addr, &json!(1), "db", json!({"inputResponses": answers, "requestState": null})).await;
    asked_region(&assert_result(&reply, &json!(1)));

    let marker = "FORGED-MARKER-http-e41c";
    let mut tampered: Vec<char> = state.chars().collect();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    let truncated = state[..state.len() - 4].to_owned();
    let forged = [
        marker.to_owned(),
        format!("v1.{marker}"),
        format!("v1.{marker}.{marker}"),
        format!("v2.{}", &state[3..]),
        format!("{state}{marker}"),
        tampered.clone(),
        truncated.clone(),
        String::new(),
        "\u{0}".to_owned(),
        format!("v1.{marker}{}", "A".repeat(MAX_STATE - 3 - marker.len())),
    ];
    for token in forged {
        let from = logs.len();
        let reply = retry(addr, &json!(2), "db", json!({"inputResponses": answers, "requestState": token})).await;
        assert_eq!(assert_error(&reply, 400, -32602, &json!(2)), fixed);
        assert!(!reply.body.contains(marker), "the error echoes the forged state: {}", reply.body);
        let warn = logs.assert_warned(from, "a rejected requestState");
        assert!(warn.contains("requestState rejected"), "{warn}");
        assert_still_serving(addr).await;
    }
    // A genuine token bound to other arguments, or to another tool, is refused too.
    let extra = json!({"inputResponses": answers, "requestState": state});
    let reply = retry(addr, &json!(3), "other", extra.clone()).await;
    assert_eq!(assert_error(&reply, 400, -32602, &json!(3)), fixed);
    let reply = post(addr, "echo", &call(json!(3), "echo", json!({"text": "db"}), extra.clone())).await;
    assert_eq!(assert_error(&reply, 400, -32602, &json!(3)), fixed);
    // The genuine one still completes its own call.
    let reply = retry(addr, &json!(4), "db", extra).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(4))), "Provisioned 'db' in eu.");
    logs.assert_clean(&[marker, &state, &tampered, &truncated]);
}

#[tokio::test]
async fn gigantic_request_state_is_400_by_its_size() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "giant").await;
    let marker = "GIANT-STATE-MARKER-http-90fd";
    for size in [MAX_STATE + 1, 1024 * 1024, 3 * 1024 * 1024] {
        let token = format!("v1.{marker}{}", "A".repeat(size - 3 - marker.len()));
        let from = logs.len();
        let extra = json!({"inputResponses": {REGION_KEY: accept_region("eu")}, "requestState": token});
        let reply = retry(addr, &json!(1), "giant", extra).await;
        let error = assert_error(&reply, 400, -32602, &json!(1));
        assert_eq!(
            error,
            json!({"code": -32602, "message": format!("Invalid params: requestState exceeds {MAX_STATE} bytes")})
        );
        assert!(!reply.body.contains(marker), "the error echoes the state");
        logs.assert_warned(from, "an oversized requestState");
        assert_still_serving(addr).await;
    }
    // The genuine state still works after all that.
    let extra = json!({"inputResponses": {REGION_KEY: accept_region("eu")}, "requestState": state});
    let reply = retry(addr, &json!(2), "giant", extra).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(2))), "Provisioned 'giant' in eu.");
    logs.assert_clean(&[marker, &state]);
}

// ---------------------------------------------------------------------------------------
// inputResponses
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn input_responses_of_the_wrong_shape_are_400_invalid_params() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "shape").await;
    let secret = "SECRET-ANSWER-http-77e3";
    for responses in [json!([accept_region("eu")]), json!(secret), json!(12), json!(false), json!([])] {
        let reply = retry(addr, &json!(1), "shape", json!({"inputResponses": responses, "requestState": state})).await;
        let error = assert_error(&reply, 400, -32602, &json!(1));
        assert_eq!(error["message"], "Invalid params: inputResponses must be an object", "{responses}");
        assert_still_serving(addr).await;
    }
    for entry in [json!(secret), json!(5), json!([1]), json!(null), json!(true), json!({"action": "maybe"})] {
        let extra = json!({"inputResponses": {REGION_KEY: entry}, "requestState": state});
        let reply = retry(addr, &json!(2), "shape", extra).await;
        let error = assert_error(&reply, 400, -32602, &json!(2));
        assert!(error["message"].as_str().unwrap_or_default().starts_with("Invalid params"), "{entry}: {error}");
        assert_still_serving(addr).await;
    }
    logs.assert_clean(&[secret, &state]);
}

#[tokio::test]
async fn too_many_or_too_large_input_responses_are_400() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "many").await;
    let filler = |n: usize| -> serde_json::Map<String, Value> {
        (0..n).map(|i| (format!("unknown-{i}"), json!({"action": "decline"}))).collect()
    };
    let mut at_limit = filler(MAX_RESPONSES - 1);
    at_limit.insert(REGION_KEY.to_owned(), accept_region("eu"));
    let reply = retry(addr, &json!(1), "many", json!({"inputResponses": at_limit, "requestState": state})).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(1))), "Provisioned 'many' in eu.");

    let mut over = filler(MAX_RESPONSES);
    over.insert(REGION_KEY.to_owned(), accept_region("eu"));
    let from = logs.len();
    let reply = retry(addr, &json!(2), "many", json!({"inputResponses": over, "requestState": state})).await;
    let error = assert_error(&reply, 400, -32602, &json!(2));
    assert_eq!(error["message"], format!("Invalid params: more than {MAX_RESPONSES} inputResponses"));
    logs.assert_warned(from, "too many inputResponses");
    assert_still_serving(addr).await;

    let secret = "SECRET-BIG-ANSWER-http-1f4b";
    let envelope = accept_region("").to_string().len();
    for (size, too_large) in [(MAX_RESPONSE_BYTES, false), (MAX_RESPONSE_BYTES + 1, true), (3 * 1024 * 1024, true)] {
        let region = format!("{secret}{}", "r".repeat(size - envelope - secret.len()));
        let entry = accept_region(&region);
        assert_eq!(entry.to_string().len(), size);
        let from = logs.len();
        let extra = json!({"inputResponses": {REGION_KEY: entry}, "requestState": state});
        let reply = retry(addr, &json!(3), "many", extra).await;
        if too_large {
            let error = assert_error(&reply, 400, -32602, &json!(3));
            let expected = format!("Invalid params: an inputResponses entry exceeds {MAX_RESPONSE_BYTES} bytes");
            assert_eq!(error["message"], expected);
            logs.assert_warned(from, "an oversized inputResponses entry");
        } else {
            assert_eq!(complete_text(&assert_result(&reply, &json!(3))), format!("Provisioned 'many' in {region}."));
        }
        assert_still_serving(addr).await;
    }
    logs.assert_clean(&[secret, &state]);
}

#[tokio::test]
async fn input_responses_of_the_wrong_kind_fail_the_call_or_ask_again() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "kind").await;
    let sampled = json!({"role": "assistant", "content": {"type": "text", "text": "eu"}, "model": "m"});
    for (answer, why) in [
        (sampled, "a non-elicitation response"),
        (json!({"roots": [{"uri": "file:///eu"}]}), "a non-elicitation response"),
        (json!({"action": "accept"}), "an accepted elicitation with no content"),
        (
            json!({"action": "accept", "content": {"region": 7}}),
            "an elicitation whose content does not match the requested schema",
        ),
    ] {
        let extra = json!({"inputResponses": {REGION_KEY: answer}, "requestState": state});
        let reply = retry(addr, &json!(1), "kind", extra).await;
        let text = tool_error_text(&assert_result(&reply, &json!(1)));
        assert_eq!(text, format!("Resolver '{REGION_KEY}' received {why}"), "{answer}");
        assert_still_serving(addr).await;
    }
    for responses in
        [json!({"unknown": accept_region("eu")}), json!({"hostile_http::ASK_REGION": accept_region("eu")}), json!({})]
    {
        let reply = retry(addr, &json!(2), "kind", json!({"inputResponses": responses, "requestState": state})).await;
        asked_region(&assert_result(&reply, &json!(2)));
        assert_still_serving(addr).await;
    }
    // Answers sent with a call that asked nothing are ignored.
    let extra = json!({"inputResponses": {REGION_KEY: accept_region("eu")}});
    let reply = post(addr, "echo", &call(json!(3), "echo", json!({"text": "plain"}), extra)).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(3))), "plain");
}

// ---------------------------------------------------------------------------------------
// Time and concurrency limits
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_handler_over_the_timeout_is_504_and_cancelled() {
    let (logs, _guard) = capture_logs();
    let limits = Limits { handler_timeout: Some(Duration::from_millis(200)), ..Default::default() };
    let addr = http::serve(&server_with(limits), HttpConfig::default()).await;
    let from = logs.len();
    let started = tokio::time::Instant::now();
    let reply = post(addr, "slow", &call(json!("slow"), "slow", json!({"ms": 1_000}), json!({}))).await;
    let elapsed = started.elapsed();
    let error = assert_error(&reply, 504, -32001, &json!("slow"));
    assert_eq!(error, json!({"code": -32001, "message": "Request timed out"}));
    assert!(elapsed < Duration::from_millis(900), "the timeout answered after {elapsed:?}");
    logs.assert_warned(from, "a handler timeout");
    assert_still_serving(addr).await;
    // The handler was dropped: it never finishes.
    tokio::time::sleep(Duration::from_millis(1_200).saturating_sub(started.elapsed())).await;
    assert_eq!(SLOW_FINISHED.load(Ordering::SeqCst), 0, "the timed-out handler ran to the end");
    // A handler within the limit is unaffected.
    let reply = post(addr, "slow", &call(json!("quick"), "slow", json!({"ms": 10}), json!({}))).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!("quick"))), "slept 10 ms");
}

#[tokio::test]
async fn requests_over_the_concurrency_limit_are_503_with_retry_after() {
    let (logs, _guard) = capture_logs();
    let config = HttpConfig { max_concurrent_requests: 2, ..HttpConfig::default() };
    let addr = http::serve(&server_with(Limits::default()), config).await;
    let holding: Vec<_> = (0..2)
        .map(|i| {
            let message = call(json!(format!("hold-{i}")), "hold", json!({"ms": 1_500}), json!({}));
            tokio::spawn(async move { post(addr, "hold", &message).await })
        })
        .collect();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while HOLD_STARTED.load(Ordering::SeqCst) < 2 {
        assert!(tokio::time::Instant::now() < deadline, "the holding calls did not start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let from = logs.len();
    for id in 0..3 {
        let reply = post(addr, "echo", &call(json!(id), "echo", json!({"text": "x"}), json!({}))).await;
        let error = assert_error(&reply, 503, -32000, &json!(id));
        assert_eq!(error["message"], "Server busy: too many requests in flight; retry later");
        assert_eq!(reply.header("retry-after"), Some("1"), "{:?}", reply.headers);
    }
    logs.assert_warned(from, "the concurrency limit");
    for (i, task) in holding.into_iter().enumerate() {
        let reply = task.await.unwrap_or_else(|e| panic!("the holding call failed: {e}"));
        assert_eq!(complete_text(&assert_result(&reply, &json!(format!("hold-{i}")))), "held 1500 ms");
    }
    assert_still_serving(addr).await;
}
