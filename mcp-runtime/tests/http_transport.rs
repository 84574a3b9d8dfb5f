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

// ---------------------------------------------------------------------------------------
// 2026-07-28: success
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn modern_call_answers_json_with_a_complete_result() {
    let (addr, _) = start().await;
    let id = json!("call-1");
    let reply = post(addr, &call_headers("echo"), &call(id.clone(), "echo", json!({"text": "hello"}))).await;
    assert_eq!(assert_tool_text(&reply, &id), "hello");
    let body = reply.json();
    assert_eq!(body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "http-transport-test");
    assert!(reply.header("mcp-session-id").is_none(), "modern requests get no session");
}

#[tokio::test]
async fn modern_input_required_is_a_200_result_and_the_retry_completes() {
    let (addr, _) = start().await;
    let caps = json!({"elicitation": {}});
    let first = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": modern_params(caps.clone(), json!({"name": "ask", "arguments": {}}))});
    let reply = post(addr, &call_headers("ask"), &first).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    let body = reply.json();
    assert_valid(MODERN, "CallToolResultResponse", &body);
    assert_eq!(body["result"]["resultType"], "input_required", "{body}");
    assert_eq!(body["result"]["inputRequests"]["name"]["method"], "elicitation/create", "{body}");
    let state = body["result"]["requestState"].clone();

    let retry = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": modern_params(caps, json!({"name": "ask", "arguments": {},
            "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}},
            "requestState": state}))});
    let reply = post(addr, &call_headers("ask"), &retry).await;
    assert_eq!(assert_tool_text(&reply, &json!(2)), "Hello, Ada!");
}

#[tokio::test]
async fn modern_input_request_without_the_capability_is_400_minus_32021() {
    let (addr, _) = start().await;
    let reply = post(addr, &call_headers("ask"), &call(json!(7), "ask", json!({}))).await;
    let error = assert_error(&reply, 400, -32021, &json!(7));
    assert_valid(MODERN, "MissingRequiredClientCapabilityError", &reply.json());
    assert_eq!(error["data"]["requiredCapabilities"], json!({"elicitation": {"form": {}}}), "{error}");
}

// ---------------------------------------------------------------------------------------
// 2026-07-28: request-metadata headers
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn missing_protocol_version_header_is_a_mismatch() {
    let (addr, _) = start().await;
    let headers = call_headers("echo").remove("MCP-Protocol-Version");
    let reply = post(addr, &headers, &call(json!(1), "echo", json!({"text": "x"}))).await;
    let message = assert_mismatch(&reply, &json!(1));
    assert!(message.contains("MCP-Protocol-Version"), "{message}");
}

#[tokio::test]
async fn protocol_version_header_differing_from_meta_is_a_mismatch() {
    let (addr, _) = start().await;
    let headers = call_headers("echo").set("MCP-Protocol-Version", "2025-11-25");
    let reply = post(addr, &headers, &call(json!(2), "echo", json!({"text": "x"}))).await;
    let message = assert_mismatch(&reply, &json!(2));
    assert!(message.contains("2025-11-25") && message.contains("2026-07-28"), "{message}");
}

#[tokio::test]
async fn missing_method_header_is_a_mismatch() {
    let (addr, _) = start().await;
    let headers = call_headers("echo").remove("Mcp-Method");
    let reply = post(addr, &headers, &call(json!("m1"), "echo", json!({"text": "x"}))).await;
    let message = assert_mismatch(&reply, &json!("m1"));
    assert!(message.contains("Mcp-Method"), "{message}");
}

#[tokio::test]
async fn method_header_values_are_case_sensitive() {
    let (addr, _) = start().await;
    for (n, value) in ["TOOLS/CALL", "Tools/Call", "tools/list"].into_iter().enumerate() {
        let id = json!(n);
        let headers = call_headers("echo").set("Mcp-Method", value);
        let reply = post(addr, &headers, &call(id.clone(), "echo", json!({"text": "x"}))).await;
        let message = assert_mismatch(&reply, &id);
        assert!(message.contains(value), "{message}");
    }
}

