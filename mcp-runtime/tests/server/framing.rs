//! How a newline-delimited connection (as stdio runs it) writes its frames: each frame
//! leaves in the same write as its newline, never split from it, and every frame is
//! written out without waiting for the next one.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use mcp::Server;
use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};

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
