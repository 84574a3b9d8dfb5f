//! `hostile_traffic`: keeps sending hostile requests to a Streamable HTTP MCP endpoint for
//! a while and checks that each one is refused properly (the hostile part of
//! `scripts/soak.sh`).
//!
//! The cases: malformed, truncated, empty and non-JSON bodies; wrong content types and
//! `Accept`; invalid UTF-8 and unpaired surrogate escapes; duplicate keys; deeply nested
//! JSON (the whole body, and inside `arguments`); huge arguments; batches; ids of the wrong
//! type; missing or wrong `jsonrpc`, `method` and `params`; unknown methods and tools; a
//! POSTed response; forged, gigantic and non-string `requestState`; `inputResponses` of the
//! wrong shape; missing, mismatched and invalid MCP headers; other HTTP methods and paths; a
//! foreign `Host` and `Origin`; too many headers; and over raw TCP (written while the answer
//! is read, since a server may refuse before reading everything): a 512 KiB header, a
//! chunked body over the body limit, a garbage request line, a body shorter than its
//! `Content-Length` (then EOF), and a `Content-Length` over the body limit.
//!
//! Each must be answered with a 4xx status, or a JSON-RPC error (in a JSON body or an SSE
//! event). Anything else is unexpected: a 5xx, a success, no answer within 5 s, or a
//! connection closed without an answer. A kept-alive connection that turns out closed is
//! retried once on a new one (the server may close after refusing a request); a fresh
//! connection that fails is a dropped request.
//!
//! ```text
//! hostile_traffic --url http://127.0.0.1:PORT/mcp [--duration SECS] [--concurrency C] [--pause-ms MS]
//!                 [--tool NAME] [--only TEXT]
//! ```
//!
//! Defaults: 10 s, 4 workers (each goes through every case in turn, heavy ones less often,
//! pausing `--pause-ms` after each request: 0 by default),
//! `--tool test_input_required_result_elicitation` (a tool that asks a question: the
//! target of the `requestState` and `inputResponses` cases); `--only TEXT` keeps the cases
//! whose name contains `TEXT`. Output: one JSON line
//! `{"sent","unexpected","answered":{"STATUS[ CODE]":n},"cases":{"NAME":{"STATUS[ CODE]":n}}}`;
//! answers are labelled by HTTP status plus the JSON-RPC error code when there is one. The
//! first unexpected answers are described on stderr, and the exit code is 1 if there was any.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use mcp::protocol::{LATEST_PROTOCOL_VERSION, keys};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long an answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest answer read.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;
/// More than any body limit we expect a server to have by default.
const OVERSIZED: usize = 5 * 1024 * 1024;
/// How many unexpected answers are described on stderr.
const REPORTED: usize = 10;

/// How a case is sent.
enum Wire {
    /// An HTTP/1.1 request on a (kept-alive) connection.
    Http { method: Method, path: &'static str, headers: Vec<(String, String)>, body: Bytes },
    /// Raw bytes on a new TCP connection; `eof` closes our side after writing.
    Raw { bytes: Bytes, eof: bool },
}

struct Case {
    name: &'static str,
    send: Wire,
    /// Sent on one pass in `every` (1: every pass), for the heavy ones.
    every: u64,
}

/// The headers of a well-formed 2026-07-28 POST of `method` (and `Mcp-Name`).
fn mcp_headers(method: &str, name: Option<&str>) -> Vec<(String, String)> {
    let mut headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        ("accept".to_owned(), "application/json, text/event-stream".to_owned()),
        ("mcp-protocol-version".to_owned(), LATEST_PROTOCOL_VERSION.to_owned()),
        ("mcp-method".to_owned(), method.to_owned()),
    ];
    if let Some(name) = name {
        headers.push(("mcp-name".to_owned(), name.to_owned()));
    }
    headers
}

/// `headers` with `name` replaced (or removed when `value` is `None`).
fn with_header(mut headers: Vec<(String, String)>, name: &str, value: Option<&str>) -> Vec<(String, String)> {
    headers.retain(|(n, _)| n != name);
    if let Some(value) = value {
        headers.push((name.to_owned(), value.to_owned()));
    }
    headers
}