#[tokio::test]
async fn missing_or_different_name_header_is_a_mismatch() {
    let (addr, _) = start().await;
    let message = call(json!(3), "echo", json!({"text": "x"}));
    let reply = post(addr, &call_headers("echo").remove("Mcp-Name"), &message).await;
    assert!(assert_mismatch(&reply, &json!(3)).contains("Mcp-Name"));
    for other in ["region", "ECHO", "=?base64?cmVnaW9u?="] {
        let reply = post(addr, &call_headers(other), &message).await;
        assert_mismatch(&reply, &json!(3));
    }
    // The name header base64-wrapped is the same name.
    let reply = post(addr, &call_headers("=?base64?ZWNobw==?="), &message).await;
    assert_eq!(assert_tool_text(&reply, &json!(3)), "x");
}

#[tokio::test]
async fn header_names_are_case_insensitive_on_the_wire() {
    let (addr, _) = start().await;
    let body = call(json!(4), "region", json!({"region": "us-west1", "count": 2})).to_string();
    let spellings = [
        ["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-param-region", "mcp-param-count"],
        ["MCP-PROTOCOL-VERSION", "MCP-METHOD", "MCP-NAME", "MCP-PARAM-REGION", "MCP-PARAM-COUNT"],
        ["Mcp-Protocol-version", "mCP-mEthod", "Mcp-nAME", "Mcp-Param-REGION", "mcp-PARAM-count"],
    ];
    for [version, method, name, region, count] in spellings {
        let headers = Headers::json()
            .set(version, "2026-07-28")
            .set(method, "tools/call")
            .set(name, "region")
            .set(region, "us-west1")
            .set(count, "2");
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        assert_eq!(assert_tool_text(&reply, &json!(4)), "region=\"us-west1\" count=2", "spelling {method}");
    }
}

#[tokio::test]
async fn surrounding_whitespace_in_header_values_is_tolerated() {
    let (addr, _) = start().await;
    let body = call(json!(5), "region", json!({"region": "eu", "count": 1})).to_string();
    let headers = Headers::json()
        .set("MCP-Protocol-Version", " 2026-07-28\t")
        .set("Mcp-Method", "\t tools/call  ")
        .set("Mcp-Name", "  region ")
        .set("Mcp-Param-Region", " eu ")
        .set("Mcp-Param-Count", "\t1\t");
    let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
    assert_eq!(assert_tool_text(&reply, &json!(5)), "region=\"eu\" count=1");
}

// ---------------------------------------------------------------------------------------
// 2026-07-28: Mcp-Param-* headers
// ---------------------------------------------------------------------------------------

fn region_call(id: i64, arguments: Value) -> Value {
    call(json!(id), "region", arguments)
}

#[tokio::test]
async fn param_header_base64_value_matching_the_body_is_accepted() {
    let (addr, _) = start().await;
    // "日本" is E6 97 A5 E6 9C AC in UTF-8; "us-west1" is plain ASCII.
    let cases = [("日本", "=?base64?5pel5pys?="), ("us-west1", "=?base64?dXMtd2VzdDE=?="), ("us-west1", "us-west1")];
    for (n, (region, header)) in cases.into_iter().enumerate() {
        let id = i64::try_from(n).unwrap_or_default();
        let headers = call_headers("region").set("Mcp-Param-Region", header);
        let reply = post(addr, &headers, &region_call(id, json!({"region": region}))).await;
        assert_eq!(assert_tool_text(&reply, &json!(id)), format!("region=\"{region}\" count=null"), "{header}");
    }
    // A base64 value that decodes to something else is a mismatch.
    let headers = call_headers("region").set("Mcp-Param-Region", "=?base64?5pel5pys?=");
    let reply = post(addr, &headers, &region_call(9, json!({"region": "中国"}))).await;
    assert_mismatch(&reply, &json!(9));
}

