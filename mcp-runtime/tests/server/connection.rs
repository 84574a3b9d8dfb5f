//! How a newline-delimited connection (as stdio runs it) serves its requests and writes
//! their answers: a handler that finishes at once is answered in order, one that waits
//! continues on its own while later requests are served; each frame leaves in the same
//! write as its newline, never split from it, without waiting for the next one.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use mcp::Server;
use mcp::protocol::{CallToolOutcome, CallToolResult};
use serde_json::{Value, json};
use tokio::io::{AsyncWrite, AsyncWriteExt};

use super::limits::{Conn, ConnLimits};

/// A writer that keeps every write it is handed, as separate buffers.
#[derive(Clone, Default)]
struct Writes(Arc<Mutex<Vec<Vec<u8>>>>);

impl Writes {
    fn taken(&self) -> Vec<Vec<u8>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

impl AsyncWrite for Writes {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(buf.to_vec());
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The lines written so far, once `n` have arrived.
async fn lines(writes: &Writes, n: usize) -> Vec<Vec<u8>> {
    for _ in 0..500 {
        let all = writes.taken();
        if all.concat().iter().filter(|&&b| b == b'\n').count() >= n {
            return all;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("fewer than {n} lines within 5 s: {:?}", writes.taken().concat().escape_ascii().to_string());
}

#[tokio::test]
async fn each_frame_is_written_with_its_newline() {
    let server = Server::builder("framing", "1.0.0").build();
    let (mut input, server_in) = tokio::io::duplex(1 << 16);
    let writes = Writes::default();
    tokio::spawn(mcp::serve::connection(server, server_in, writes.clone()).into_future());

    for id in 1..=3 {
        // One at a time: each answer must be written before the next request arrives.
        let request = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"no/such/method\"}}\n");
        input.write_all(request.as_bytes()).await.unwrap_or_else(|e| panic!("write: {e}"));
        lines(&writes, id).await;
    }
    let writes = lines(&writes, 3).await;
    for write in &writes {
        assert!(
            write.ends_with(b"\n"),
            "a write that splits a frame from its newline: {:?}",
            write.escape_ascii().to_string()
        );
    }
    let text = String::from_utf8(writes.concat()).unwrap_or_else(|e| panic!("not UTF-8: {e}"));
    let ids: Vec<Value> = text
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))["id"].clone()
        })
        .collect();
    assert_eq!(ids, [1, 2, 3].map(Value::from));
}

/// `echo` answers at once, `wait` after `ms` milliseconds, `panic` panics before any wait,
/// `report` sends two progress notifications first.
fn server() -> Server {
    Server::builder("connection", "1.0.0")
        .on_call_tool(|ctx, params| async move {
            match params.name.as_str() {
                "report" => {
                    ctx.progress(1.0, None, None).await;
                    ctx.progress(2.0, None, None).await;
                }
                "wait" => {
                    let ms = params.arguments.as_ref().and_then(|a| a.get("ms")).and_then(Value::as_u64);
                    tokio::time::sleep(Duration::from_millis(ms.unwrap_or(0))).await;
                }
                "panic" => panic!("a handler that panics"),
                _ => {}
            }
            Ok(CallToolOutcome::from(CallToolResult::text(params.name)))
        })
        .build()
}

/// A connection to [`server`], with the default settings.
fn connect() -> Conn {
    super::limits::connect(server(), ConnLimits::default())
}

fn call(id: i64, tool: &str, arguments: Value) -> String {
    super::limits::call(id, tool, arguments, json!({})).to_string()
}

#[tokio::test]
async fn a_waiting_handler_does_not_hold_up_later_requests() {
    let mut conn = connect();
    conn.send_line(&call(1, "wait", json!({"ms": 300}))).await;
    conn.send_line(&call(2, "echo", json!({}))).await;
    conn.send_line(&call(3, "echo", json!({}))).await;
    let order: Vec<Value> = [conn.recv().await, conn.recv().await, conn.recv().await]
        .iter()
        .map(|reply| {
            assert_eq!(
                reply["result"]["content"][0]["text"],
                if reply["id"] == 1 { "wait" } else { "echo" },
                "{reply}"
            );
            reply["id"].clone()
        })
        .collect();
    assert_eq!(order, [2, 3, 1].map(Value::from));
}

