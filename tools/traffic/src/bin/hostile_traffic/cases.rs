//! The hostile cases: each a request a server must refuse (see the binary's docs).

use bytes::Bytes;
use http::Method;
use mcp::protocol::{LATEST_PROTOCOL_VERSION, keys};
use serde_json::{Value, json};

/// More than any body limit we expect a server to have by default.
const OVERSIZED: usize = 5 * 1024 * 1024;

/// How a case is sent.
pub(crate) enum Wire {
    /// An HTTP/1.1 request on a (kept-alive) connection.
    Http { method: Method, path: &'static str, headers: Vec<(String, String)>, body: Bytes },
    /// Raw bytes on a new TCP connection; `eof` closes our side after writing.
    Raw { bytes: Bytes, eof: bool },
}

pub(crate) struct Case {
    pub(crate) name: &'static str,
    pub(crate) send: Wire,
    /// Sent on one pass in `every` (1: every pass), for the heavy ones.
    pub(crate) every: u64,
}

/// The headers of a well-formed 2026-07-28 POST of `method` (and `Mcp-Name`).
pub(crate) fn mcp_headers(method: &str, name: Option<&str>) -> Vec<(String, String)> {
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

pub(crate) fn meta() -> Value {
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
pub(crate) fn cases(tool: &str, host: &str, path: &str) -> Vec<Case> {
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
