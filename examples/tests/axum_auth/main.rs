//! The `axum_auth` example as a process on a real socket: its middleware authenticates
//! callers, and the tool sees who they are and the headers of their request.

#[path = "../support/mod.rs"]
mod support;

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use mcp::client::{Client, Mode};
use mcp::protocol::ContentBlock;
use mcp_testkit::http::{self, Headers};
use mcp_testkit::stdio::modern_params;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

use crate::support::free_port;

/// `axum_auth` listening on a free port; killed when dropped.
struct Example {
    addr: SocketAddr,
    _child: Child,
}

async fn start() -> Example {
    let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap_or_else(|e| panic!("{e}"));
    let child = Command::new(env!("CARGO_BIN_EXE_axum_auth"))
        .arg(addr.to_string())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn axum_auth: {e}"));
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return Example { addr, _child: child };
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("axum_auth did not listen on {addr}");
}

fn whoami(id: i64) -> Value {
    let params = modern_params(json!({}), json!({"name": "whoami", "arguments": {}}));
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn headers(token: Option<&str>) -> Headers {
    let headers = Headers::modern("tools/call", Some("whoami"));
    match token {
        Some(t) => headers.set("authorization", &format!("Bearer {t}")),
        None => headers,
    }
}

#[tokio::test]
async fn an_authenticated_call_sees_its_principal_and_request_headers() {
    let example = start().await;
    let reply = http::post(example.addr, &headers(Some("token-alice")).set("x-request-id", "req-42"), &whoami(1)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "You are alice (client axum-auth-example, scopes: tickets:read tickets:write); request id: req-42."
    );
    let reply = http::post(example.addr, &headers(Some("token-bob")), &whoami(2)).await;
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "You are bob (client axum-auth-example, scopes: tickets:read); request id: none."
    );
}

#[tokio::test]
async fn a_missing_or_unknown_token_is_401_from_the_middleware() {
    let example = start().await;
    for token in [None, Some("token-eve")] {
        let reply = http::post(example.addr, &headers(token), &whoami(1)).await;
        assert_eq!(reply.status, 401, "{token:?}: {}", reply.body);
        // The middleware's answer, not the endpoint's (which would be JSON-RPC).
        assert_eq!(reply.header("www-authenticate"), Some("Bearer realm=\"axum-auth\""), "{token:?}");
        assert_eq!(reply.body, "missing or unknown bearer token\n", "{token:?}");
    }
}

#[tokio::test]
async fn our_client_with_a_bearer_token_calls_the_tool_in_both_eras() {
    let example = start().await;
    let url = format!("http://{}/mcp", example.addr);
    for legacy in [false, true] {
        let mode = if legacy { Mode::Legacy } else { Mode::Auto };
        let connect = Client::builder().mode(mode).bearer_token("token-bob").connect_http(&url);
        let client = within(connect).await.unwrap_or_else(|e| panic!("legacy={legacy}: {e}"));
        assert_eq!(client.is_legacy(), legacy);
        let result = within(client.call_tool("whoami", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
        let text = match result.content.first() {
            Some(ContentBlock::Text(t)) => t.text.as_str(),
            other => panic!("legacy={legacy}: not text: {other:?}"),
        };
        assert_eq!(
            text, "You are bob (client axum-auth-example, scopes: tickets:read); request id: none.",
            "legacy={legacy}"
        );
    }
    let refused = Client::builder().bearer_token("token-eve").connect_http(&url);
    assert!(within(refused).await.is_err(), "an unknown token cannot connect");
}

/// Await `work` for at most 10 s.
async fn within<F: std::future::Future>(work: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), work).await.unwrap_or_else(|_| panic!("no answer within 10 s"))
}