#[tokio::test]
async fn an_id_in_progress_is_refused_and_free_again_once_answered() {
    let mut conn = connect();
    conn.send_line(&call(7, "wait", json!({"ms": 300}))).await;
    conn.send_line(&call(7, "echo", json!({}))).await;
    let refused = conn.recv().await;
    assert_eq!(refused["id"], 7, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["error"]["message"], "Invalid Request: a request with this id is already in progress");
    let first = conn.recv().await;
    assert_eq!(first["result"]["content"][0]["text"], "wait", "{first}");
    // Answered ids can be used again, and a handler that finishes at once takes no slot.
    for _ in 0..2 {
        conn.send_line(&call(7, "echo", json!({}))).await;
        let again = conn.recv().await;
        assert_eq!(again["result"]["content"][0]["text"], "echo", "{again}");
    }
}

#[tokio::test]
async fn a_handler_that_panics_at_once_gets_an_internal_error_and_serving_goes_on() {
    let mut conn = connect();
    conn.send_line(&call(1, "panic", json!({}))).await;
    let reply = conn.recv().await;
    assert_eq!(reply["id"], 1, "{reply}");
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    conn.send_line(&call(2, "echo", json!({}))).await;
    assert_eq!(conn.recv().await["result"]["content"][0]["text"], "echo");
}

#[tokio::test]
async fn what_a_handler_sends_before_its_answer_arrives_before_it() {
    let mut conn = connect();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "p"
    });
    let params = json!({"_meta": meta, "name": "report", "arguments": {}});
    conn.send_line(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string()).await;
    for progress in [1.0, 2.0] {
        let note = conn.recv().await;
        assert_eq!(note["method"], "notifications/progress", "{note}");
        assert_eq!(note["params"]["progress"], progress, "{note}");
    }
    let answer = conn.recv().await;
    assert_eq!(answer["result"]["content"][0]["text"], "report", "{answer}");
}

/// A connection to [`server`] that stops reading when `stop` is sent, and the task serving it.
fn connect_until_stopped() -> (Conn, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<io::Result<()>>) {
    let (input, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, output) = tokio::io::duplex(1 << 16);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(
        mcp::serve::connection(server(), server_in, server_out)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future(),
    );
    (Conn::new(input, output), stop, serving)
}

#[tokio::test]
async fn a_shutdown_signal_ends_an_idle_connection() {
    let (mut conn, stop, serving) = connect_until_stopped();
    // Served while the signal has not fired: the connection checks it before each
    // message and must not take its silence for anything.
    for id in 1..=3 {
        conn.send_line(&call(id, "echo", json!({}))).await;
        assert_eq!(conn.recv().await["id"], id);
    }
    // Nothing else happens on the connection: the signal alone must wake it.
    let _ = stop.send(());
    let ended = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(matches!(ended, Ok(Ok(Ok(())))), "serving ends once the signal fires: {ended:?}");
}

#[tokio::test]
async fn a_shutdown_signal_lets_the_request_in_flight_finish() {
    let (mut conn, stop, serving) = connect_until_stopped();
    conn.send_line(&call(4, "wait", json!({"ms": 200}))).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let _ = stop.send(());
    // The signal ends the reading with the input still open, and the call in flight
    // still gets its answer within the grace period.
    let reply = conn.recv().await;
    assert_eq!((reply["id"].clone(), reply["result"]["content"][0]["text"].clone()), (json!(4), json!("wait")));
    let ended = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(matches!(ended, Ok(Ok(Ok(())))), "serving ends once the signal fires: {ended:?}");
}
