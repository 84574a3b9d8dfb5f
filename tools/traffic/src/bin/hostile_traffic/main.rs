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
//! Those are the `cases` kind. `--kinds` adds others, each one worker running next to the
//! case workers (their modules tell the details):
//!
//! - `listen-flood`: `subscriptions/listen` streams opened up to and beyond the caps (from
//!   `--listen-peers` loopback addresses, `--listen-per-peer` each), held `--listen-hold`
//!   seconds, closed, again; accepted streams (200 SSE, acknowledged) and 429/503 refusals
//!   with `Retry-After` are expected, and a `tools/list` sent while they are held must get
//!   a result (streams must not starve calls);
//! - `session-flood`: `--session-workers` workers, each sending 2025-11-25 `initialize` in a
//!   loop without DELETE (pausing `--session-pause-ms`); each must succeed (the least recently used idle session is
//!   evicted at the cap), and every `--session-reuse-every`-th an old id is reused: 200 or 404;
//! - `slow-headers`, `slow-bodies`: `--slow-connections` connections at once with half a
//!   request head, or 10 bytes of a declared 1,000-byte body; each must be closed (or
//!   answered 408) within `--slow-timeout` plus `--slow-slack` seconds. A round starts only
//!   if it can end within the run.
//!
//! ```text
//! hostile_traffic --url http://127.0.0.1:PORT/mcp [--duration SECS] [--concurrency C] [--pause-ms MS]
//!                 [--tool NAME] [--only TEXT] [--kinds cases,listen-flood,session-flood,slow-headers,slow-bodies]
//!                 [--listen-peers P] [--listen-per-peer N] [--listen-hold SECS]
//!                 [--session-workers W] [--session-pause-ms MS] [--session-reuse-every N]
//!                 [--slow-connections K] [--slow-timeout SECS] [--slow-slack SECS]
//! ```
//!
//! Defaults: 10 s, `--kinds cases`, 4 case workers (each goes through every case in turn,
//! heavy ones less often, pausing `--pause-ms` after each request: 0 by default),
//! `--tool test_input_required_result_elicitation` (a tool that asks a question: the
//! target of the `requestState` and `inputResponses` cases); `--only TEXT` keeps the cases
//! whose name contains `TEXT`. The other kinds' defaults are on their flags (`--help`).
//! Output: one JSON line `{"sent","unexpected","answered":{"LABEL":n},"cases":{"NAME":{"LABEL":n}},
//! "kinds":{"KIND":{"requests","accepted","refused","unexpected"}}}`; the cases' answers are
//! labelled by HTTP status plus the JSON-RPC error code when there is one. The first
//! unexpected answers are described on stderr, and the exit code is 1 if there was any.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod cases;
mod client;
mod listen_flood;
mod session_flood;
mod slow;
mod tally;

use bytes::Bytes;
use clap::Parser as _;
use http::{Method, StatusCode};
use mcp::wire::sse::Parser;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use cases::{Case, Wire, cases};
use client::{ANSWER_TIMEOUT, Sender, Target};
use slow::Stall;
use tally::{KindTally, Tally, Verdict, lock};

/// The kind name of the cases in the tallies.
const CASES: &str = "cases";