fn meta() -> Value {
    json!({
        keys::PROTOCOL_VERSION: LATEST_PROTOCOL_VERSION,
        keys::CLIENT_CAPABILITIES: {"elicitation": {"form": {}}},
        keys::CLIENT_INFO: {"name": "hostile_traffic", "version": env!("CARGO_PKG_VERSION")},
    })
}

fn post(method: &str, name: Option<&str>, body: impl Into<Bytes>) -> Wire {
    Wire::Http { method: Method::POST, path: "", headers: mcp_headers(method, name), body: body.into() }
}

fn case(name: &'static str, send: Wire) -> Case {
    Case { name, send, every: 1 }
}

/// A `tools/call` of `tool` with `extra` merged into its params.
fn call_body(tool: &str, extra: Value) -> Vec<u8> {
    let mut params = json!({"_meta": meta(), "name": tool, "arguments": {}});
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string().into_bytes()
}

/// `ping` with `id` as the id.
fn ping_with_id(id: Value) -> Wire {
    post("ping", None, json!({"jsonrpc": "2.0", "id": id, "method": "ping", "params": {"_meta": meta()}}).to_string())
}

/// Every case, for `tool` (the one that asks a question) at `path`.
fn cases(tool: &str, host: &str, path: &str) -> Vec<Case> {
    let call = |extra: Value| post("tools/call", Some(tool), call_body(tool, extra));
    let valid = call_body(tool, json!({}));
    let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    // A raw tools/call POST: the MCP headers, then `extra` header lines, then `body` as is.
    let raw_post = |extra: &str, body: &[u8]| -> Bytes {
        let mut bytes = format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {LATEST_PROTOCOL_VERSION}\r\n\
             Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\n{extra}\r\n"
        )
        .into_bytes();
        bytes.extend_from_slice(body);
        bytes.into()
    };
    let http = |method: Method, path: &'static str, headers: Vec<(String, String)>, body: Vec<u8>| Wire::Http {
        method,
        path,
        headers,
        body: body.into(),
    };
    let many_headers: Vec<(String, String)> =
        (0..300).map(|i| (format!("x-hostile-{i}"), "x".to_owned())).chain(mcp_headers("ping", None)).collect();
    vec![
        case("malformed_json", post("tools/call", Some(tool), r#"{"jsonrpc":"2.0","id":1,"method":,}"#)),
        case("truncated_json", post("tools/call", Some(tool), valid[..valid.len() / 2].to_vec())),
        case("empty_body", post("tools/call", Some(tool), "")),
        case("not_json", post("tools/call", Some(tool), "hello, server")),
        case("wrong_content_type", {
            let headers = with_header(mcp_headers("tools/call", Some(tool)), "content-type", Some("text/plain"));
            http(Method::POST, "", headers, valid.clone())
        }),
        case("no_content_type", {
            let headers = with_header(mcp_headers("tools/call", Some(tool)), "content-type", None);
            http(Method::POST, "", headers, valid.clone())
        }),
        case("accept_without_sse", {
            let headers = with_header(mcp_headers("tools/call", Some(tool)), "accept", Some("text/html"));
            http(Method::POST, "", headers, valid.clone())
        }),
        case("invalid_utf8", {
            let mut body = br#"{"jsonrpc":"2.0","id":1,"method":"no/such/"#.to_vec();
            body.extend_from_slice(&[0xff, 0xfe, 0xc3]);
            body.extend_from_slice(br#"","params":{}}"#);
            post("no/such/", None, body)
        }),
        case(
            "unpaired_surrogate",
            call(json!({"arguments": {"name": "\u{fffd}"}})).map_body(|b| b.replace("\u{fffd}", "\\ud800")),
        ),
        case(
            "duplicate_keys",
            post(
                "no/such/a",
                None,
                r#"{"jsonrpc":"2.0","id":1,"method":"no/such/a","method":"no/such/b","params":{}}"#,
            ),
        ),
        case("deeply_nested_body", post("tools/call", Some(tool), nested(100_000))),
        case("deeply_nested_arguments", {
            let body = String::from_utf8_lossy(&call_body(tool, json!({"arguments": {"x": "NESTED"}}))).into_owned();
            post("tools/call", Some(tool), body.replace("\"NESTED\"", &nested(2_000)))
        }),
        Case {
            name: "huge_arguments",
            send: post(
                "tools/call",
                Some("no_such_tool"),
                call_body("no_such_tool", json!({"arguments": {"blob": "A".repeat(2 * 1024 * 1024)}})),
            ),
            every: 20,
        },
        Case {
            // Chunked, so the size is known only by reading; raw, as the server may answer
            // and close before the client has written it all.
            name: "oversized_chunked_body",
            send: Wire::Raw {
                bytes: raw_post("Transfer-Encoding: chunked\r\n", &{
                    let mut body = format!("{OVERSIZED:x}\r\n").into_bytes();
                    body.extend_from_slice(&valid[..valid.len() - 1]);
                    body.extend_from_slice(br#","padding":""#);
                    body.resize(body.len() + OVERSIZED - valid.len() - 13, b'A');
                    body.extend_from_slice(b"\"}\r\n0\r\n\r\n");
                    body
                }),
                eof: false,
            },
            every: 50,
        },
        case(
            "batch",
            post("ping", None, format!(r#"[{0},{0}]"#, json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))),
        ),
        case("empty_batch", post("ping", None, "[]")),
        case("id_object", ping_with_id(json!({"a": 1}))),
        case("id_array", ping_with_id(json!([1]))),
        case("id_bool", ping_with_id(json!(true))),
        case("id_null", ping_with_id(Value::Null)),
        case("id_huge_number", post("ping", None, r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#)),
        case(
            "no_jsonrpc",
            post("ping", None, json!({"id": 1, "method": "ping", "params": {"_meta": meta()}}).to_string()),
        ),
        case(
            "jsonrpc_1_0",
            post(
                "ping",
                None,
                json!({"jsonrpc": "1.0", "id": 1, "method": "ping", "params": {"_meta": meta()}}).to_string(),
            ),
        ),
        case("method_not_string", post("ping", None, r#"{"jsonrpc":"2.0","id":1,"method":5}"#)),
        case(
            "unknown_method",
            post(
                "no/such/method",
                None,
                json!({"jsonrpc": "2.0", "id": 1, "method": "no/such/method", "params": {"_meta": meta()}}).to_string(),
            ),
        ),
        case("unknown_tool", post("tools/call", Some("no_such_tool"), call_body("no_such_tool", json!({})))),
        case(
            "params_not_object",
            post("tools/call", Some(tool), r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1,2]}"#),
        ),
        case("arguments_not_object", call(json!({"arguments": "text"}))),
        case(
            "no_meta",
            post(
                "tools/call",
                Some(tool),
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool}}).to_string(),
            ),
        ),
        case("posted_response", post("ping", None, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)),
        case("forged_request_state", call(json!({"requestState": format!("v1.{}", "QUJD".repeat(40))}))),
        Case {
            name: "gigantic_request_state",
            send: call(json!({"requestState": format!("v1.{}", "A".repeat(1024 * 1024))})),
            every: 5,
        },
        case("numeric_request_state", call(json!({"requestState": 12345}))),
        case("object_request_state", call(json!({"requestState": {"v": 1}}))),
        case("input_responses_array", call(json!({"inputResponses": [1, 2], "requestState": "v1.AAAA"}))),
        case("input_responses_string", call(json!({"inputResponses": "yes"}))),
        case("input_responses_bad_entry", call(json!({"inputResponses": {"user_name": 5}}))),
        case("input_responses_bad_action", call(json!({"inputResponses": {"user_name": {"action": "maybe"}}}))),
        case("header_method_mismatch", {
            let headers = with_header(mcp_headers("tools/call", Some(tool)), "mcp-method", Some("tools/list"));
            http(Method::POST, "", headers, valid.clone())
        }),
        case("header_method_missing", {
            let headers = with_header(mcp_headers("tools/call", Some(tool)), "mcp-method", None);
            http(Method::POST, "", headers, valid.clone())
        }),
        case("header_name_mismatch", {
            let headers = with_header(mcp_headers("tools/call", Some(tool)), "mcp-name", Some("other_tool"));
            http(Method::POST, "", headers, valid.clone())
        }),
        case("header_name_bad_base64", {
            let headers = with_header(mcp_headers("tools/call", Some(tool)), "mcp-name", Some("=?base64?%%%?="));
            http(Method::POST, "", headers, valid.clone())
        }),
        case("header_unknown_version", {
            let headers =
                with_header(mcp_headers("tools/call", Some(tool)), "mcp-protocol-version", Some("1999-01-01"));
            http(Method::POST, "", headers, valid.clone())
        }),
        case("get", http(Method::GET, "", vec![("accept".into(), "text/event-stream".into())], Vec::new())),
        case("delete", http(Method::DELETE, "", vec![("mcp-session-id".into(), "forged".into())], Vec::new())),
        case("put", http(Method::PUT, "", mcp_headers("tools/call", Some(tool)), valid.clone())),
        case("wrong_path", http(Method::POST, "/no/such/path", mcp_headers("tools/call", Some(tool)), valid.clone())),
        case("foreign_host", {
            let headers = with_header(mcp_headers("tools/call", Some(tool)), "host", Some("evil.example"));
            http(Method::POST, "", headers, valid.clone())
        }),
        case("foreign_origin", {
            let headers = with_header(mcp_headers("tools/call", Some(tool)), "origin", Some("http://evil.example"));
            http(Method::POST, "", headers, valid.clone())
        }),
        case(
            "too_many_headers",
            http(Method::POST, "", many_headers, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec()),
        ),
        Case {
            name: "huge_header",
            send: Wire::Raw {
                bytes: raw_post(&format!("X-Hostile: {}\r\nContent-Length: 2\r\n", "x".repeat(512 * 1024)), b"{}"),
                eof: false,
            },
            every: 10,
        },
        case("garbage_request_line", Wire::Raw { bytes: Bytes::from_static(b"HELLO THERE\r\n\r\n"), eof: false }),
        case(
            "body_shorter_than_length_then_eof",
            Wire::Raw { bytes: raw_post("Content-Length: 400\r\n", br#"{"jsonrpc":"2.0","id":1,"#), eof: true },
        ),
        case(
            "length_over_limit",
            Wire::Raw {
                bytes: raw_post(&format!("Content-Length: {OVERSIZED}\r\n"), br#"{"jsonrpc":"2.0","#),
                eof: false,
            },
        ),
    ]
}

impl Wire {
    /// The same request with its body rewritten as text.
    fn map_body(self, f: impl FnOnce(String) -> String) -> Wire {
        match self {
            Wire::Http { method, path, headers, body } => {
                let body = f(String::from_utf8_lossy(&body).into_owned());
                Wire::Http { method, path, headers, body: body.into() }
            }
            raw => raw,
        }
    }
}

/// The run's tallies, shared by the workers.
#[derive(Default)]
struct Tally {
    sent: u64,
    unexpected: u64,
    answered: BTreeMap<String, u64>,
    cases: BTreeMap<&'static str, BTreeMap<String, u64>>,
    reported: usize,
}

impl Tally {
    fn record(&mut self, case: &'static str, label: String, refused: bool) {
        self.sent += 1;
        if !refused {
            self.unexpected += 1;
            if self.reported < REPORTED {
                self.reported += 1;
                eprintln!("hostile_traffic: {case}: unexpected answer: {label}");
            }
        }
        let label = if refused { label } else { format!("unexpected: {label}") };
        *self.answered.entry(label.clone()).or_default() += 1;
        *self.cases.entry(case).or_default().entry(label).or_default() += 1;
    }
}

fn lock(tally: &Mutex<Tally>) -> std::sync::MutexGuard<'_, Tally> {
    tally.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The JSON-RPC error code in a JSON body, or in the last SSE event that is a response.
fn error_code(body: &[u8], sse: bool) -> Option<i64> {
    let code = |message: &Value| message.get("error")?.get("code")?.as_i64();
    if !sse {
        return serde_json::from_slice::<Value>(body).ok().as_ref().and_then(code);
    }
    let text = String::from_utf8_lossy(body);
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .rfind(|m| m.get("result").is_some() || m.get("error").is_some())
        .as_ref()
        .and_then(code)
}

/// The label of an answer, and whether it is a proper refusal.
fn judge(status: StatusCode, code: Option<i64>) -> (String, bool) {
    let label = match code {
        Some(code) => format!("{} {code}", status.as_u16()),
        None => status.as_u16().to_string(),
    };
    let refused = status.is_client_error() || (status.is_success() && code.is_some());
    (label, refused)
}

struct Target {
    addr: SocketAddr,
    host: String,
    path: String,
}

async fn connect(addr: SocketAddr) -> Result<SendRequest<Full<Bytes>>, String> {
    let stream = tokio::net::TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
    let _ = stream.set_nodelay(true);
    let (sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| format!("handshake: {e}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// Send one HTTP case on `conn` (reconnecting when it is closed); the label and verdict.
async fn send_http(
    target: &Target,
    conn: &mut Option<SendRequest<Full<Bytes>>>,
    method: &Method,
    path: &str,
    headers: &[(String, String)],
    body: &Bytes,
) -> Result<(String, bool), String> {
    for attempt in 0..2 {
        let mut reused = false;
        if let Some(sender) = conn.as_mut() {
            reused = sender.ready().await.is_ok();
        }
        if !reused {
            *conn = Some(connect(target.addr).await?);
        }
        let Some(sender) = conn.as_mut() else { return Err("no connection".into()) };
        let mut request = Request::new(Full::new(body.clone()));
        *request.method_mut() = method.clone();
        *request.uri_mut() =
            (if path.is_empty() { target.path.as_str() } else { path }).parse().map_err(|e| format!("{e}"))?;
        let h = request.headers_mut();
        h.insert(http::header::HOST, target.host.parse().map_err(|e| format!("{e}"))?);
        for (name, value) in headers {
            let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|e| format!("{e}"))?;
            h.insert(name, value.parse().map_err(|e| format!("{e}"))?);
        }
        let answered = tokio::time::timeout(ANSWER_TIMEOUT, async {
            let response = sender.send_request(request).await.map_err(|e| format!("no answer: {e}"))?;
            let status = response.status();
            let close = response.headers().get(http::header::CONNECTION).is_some_and(|v| v == "close");
            let sse = response
                .headers()
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream"));
            let body = Limited::new(response.into_body(), MAX_ANSWER_BYTES)
                .collect()
                .await
                .map_err(|e| format!("answer body: {e}"))?
                .to_bytes();
            Ok::<_, String>((status, error_code(&body, sse), close))
        })
        .await;
        match answered {
            Ok(Ok((status, code, close))) => {
                if close {
                    *conn = None;
                }
                return Ok(judge(status, code));
            }
            Ok(Err(why)) => {
                *conn = None;
                if reused && attempt == 0 {
                    continue;
                }
                return Err(why);
            }
            Err(_) => {
                *conn = None;
                return Err(format!("no answer within {ANSWER_TIMEOUT:?}"));
            }
        }
    }
    Err("no answer".into())
}

/// Send raw bytes on a new connection and read the status line of the answer. The bytes
/// are written while the answer is read: a server may refuse before it has read them all.
async fn send_raw(target: &Target, bytes: &Bytes, eof: bool) -> Result<(String, bool), String> {
    let exchange = async {
        let stream = tokio::net::TcpStream::connect(target.addr).await.map_err(|e| format!("connect: {e}"))?;
        let (mut stream, mut write) = stream.into_split();
        let bytes = bytes.clone();
        // Write errors do not matter (the server may have closed after answering); the write
        // half lives in the task's result until the answer is read.
        let _writer = tokio::spawn(async move {
            let _ = write.write_all(&bytes).await;
            if eof {
                let _ = write.shutdown().await;
            }
            write
        });
        let mut answer = Vec::new();
        let mut buffer = [0u8; 4096];
        while !answer.windows(2).any(|w| w == b"\r\n") {
            let n = stream.read(&mut buffer).await.map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("connection closed without an answer".to_owned());
            }
            answer.extend_from_slice(&buffer[..n]);
        }
        let line = String::from_utf8_lossy(&answer).lines().next().unwrap_or_default().to_owned();
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse::<u16>().ok())
            .and_then(|s| StatusCode::from_u16(s).ok())
            .ok_or_else(|| format!("not an HTTP answer: {line:?}"))?;
        Ok(judge(status, None))
    };
    tokio::time::timeout(ANSWER_TIMEOUT, exchange).await.map_err(|_| format!("no answer within {ANSWER_TIMEOUT:?}"))?
}

/// What every worker shares.
struct Shared {
    target: Target,
    cases: Vec<Case>,
    tally: Mutex<Tally>,
    until: Instant,
    pause: Duration,
}

/// Go through the cases from `start` on, round after round, until the time is up.
async fn worker(shared: Arc<Shared>, start: usize) {
    let Shared { target, cases, tally, until, pause } = &*shared;
    let mut conn = None;
    let mut pass = 0u64;
    while Instant::now() < *until {
        for i in 0..cases.len() {
            let case = &cases[(start + i) % cases.len()];
            if !pass.is_multiple_of(case.every) {
                continue;
            }
            let result = match &case.send {
                Wire::Http { method, path, headers, body } => {
                    send_http(target, &mut conn, method, path, headers, body).await
                }
                Wire::Raw { bytes, eof } => send_raw(target, bytes, *eof).await,
            };
            let (label, refused) = result.unwrap_or_else(|why| (format!("no answer ({why})"), false));
            lock(tally).record(case.name, label, refused);
            if !pause.is_zero() {
                tokio::time::sleep(*pause).await;
            }
        }
        pass += 1;
    }
}

#[derive(serde::Serialize)]
struct Line<'a> {
    sent: u64,
    unexpected: u64,
    answered: &'a BTreeMap<String, u64>,
    cases: &'a BTreeMap<&'static str, BTreeMap<String, u64>>,
}

async fn run() -> Result<bool, String> {
    let mut url = None;
    let mut duration = Duration::from_secs(10);
    let mut concurrency = 4usize;
    let mut tool = "test_input_required_result_elicitation".to_owned();
    let mut only: Option<String> = None;
    let mut pause = Duration::ZERO;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--url" => url = Some(value()?),
            "--duration" => {
                duration = Duration::from_secs_f64(value()?.parse().map_err(|e| format!("--duration: {e}"))?)
            }
            "--concurrency" => concurrency = value()?.parse().map_err(|e| format!("--concurrency: {e}"))?,
            "--tool" => tool = value()?,
            "--only" => only = Some(value()?),
            "--pause-ms" => pause = Duration::from_millis(value()?.parse().map_err(|e| format!("--pause-ms: {e}"))?),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let url: http::Uri = url
        .ok_or("usage: hostile_traffic --url URL [--duration SECS] [--concurrency C] [--pause-ms MS] [--tool NAME] [--only TEXT]")?
        .parse()
        .map_err(|e| format!("--url: {e}"))?;
    let authority = url.authority().ok_or("--url needs a host and port")?.clone();
    let addr = tokio::net::lookup_host(authority.as_str())
        .await
        .map_err(|e| format!("{authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority} resolves to nothing"))?;
    let path = url.path().to_owned();
    let target = Target { addr, host: authority.to_string(), path: path.clone() };
    let mut cases = cases(&tool, authority.as_str(), &path);
    if let Some(only) = &only {
        cases.retain(|c| c.name.contains(only.as_str()));
        if cases.is_empty() {
            return Err(format!("no case matches --only {only}"));
        }
    }
    let concurrency = concurrency.max(1);
    let starts: Vec<usize> = (0..concurrency).map(|i| i * cases.len() / concurrency).collect();
    let until = Instant::now() + duration;
    let shared = Arc::new(Shared { target, cases, tally: Mutex::new(Tally::default()), until, pause });
    let workers: Vec<_> = starts.into_iter().map(|start| tokio::spawn(worker(Arc::clone(&shared), start))).collect();
    for w in workers {
        w.await.map_err(|e| format!("a worker failed: {e}"))?;
    }
    let t = lock(&shared.tally);
    let line = Line { sent: t.sent, unexpected: t.unexpected, answered: &t.answered, cases: &t.cases };
    println!("{}", serde_json::to_string(&line).map_err(|e| e.to_string())?);
    Ok(t.unexpected == 0)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::FAILURE,
        Err(message) => {
            eprintln!("hostile_traffic: {message}");
            std::process::ExitCode::from(2)
        }
    }
}