#[tokio::test]
async fn param_header_without_the_wrapper_is_compared_literally() {
    let (addr, _) = start().await;
    // Base64 of "us-west1", but not wrapped: it is the literal string.
    let headers = call_headers("region").set("Mcp-Param-Region", "dXMtd2VzdDE=");
    let reply = post(addr, &headers, &region_call(1, json!({"region": "us-west1"}))).await;
    assert_mismatch(&reply, &json!(1));
    let reply = post(addr, &headers, &region_call(2, json!({"region": "dXMtd2VzdDE="}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(2)), "region=\"dXMtd2VzdDE=\" count=null");
    // Only the prefix: not the wrapper either.
    let headers = call_headers("region").set("Mcp-Param-Region", "=?base64?dXMtd2VzdDE=");
    let reply = post(addr, &headers, &region_call(3, json!({"region": "=?base64?dXMtd2VzdDE="}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(3)), "region=\"=?base64?dXMtd2VzdDE=\" count=null");
}

#[tokio::test]
async fn param_header_with_bad_base64_is_a_mismatch() {
    let (addr, _) = start().await;
    for (n, bad) in ["=?base64?dXMtd2VzdDE?=", "=?base64?dXMt!!!d2VzdDE=?=", "=?base64?/w==?="].into_iter().enumerate()
    {
        let id = i64::try_from(n).unwrap_or_default();
        let headers = call_headers("region").set("Mcp-Param-Region", bad);
        let reply = post(addr, &headers, &region_call(id, json!({"region": "us-west1"}))).await;
        let message = assert_mismatch(&reply, &json!(id));
        assert!(message.contains("Mcp-Param-Region"), "{bad}: {message}");
    }
}

#[tokio::test]
async fn param_header_missing_while_the_body_has_the_value_is_a_mismatch() {
    let (addr, _) = start().await;
    let reply = post(addr, &call_headers("region"), &region_call(1, json!({"region": "us-west1"}))).await;
    assert!(assert_mismatch(&reply, &json!(1)).contains("Mcp-Param-Region"));
    let headers = call_headers("region").set("Mcp-Param-Region", "us-west1");
    let reply = post(addr, &headers, &region_call(2, json!({"region": "us-west1", "count": 3}))).await;
    assert!(assert_mismatch(&reply, &json!(2)).contains("Mcp-Param-Count"));
    // A null argument needs no header.
    let reply = post(addr, &headers, &region_call(3, json!({"region": "us-west1", "count": null}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(3)), "region=\"us-west1\" count=null");
}

#[tokio::test]
async fn integer_param_header_is_compared_numerically() {
    let (addr, _) = start().await;
    for (n, header) in ["7", "007", "=?base64?MDA3?="].into_iter().enumerate() {
        let id = i64::try_from(n).unwrap_or_default();
        let headers = call_headers("region").set("Mcp-Param-Count", header);
        let reply = post(addr, &headers, &region_call(id, json!({"count": 7}))).await;
        assert_eq!(assert_tool_text(&reply, &json!(id)), "region=null count=7", "header {header:?}");
    }
    for (n, header) in ["8", "seven", "7.5", "0x7", ""].into_iter().enumerate() {
        let id = 10 + i64::try_from(n).unwrap_or_default();
        let headers = call_headers("region").set("Mcp-Param-Count", header);
        let reply = post(addr, &headers, &region_call(id, json!({"count": 7}))).await;
        assert_mismatch(&reply, &json!(id));
    }
    // A JSON Schema integer may be written with a zero fraction: 7.0 is 7; 7.5 is no integer.
    let headers = call_headers("region").set("Mcp-Param-Count", "7");
    let reply = post(addr, &headers, &region_call(20, json!({"count": 7.0}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(20)), "region=null count=7.0");
    let reply = post(addr, &headers, &region_call(21, json!({"count": 7.5}))).await;
    assert_mismatch(&reply, &json!(21));
}

#[tokio::test]
async fn param_header_present_while_the_body_lacks_the_argument_is_a_mismatch() {
    let (addr, _) = start().await;
    let headers = call_headers("region").set("Mcp-Param-Region", "us-west1");
    let reply = post(addr, &headers, &region_call(1, json!({}))).await;
    let message = assert_mismatch(&reply, &json!(1));
    assert!(message.contains("Mcp-Param-Region"), "{message}");
    let message = call(json!(2), "region", Value::Null);
    let reply = post(addr, &headers.set("Mcp-Param-Count", "1"), &message).await;
    assert_mismatch(&reply, &json!(2));
}

// ---------------------------------------------------------------------------------------
// 2026-07-28: _meta and method errors
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn unsupported_version_in_header_and_meta_is_400_minus_32022() {
    let (addr, _) = start().await;
    let mut message = call(json!("v"), "echo", json!({"text": "x"}));
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let headers = call_headers("echo").set("MCP-Protocol-Version", "1900-01-01");
    let reply = post(addr, &headers, &message).await;
    let error = assert_error(&reply, 400, -32022, &json!("v"));
    assert_valid(MODERN, "UnsupportedProtocolVersionError", &reply.json());
    assert_eq!(error["data"]["requested"], "1900-01-01", "{error}");
    let supported = error["data"]["supported"].as_array().cloned().unwrap_or_default();
    assert!(supported.contains(&json!("2026-07-28")), "{error}");
}

#[tokio::test]
async fn missing_meta_is_400_minus_32602() {
    let (addr, _) = start().await;
    let message = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "x"}}});
    let reply = post(addr, &call_headers("echo"), &message).await;
    assert_error(&reply, 400, -32602, &json!(11));
}

