//! Request-state sealing, end to end: a low-level server driven through
//! `Server::handle_request_as` (no transport), with an injected clock (no sleeps).
//!
//! The handlers hand out plaintext `plain-state-<target>-r<N>` on each round and record
//! the `requestState` they see on the retry; the tests check that the wire only ever
//! carries sealed tokens, that handlers only ever see plaintext the server minted, and
//! that every inbound failure, whatever its cause, gets one fixed error.
//!
//! Checklist: the reference SDK's `test_request_state.py` / `test_request_state_boundary.py`.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp::Server;
use mcp::handler::AuthInfo;
use mcp::handler::Session;
use mcp::protocol::{
    CallToolOutcome, CallToolResult, ElicitRequestParams, ElicitationSchema, ErrorCode, GetPromptOutcome,
    GetPromptResult, InputRequest, InputRequiredResult, JsonRpcMessage, JsonRpcRequest, PromptMessage,
    ReadResourceOutcome, ReadResourceResult, ResourceContents, decode_message,
};
use mcp::sealing::{
    AesGcmCodec, Clock, Envelope, InMemoryConsumedTokens, InvalidRequestState, RequestStateCodec, RequestStateSecurity,
    RequestStateSecurityBuilder, SealError, args_digest,
};
use proptest::prelude::*;
use proptest::sample::Index;
use ring::hmac;
use serde_json::{Value, json};
use tokio::sync::mpsc;

#[path = "../support/mod.rs"]
mod support;

mod configuration;
mod consumed_tokens;
mod custom_codec;
mod everywhere;
mod legacy;
mod logs;
mod macro_tools;
mod properties;
mod rejections;
mod round_trips;
mod single_use_and_unicode;
mod ttl;

const K: [u8; 32] = [0x11; 32];
const K2: [u8; 32] = [0x22; 32];
/// The test clock's starting instant (ms since the epoch).
const T0: u64 = 1_800_000_000_000;
const TTL_MS: u64 = 600_000;
const SKEW_MS: u64 = 60_000;
const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

// ---------------------------------------------------------------------------------------
// Fixture
// ---------------------------------------------------------------------------------------

/// A clock the test moves by hand.
#[derive(Clone)]
struct TestClock(Arc<AtomicU64>);

impl TestClock {
    fn new() -> Self {
        TestClock(Arc::new(AtomicU64::new(T0)))
    }

    fn set(&self, ms: u64) {
        self.0.store(ms, Ordering::SeqCst);
    }
}

impl Clock for TestClock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// One handler invocation: (method, target, the requestState it received).
type Invocation = (String, String, Option<String>);

/// Every handler invocation.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Invocation>>>);

impl Seen {
    fn record(&self, method: &str, target: &str, state: Option<&str>) {
        self.0.lock().expect("seen lock").push((method.to_owned(), target.to_owned(), state.map(str::to_owned)));
    }

    fn len(&self) -> usize {
        self.0.lock().expect("seen lock").len()
    }

    fn last_state(&self) -> Option<String> {
        self.0.lock().expect("seen lock").last().and_then(|(_, _, s)| s.clone())
    }
}

/// The plaintext state for the next round, or `None` when `rounds` rounds are done.
fn next_round(target: &str, rounds: u64, state: Option<&str>) -> Option<String> {
    let done = state.and_then(|s| s.rsplit_once("-r")).and_then(|(_, n)| n.parse::<u64>().ok()).unwrap_or(0);
    (done < rounds).then(|| format!("plain-state-{target}-r{}", done + 1))
}

fn question() -> InputRequiredResult {
    InputRequiredResult::ask(
        "confirm",
        InputRequest::Elicit(ElicitRequestParams::form("Proceed?", ElicitationSchema::default())),
    )
}

/// A server whose three carrier handlers ask `rounds` times (default 1), then complete.
fn server(name: &str, security: RequestStateSecurity) -> Harness {
    try_server(name, security).expect("server builds")
}

fn try_server(name: &str, security: RequestStateSecurity) -> Result<Harness, mcp::server::BuildError> {
    let seen = Seen::default();
    let (tools, prompts, resources) = (seen.clone(), seen.clone(), seen.clone());
    let server = Server::builder(name, "1.0.0")
        .on_call_tool(move |_ctx, params| {
            let seen = tools.clone();
            async move {
                let state = params.request_state.as_deref();
                seen.record("tools/call", &params.name, state);
                let rounds =
                    params.arguments.as_ref().and_then(|a| a.get("rounds")).and_then(Value::as_u64).unwrap_or(1);
                Ok(match next_round(&params.name, rounds, state) {
                    Some(next) => CallToolOutcome::from(question().with_state(next)),
                    None => CallToolResult::text(format!("done: {}", state.unwrap_or_default())).into(),
                })
            }
        })
        .on_get_prompt(move |_ctx, params| {
            let seen = prompts.clone();
            async move {
                let state = params.request_state.as_deref();
                seen.record("prompts/get", &params.name, state);
                Ok(match next_round(&params.name, 1, state) {
                    Some(next) => GetPromptOutcome::from(question().with_state(next)),
                    None => GetPromptResult::new(vec![PromptMessage::user("done")]).into(),
                })
            }
        })
        .on_read_resource(move |_ctx, params| {
            let seen = resources.clone();
            async move {
                let state = params.request_state.as_deref();
                seen.record("resources/read", &params.uri, state);
                Ok(match next_round(&params.uri, 1, state) {
                    Some(next) => ReadResourceOutcome::from(question().with_state(next)),
                    None => ReadResourceResult::new(vec![ResourceContents::text(params.uri.clone(), "done")]).into(),
                })
            }
        })
        .request_state_security(security)
        .try_build()?;
    let (notifications, receiver) = mpsc::channel(64);
    Ok(Harness {
        server,
        seen,
        session: Arc::new(Session::new()),
        notifications,
        _receiver: receiver,
        next_id: AtomicI64::new(1),
    })
}

