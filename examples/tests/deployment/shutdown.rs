//! Graceful shutdown: on SIGTERM a server stops accepting connections (HTTP) or reading
//! requests (stdio), finishes the requests it is serving, and exits 0.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use crate::support::free_port;
use mcp_testkit::http::{self, Headers};
use mcp_testkit::stdio::modern_params;
use serde_json::json;
use tokio::process::Command;

fn sigterm(child: &tokio::process::Child) {
    let pid = child.id().unwrap_or_else(|| panic!("no pid"));
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap_or_else(|e| panic!("kill: {e}"));
    assert!(status.success());
}

async fn assert_exits_zero(child: &mut tokio::process::Child) {
    let exit = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap_or_else(|_| panic!("the server did not exit"))
        .unwrap_or_else(|e| panic!("wait: {e}"));
    assert_eq!(exit.code(), Some(0), "{exit:?}");
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

    sigterm(&child);

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

    assert_exits_zero(&mut child).await;
}

#[tokio::test]
async fn sigterm_on_stdio_stops_reading_finishes_in_flight_then_exits_zero() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let mut child = Command::new(env!("CARGO_BIN_EXE_everything"))
        .arg("stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    let mut stdout = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("no stdout"))).lines();
    let line = |id: i64, ms: u64| {
        let params = modern_params(json!({}), json!({"name": "test_slow", "arguments": {"ms": ms}}));
        format!("{}\n", json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
    };

    // One call answered before the signal proves the server is up; a second is in flight.
    stdin.write_all(line(1, 1).as_bytes()).await.unwrap_or_else(|e| panic!("write: {e}"));
    let first = stdout.next_line().await.unwrap_or_else(|e| panic!("read: {e}")).unwrap_or_default();
    assert!(first.contains(r#""id":1"#), "{first}");
    stdin.write_all(line(2, 800).as_bytes()).await.unwrap_or_else(|e| panic!("write: {e}"));
    tokio::time::sleep(Duration::from_millis(200)).await;

    sigterm(&child);
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Sent after the signal, with stdin still open: never read, never answered.
    let _ = stdin.write_all(line(3, 1).as_bytes()).await;

    let mut rest = Vec::new();
    let read_all = async {
        while let Ok(Some(line)) = stdout.next_line().await {
            rest.push(line);
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read_all)
        .await
        .unwrap_or_else(|_| panic!("stdout never closed after SIGTERM"));
    assert_eq!(rest.len(), 1, "{rest:?}");
    let response: serde_json::Value = serde_json::from_str(&rest[0]).unwrap_or_else(|e| panic!("{e}: {}", rest[0]));
    assert_eq!(response["id"], 2, "{response}");
    assert_eq!(response["result"]["resultType"], "complete", "{response}");

    assert_exits_zero(&mut child).await;
    drop(stdin);
}