#[tokio::test]
async fn missing_client_capabilities_is_400_minus_32602() {
    let (addr, _) = start().await;
    let mut message = call(json!(12), "echo", json!({"text": "x"}));
    let meta = message["params"]["_meta"].as_object_mut().expect("_meta is an object");
    meta.remove("io.modelcontextprotocol/clientCapabilities");
    let reply = post(addr, &call_headers("echo"), &message).await;
    let error = assert_error(&reply, 400, -32602, &json!(12));
    assert!(error["message"].as_str().is_some_and(|m| m.contains("clientCapabilities")), "{error}");
}

#[tokio::test]
async fn unknown_method_is_404_minus_32601() {
    let (addr, _) = start().await;
    let reply = post(addr, &Headers::modern("foo/bar", None), &modern_request(json!(13), "foo/bar", json!({}))).await;
    assert_error(&reply, 404, -32601, &json!(13));
}

#[tokio::test]
async fn removed_methods_with_modern_meta_are_404() {
    let (addr, _) = start().await;
    let removed = [
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "file:///x"})),
        (
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        ),
    ];
    for (n, (method, extra)) in removed.into_iter().enumerate() {
        let id = json!(format!("removed-{n}"));
        let reply = post(addr, &Headers::modern(method, None), &modern_request(id.clone(), method, extra)).await;
        assert_error(&reply, 404, -32601, &id);
        assert!(reply.header("mcp-session-id").is_none(), "{method} must not open a session");
    }
}

// ---------------------------------------------------------------------------------------
// HTTP-level handling
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn notification_post_is_202_with_an_empty_body() {
    let (addr, _) = start().await;
    let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let reply = post(addr, &Headers::modern("notifications/cancelled", None), &message).await;
    assert_eq!(reply.status.as_u16(), 202, "{}", reply.body);
    assert_eq!(reply.body, "");
}

#[tokio::test]
async fn get_delete_and_put_without_a_session_are_405_and_other_paths_404() {
    let (addr, _) = start().await;
    let sse = Headers::new().set("Accept", "text/event-stream");
    for method in ["GET", "DELETE"] {
        let reply = http::send(addr, method, PATH, &sse, "").await;
        assert_eq!(reply.status.as_u16(), 405, "{method}: {}", reply.body);
        assert!(reply.header("allow").is_some_and(|a| a.contains("POST")), "{method}: {:?}", reply.headers);
    }
    let body = call(json!(1), "echo", json!({"text": "x"})).to_string();
    let reply = http::send(addr, "PUT", PATH, &call_headers("echo"), body.clone()).await;
    assert_eq!(reply.status.as_u16(), 405, "{}", reply.body);
    let reply = http::send(addr, "POST", "/other", &call_headers("echo"), body.clone()).await;
    assert_eq!(reply.status.as_u16(), 404, "{}", reply.body);
    let reply = http::send(addr, "POST", "/mcp/extra", &call_headers("echo"), body).await;
    assert_eq!(reply.status.as_u16(), 404, "{}", reply.body);
}

#[tokio::test]
async fn wrong_content_type_is_415() {
    let (addr, _) = start().await;
    let body = call(json!(1), "echo", json!({"text": "x"})).to_string();
    for content_type in ["text/plain", "application/jsonx", "multipart/form-data"] {
        let headers = call_headers("echo").set("Content-Type", content_type);
        let reply = http::send(addr, "POST", PATH, &headers, body.clone()).await;
        assert_eq!(reply.status.as_u16(), 415, "{content_type}: {}", reply.body);
    }
    let reply = http::send(addr, "POST", PATH, &call_headers("echo").remove("Content-Type"), body.clone()).await;
    assert_eq!(reply.status.as_u16(), 415, "{}", reply.body);
    let headers = call_headers("echo").set("Content-Type", "Application/JSON; charset=utf-8");
    let reply = http::send(addr, "POST", PATH, &headers, body).await;
    assert_eq!(assert_tool_text(&reply, &json!(1)), "x");
}

