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

mod cases;

use bytes::Bytes;
use clap::Parser as _;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use mcp::wire::sse::Parser;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use cases::{Case, Wire, cases};

/// How long an answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest answer read.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;
/// How many unexpected answers are described on stderr.
const REPORTED: usize = 10;

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
                tracing::warn!("{case}: unexpected answer: {label}");
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
    // The whole body is in hand, so the parser's limit is only a formality.
    let mut parser = Parser::new(body.len());
    parser.feed(body).ok()?;
    // `finish` hands out the queued events first, then an unterminated last one.
    std::iter::from_fn(|| parser.finish())
        .filter_map(|event| serde_json::from_str::<Value>(&event.data).ok())
        .filter(|m| m.get("result").is_some() || m.get("error").is_some())
        .last()
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

/// Keeps sending hostile requests to a Streamable HTTP MCP endpoint and checks that each
/// is refused properly (see the crate docs for the cases).
#[derive(Debug, clap::Parser)]
#[command(name = "hostile_traffic", version)]
struct Args {
    /// The endpoint, `http://HOST:PORT/PATH`.
    #[arg(long)]
    url: http::Uri,
    /// How long to keep sending, in seconds.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Workers, each going through every case in turn.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// A pause after each request, in milliseconds.
    #[arg(long = "pause-ms", default_value_t = 0)]
    pause_ms: u64,
    /// The tool that asks a question (the target of the `requestState` and
    /// `inputResponses` cases).
    #[arg(long, default_value = "test_input_required_result_elicitation")]
    tool: String,
    /// Keep only the cases whose name contains this text.
    #[arg(long)]
    only: Option<String>,
}

async fn run(args: Args) -> Result<bool, String> {
    let Args { url, duration, concurrency, pause_ms, tool, only } = args;
    let duration = Duration::try_from_secs_f64(duration).map_err(|e| format!("--duration: {e}"))?;
    let pause = Duration::from_millis(pause_ms);
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
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .try_init();
    match run(Args::parse()).await {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::FAILURE,
        Err(message) => {
            tracing::error!("{message}");
            std::process::ExitCode::from(2)
        }
    }
}