/// A policy over `keys`, with `clock`, ttl 600 s.
fn policy(keys: &[[u8; 32]], clock: &TestClock) -> RequestStateSecurityBuilder {
    RequestStateSecurity::builder().keys(keys.iter()).clock(clock.clone())
}

fn keys_policy(keys: &[[u8; 32]], clock: &TestClock) -> RequestStateSecurity {
    policy(keys, clock).build().expect("policy builds")
}

struct Harness {
    server: Server,
    seen: Seen,
    session: Arc<Session>,
    notifications: mpsc::Sender<String>,
    _receiver: mpsc::Receiver<String>,
    next_id: AtomicI64,
}

fn decode_request(message: &Value) -> JsonRpcRequest<mcp::protocol::Params> {
    match decode_message(&message.to_string()) {
        Ok(JsonRpcMessage::Request(request)) => request,
        other => panic!("not a request: {other:?}"),
    }
}

/// `params` with the modern `_meta` envelope (elicitation declared).
fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {"elicitation": {}}});
    params
}

impl Harness {
    async fn send(&self, method: &str, params: Value, auth: Option<&Arc<AuthInfo>>) -> Result<Value, mcp::Error> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let request = decode_request(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.server.handle_request_as(&self.session, request, self.notifications.clone(), auth.cloned()).await
    }

    /// A request as its text, written as given (escapes and all).
    async fn send_text(&self, text: &str) -> Result<Value, mcp::Error> {
        let request = match decode_message(text) {
            Ok(JsonRpcMessage::Request(request)) => request,
            other => panic!("not a request: {other:?}"),
        };
        self.server.handle_request_as(&self.session, request, self.notifications.clone(), None).await
    }

    /// A modern `tools/call`; `state` is put under `requestState` as given (any JSON).
    async fn call(
        &self,
        name: &str,
        args: Value,
        state: Option<Value>,
        auth: Option<&Arc<AuthInfo>>,
    ) -> Result<Value, mcp::Error> {
        let mut params = json!({"name": name, "arguments": args});
        if let Some(state) = state {
            params["requestState"] = state;
        }
        self.send("tools/call", modern(params), auth).await
    }

    /// The sealed token of a first-round `tools/call`.
    async fn mint(&self, name: &str, args: Value, auth: Option<&Arc<AuthInfo>>) -> String {
        token_of(&self.call(name, args, None, auth).await)
    }

    /// The retry is accepted and completes; returns the plaintext the handler saw.
    async fn expect_completes(&self, name: &str, args: Value, token: &str, auth: Option<&Arc<AuthInfo>>) -> String {
        let result = self.call(name, args, Some(json!(token)), auth).await.expect("the retry completes");
        assert_eq!(result["resultType"], "complete", "{result}");
        self.seen.last_state().expect("the handler saw a requestState")
    }

    /// The request gets the fixed error and no handler runs.
    async fn expect_rejected(&self, method: &str, params: Value, auth: Option<&Arc<AuthInfo>>) {
        let before = self.seen.len();
        assert_rejected(self.send(method, params, auth).await);
        assert_eq!(self.seen.len(), before, "a handler ran for a rejected requestState");
    }

    async fn expect_call_rejected(&self, name: &str, args: Value, state: Value, auth: Option<&Arc<AuthInfo>>) {
        self.expect_rejected(
            "tools/call",
            modern(json!({"name": name, "arguments": args, "requestState": state})),
            auth,
        )
        .await;
    }
}

fn token_of(result: &Result<Value, mcp::Error>) -> String {
    let result = result.as_ref().expect("the first round succeeds");
    assert_eq!(result["resultType"], "input_required", "{result}");
    result["requestState"].as_str().expect("a string requestState").to_owned()
}

fn fixed_error() -> Value {
    json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}})
}

fn error_json(error: mcp::Error) -> Value {
    serde_json::to_value(error).expect("error serializes")
}

fn assert_rejected(result: Result<Value, mcp::Error>) {
    match result {
        Ok(value) => panic!("accepted: {value}"),
        Err(error) => assert_eq!(error_json(error), fixed_error()),
    }
}

/// The envelope inside `token`, opened with `keys`.
fn envelope(token: &str, keys: &[[u8; 32]]) -> Envelope {
    let codec = AesGcmCodec::new(keys).expect("codec");
    Envelope::from_payload(&codec.unseal(token).expect("unseals")).expect("an envelope")
}

fn user(client_id: &str, subject: &str) -> Arc<AuthInfo> {
    Arc::new(AuthInfo {
        client_id: client_id.to_owned(),
        issuer: Some("https://issuer.example".to_owned()),
        subject: Some(subject.to_owned()),
        scopes: vec!["tools".to_owned()],
        expires_at: None,
    })
}

/// Base64url body of a token with `edit` applied to its raw bytes, re-encoded canonically.
fn rebody(token: &str, prefix: &str, edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut raw = URL_SAFE_NO_PAD.decode(token.strip_prefix(prefix).expect("prefix")).expect("base64url");
    edit(&mut raw);
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(raw))
}