#[tokio::test]
async fn accept_without_event_stream_is_406() {
    let (addr, _) = start().await;
    let body = call(json!(1), "echo", json!({"text": "x"})).to_string();
    for accept in ["application/json", "text/event-stream", "text/html"] {
        let reply = http::send(addr, "POST", PATH, &call_headers("echo").set("Accept", accept), body.clone()).await;
        assert_eq!(reply.status.as_u16(), 406, "{accept}: {}", reply.body);
    }
    let reply = http::send(addr, "POST", PATH, &call_headers("echo").remove("Accept"), body.clone()).await;
    assert_eq!(reply.status.as_u16(), 406, "{}", reply.body);
    let headers = call_headers("echo").set("Accept", "text/event-stream;q=0.9, application/json");
    let reply = http::send(addr, "POST", PATH, &headers, body).await;
    assert_eq!(assert_tool_text(&reply, &json!(1)), "x");
}

#[tokio::test]
async fn malformed_json_is_400_minus_32700() {
    let (addr, _) = start().await;
    for bad in ["{not json", "", "{\"jsonrpc\": \"2.0\", \"id\": 1,"] {
        let reply = http::send(addr, "POST", PATH, &call_headers("echo"), bad).await;
        assert_error(&reply, 400, -32700, &Value::Null);
    }
    let reply = http::send(addr, "POST", PATH, &call_headers("echo"), vec![0xff, 0xfe, b'{']).await;
    assert_error(&reply, 400, -32700, &Value::Null);
}

#[tokio::test]
async fn json_array_body_is_400_minus_32600() {
    let (addr, _) = start().await;
    let batch = json!([call(json!(1), "echo", json!({"text": "x"}))]);
    let reply = post(addr, &call_headers("echo"), &batch).await;
    assert_error(&reply, 400, -32600, &Value::Null);
}

#[tokio::test]
async fn a_response_posted_outside_a_session_is_400() {
    let (addr, _) = start().await;
    let message = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
    let reply = post(addr, &Headers::json().set("MCP-Protocol-Version", "2026-07-28"), &message).await;
    assert_error(&reply, 400, -32600, &Value::Null);
}

#[tokio::test]
async fn oversized_body_is_413_and_the_server_keeps_serving() {
    let config = HttpConfig { max_body_bytes: 1024, ..HttpConfig::default() };
    let (addr, _) = start_with(config).await;
    let big = call(json!(1), "echo", json!({"text": "x".repeat(10 * 1024)})).to_string();
    let reply = http::send(addr, "POST", PATH, &call_headers("echo"), big).await;
    assert_eq!(reply.status.as_u16(), 413, "{}", reply.body);
    assert_error(&reply, 413, -32600, &Value::Null);
    // A body just under the limit still works.
    let small = call(json!(2), "echo", json!({"text": "y".repeat(512)}));
    let reply = post(addr, &call_headers("echo"), &small).await;
    assert_eq!(assert_tool_text(&reply, &json!(2)), "y".repeat(512));
    assert_serving(addr).await;
}

// ---------------------------------------------------------------------------------------
// SSE responses
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn progress_switches_the_response_to_sse_with_notifications_then_the_result() {
    let (addr, _) = start().await;
    let message = with_progress_token(call(json!("p"), "progress", json!({})), "token-1");
    let reply = post(addr, &call_headers("progress"), &message).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("text/event-stream"));
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    let messages = reply.sse_messages();
    assert_eq!(messages.len(), 4, "three progress notifications and the response: {messages:#?}");
    for (step, notification) in messages[..3].iter().enumerate() {
        assert_valid(MODERN, "ProgressNotification", notification);
        assert_eq!(notification["params"]["progressToken"], "token-1");
        let progress = notification["params"]["progress"].as_f64();
        assert_eq!(progress, Some(step as f64 + 1.0), "progress in order: {notification}");
        assert_eq!(notification["params"]["total"].as_f64(), Some(3.0), "{notification}");
    }
    let last = &messages[3];
    assert_valid(MODERN, "CallToolResultResponse", last);
    assert_eq!(last["id"], "p");
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(last["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn without_a_progress_token_the_same_call_answers_json() {
    let (addr, _) = start().await;
    let reply = post(addr, &call_headers("progress"), &call(json!(1), "progress", json!({}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(1)), "done");
}

// ---------------------------------------------------------------------------------------
// DNS-rebinding protection
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn foreign_host_or_origin_is_403() {
    let (addr, _) = start().await;
    let message = call(json!(1), "echo", json!({"text": "x"}));
    let reply = post(addr, &call_headers("echo").set("Host", "evil.example.com"), &message).await;
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.body);
    let reply =
        post(addr, &call_headers("echo").set("Host", &format!("evil.example.com:{}", addr.port())), &message).await;
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.body);
    let headers = call_headers("echo")
        .set("Host", &format!("localhost:{}", addr.port()))
        .set("Origin", "http://evil.example.com");
    let reply = post(addr, &headers, &message).await;
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.body);
    // A GET from a foreign host is refused before anything else.
    let reply = http::send(addr, "GET", PATH, &Headers::new().set("Host", "evil.example.com"), "").await;
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.body);
}

