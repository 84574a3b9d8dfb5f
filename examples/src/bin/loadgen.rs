//! `loadgen`: a load generator for any MCP server, over stdio or Streamable HTTP, in either
//! protocol era, with plain tool calls or multi-round (MRTR) calls that answer an
//! elicitation. It prints one JSON line of results on stdout.
//!
//! It speaks the wire protocol itself (its own newline framing over the pipe, a bare hyper
//! HTTP/1.1 connection per in-flight slot, requests written from precomputed text, responses
//! read into small `serde` structs that skip what they do not check) and uses none of this
//! framework's server or client machinery (only its protocol constants), so an rmcp, Python
//! SDK or `mcp` server is driven the same way. It runs on a single-threaded runtime by
//! default to keep its own footprint small on the machine it shares with the server; its
//! own CPU per call (utime+stime of the window) goes to stderr.
//!
//! # Usage
//!
//! ```text
//! loadgen --transport stdio --command "<cmd and args>"            [options]
//! loadgen --transport http  --url http://127.0.0.1:PORT/mcp [--pid PID] [options]
//! ```
//!
//! - `--transport stdio --command CMD`: spawn `CMD` (run as `sh -c "exec CMD"`, so the
//!   measured process is the server itself, not a shell; avoid wrappers that fork) and talk
//!   to it over its stdin/stdout. All in-flight requests are pipelined on that one pipe and
//!   matched to their responses by id. The child's stderr is inherited. At the end its stdin
//!   is closed, and it is killed if it has not exited within 2 s.
//! - `--transport http --url URL [--pid PID]`: POST to `URL` (plain `http://`), one
//!   keep-alive connection (TCP_NODELAY) per in-flight slot. Server CPU and RSS are read
//!   from `/proc/PID` when `--pid` is given (else they are `null`).
//! - `--era modern|legacy` (default `modern`):
//!   - `modern` (2026-07-28): no handshake; every request carries `_meta` with
//!     `io.modelcontextprotocol/protocolVersion`, `clientCapabilities` and `clientInfo`;
//!     over HTTP every POST also has `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`.
//!   - `legacy` (2025-11-25): `initialize` and `notifications/initialized` first. Over
//!     HTTP one session (`Mcp-Session-Id`) is shared by every connection, and each POST
//!     carries `Mcp-Session-Id` and the negotiated `MCP-Protocol-Version`; the session is
//!     deleted at the end.
//! - `--mode plain|mrtr` (default `plain`):
//!   - `plain`: `tools/call` of `--tool` (default `echo`) with `--args` (default
//!     `{"text":"hello"}`); a call is one request.
//!   - `mrtr`: `tools/call` of `--tool` (default `provision`) with `--args` (default
//!     `{"name":"orders"}`). Modern era: the first answer must be an `input_required` result
//!     with exactly one `elicitation/create` input request; the call is re-sent with a new
//!     id, `inputResponses` `{KEY: {"action":"accept","content":ANSWER}}` under the same key
//!     and the `requestState` echoed unchanged, and that answer must be complete. Legacy
//!     era: the server sends `elicitation/create` requests (over HTTP on the call's SSE
//!     stream; answered with a POST on a second connection of that slot) and loadgen
//!     accepts them with `ANSWER`; a run where fewer were asked than calls succeeded is
//!     not an MRTR run and ends with exit code 1. Either way one call = the whole exchange,
//!     and server requests other than `elicitation/create` (`ping`, `roots/list` answered;
//!     anything else gets -32601) make no difference. `--answer`
//!     sets `ANSWER` (default `{"region":"eu-west-1"}`). The capabilities sent declare
//!     form elicitation only in this mode.
//! - `--concurrency C` (default 1): calls in flight.
//! - `--warmup SECS` (default 1) then `--duration SECS` (default 10): only calls that
//!   complete inside the measured window count; CPU is sampled at its start and end.
//! - `--label NAME` (default: the command's program name, or the URL).
//! - `--expect TEXT`: a successful call's final result must have a text content block
//!   containing `TEXT` (for example the answered region), else it is an error.
//! - `--threads N` (default 1): loadgen's own runtime threads.
//!
//! Any non-success is an error: a JSON-RPC error, a non-2xx HTTP status, a result with
//! `isError: true`, an unexpected `resultType` or input request, a failed `--expect`. The
//! first error's text goes to stderr. A server that goes away (pipe closed, connection
//! refused) ends the run with exit code 1 and no JSON line.
//!
//! # Output
//!
//! One JSON line: `{"label","transport","era","mode","concurrency","calls","errors",
//! "seconds","calls_per_sec","p50_us","p99_us","server_cpu_us_per_call",
//! "server_peak_rss_kb","all_calls","all_errors"}`. `calls` are the successful calls
//! completed in the window, `calls_per_sec` is `calls / seconds`, the percentiles are over
//! their latencies (first request sent to final response received; on an SSE stream, when
//! the response event arrives: the stream is then read to its end before the connection
//! carries the next request, and a stream still open 1 s later costs the connection),
//! `server_cpu_us_per_call` is the server's utime+stime (`/proc/PID/stat`, all threads;
//! clock ticks converted with the kernel's `AT_CLKTCK`, so the resolution is one tick,
//! usually 10 ms, per sample) over the window divided by the calls and errors completed in
//! it, and `server_peak_rss_kb` is `VmHWM` from `/proc/PID/status` at the end of the window.
//! `all_calls` and `all_errors` count every call that finished, warm-up and drain included
//! (a soak wants every error, not only the window's).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use mcp::protocol::{LATEST_LEGACY_PROTOCOL_VERSION, LATEST_PROTOCOL_VERSION, keys, methods};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Notify, mpsc, oneshot};

/// The largest response (JSON body or SSE event stream) accepted.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// How long in-flight calls may take to finish once the window has closed.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// How long an SSE response may stay open after the response event before the
/// connection is given up.
const STREAM_END_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a spawned server gets to exit after its stdin closes before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