/// The JSON-RPC error code in a JSON body, or in the last SSE event that is a response.
pub(crate) fn error_code(body: &[u8], sse: bool) -> Option<i64> {
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

/// Send one HTTP case on `conn` (reconnecting when it is closed); the label and verdict.
async fn send_http(
    target: &Target,
    conn: &mut Option<Sender>,
    method: &Method,
    path: &str,
    headers: &[(String, String)],
    body: &Bytes,
) -> Result<(String, bool), String> {
    let answer = client::fetch(target, conn, method, path, headers, body).await?;
    Ok(judge(answer.status, error_code(&answer.body, answer.is_sse())))
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
pub(crate) struct Shared {
    pub(crate) target: Target,
    cases: Vec<Case>,
    pub(crate) tally: Mutex<Tally>,
    pub(crate) until: Instant,
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
            let verdict = if refused { Verdict::Refused } else { Verdict::Unexpected };
            lock(tally).record(CASES, case.name, label, verdict);
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
    kinds: &'a BTreeMap<&'static str, KindTally>,
}

/// A kind of hostile traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Kind {
    /// The hostile requests of `cases.rs`.
    Cases,
    /// `subscriptions/listen` streams beyond the caps, held, closed, again.
    ListenFlood,
    /// 2025-11-25 `initialize` in a loop without DELETE, reusing old ids now and then.
    SessionFlood,
    /// Connections stalled in the middle of the request head.
    SlowHeaders,
    /// Connections stalled after 10 bytes of a declared 1,000-byte body.
    SlowBodies,
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
    /// The kinds of hostile traffic, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Kind::Cases])]
    kinds: Vec<Kind>,
    /// Listen flood: loopback source addresses (127.0.0.2 and up when more than one; the
    /// target must then be on 127.0.0.1), each a peer of its own for the per-peer cap.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=250))]
    listen_peers: u8,
    /// Listen flood: streams opened from each peer per round.
    #[arg(long, default_value_t = 48)]
    listen_per_peer: u32,
    /// Listen flood: how long the streams are held each round, in seconds.
    #[arg(long, default_value_t = 5.0)]
    listen_hold: f64,
    /// Session flood: workers initializing sessions at once.
    #[arg(long, default_value_t = 8)]
    session_workers: usize,
    /// Session flood: a pause after each `initialize`, in milliseconds.
    #[arg(long, default_value_t = 5)]
    session_pause_ms: u64,
    /// Session flood: reuse an old session id after every this many `initialize` (0: never).
    #[arg(long, default_value_t = 16)]
    session_reuse_every: u64,
    /// Slow headers and bodies: connections stalled at once, per kind.
    #[arg(long, default_value_t = 16)]
    slow_connections: usize,
    /// Slow headers and bodies: the server's timeout for a request head or body, in seconds.
    #[arg(long, default_value_t = 30.0)]
    slow_timeout: f64,
    /// Slow headers and bodies: how much longer than `--slow-timeout` a connection may stay
    /// open, in seconds.
    #[arg(long, default_value_t = 5.0)]
    slow_slack: f64,
}

fn seconds(flag: &str, value: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(value).map_err(|e| format!("--{flag}: {e}"))
}

async fn run(args: Args) -> Result<bool, String> {
    let Args {
        url,
        duration,
        concurrency,
        pause_ms,
        tool,
        only,
        kinds,
        listen_peers,
        listen_per_peer,
        listen_hold,
        session_workers,
        session_pause_ms,
        session_reuse_every,
        slow_connections,
        slow_timeout,
        slow_slack,
    } = args;
    let duration = seconds("duration", duration)?;
    let flood = listen_flood::Flood {
        peers: listen_peers,
        per_peer: listen_per_peer,
        hold: seconds("listen-hold", listen_hold)?,
    };
    let slow_limit = seconds("slow-timeout", slow_timeout)? + seconds("slow-slack", slow_slack)?;
    let pause = Duration::from_millis(pause_ms);
    let authority = url.authority().ok_or("--url needs a host and port")?.clone();
    let addr = tokio::net::lookup_host(authority.as_str())
        .await
        .map_err(|e| format!("{authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority} resolves to nothing"))?;
    let path = url.path().to_owned();
    if listen_peers > 1 && kinds.contains(&Kind::ListenFlood) && addr.ip() != std::net::Ipv4Addr::LOCALHOST {
        return Err("--listen-peers above 1 needs a target on 127.0.0.1".into());
    }
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
    let mut workers = Vec::new();
    for kind in kinds {
        let shared = Arc::clone(&shared);
        match kind {
            Kind::Cases => {
                lock(&shared.tally).declare(CASES);
                workers.extend(starts.iter().map(|&start| tokio::spawn(worker(Arc::clone(&shared), start))));
            }
            Kind::ListenFlood => {
                lock(&shared.tally).declare(listen_flood::KIND);
                workers.push(tokio::spawn(listen_flood::run(shared, flood)));
            }
            Kind::SessionFlood => {
                lock(&shared.tally).declare(session_flood::KIND);
                let pause = Duration::from_millis(session_pause_ms);
                workers.extend(
                    (0..session_workers.max(1))
                        .map(|_| tokio::spawn(session_flood::run(Arc::clone(&shared), pause, session_reuse_every))),
                );
            }
            Kind::SlowHeaders | Kind::SlowBodies => {
                let stall = if kind == Kind::SlowHeaders { Stall::Headers } else { Stall::Bodies };
                lock(&shared.tally).declare(stall.kind());
                workers.push(tokio::spawn(slow::run(shared, stall, slow_connections, slow_limit)));
            }
        }
    }
    for w in workers {
        w.await.map_err(|e| format!("a worker failed: {e}"))?;
    }
    let t = lock(&shared.tally);
    let line = Line { sent: t.sent, unexpected: t.unexpected, answered: &t.answered, cases: &t.cases, kinds: &t.kinds };
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