#[tokio::test]
async fn loopback_host_and_origin_are_accepted() {
    let (addr, _) = start().await;
    let message = call(json!(1), "echo", json!({"text": "x"}));
    let headers = call_headers("echo").set("Host", &format!("localhost:{}", addr.port()));
    assert_eq!(assert_tool_text(&post(addr, &headers, &message).await, &json!(1)), "x");
    let headers = headers.set("Origin", "http://localhost:5173");
    assert_eq!(assert_tool_text(&post(addr, &headers, &message).await, &json!(1)), "x");
}

#[tokio::test]
async fn without_allowed_hosts_any_host_is_accepted() {
    let (addr, _) = start_with(HttpConfig { allowed_hosts: None, ..HttpConfig::default() }).await;
    let message = call(json!(1), "echo", json!({"text": "x"}));
    let headers = call_headers("echo").set("Host", "evil.example.com").set("Origin", "http://evil.example.com");
    assert_eq!(assert_tool_text(&post(addr, &headers, &message).await, &json!(1)), "x");
}

// ---------------------------------------------------------------------------------------
// 2025-11-25 sessions on the same endpoint
// ---------------------------------------------------------------------------------------

fn legacy_headers(session: Option<&str>) -> Headers {
    let headers = Headers::json().set("MCP-Protocol-Version", "2025-11-25");
    match session {
        Some(id) => headers.set("Mcp-Session-Id", id),
        None => headers.remove("MCP-Protocol-Version"),
    }
}

/// `initialize` without `_meta`; returns the session id.
async fn initialize(addr: SocketAddr, capabilities: Value) -> String {
    let message = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "http-test-client", "version": "1.0.0"},
    }});
    let reply = post(addr, &legacy_headers(None), &message).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("application/json"));
    let body = reply.json();
    assert_eq!(body["id"], 0);
    assert_valid(LEGACY, "InitializeResult", &body["result"]);
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
    let session = reply.header("mcp-session-id").unwrap_or_else(|| panic!("no Mcp-Session-Id: {:?}", reply.headers));
    assert!(!session.is_empty() && session.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{session:?}");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = post(addr, &legacy_headers(Some(session)), &initialized).await;
    assert_eq!((reply.status.as_u16(), reply.body.as_str()), (202, ""));
    session.to_owned()
}

#[tokio::test]
async fn legacy_session_lifecycle() {
    let (addr, _) = start().await;
    let session = initialize(addr, json!({})).await;
    let other = initialize(addr, json!({})).await;
    assert_ne!(session, other, "each initialize opens its own session");

    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let reply = post(addr, &legacy_headers(Some(&session)), &list).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["id"], 1);
    assert!(body["result"].get("resultType").is_none(), "legacy results carry no resultType: {body}");
    assert!(body["result"].get("ttlMs").is_none(), "{body}");
    assert_valid(LEGACY, "ListToolsResult", &body["result"]);
    assert_eq!(body["result"]["tools"].as_array().map(Vec::len), Some(5));

    let reply = post(addr, &legacy_headers(Some("no-such-session")), &list).await;
    assert_error(&reply, 404, -32600, &json!(1));

    let stream =
        http::open(addr, "GET", PATH, &legacy_headers(Some(&session)).set("Accept", "text/event-stream"), "").await;
    assert_eq!(stream.status.as_u16(), 200);
    assert_eq!(stream.content_type().as_deref(), Some("text/event-stream"));
    drop(stream);

    let reply =
        http::send(addr, "GET", PATH, &legacy_headers(Some(&session)).set("Accept", "application/json"), "").await;
    assert_eq!(reply.status.as_u16(), 406, "{}", reply.body);

    let mut held =
        http::open(addr, "GET", PATH, &legacy_headers(Some(&session)).set("Accept", "text/event-stream"), "").await;
    assert_eq!(held.status.as_u16(), 200);

    let reply = http::send(addr, "DELETE", PATH, &legacy_headers(Some(&session)), "").await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert_eq!(held.next_message_within(Duration::from_secs(2)).await, None, "DELETE ends the session's GET stream");
    let reply = post(addr, &legacy_headers(Some(&session)), &list).await;
    assert_error(&reply, 404, -32600, &json!(1));
    // Notifications and responses naming the ended session get 404 as well.
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let reply = post(addr, &legacy_headers(Some(&session)), &notification).await;
    assert_error(&reply, 404, -32600, &Value::Null);
    let response = json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "cancel"}});
    let reply = post(addr, &legacy_headers(Some(&session)), &response).await;
    assert_error(&reply, 404, -32600, &Value::Null);
    let reply = http::send(addr, "DELETE", PATH, &legacy_headers(Some(&session)), "").await;
    assert_eq!(reply.status.as_u16(), 404, "{}", reply.body);
    let reply =
        http::send(addr, "GET", PATH, &legacy_headers(Some(&session)).set("Accept", "text/event-stream"), "").await;
    assert_eq!(reply.status.as_u16(), 404, "{}", reply.body);

    // The other session is untouched.
    let reply = post(addr, &legacy_headers(Some(&other)), &list).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
}