const USAGE: &str = "usage: loadgen --transport stdio --command \"CMD ARGS\" | --transport http --url URL [--pid PID]
       [--era modern|legacy] [--mode plain|mrtr] [--concurrency C] [--duration SECS] [--warmup SECS]
       [--label NAME] [--tool NAME] [--args JSON] [--answer JSON] [--expect TEXT] [--threads N]";

// ---------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Modern,
    Legacy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Plain,
    Mrtr,
}

#[derive(Debug)]
enum Target {
    Stdio { command: String },
    Http { url: http::Uri, pid: Option<u32> },
}

#[derive(Debug)]
struct Config {
    target: Target,
    era: Era,
    mode: Mode,
    concurrency: usize,
    duration: Duration,
    warmup: Duration,
    label: String,
    tool: String,
    args: serde_json::Map<String, Value>,
    answer: serde_json::Map<String, Value>,
    expect: Option<String>,
    threads: usize,
}

fn parse_secs(flag: &str, value: &str) -> Result<Duration, String> {
    match value.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!("{flag} takes a number of seconds, not {value:?}")),
    }
}

fn parse_object(flag: &str, value: &str) -> Result<serde_json::Map<String, Value>, String> {
    match serde_json::from_str(value) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(format!("{flag} takes a JSON object, not {value:?}")),
    }
}

