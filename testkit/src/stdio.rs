//! Spawn a server binary and talk to it in raw JSON lines, as a stdio client would.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// How long to wait for any single message before failing the test.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A server process under test.
pub struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Messages read but not yet claimed by `response`.
    backlog: VecDeque<Value>,
    /// Every message the server wrote, in order.
    pub transcript: Vec<Value>,
    /// Everything the server wrote to stderr so far, when [`SpawnOptions::capture_stderr`] was set.
    stderr: Option<Arc<Mutex<Vec<u8>>>>,
}

/// How [`StdioServer::spawn_with`] starts the process.
#[derive(Debug, Clone, Default)]
pub struct SpawnOptions {
    env: Vec<(String, String)>,
    capture_stderr: bool,
}

impl SpawnOptions {
    /// The defaults of [`StdioServer::spawn`]: the test's environment, stderr inherited.
    pub fn new() -> Self {
        SpawnOptions::default()
    }

    /// Set the environment variable `name` to `value` in the child.
    #[must_use]
    pub fn env(mut self, name: &str, value: &str) -> Self {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Collect the child's stderr instead of inheriting it (read it with [`StdioServer::stderr`]).
    #[must_use]
    pub fn capture_stderr(mut self) -> Self {
        self.capture_stderr = true;
        self
    }
}

/// The `_meta` of a 2026-07-28 request with these client capabilities.
pub fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "testkit", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// Params for a 2026-07-28 request: `extra` plus `_meta` with these capabilities.
pub fn modern_params(capabilities: Value, extra: Value) -> Value {
    let mut params = match extra {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    params.insert("_meta".into(), modern_meta(capabilities));
    Value::Object(params)
}

impl StdioServer {
    /// Start `program args...` with piped stdio (stderr is inherited, for logs).
    pub fn spawn(program: &str, args: &[&str]) -> Self {
        StdioServer::spawn_with(program, args, SpawnOptions::new())
    }

    /// Start `program args...` with piped stdin and stdout, as `options` say.
    pub fn spawn_with(program: &str, args: &[&str], options: SpawnOptions) -> Self {
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if options.capture_stderr { Stdio::piped() } else { Stdio::inherit() })
            .kill_on_drop(true);
        for (name, value) in &options.env {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap_or_else(|e| panic!("spawning {program}: {e}"));
        let stderr = child.stderr.take().map(|mut pipe| {
            let captured = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&captured);
            tokio::spawn(async move {
                let mut chunk = vec![0u8; 16 * 1024];
                while let Ok(n @ 1..) = pipe.read(&mut chunk).await {
                    sink.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&chunk[..n]);
                }
            });
            captured
        });
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("{program} has no stdout"));
        let (tx, rx) = mpsc::channel(1024);
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                if tx.send(line).await.is_err() {
                    break;
                }
            }
        });
        StdioServer { child, stdin, lines: rx, backlog: VecDeque::new(), transcript: Vec::new(), stderr }
    }

    /// Everything the server wrote to stderr so far (lossily decoded); panics unless it was
    /// spawned with [`SpawnOptions::capture_stderr`].
    pub fn stderr(&self) -> String {
        self.stderr_since(0)
    }

    /// How many bytes the server has written to stderr so far (a mark for [`stderr_since`](Self::stderr_since)).
    pub fn stderr_len(&self) -> usize {
        self.captured_stderr().lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// What the server wrote to stderr from byte `from` on (lossily decoded).
    pub fn stderr_since(&self, from: usize) -> String {
        let bytes = self.captured_stderr().lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(bytes.get(from..).unwrap_or_default()).into_owned()
    }

    fn captured_stderr(&self) -> &Mutex<Vec<u8>> {
        self.stderr.as_deref().unwrap_or_else(|| panic!("stderr is not captured; see SpawnOptions::capture_stderr"))
    }

    /// Wait until a line the server wrote to stderr from byte `from` on satisfies `matches`;
    /// returns that line. Panics after `timeout`, saying `what` was awaited and what stderr said.
    pub async fn wait_for_stderr_line(
        &self,
        from: usize,
        timeout: Duration,
        what: &str,
        matches: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let tail = self.stderr_since(from);
            if let Some(line) = tail.lines().find(|line| matches(line)) {
                return line.to_owned();
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{what}: no such stderr line within {timeout:?}; stderr since byte {from}:\n{tail}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Write one raw line (a newline is appended).
    pub async fn send_line(&mut self, line: &str) {
        self.send_bytes(line.as_bytes()).await;
    }

    /// Write raw bytes, which need not be UTF-8 (a newline is appended).
    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap_or_else(|| panic!("stdin already closed"));
        stdin.write_all(bytes).await.unwrap_or_else(|e| panic!("writing to the server: {e}"));
        stdin.write_all(b"\n").await.unwrap_or_else(|e| panic!("writing to the server: {e}"));
        stdin.flush().await.unwrap_or_else(|e| panic!("flushing: {e}"));
    }

    /// Write one JSON message.
    pub async fn send(&mut self, message: Value) {
        self.send_line(&message.to_string()).await;
    }

    /// Send a request.
    pub async fn send_request(&mut self, id: Value, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
    }

    /// The next message the server writes, whatever it is (the backlog first).
    pub async fn next(&mut self) -> Value {
        if let Some(v) = self.backlog.pop_front() {
            return v;
        }
        self.read_one(TIMEOUT).await.unwrap_or_else(|| panic!("no message from the server within {TIMEOUT:?}"))
    }

    async fn read_one(&mut self, timeout: Duration) -> Option<Value> {
        let line = tokio::time::timeout(timeout, self.lines.recv()).await.ok()??;
        let value: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("server wrote a non-JSON line ({e}): {line}"));
        assert!(value.is_object(), "server wrote a non-object message: {line}");
        self.transcript.push(value.clone());
        Some(value)
    }

    /// Wait for the response with this id; other messages are kept in the backlog.
    pub async fn response(&mut self, id: &Value) -> Value {
        if let Some(pos) = self.backlog.iter().position(|m| is_response_to(m, id)) {
            return self.backlog.remove(pos).unwrap_or_default();
        }
        loop {
            let message =
                self.read_one(TIMEOUT).await.unwrap_or_else(|| panic!("no response to id {id} within {TIMEOUT:?}"));
            if is_response_to(&message, id) {
                return message;
            }
            self.backlog.push_back(message);
        }
    }

    /// Send a request and wait for its response.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send_request(id.clone(), method, params).await;
        self.response(&id).await
    }

    /// Messages that arrive within `window` (for asserting that nothing else comes).
    pub async fn drain_for(&mut self, window: Duration) -> Vec<Value> {
        let mut out: Vec<Value> = self.backlog.drain(..).collect();
        let deadline = tokio::time::Instant::now() + window;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                break;
            }
            match self.read_one(left).await {
                Some(v) => out.push(v),
                None => break,
            }
        }
        out
    }

    /// Close stdin and wait for the process to exit; returns its exit status.
    pub async fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        tokio::time::timeout(TIMEOUT, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("the server did not exit within {TIMEOUT:?} after stdin closed"))
            .unwrap_or_else(|e| panic!("waiting for the server: {e}"))
    }
}

fn is_response_to(message: &Value, id: &Value) -> bool {
    message.get("method").is_none() && message.get("id") == Some(id)
}