#[tokio::test]
async fn a_failed_initialize_opens_no_session() {
    let (addr, _) = start_with(HttpConfig { max_sessions: 1, ..HttpConfig::default() }).await;
    let message = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}});
    for _ in 0..2 {
        let reply = post(addr, &legacy_headers(None), &message).await;
        let body = reply.json();
        assert_eq!(body["error"]["code"], -32602, "initialize without protocolVersion: {body}");
        assert_eq!(body["id"], 0);
        assert!(reply.header("mcp-session-id").is_none(), "no session for a failed initialize: {:?}", reply.headers);
    }
    // The failures took no session slot: the only one is still free, and then taken.
    initialize(addr, json!({})).await;
    let good = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    let reply = post(addr, &legacy_headers(None), &good).await;
    assert_error(&reply, 503, -32000, &json!(1));
}

#[tokio::test]
async fn legacy_elicitation_travels_on_the_request_stream_and_the_answer_is_posted_back() {
    let (addr, _) = start().await;
    let session = initialize(addr, json!({"elicitation": {}})).await;
    let message = json!({"jsonrpc": "2.0", "id": "ask-1", "method": "tools/call",
        "params": {"name": "ask", "arguments": {}}});
    let mut stream = http::open(addr, "POST", PATH, &legacy_headers(Some(&session)), message.to_string()).await;
    assert_eq!(stream.status.as_u16(), 200);
    assert_eq!(stream.content_type().as_deref(), Some("text/event-stream"));

    let question = stream.next_message().await.expect("the elicitation request");
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_valid(LEGACY, "ElicitRequest", &question);
    let question_id = question.get("id").cloned().expect("a server request has an id");
    assert_eq!(question["params"]["message"], "What is your name?");

    let answer =
        json!({"jsonrpc": "2.0", "id": question_id, "result": {"action": "accept", "content": {"name": "Ada"}}});
    let reply = post(addr, &legacy_headers(Some(&session)), &answer).await;
    assert_eq!((reply.status.as_u16(), reply.body.as_str()), (202, ""));

    let last = stream.next_message().await.expect("the tool result");
    assert_eq!(last["id"], "ask-1", "{last}");
    assert_valid(LEGACY, "CallToolResult", &last["result"]);
    assert!(last["result"].get("resultType").is_none(), "{last}");
    assert_eq!(last["result"]["content"][0]["text"], "Hello, Ada!");
    assert_eq!(stream.next_message().await, None, "the stream ends after the response");
}

// ---------------------------------------------------------------------------------------
// Disconnects and limits
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn closing_the_sse_stream_cancels_the_handler() {
    let (addr, probe) = start().await;
    let message = with_progress_token(call(json!(1), "slow", json!({"ms": 5_000})), "slow-1");
    let mut stream = http::open(addr, "POST", PATH, &call_headers("slow"), message.to_string()).await;
    assert_eq!(stream.content_type().as_deref(), Some("text/event-stream"));
    let first = stream.next_message().await.expect("the first progress notification");
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(probe.started(), 1);
    drop(stream);
    wait_until("the handler future is dropped", Duration::from_secs(2), || probe.dropped() == 1).await;
    assert_eq!(probe.finished(), 0);
    assert_serving(addr).await;
}

