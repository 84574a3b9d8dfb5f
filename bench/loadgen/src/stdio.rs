//! stdio: newline-delimited JSON on a child's pipes, requests pipelined and matched by id.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use mcp::protocol::{LATEST_LEGACY_PROTOCOL_VERSION, methods};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use crate::reply::Reply;
use crate::state::{Ctx, Fail, clip};

pub(crate) type Pending = Mutex<HashMap<u64, oneshot::Sender<Reply>>>;

pub(crate) struct Pipe {
    pub(crate) out: mpsc::UnboundedSender<Vec<u8>>,
    pub(crate) pending: Pending,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Pipe {
    pub(crate) async fn request(&self, id: u64, mut body: Vec<u8>) -> Result<Reply, Fail> {
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        body.push(b'\n');
        if self.out.send(body).is_err() {
            lock(&self.pending).remove(&id);
            return Err(Fail::Fatal("the server's stdin is closed".into()));
        }
        rx.await.map_err(|_| Fail::Fatal("the server closed its stdout".into()))
    }

    pub(crate) fn send(&self, mut line: Vec<u8>) {
        line.push(b'\n');
        let _ = self.out.send(line);
    }
}

/// The spawned server and the tasks around its pipes.
pub(crate) struct Spawned {
    pub(crate) child: tokio::process::Child,
    pub(crate) pipe: Arc<Pipe>,
    pub(crate) writer: tokio::task::JoinHandle<()>,
    pub(crate) reader: tokio::task::JoinHandle<()>,
}

pub(crate) fn spawn_stdio(command: &str, ctx: &Arc<Ctx>) -> Result<Spawned, String> {
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(format!("exec {command}"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("the child has no stdin")?;
    let stdout = child.stdout.take().ok_or("the child has no stdout")?;
    let (out, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let pipe = Arc::new(Pipe { out, pending: Mutex::new(HashMap::new()) });

    // One writer: whatever is queued goes out in one write.
    let writer_ctx = Arc::clone(ctx);
    let writer = tokio::spawn(async move {
        let mut buffer = Vec::with_capacity(64 * 1024);
        while let Some(first) = out_rx.recv().await {
            buffer.clear();
            buffer.extend_from_slice(&first);
            while buffer.len() < 256 * 1024 {
                match out_rx.try_recv() {
                    Ok(more) => buffer.extend_from_slice(&more),
                    Err(_) => break,
                }
            }
            if let Err(e) = stdin.write_all(&buffer).await {
                if !writer_ctx.stop.load(Ordering::Relaxed) {
                    writer_ctx.fail(format!("cannot write to the server's stdin: {e}"));
                }
                break;
            }
        }
    });

    // One reader: responses go to their waiting call, server requests are answered.
    let reader_ctx = Arc::clone(ctx);
    let reader_pipe = Arc::clone(&pipe);
    let reader = tokio::spawn(async move {
        let ctx = reader_ctx;
        let mut lines = BufReader::with_capacity(256 * 1024, stdout);
        let mut line = Vec::with_capacity(4096);
        loop {
            line.clear();
            match lines.read_until(b'\n', &mut line).await {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    if !ctx.stop.load(Ordering::Relaxed) {
                        ctx.fail(format!("cannot read the server's stdout: {e}"));
                    }
                    break;
                }
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Some(reply) = Reply::parse(Bytes::copy_from_slice(&line)) else {
                ctx.error(format!(
                    "the server wrote a line that is not a JSON object: {}",
                    clip(&String::from_utf8_lossy(&line), 200)
                ));
                continue;
            };
            if let Some(method) = &reply.message.method {
                if let Some(id) = &reply.message.id {
                    reader_pipe.send(ctx.server_request_reply(method, id));
                }
                continue;
            }
            let waiting = reply.id().and_then(|id| lock(&reader_pipe.pending).remove(&id));
            match waiting {
                Some(tx) => {
                    let _ = tx.send(reply);
                }
                None if reply.message.id.is_none() => {
                    // An error without an id leaves a call unanswered for good.
                    ctx.fail(format!("the server answered without an id: {}", reply.text()));
                }
                None => ctx.error(format!("a response to no pending request: {}", reply.text())),
            }
        }
        if !ctx.stop.load(Ordering::Relaxed) {
            ctx.fail("the server closed its stdout".into());
        }
        lock(&reader_pipe.pending).clear();
    });
    Ok(Spawned { child, pipe, writer, reader })
}

/// The legacy handshake on the pipe.
pub(crate) async fn stdio_handshake(pipe: &Pipe, ctx: &Ctx, capabilities: Value) -> Result<(), String> {
    let id = ctx.next_id();
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": methods::INITIALIZE,
        "params": initialize_params(capabilities),
    });
    let reply = pipe.request(id, body.to_string().into_bytes()).await.map_err(fail_text)?;
    reply.result().map_err(fail_text)?;
    pipe.send(json!({"jsonrpc": "2.0", "method": methods::NOTIFICATION_INITIALIZED}).to_string().into_bytes());
    Ok(())
}

pub(crate) fn initialize_params(capabilities: Value) -> Value {
    json!({
        "protocolVersion": LATEST_LEGACY_PROTOCOL_VERSION,
        "capabilities": capabilities,
        "clientInfo": {"name": "loadgen", "version": env!("CARGO_PKG_VERSION")},
    })
}

pub(crate) fn fail_text(fail: Fail) -> String {
    match fail {
        Fail::Rejected(text) | Fail::Fatal(text) => text,
    }
}