fn parse_args(argv: impl Iterator<Item = String>) -> Result<Config, String> {
    let mut flags: HashMap<String, String> = HashMap::new();
    let mut argv = argv.peekable();
    while let Some(arg) = argv.next() {
        if arg == "-h" || arg == "--help" {
            return Err(String::new());
        }
        let Some(flag) = arg.strip_prefix("--") else {
            return Err(format!("unexpected argument {arg:?}"));
        };
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) => (name.to_owned(), value.to_owned()),
            None => {
                let value = argv.next().ok_or_else(|| format!("--{flag} needs a value"))?;
                (flag.to_owned(), value)
            }
        };
        const KNOWN: &[&str] = &[
            "transport",
            "command",
            "url",
            "pid",
            "era",
            "mode",
            "concurrency",
            "duration",
            "warmup",
            "label",
            "tool",
            "args",
            "answer",
            "expect",
            "threads",
        ];
        if !KNOWN.contains(&name.as_str()) {
            return Err(format!("unknown option --{name}"));
        }
        if flags.insert(name.clone(), value).is_some() {
            return Err(format!("--{name} given twice"));
        }
    }
    let mut take = |name: &str| flags.remove(name);
    let target = match take("transport").as_deref() {
        Some("stdio") => {
            let command = take("command").ok_or("--transport stdio needs --command")?;
            if command.trim().is_empty() {
                return Err("--command is empty".into());
            }
            if take("url").is_some() || take("pid").is_some() {
                return Err("--url and --pid go with --transport http".into());
            }
            Target::Stdio { command }
        }
        Some("http") => {
            let url = take("url").ok_or("--transport http needs --url")?;
            let url: http::Uri = url.parse().map_err(|e| format!("--url {url:?}: {e}"))?;
            if url.scheme_str() != Some("http") || url.authority().is_none() {
                return Err(format!("--url must be http://HOST:PORT/PATH, not {url}"));
            }
            let pid = match take("pid") {
                Some(pid) => Some(pid.parse::<u32>().map_err(|_| format!("--pid takes a process id, not {pid:?}"))?),
                None => None,
            };
            if take("command").is_some() {
                return Err("--command goes with --transport stdio".into());
            }
            Target::Http { url, pid }
        }
        Some(other) => return Err(format!("--transport is stdio or http, not {other:?}")),
        None => return Err("--transport is required".into()),
    };
    let era = match take("era").as_deref() {
        None | Some("modern") => Era::Modern,
        Some("legacy") => Era::Legacy,
        Some(other) => return Err(format!("--era is modern or legacy, not {other:?}")),
    };
    let mode = match take("mode").as_deref() {
        None | Some("plain") => Mode::Plain,
        Some("mrtr") => Mode::Mrtr,
        Some(other) => return Err(format!("--mode is plain or mrtr, not {other:?}")),
    };
    let positive = |flag: &str, value: Option<String>| -> Result<usize, String> {
        match value {
            None => Ok(1),
            Some(v) => match v.parse::<usize>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!("--{flag} takes a whole number of at least 1, not {v:?}")),
            },
        }
    };
    let concurrency = positive("concurrency", take("concurrency"))?;
    let threads = positive("threads", take("threads"))?;
    let duration = take("duration").map_or(Ok(Duration::from_secs(10)), |v| parse_secs("--duration", &v))?;
    if duration.is_zero() {
        return Err("--duration must be more than 0".into());
    }
    let warmup = take("warmup").map_or(Ok(Duration::from_secs(1)), |v| parse_secs("--warmup", &v))?;
    let (default_tool, default_args) = match mode {
        Mode::Plain => ("echo", r#"{"text":"hello"}"#),
        Mode::Mrtr => ("provision", r#"{"name":"orders"}"#),
    };
    let tool = take("tool").unwrap_or_else(|| default_tool.to_owned());
    let args = parse_object("--args", &take("args").unwrap_or_else(|| default_args.to_owned()))?;
    let answer = parse_object("--answer", &take("answer").unwrap_or_else(|| r#"{"region":"eu-west-1"}"#.to_owned()))?;
    let expect = take("expect");
    let label = take("label").unwrap_or_else(|| match &target {
        Target::Stdio { command } => {
            let program = command.split_whitespace().next().unwrap_or("server");
            program.rsplit('/').next().unwrap_or(program).to_owned()
        }
        Target::Http { url, .. } => url.to_string(),
    });
    Ok(Config { target, era, mode, concurrency, duration, warmup, label, tool, args, answer, expect, threads })
}

// ---------------------------------------------------------------------------------------
// Shared run state and the call logic (transport-independent)
// ---------------------------------------------------------------------------------------

/// One finished call.
#[derive(Debug, Clone, Copy)]
struct Record {
    /// When it finished, in µs since the run's origin.
    end_us: u64,
    latency_us: u64,
    ok: bool,
}

/// Why a call failed.
#[derive(Debug)]
enum Fail {
    /// A non-success answer: counted as an error, the run goes on.
    Rejected(String),
    /// The server is gone or the exchange cannot continue: the run stops.
    Fatal(String),
}

fn rejected(text: impl Into<String>) -> Fail {
    Fail::Rejected(text.into())
}

/// At most `limit` characters of `text`, for error messages.
fn clip(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The client capabilities sent: form elicitation in MRTR mode, nothing otherwise.
fn capabilities(mode: Mode) -> Value {
    match mode {
        Mode::Plain => json!({}),
        Mode::Mrtr => json!({"elicitation": {"form": {}}}),
    }
}

/// Everything the slots share: the precomputed request pieces and the run's state.
struct Ctx {
    era: Era,
    mode: Mode,
    expect: Option<String>,
    /// The first request's body after the id: `,"method":"tools/call","params":{..}}`.
    call_tail: String,
    /// The params object without its closing brace, for retries.
    params_open: String,
    /// `{"action":"accept","content":ANSWER}`.
    accept: String,
    origin: Instant,
    next_id: AtomicU64,
    elicitations: AtomicU64,
    stop: AtomicBool,
    first_error: OnceLock<String>,
    noted: OnceLock<()>,
    fatal: OnceLock<String>,
    fatal_notify: Notify,
}

impl Ctx {
    fn new(config: &Config) -> Ctx {
        let mut params = serde_json::Map::new();
        if config.era == Era::Modern {
            params.insert(
                "_meta".into(),
                json!({
                    keys::PROTOCOL_VERSION: LATEST_PROTOCOL_VERSION,
                    keys::CLIENT_CAPABILITIES: capabilities(config.mode),
                    keys::CLIENT_INFO: {"name": "loadgen", "version": env!("CARGO_PKG_VERSION")},
                }),
            );
        }
        params.insert("name".into(), Value::String(config.tool.clone()));
        params.insert("arguments".into(), Value::Object(config.args.clone()));
        let params = Value::Object(params).to_string();
        let call_tail = format!(r#","method":"{}","params":{params}}}"#, methods::TOOLS_CALL);
        let params_open = params[..params.len() - 1].to_owned();
        let accept = json!({"action": "accept", "content": config.answer}).to_string();
        Ctx {
            era: config.era,
            mode: config.mode,
            expect: config.expect.clone(),
            call_tail,
            params_open,
            accept,
            origin: Instant::now(),
            next_id: AtomicU64::new(1),
            elicitations: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            first_error: OnceLock::new(),
            noted: OnceLock::new(),
            fatal: OnceLock::new(),
            fatal_notify: Notify::new(),
        }
    }

    fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    fn error(&self, text: String) {
        if self.first_error.set(text.clone()).is_ok() {
            eprintln!("loadgen: first error: {text}");
        }
    }

    /// Say something once (per run) on stderr.
    fn note(&self, text: String) {
        if self.noted.set(()).is_ok() {
            eprintln!("loadgen: {text}");
        }
    }

    fn fail(&self, text: String) {
        if self.fatal.set(text).is_ok() {
            self.fatal_notify.notify_one();
        }
    }

    fn is_done(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.fatal.get().is_some()
    }

    /// The first request of a call.
    fn call_body(&self, id: u64) -> Vec<u8> {
        let mut body = Vec::with_capacity(32 + self.call_tail.len());
        body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        body.extend_from_slice(id.to_string().as_bytes());
        body.extend_from_slice(self.call_tail.as_bytes());
        body
    }

    /// The retry of a call with the answer under `key` and the state echoed.
    fn retry_body(&self, id: u64, key: &str, state: Option<&str>) -> Vec<u8> {
        let mut body = String::with_capacity(96 + self.params_open.len() + self.accept.len() + key.len());
        body.push_str(r#"{"jsonrpc":"2.0","id":"#);
        body.push_str(&id.to_string());
        body.push_str(r#","method":""#);
        body.push_str(methods::TOOLS_CALL);
        body.push_str(r#"","params":"#);
        body.push_str(&self.params_open);
        body.push_str(r#","inputResponses":{"#);
        body.push_str(&Value::from(key).to_string());
        body.push(':');
        body.push_str(&self.accept);
        body.push('}');
        if let Some(state) = state {
            body.push_str(r#","requestState":"#);
            body.push_str(&Value::from(state).to_string());
        }
        body.push_str("}}");
        body.into_bytes()
    }

    /// The reply to a request the server sent (legacy sessions).
    fn server_request_reply(&self, method: &str, id: &Value) -> Vec<u8> {
        let id = id.to_string();
        match method {
            "elicitation/create" => {
                self.elicitations.fetch_add(1, Ordering::Relaxed);
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#, self.accept).into_bytes()
            }
            methods::PING => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#).into_bytes(),
            "roots/list" => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"roots":[]}}}}"#).into_bytes(),
            other => {
                self.error(format!("the server sent an unexpected {other:?} request"));
                let message = Value::from(format!("loadgen does not answer {other}"));
                format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":{message}}}}}"#).into_bytes()
            }
        }
    }
}

/// A received JSON-RPC message: the parts loadgen checks are parsed, the rest is skipped
/// without building values.
#[derive(Debug, Default, serde::Deserialize)]
struct Message {
    id: Option<Value>,
    method: Option<String>,
    result: Option<ResultHead>,
    error: Option<serde::de::IgnoredAny>,
}

/// What loadgen reads from a result.
#[derive(Debug, serde::Deserialize)]
struct ResultHead {
    #[serde(rename = "resultType")]
    result_type: Option<String>,
    #[serde(rename = "isError")]
    is_error: Option<bool>,
    content: Option<Vec<Block>>,
    #[serde(rename = "inputRequests")]
    input_requests: Option<HashMap<String, InputRequestHead>>,
    #[serde(rename = "requestState")]
    request_state: Option<String>,
    #[serde(rename = "protocolVersion")]
    protocol_version: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
struct Block {
    text: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
struct InputRequestHead {
    method: Option<String>,
}

/// Just the routing fields, for a message whose result has an unexpected shape.
#[derive(Debug, serde::Deserialize)]
struct Head {
    id: Option<Value>,
    method: Option<String>,
}

/// A message as received (its text kept for error reports) and parsed.
#[derive(Debug)]
struct Reply {
    raw: Bytes,
    message: Message,
    /// Why the message did not parse in full (its id and method did).
    invalid: Option<String>,
}

impl Reply {
    /// `None` when `raw` is not a JSON object at all.
    fn parse(raw: Bytes) -> Option<Reply> {
        match serde_json::from_slice::<Message>(&raw) {
            Ok(message) => Some(Reply { raw, message, invalid: None }),
            Err(e) => {
                let head: Head = serde_json::from_slice(&raw).ok()?;
                let message = Message { id: head.id, method: head.method, ..Message::default() };
                Some(Reply { raw, message, invalid: Some(e.to_string()) })
            }
        }
    }

    fn text(&self) -> String {
        clip(String::from_utf8_lossy(&self.raw).trim_end(), 400)
    }

    /// The id as a number (our ids are numbers; a server may echo them as strings).
    fn id(&self) -> Option<u64> {
        match self.message.id.as_ref()? {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
    }

    /// The result of a response, or why there is none.
    fn result(&self) -> Result<&ResultHead, Fail> {
        if let Some(why) = &self.invalid {
            return Err(rejected(format!("an unexpected response ({why}): {}", self.text())));
        }
        if self.message.error.is_some() {
            return Err(rejected(format!("JSON-RPC error: {}", self.text())));
        }
        self.message.result.as_ref().ok_or_else(|| rejected(format!("a response without a result: {}", self.text())))
    }

    /// A final, successful tool result (with the `--expect` text in it, when given).
    fn check_complete(&self, ctx: &Ctx) -> Result<(), Fail> {
        let result = self.result()?;
        match result.result_type.as_deref() {
            None | Some("complete") => {}
            Some(other) => {
                return Err(rejected(format!("expected a complete result, got resultType {other:?}: {}", self.text())));
            }
        }
        if result.is_error == Some(true) {
            return Err(rejected(format!("the tool returned isError: {}", self.text())));
        }
        if let Some(expect) = &ctx.expect {
            let blocks = result.content.as_deref().unwrap_or_default();
            if !blocks.iter().any(|b| b.text.as_deref().is_some_and(|t| t.contains(expect.as_str()))) {
                return Err(rejected(format!("the result does not contain {expect:?}: {}", self.text())));
            }
        }
        Ok(())
    }

    /// The key and `requestState` of an `input_required` result asking one elicitation.
    fn input_required(&self) -> Result<(String, Option<String>), Fail> {
        let result = self.result()?;
        if result.result_type.as_deref() != Some("input_required") {
            return Err(rejected(format!("expected an input_required result: {}", self.text())));
        }
        let requests = result.input_requests.as_ref();
        let Some((key, request)) = requests.filter(|r| r.len() == 1).and_then(|r| r.iter().next()) else {
            return Err(rejected(format!("expected exactly one input request: {}", self.text())));
        };
        if request.method.as_deref() != Some("elicitation/create") {
            return Err(rejected(format!("expected an elicitation/create input request: {}", self.text())));
        }
        Ok((key.clone(), result.request_state.clone()))
    }
}

/// One call: one request (plain, or legacy MRTR where the server asks over the
/// back-channel during it), or the request and its retry (modern MRTR).
async fn one_call(conn: &mut Conn, ctx: &Ctx) -> Result<(), Fail> {
    let id = ctx.next_id();
    let reply = conn.request(ctx, id, ctx.call_body(id)).await?;
    if ctx.era == Era::Legacy || ctx.mode == Mode::Plain {
        return reply.check_complete(ctx);
    }
    let (key, state) = reply.input_required()?;
    let id = ctx.next_id();
    conn.request(ctx, id, ctx.retry_body(id, &key, state.as_deref())).await?.check_complete(ctx)
}

/// A slot: one call in flight at a time, until the run stops.
async fn slot(mut conn: Conn, ctx: Arc<Ctx>) -> Vec<Record> {
    let mut records = Vec::with_capacity(4096);
    while !ctx.is_done() {
        let start = Instant::now();
        let outcome = one_call(&mut conn, &ctx).await;
        let end = conn.answered_at().unwrap_or_else(Instant::now);
        let ok = match outcome {
            Ok(()) => true,
            Err(Fail::Rejected(text)) => {
                ctx.error(text);
                false
            }
            Err(Fail::Fatal(text)) => {
                if !ctx.stop.load(Ordering::Relaxed) {
                    ctx.fail(text);
                }
                break;
            }
        };
        records.push(Record {
            end_us: end.duration_since(ctx.origin).as_micros() as u64,
            latency_us: end.duration_since(start).as_micros() as u64,
            ok,
        });
    }
    records
}

/// A slot's way to the server.
enum Conn {
    Stdio(Arc<Pipe>),
    Http(Box<HttpConn>),
}

impl Conn {
    /// When the last response arrived, if that was before its exchange ended.
    fn answered_at(&mut self) -> Option<Instant> {
        match self {
            Conn::Stdio(_) => None,
            Conn::Http(http) => http.answered_at.take(),
        }
    }

    /// Send request `id` (its JSON body given) and return the server's response message.
    async fn request(&mut self, ctx: &Ctx, id: u64, body: Vec<u8>) -> Result<Reply, Fail> {
        match self {
            Conn::Stdio(pipe) => pipe.request(id, body).await,
            Conn::Http(http) => http.request(ctx, id, body, true).await,
        }
    }
}

// ---------------------------------------------------------------------------------------
// stdio: newline-delimited JSON on a child's pipes, requests pipelined and matched by id
// ---------------------------------------------------------------------------------------

type Pending = Mutex<HashMap<u64, oneshot::Sender<Reply>>>;

struct Pipe {
    out: mpsc::UnboundedSender<Vec<u8>>,
    pending: Pending,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Pipe {
    async fn request(&self, id: u64, mut body: Vec<u8>) -> Result<Reply, Fail> {
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        body.push(b'\n');
        if self.out.send(body).is_err() {
            lock(&self.pending).remove(&id);
            return Err(Fail::Fatal("the server's stdin is closed".into()));
        }
        rx.await.map_err(|_| Fail::Fatal("the server closed its stdout".into()))
    }

    fn send(&self, mut line: Vec<u8>) {
        line.push(b'\n');
        let _ = self.out.send(line);
    }
}

/// The spawned server and the tasks around its pipes.
struct Spawned {
    child: tokio::process::Child,
    pipe: Arc<Pipe>,
    writer: tokio::task::JoinHandle<()>,
    reader: tokio::task::JoinHandle<()>,
}

fn spawn_stdio(command: &str, ctx: &Arc<Ctx>) -> Result<Spawned, String> {
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
async fn stdio_handshake(pipe: &Pipe, ctx: &Ctx, capabilities: Value) -> Result<(), String> {
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

fn initialize_params(capabilities: Value) -> Value {
    json!({
        "protocolVersion": LATEST_LEGACY_PROTOCOL_VERSION,
        "capabilities": capabilities,
        "clientInfo": {"name": "loadgen", "version": env!("CARGO_PKG_VERSION")},
    })
}

fn fail_text(fail: Fail) -> String {
    match fail {
        Fail::Rejected(text) | Fail::Fatal(text) => text,
    }
}

// ---------------------------------------------------------------------------------------
// HTTP: one keep-alive HTTP/1.1 connection per slot, JSON or SSE answers
// ---------------------------------------------------------------------------------------

/// Where and how to POST: the endpoint and the era's fixed headers.
struct Endpoint {
    addr: std::net::SocketAddr,
    path: http::Uri,
    host: HeaderValue,
    /// `MCP-Protocol-Version` (absent only on `initialize`).
    version: Option<HeaderValue>,
    /// `Mcp-Name` (modern era).
    name: HeaderValue,
    /// `Mcp-Session-Id` (legacy era).
    session: Option<HeaderValue>,
}

type Sender = SendRequest<Full<Bytes>>;

async fn connect(addr: std::net::SocketAddr) -> Result<Sender, String> {
    let stream = tokio::net::TcpStream::connect(addr).await.map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| format!("cannot set TCP_NODELAY: {e}"))?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake with {addr} failed: {e}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// The events of an SSE body, one `data` payload at a time.
struct Sse {
    body: Incoming,
    buffer: Vec<u8>,
    start: usize,
    data: String,
    read: usize,
    done: bool,
}

impl Sse {
    fn new(body: Incoming) -> Sse {
        Sse { body, buffer: Vec::with_capacity(4096), start: 0, data: String::new(), read: 0, done: false }
    }

    /// Read the rest of the stream, ignoring it.
    async fn drain(&mut self) -> Result<(), String> {
        self.buffer.clear();
        self.start = 0;
        while !self.done {
            match self.body.frame().await {
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(format!("the response stream broke: {e}")),
                None => self.done = true,
            }
        }
        Ok(())
    }

    async fn next(&mut self) -> Result<Option<String>, String> {
        loop {
            while let Some(at) = self.buffer[self.start..].iter().position(|&b| b == b'\n') {
                let end = self.start + at;
                let mut line = &self.buffer[self.start..end];
                self.start = end + 1;
                if let Some(stripped) = line.strip_suffix(b"\r") {
                    line = stripped;
                }
                if line.is_empty() {
                    if !self.data.is_empty() {
                        return Ok(Some(std::mem::take(&mut self.data)));
                    }
                } else if let Some(value) = line.strip_prefix(b"data:") {
                    let value = value.strip_prefix(b" ").unwrap_or(value);
                    if !self.data.is_empty() {
                        self.data.push('\n');
                    }
                    self.data.push_str(&String::from_utf8_lossy(value));
                }
            }
            if self.done {
                return Ok((!self.data.is_empty()).then(|| std::mem::take(&mut self.data)));
            }
            self.buffer.drain(..self.start);
            self.start = 0;
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.read += data.len();
                        if self.read > MAX_RESPONSE_BYTES {
                            return Err("the response stream is too large".into());
                        }
                        self.buffer.extend_from_slice(&data);
                    }
                }
                Some(Err(e)) => return Err(format!("the response stream broke: {e}")),
                None => {
                    self.done = true;
                    if self.buffer.last().is_some_and(|&b| b != b'\n') {
                        self.buffer.push(b'\n');
                    }
                }
            }
        }
    }
}

fn is_event_stream(response: &Response<Incoming>) -> bool {
    response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

async fn read_body(body: Incoming) -> Result<Bytes, String> {
    Limited::new(body, MAX_RESPONSE_BYTES)
        .collect()
        .await
        .map(|collected| collected.to_bytes())
        .map_err(|e| format!("cannot read the response body: {e}"))
}

/// A slot's connection (and, for legacy back-channel answers, a second one).
struct HttpConn {
    endpoint: Arc<Endpoint>,
    era: Era,
    main: Option<Sender>,
    side: Option<Sender>,
    /// When the last request's response event arrived on its SSE stream (the stream is
    /// read to its end afterwards, before the connection is used again).
    answered_at: Option<Instant>,
}

impl HttpConn {
    fn new(endpoint: Arc<Endpoint>, era: Era, main: Sender) -> HttpConn {
        HttpConn { endpoint, era, main: Some(main), side: None, answered_at: None }
    }

    /// A POST of `body`; `call` adds the modern `Mcp-Method`/`Mcp-Name` of a tool call.
    fn post(&self, body: Vec<u8>, method: Option<&'static str>, call: bool) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(Bytes::from(body)));
        *request.method_mut() = http::Method::POST;
        *request.uri_mut() = self.endpoint.path.clone();
        let h = request.headers_mut();
        h.insert(http::header::HOST, self.endpoint.host.clone());
        h.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(http::header::ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        if let Some(version) = &self.endpoint.version {
            h.insert("mcp-protocol-version", version.clone());
        }
        if let Some(session) = &self.endpoint.session {
            h.insert("mcp-session-id", session.clone());
        }
        if self.era == Era::Modern {
            if let Some(method) = method {
                h.insert("mcp-method", HeaderValue::from_static(method));
            }
            if call {
                h.insert("mcp-name", self.endpoint.name.clone());
            }
        }
        request
    }

    /// A ready sender on `side` or `main`, reconnecting a closed connection.
    async fn ready(endpoint: &Endpoint, slot: &mut Option<Sender>) -> Result<(), Fail> {
        if let Some(sender) = slot {
            if sender.ready().await.is_ok() {
                return Ok(());
            }
            *slot = None;
        }
        let mut sender = connect(endpoint.addr).await.map_err(Fail::Fatal)?;
        sender.ready().await.map_err(|e| Fail::Fatal(format!("a new connection is not usable: {e}")))?;
        *slot = Some(sender);
        Ok(())
    }

    async fn send(
        endpoint: &Endpoint,
        slot: &mut Option<Sender>,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, Fail> {
        Self::ready(endpoint, slot).await?;
        let Some(sender) = slot.as_mut() else { return Err(Fail::Fatal("no connection".into())) };
        match sender.send_request(request).await {
            Ok(response) => Ok(response),
            Err(e) => {
                *slot = None;
                Err(rejected(format!("the request failed: {e}")))
            }
        }
    }

    /// POST request `id` and return its JSON-RPC response; back-channel requests on its
    /// SSE stream are answered on the side connection.
    async fn request(&mut self, ctx: &Ctx, id: u64, body: Vec<u8>, call: bool) -> Result<Reply, Fail> {
        self.answered_at = None;
        let method = if call { Some(methods::TOOLS_CALL) } else { None };
        let request = self.post(body, method, call);
        let response = Self::send(&self.endpoint, &mut self.main, request).await?;
        self.response(ctx, id, response).await
    }

    async fn response(&mut self, ctx: &Ctx, id: u64, response: Response<Incoming>) -> Result<Reply, Fail> {
        let status = response.status();
        if !status.is_success() {
            let body = read_body(response.into_body()).await.unwrap_or_default();
            return Err(rejected(format!("HTTP {status}: {}", clip(&String::from_utf8_lossy(&body), 400))));
        }
        if !is_event_stream(&response) {
            let body = read_body(response.into_body()).await.map_err(Fail::Rejected)?;
            if status == StatusCode::ACCEPTED || body.is_empty() {
                return Err(rejected(format!("HTTP {status} without a response to request {id}")));
            }
            let text = || clip(&String::from_utf8_lossy(&body), 400);
            let reply = Reply::parse(body.clone())
                .ok_or_else(|| rejected(format!("a response that is not a JSON object: {}", text())))?;
            return Ok(reply);
        }
        let mut events = Sse::new(response.into_body());
        while let Some(data) = events.next().await.map_err(Fail::Rejected)? {
            let Some(message) = Reply::parse(Bytes::from(data.into_bytes())) else {
                return Err(rejected("an event that is not a JSON object"));
            };
            if let Some(method) = &message.message.method {
                if let Some(server_id) = &message.message.id {
                    let reply = ctx.server_request_reply(method, server_id);
                    self.answer_server(reply).await?;
                }
                continue;
            }
            if message.id() == Some(id) || message.message.id.is_none() {
                self.answered_at = Some(Instant::now());
                // The stream should end right after the response; read it to its end so
                // the connection can carry the next request, or give the connection up.
                match tokio::time::timeout(STREAM_END_TIMEOUT, events.drain()).await {
                    Ok(Ok(())) => {}
                    Ok(Err(_)) => self.main = None,
                    Err(_) => {
                        self.main = None;
                        ctx.note(format!(
                            "a response stream stayed open {} ms after its response; reconnecting",
                            STREAM_END_TIMEOUT.as_millis()
                        ));
                    }
                }
                return Ok(message);
            }
        }
        Err(rejected(format!("the response stream ended without a response to request {id}")))
    }

    /// Send the reply to a server request on the side connection (expects 2xx).
    async fn answer_server(&mut self, reply: Vec<u8>) -> Result<(), Fail> {
        let request = self.post(reply, None, false);
        let response = Self::send(&self.endpoint, &mut self.side, request).await?;
        let status = response.status();
        let body = read_body(response.into_body()).await.map_err(Fail::Rejected)?;
        if !status.is_success() {
            return Err(rejected(format!(
                "answering the server's request: HTTP {status}: {}",
                clip(&String::from_utf8_lossy(&body), 400)
            )));
        }
        Ok(())
    }
}

/// The endpoint for `url`; in the legacy era, after the handshake on a setup connection.
async fn http_endpoint(url: &http::Uri, ctx: &Ctx, config: &Config, capabilities: Value) -> Result<Endpoint, String> {
    let authority = url.authority().ok_or("the URL has no host")?;
    let port = authority.port_u16().unwrap_or(80);
    let host = authority.host().trim_start_matches('[').trim_end_matches(']');
    let addr = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| format!("cannot resolve {authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority} resolves to no address"))?;
    let path: http::Uri =
        url.path_and_query().map_or("/", |p| p.as_str()).parse().map_err(|e| format!("bad URL path: {e}"))?;
    let mut endpoint = Endpoint {
        addr,
        path,
        host: HeaderValue::from_str(authority.as_str()).map_err(|e| format!("bad host: {e}"))?,
        version: None,
        name: HeaderValue::from_str(&config.tool)
            .map_err(|_| format!("the tool name {:?} cannot be sent as Mcp-Name as is", config.tool))?,
        session: None,
    };
    if config.era == Era::Modern {
        endpoint.version = Some(HeaderValue::from_static(LATEST_PROTOCOL_VERSION));
        return Ok(endpoint);
    }
    // Legacy: initialize (no version header yet), then notifications/initialized.
    let sender = connect(addr).await?;
    let mut setup = HttpConn::new(Arc::new(endpoint), Era::Legacy, sender);
    let id = ctx.next_id();
    let body =
        json!({"jsonrpc": "2.0", "id": id, "method": methods::INITIALIZE, "params": initialize_params(capabilities)});
    let request = setup.post(body.to_string().into_bytes(), None, false);
    let response = HttpConn::send(&setup.endpoint, &mut setup.main, request).await.map_err(fail_text)?;
    let session = response.headers().get("mcp-session-id").cloned();
    let reply = setup.response(ctx, id, response).await.map_err(fail_text)?;
    let result = reply.result().map_err(fail_text)?;
    let version = result.protocol_version.clone().ok_or("the initialize result has no protocolVersion")?;
    let Ok(mut endpoint) = Arc::try_unwrap(setup.endpoint) else {
        return Err("internal: the endpoint is still shared".into());
    };
    endpoint.version = Some(HeaderValue::from_str(&version).map_err(|_| format!("bad protocolVersion {version:?}"))?);
    endpoint.session = session;
    let notification = json!({"jsonrpc": "2.0", "method": methods::NOTIFICATION_INITIALIZED}).to_string().into_bytes();
    let mut setup = HttpConn::new(Arc::new(endpoint), Era::Legacy, connect(addr).await?);
    let request = setup.post(notification, None, false);
    let response = HttpConn::send(&setup.endpoint, &mut setup.main, request).await.map_err(fail_text)?;
    let status = response.status();
    let body = read_body(response.into_body()).await?;
    if !status.is_success() {
        return Err(format!(
            "notifications/initialized: HTTP {status}: {}",
            clip(&String::from_utf8_lossy(&body), 400)
        ));
    }
    drop(setup.main.take());
    Arc::try_unwrap(setup.endpoint).map_err(|_| "internal: the endpoint is still shared".to_owned())
}

/// End a legacy session (best effort).
async fn delete_session(endpoint: &Endpoint) {
    let Some(session) = &endpoint.session else { return };
    let Ok(mut sender) = connect(endpoint.addr).await else { return };
    let mut request = Request::new(Full::new(Bytes::new()));
    *request.method_mut() = http::Method::DELETE;
    *request.uri_mut() = endpoint.path.clone();
    let h = request.headers_mut();
    h.insert(http::header::HOST, endpoint.host.clone());
    h.insert("mcp-session-id", session.clone());
    if let Some(version) = &endpoint.version {
        h.insert("mcp-protocol-version", version.clone());
    }
    if let Ok(Ok(response)) = tokio::time::timeout(Duration::from_secs(2), sender.send_request(request)).await {
        let _ = read_body(response.into_body()).await;
    }
}

// ---------------------------------------------------------------------------------------
// /proc measurements
// ---------------------------------------------------------------------------------------

/// Clock ticks per second for `/proc/*/stat` times: the kernel's `AT_CLKTCK` from
/// `/proc/self/auxv` (what `sysconf(_SC_CLK_TCK)` returns), else 100.
fn clock_ticks_per_sec() -> u64 {
    const AT_CLKTCK: u64 = 17;
    const WORD: usize = std::mem::size_of::<usize>();
    let Ok(auxv) = std::fs::read("/proc/self/auxv") else { return 100 };
    let word = |bytes: &[u8]| -> u64 {
        let mut buf = [0u8; WORD];
        buf.copy_from_slice(bytes);
        usize::from_ne_bytes(buf) as u64
    };
    auxv.chunks_exact(2 * WORD)
        .map(|pair| (word(&pair[..WORD]), word(&pair[WORD..])))
        .find(|&(key, _)| key == AT_CLKTCK)
        .map(|(_, ticks)| ticks)
        .filter(|&ticks| ticks > 0)
        .unwrap_or(100)
}

/// utime + stime of a process (all its threads), in clock ticks.
fn cpu_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// The peak resident set size (`VmHWM`) of a process, in kB.
fn peak_rss_kb(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line["VmHWM:".len()..].trim().trim_end_matches("kB").trim().parse().ok()
}

// ---------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------

#[derive(serde::Serialize)]
struct Line<'a> {
    label: &'a str,
    transport: &'static str,
    era: &'static str,
    mode: &'static str,
    concurrency: usize,
    calls: u64,
    errors: u64,
    seconds: f64,
    calls_per_sec: f64,
    p50_us: Option<u64>,
    p99_us: Option<u64>,
    server_cpu_us_per_call: Option<f64>,
    server_peak_rss_kb: Option<u64>,
    all_calls: u64,
    all_errors: u64,
}

/// The nearest-rank percentile `p` (0..=100) of sorted values.
fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

/// Wait `duration`, or until a slot reports a fatal failure (then `Err`).
async fn wait(ctx: &Ctx, duration: Duration) -> Result<(), String> {
    if let Some(text) = ctx.fatal.get() {
        return Err(text.clone());
    }
    tokio::select! {
        () = tokio::time::sleep(duration) => Ok(()),
        () = ctx.fatal_notify.notified() => Err(ctx.fatal.get().cloned().unwrap_or_default()),
    }
}

async fn run(config: Config) -> Result<(), String> {
    let ctx = Arc::new(Ctx::new(&config));
    let capabilities = capabilities(config.mode);

    // Connect and set up the slots' connections.
    let mut spawned = None;
    let mut endpoint = None;
    let mut conns = Vec::with_capacity(config.concurrency);
    let pid: Option<String> = match &config.target {
        Target::Stdio { command } => {
            let s = spawn_stdio(command, &ctx)?;
            let pid = s.child.id().map(|p| p.to_string());
            if config.era == Era::Legacy {
                tokio::select! {
                    done = stdio_handshake(&s.pipe, &ctx, capabilities) => done?,
                    () = ctx.fatal_notify.notified() => return Err(ctx.fatal.get().cloned().unwrap_or_default()),
                }
            }
            for _ in 0..config.concurrency {
                conns.push(Conn::Stdio(Arc::clone(&s.pipe)));
            }
            spawned = Some(s);
            pid
        }
        Target::Http { url, pid } => {
            if let Some(pid) = pid
                && cpu_ticks(&pid.to_string()).is_none()
            {
                return Err(format!("cannot read /proc/{pid}/stat: is --pid the server's process id?"));
            }
            let e = Arc::new(http_endpoint(url, &ctx, &config, capabilities).await?);
            for _ in 0..config.concurrency {
                let sender = connect(e.addr).await?;
                conns.push(Conn::Http(Box::new(HttpConn::new(Arc::clone(&e), config.era, sender))));
            }
            endpoint = Some(e);
            pid.map(|p| p.to_string())
        }
    };

    let slots: Vec<_> = conns.into_iter().map(|conn| tokio::spawn(slot(conn, Arc::clone(&ctx)))).collect();

    let measured = async {
        wait(&ctx, config.warmup).await?;
        let t0 = Instant::now();
        let server0 = pid.as_deref().and_then(cpu_ticks);
        let self0 = cpu_ticks("self");
        wait(&ctx, config.duration).await?;
        let t1 = Instant::now();
        let server1 = pid.as_deref().and_then(cpu_ticks);
        let self1 = cpu_ticks("self");
        let rss = pid.as_deref().and_then(peak_rss_kb);
        Ok::<_, String>((t0, t1, server0.zip(server1), self0.zip(self1), rss))
    }
    .await;
    ctx.stop.store(true, Ordering::Relaxed);

    // Let in-flight calls finish, then collect.
    let mut records = Vec::new();
    let mut stuck = false;
    let deadline = tokio::time::Instant::now() + DRAIN_TIMEOUT;
    for handle in slots {
        let abort = handle.abort_handle();
        match tokio::time::timeout_at(deadline, handle).await {
            Ok(Ok(slot_records)) => records.extend(slot_records),
            Ok(Err(e)) => return Err(format!("a slot failed: {e}")),
            Err(_) => {
                abort.abort();
                stuck = true;
            }
        }
    }

    // Let the server go.
    if let Some(mut s) = spawned {
        s.writer.abort(); // drops the child's stdin: EOF
        let _ = s.writer.await;
        if tokio::time::timeout(EXIT_GRACE, s.child.wait()).await.is_err() {
            let _ = s.child.start_kill();
            let _ = s.child.wait().await;
        }
        s.reader.abort();
    }
    if let Some(e) = &endpoint {
        delete_session(e).await;
    }

    let (t0, t1, server_cpu, self_cpu, rss) = measured?;
    if stuck {
        return Err(format!("calls were still in flight {} s after the window closed", DRAIN_TIMEOUT.as_secs()));
    }

    // Only calls that finished inside the window count.
    let from = t0.duration_since(ctx.origin).as_micros() as u64;
    let to = t1.duration_since(ctx.origin).as_micros() as u64;
    let mut latencies = Vec::with_capacity(records.len());
    let mut errors = 0u64;
    let mut ok_total = 0u64;
    for record in &records {
        ok_total += u64::from(record.ok);
        if record.end_us < from || record.end_us > to {
            continue;
        }
        if record.ok {
            latencies.push(record.latency_us);
        } else {
            errors += 1;
        }
    }
    latencies.sort_unstable();
    let calls = latencies.len() as u64;
    let seconds = t1.duration_since(t0).as_secs_f64();
    let tick_us = 1e6 / clock_ticks_per_sec() as f64;
    let handled = calls + errors;
    let per_call =
        |(a, b): (u64, u64)| (handled > 0).then(|| round(b.saturating_sub(a) as f64 * tick_us / handled as f64, 2));

    if config.era == Era::Legacy && config.mode == Mode::Mrtr {
        let asked = ctx.elicitations.load(Ordering::Relaxed);
        if asked < ok_total {
            return Err(format!(
                "{ok_total} calls succeeded but the server asked only {asked} elicitations: not an MRTR run"
            ));
        }
    }
    if let Some(own) = self_cpu.and_then(per_call) {
        eprintln!(
            "loadgen: own CPU {own} µs per call ({} runtime thread{})",
            config.threads,
            if config.threads == 1 { "" } else { "s" }
        );
    }

    let line = Line {
        label: &config.label,
        transport: match config.target {
            Target::Stdio { .. } => "stdio",
            Target::Http { .. } => "http",
        },
        era: match config.era {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        },
        mode: match config.mode {
            Mode::Plain => "plain",
            Mode::Mrtr => "mrtr",
        },
        concurrency: config.concurrency,
        calls,
        errors,
        seconds: round(seconds, 3),
        calls_per_sec: round(calls as f64 / seconds, 1),
        p50_us: percentile(&latencies, 50.0),
        p99_us: percentile(&latencies, 99.0),
        server_cpu_us_per_call: server_cpu.and_then(per_call),
        server_peak_rss_kb: rss,
        all_calls: records.len() as u64,
        all_errors: records.len() as u64 - ok_total,
    };
    let text = serde_json::to_string(&line).map_err(|e| e.to_string())?;
    println!("{text}");
    Ok(())
}

fn main() -> std::process::ExitCode {
    let config = match parse_args(std::env::args().skip(1)) {
        Ok(config) => config,
        Err(message) => {
            if message.is_empty() {
                println!("{USAGE}");
                return std::process::ExitCode::SUCCESS;
            }
            eprintln!("loadgen: {message}\n{USAGE}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = if config.threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(config.threads).enable_all().build()
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("loadgen: cannot start the runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(config)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("loadgen: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}
