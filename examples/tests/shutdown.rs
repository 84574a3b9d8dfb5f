//! Graceful shutdown: on SIGTERM an HTTP server stops accepting connections, finishes the
//! requests it is serving, and exits 0.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use mcp_testkit::http::{self, Headers};
use mcp_testkit::stdio::modern_params;
use serde_json::json;
use tokio::process::Command;

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
    listener.local_addr().unwrap_or_else(|e| panic!("addr: {e}")).port()
}

#[tokio::test]
async fn sigterm_finishes_in_flight_requests_then_exits_zero() {
    let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap_or_else(|e| panic!("{e}"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_everything"))
        .args(["http", &addr.to_string()])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut up = false;
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(up, "the server did not listen on {addr}");

    // A call that takes 800 ms, in flight when the signal arrives.
    let params = modern_params(json!({}), json!({"name": "test_slow", "arguments": {"ms": 800}}));
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let headers = Headers::modern("tools/call", Some("test_slow"));
    let slow = tokio::spawn(async move { http::post(addr, &headers, &message).await });
    tokio::time::sleep(Duration::from_millis(200)).await;

    let pid = child.id().unwrap_or_else(|| panic!("no pid"));
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap_or_else(|e| panic!("kill: {e}"));
    assert!(status.success());

    // New connections are refused once the listener is closed.
    let mut refused = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(refused, "the server still accepts connections after SIGTERM");

    let reply = tokio::time::timeout(Duration::from_secs(10), slow)
        .await
        .unwrap_or_else(|_| panic!("the in-flight call never finished"))
        .unwrap_or_else(|e| panic!("join: {e}"));
    let body = reply.json();
    assert_eq!(body["result"]["resultType"], "complete", "{body}");

    let exit = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap_or_else(|_| panic!("the server did not exit"))
        .unwrap_or_else(|e| panic!("wait: {e}"));
    assert_eq!(exit.code(), Some(0), "{exit:?}");
}
