//! The state every slot shares (the precomputed request pieces, the run's counters and
//! failure signals) and how a call's outcome is recorded.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use mcp::protocol::{LATEST_PROTOCOL_VERSION, TASKS_EXTENSION, keys, methods};
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::args::{Config, Era, Mode};

/// One finished call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record {
    /// When it finished, in µs since the run's origin.
    pub(crate) end_us: u64,
    pub(crate) latency_us: u64,
    pub(crate) ok: bool,
}

/// Why a call failed.
#[derive(Debug)]
pub(crate) enum Fail {
    /// A non-success answer: counted as an error, the run goes on.
    Rejected(String),
    /// The server is gone or the exchange cannot continue: the run stops.
    Fatal(String),
}

pub(crate) fn rejected(text: impl Into<String>) -> Fail {
    Fail::Rejected(text.into())
}

/// At most `limit` characters of `text`, for error messages.
pub(crate) fn clip(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The client capabilities sent: form elicitation in MRTR mode, the tasks extension in
/// task mode, nothing otherwise.
pub(crate) fn capabilities(mode: Mode) -> Value {
    match mode {
        Mode::Plain => json!({}),
        Mode::Mrtr => json!({"elicitation": {"form": {}}}),
        Mode::Task => json!({"extensions": {TASKS_EXTENSION: {}}}),
    }
}

/// Everything the slots share: the precomputed request pieces and the run's state.
pub(crate) struct Ctx {
    pub(crate) era: Era,
    pub(crate) mode: Mode,
    pub(crate) expect: Option<String>,
    /// The first request's body after the id: `,"method":"tools/call","params":{..}}`.
    pub(crate) call_tail: String,
    /// The params object without its closing brace, for retries.
    pub(crate) params_open: String,
    /// `{"action":"accept","content":ANSWER}`.
    pub(crate) accept: String,
    /// The `_meta` object of every request (modern era), for `tasks/get`.
    pub(crate) meta: String,
    pub(crate) origin: Instant,
    pub(crate) next_id: AtomicU64,
    pub(crate) elicitations: AtomicU64,
    /// `tasks/get` requests sent (task mode).
    pub(crate) task_polls: AtomicU64,
    pub(crate) stop: AtomicBool,
    pub(crate) first_error: OnceLock<String>,
    pub(crate) noted: OnceLock<()>,
    pub(crate) fatal: OnceLock<String>,
    pub(crate) fatal_notify: Notify,
}

impl Ctx {
    pub(crate) fn new(config: &Config) -> Ctx {
        let mut params = serde_json::Map::new();
        let meta = json!({
            keys::PROTOCOL_VERSION: LATEST_PROTOCOL_VERSION,
            keys::CLIENT_CAPABILITIES: capabilities(config.mode),
            keys::CLIENT_INFO: {"name": "loadgen", "version": env!("CARGO_PKG_VERSION")},
        });
        if config.era == Era::Modern {
            params.insert("_meta".into(), meta.clone());
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
            meta: meta.to_string(),
            origin: Instant::now(),
            next_id: AtomicU64::new(1),
            elicitations: AtomicU64::new(0),
            task_polls: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            first_error: OnceLock::new(),
            noted: OnceLock::new(),
            fatal: OnceLock::new(),
            fatal_notify: Notify::new(),
        }
    }

    pub(crate) fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn error(&self, text: String) {
        if self.first_error.set(text.clone()).is_ok() {
            tracing::warn!("first error: {text}");
        }
    }

    /// Say something once (per run) on stderr.
    pub(crate) fn note(&self, text: String) {
        if self.noted.set(()).is_ok() {
            tracing::info!("{text}");
        }
    }

    pub(crate) fn fail(&self, text: String) {
        if self.fatal.set(text).is_ok() {
            self.fatal_notify.notify_one();
        }
    }

    pub(crate) fn is_done(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.fatal.get().is_some()
    }

    /// The first request of a call.
    pub(crate) fn call_body(&self, id: u64) -> Vec<u8> {
        let mut body = Vec::with_capacity(32 + self.call_tail.len());
        body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        body.extend_from_slice(id.to_string().as_bytes());
        body.extend_from_slice(self.call_tail.as_bytes());
        body
    }

    /// The retry of a call with the answer under `key` and the state echoed.
    pub(crate) fn retry_body(&self, id: u64, key: &str, state: Option<&str>) -> Vec<u8> {
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

    /// A `tasks/get` of task `task_id`.
    pub(crate) fn task_get_body(&self, id: u64, task_id: &str) -> Vec<u8> {
        let mut body = String::with_capacity(96 + self.meta.len() + task_id.len());
        body.push_str(r#"{"jsonrpc":"2.0","id":"#);
        body.push_str(&id.to_string());
        body.push_str(r#","method":""#);
        body.push_str(mcp::protocol::tasks::methods::TASKS_GET);
        body.push_str(r#"","params":{"taskId":"#);
        body.push_str(&Value::from(task_id).to_string());
        body.push_str(r#","_meta":"#);
        body.push_str(&self.meta);
        body.push_str("}}");
        body.into_bytes()
    }

    /// The reply to a request the server sent (legacy sessions).
    pub(crate) fn server_request_reply(&self, method: &str, id: &Value) -> Vec<u8> {
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