#[tokio::test]
async fn closing_the_connection_while_waiting_for_json_cancels_the_handler() {
    let (addr, probe) = start().await;
    let message = call(json!(1), "slow", json!({"ms": 5_000}));
    let socket = http::write_raw(addr, "POST", PATH, &call_headers("slow"), message.to_string().as_bytes()).await;
    wait_until("the handler starts", Duration::from_secs(2), || probe.started() == 1).await;
    drop(socket);
    wait_until("the handler future is dropped", Duration::from_secs(2), || probe.dropped() == 1).await;
    assert_eq!(probe.finished(), 0);
    assert_serving(addr).await;
}

#[tokio::test]
async fn a_completed_slow_call_is_not_counted_as_dropped() {
    // The probe itself: a call that runs to the end is not reported as dropped.
    let (addr, probe) = start().await;
    let reply = post(addr, &call_headers("slow"), &call(json!(1), "slow", json!({"ms": 20}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(1)), "slept 20 ms");
    assert_eq!((probe.started(), probe.finished(), probe.dropped()), (1, 1, 0));
}

#[tokio::test]
async fn over_the_concurrency_limit_is_503_with_retry_after() {
    let (addr, probe) = start_with(HttpConfig { max_concurrent_requests: 1, ..HttpConfig::default() }).await;
    let message = call(json!(1), "slow", json!({"ms": 5_000}));
    let socket = http::write_raw(addr, "POST", PATH, &call_headers("slow"), message.to_string().as_bytes()).await;
    wait_until("the slow handler starts", Duration::from_secs(2), || probe.started() == 1).await;

    let reply = post(addr, &call_headers("echo"), &call(json!(2), "echo", json!({"text": "x"}))).await;
    assert_error(&reply, 503, -32000, &json!(2));
    let retry_after = reply.header("retry-after").unwrap_or_else(|| panic!("no Retry-After: {:?}", reply.headers));
    assert!(retry_after.parse::<u64>().is_ok(), "Retry-After is delay-seconds: {retry_after:?}");

    drop(socket);
    wait_until("the slow handler is dropped", Duration::from_secs(2), || probe.dropped() == 1).await;
    assert_serving(addr).await;
}

// ---------------------------------------------------------------------------------------
// Mounting in axum
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn the_service_mounts_in_an_axum_router() {
    let (server, _) = test_server();
    let app = axum::Router::new()
        .route_service("/mcp", mcp::serve::http::McpHttpService::new(server.clone(), HttpConfig::default()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("the bound address");
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("axum stopped: {e}");
        }
    });
    let reply = post(addr, &call_headers("echo"), &call(json!("axum"), "echo", json!({"text": "via axum"}))).await;
    assert_eq!(assert_tool_text(&reply, &json!("axum")), "via axum");
    let message = with_progress_token(call(json!("axum-sse"), "progress", json!({})), "t");
    let reply = post(addr, &call_headers("progress"), &message).await;
    assert_eq!(reply.content_type().as_deref(), Some("text/event-stream"));
    assert_eq!(reply.sse_messages().len(), 4, "{}", reply.body);
    let reply = http::send(addr, "POST", "/elsewhere", &call_headers("echo"), "{}").await;
    assert_eq!(reply.status.as_u16(), 404);
}

#[tokio::test]
async fn a_panicking_handler_is_500_minus_32603_for_that_request_only() {
    let (addr, _probe) = start().await;
    let slow = call(json!(1), "slow", json!({"ms": 300}));
    let in_flight = tokio::spawn(async move { http::post(addr, &call_headers("slow"), &slow).await });
    for id in 2..5 {
        let reply = post(addr, &call_headers("panic"), &call(json!(id), "panic", json!({}))).await;
        let error = assert_error(&reply, 500, -32603, &json!(id));
        assert_eq!(error["message"], "Internal error", "no panic text leaks: {error}");
    }
    let reply = post(addr, &call_headers("echo"), &call(json!(5), "echo", json!({"text": "still here"}))).await;
    assert_eq!(reply.json()["result"]["content"][0]["text"], "still here", "{}", reply.body);
    let reply = in_flight.await.unwrap_or_else(|e| panic!("join: {e}"));
    assert_eq!(reply.json()["result"]["content"][0]["text"], "slept 300 ms", "{}", reply.body);
}
