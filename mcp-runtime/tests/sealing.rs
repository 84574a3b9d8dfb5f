//! Request-state sealing, end to end: a low-level server driven through
//! `Server::handle_request_as` (no transport), with an injected clock (no sleeps).
//!
//! The handlers hand out plaintext `plain-state-<target>-r<N>` on each round and record
//! the `requestState` they see on the retry; the tests check that the wire only ever
//! carries sealed tokens, that handlers only ever see plaintext the server minted, and
//! that every inbound failure, whatever its cause, gets one fixed error.
//!
//! Checklist: the reference SDK's `test_request_state.py` / `test_request_state_boundary.py`.

use std::io::Write;
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

fn decode_request(message: &Value) -> JsonRpcRequest {
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
    serde_json::to_value(error.to_object()).expect("error serializes")
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

// ---------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn round_trip_seals_on_the_wire_and_restores_the_plaintext() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let args = json!({"env": "prod"});
    let token = h.mint("deploy", args.clone(), None).await;
    assert!(token.starts_with("v1."), "{token}");
    assert!(!token.contains("plain-state"), "{token}");
    // Layout: v1. + base64url(kid 4 ‖ nonce 12 ‖ ciphertext ‖ tag 16), unpadded.
    let raw = URL_SAFE_NO_PAD.decode(&token[3..]).expect("unpadded base64url");
    let plaintext = envelope(&token, &[K]).to_payload();
    assert_eq!(raw.len(), 4 + 12 + plaintext.len() + 16);
    assert!(!raw.windows(b"plain-state".len()).any(|w| w == b"plain-state"), "the state is encrypted");
    assert_eq!(h.seen.last_state(), None, "the first round has no state");

    let seen = h.expect_completes("deploy", args.clone(), &token, None).await;
    assert_eq!(seen, "plain-state-deploy-r1");

    // Two seals of the same state differ (fresh nonce), and both open to the same state.
    let a = h.mint("deploy", args.clone(), None).await;
    let b = h.mint("deploy", args.clone(), None).await;
    assert_ne!(a, b);
    assert_eq!(envelope(&a, &[K]).s, envelope(&b, &[K]).s);
}

#[tokio::test]
async fn each_round_is_resealed_with_a_fresh_expiry() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let args = json!({"rounds": 2});
    let first = h.mint("plan", args.clone(), None).await;
    let claims = envelope(&first, &[K]);
    assert_eq!((claims.iat, claims.exp), (T0, T0 + TTL_MS));

    // Just inside the first round's ttl: accepted, and the second round is resealed.
    clock.set(T0 + TTL_MS - 1);
    let second = token_of(&h.call("plan", args.clone(), Some(json!(first)), None).await);
    assert_eq!(h.seen.last_state().as_deref(), Some("plain-state-plan-r1"));
    assert_ne!(second, first);
    let claims = envelope(&second, &[K]);
    assert_eq!((claims.iat, claims.exp), (T0 + TTL_MS - 1, T0 + 2 * TTL_MS - 1));
    assert_eq!(claims.s, "plain-state-plan-r2");

    // Past the first token's expiry the second one still works: the ttl is per round.
    clock.set(T0 + TTL_MS + 500);
    h.expect_call_rejected("plan", args.clone(), json!(first), None).await;
    assert_eq!(h.expect_completes("plan", args, &second, None).await, "plain-state-plan-r2");
}

#[tokio::test]
async fn envelope_claims_are_the_documented_ones() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({"env": "prod"}), None).await;
    let claims = envelope(&token, &[K]);
    let expected = Envelope {
        v: 1,
        iat: T0,
        exp: T0 + TTL_MS,
        m: "tools/call".to_owned(),
        t: "deploy".to_owned(),
        a: args_digest(Some(&json!({"env": "prod"}))),
        s: "plain-state-deploy-r1".to_owned(),
        aud: Some("svc".to_owned()),
        p: None,
    };
    assert_eq!(claims, expected, "no `p` when no principal is bound");
    assert_eq!(Envelope::from_payload(&expected.to_payload()).expect("decodes"), expected);

    // With a principal, `p` is a salted hash: two mints for one user differ, and neither
    // contains the principal.
    let alice = user("client-1", "alice");
    let p1 = envelope(&h.mint("deploy", json!({}), Some(&alice)).await, &[K]).p.expect("p");
    let p2 = envelope(&h.mint("deploy", json!({}), Some(&alice)).await, &[K]).p.expect("p");
    assert_ne!(p1, p2);
    assert!(!p1.contains("alice") && !p1.contains("client-1"));
}

#[tokio::test]
async fn prompts_and_resources_seal_and_restore_too() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let prompt = modern(json!({"name": "review", "arguments": {"lang": "rust"}}));
    let token = token_of(&h.send("prompts/get", prompt.clone(), None).await);
    assert!(token.starts_with("v1.") && !token.contains("plain-state"));
    let mut retry = prompt;
    retry["requestState"] = json!(token);
    let done = h.send("prompts/get", retry, None).await.expect("completes");
    assert_eq!(done["resultType"], "complete");
    assert_eq!(h.seen.last_state().as_deref(), Some("plain-state-review-r1"));

    let read = modern(json!({"uri": "file:///notes/a.txt"}));
    let token = token_of(&h.send("resources/read", read.clone(), None).await);
    assert!(token.starts_with("v1."));
    let mut retry = read;
    retry["requestState"] = json!(token);
    let done = h.send("resources/read", retry, None).await.expect("completes");
    assert_eq!(done["contents"][0]["text"], "done");
    assert_eq!(h.seen.last_state().as_deref(), Some("plain-state-file:///notes/a.txt-r1"));
}

// ---------------------------------------------------------------------------------------
// Rejections: always exactly the fixed error, and the handler never runs
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn malformed_tokens_are_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    // A tool name whose token body leaves spare bits in its last character (the body
    // length is fixed by the envelope, which the fixed clock makes deterministic).
    let mut name = String::from("d");
    let mut token = h.mint(&name, json!({}), None).await;
    while token[3..].len() % 4 == 0 {
        name.push('x');
        token = h.mint(&name, json!({}), None).await;
    }
    let body = &token[3..];
    // A body whose last character carries non-zero trailing bits: the same bytes as
    // `body` under a lenient decoder, but not the text `seal` produced.
    let alias = {
        let (head, last) = body.split_at(body.len() - 1);
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let i = alphabet.iter().position(|c| *c == last.as_bytes()[0]).expect("base64url char");
        let unused_bits = match body.len() % 4 {
            2 => 0b1111,
            3 => 0b11,
            _ => 0,
        };
        assert_ne!(unused_bits, 0, "the token body length leaves spare bits");
        format!("v1.{head}{}", alphabet[i | 1] as char)
    };
    let cases = [
        ("empty", String::new()),
        ("no prefix", body.to_owned()),
        ("other prefix", format!("v2.{body}")),
        ("upper-case prefix", format!("V1.{body}")),
        ("bad base64", format!("v1.{}*{}", &body[..10], &body[11..])),
        ("standard alphabet", format!("v1.{}+/", &body[..body.len() - 2])),
        ("padded", format!("{token}{}", "=".repeat(4 - body.len() % 4))),
        ("non-canonical trailing bits", alias),
        ("whitespace", format!("{token} ")),
        ("too short", format!("v1.{}", URL_SAFE_NO_PAD.encode([0u8; 31]))),
        ("prefix only", "v1.".to_owned()),
    ];
    for (what, bad) in cases {
        assert_ne!(bad, token, "{what}");
        h.expect_call_rejected(&name, json!({}), json!(bad), None).await;
    }
    assert_eq!(h.expect_completes(&name, json!({}), &token, None).await, format!("plain-state-{name}-r1"));
}

#[tokio::test]
async fn a_token_from_another_key_ring_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let other = server("svc", keys_policy(&[K2], &clock));
    let foreign = other.mint("deploy", json!({}), None).await;
    h.expect_call_rejected("deploy", json!({}), json!(foreign), None).await;
    // Two default (ephemeral) policies never accept each other's tokens either.
    let a = server("svc", RequestStateSecurity::ephemeral().expect("ephemeral"));
    let b = server("svc", RequestStateSecurity::ephemeral().expect("ephemeral"));
    let token = a.mint("deploy", json!({}), None).await;
    b.expect_call_rejected("deploy", json!({}), json!(token), None).await;
}

#[tokio::test]
async fn a_flipped_byte_anywhere_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    let len = URL_SAFE_NO_PAD.decode(&token[3..]).expect("base64url").len();
    // kid, nonce, ciphertext (start and middle), tag.
    for at in [0, 5, 16, 16 + (len - 32) / 2, len - 1] {
        let tampered = rebody(&token, "v1.", |raw| raw[at] ^= 0x01);
        h.expect_call_rejected("deploy", json!({}), json!(tampered), None).await;
    }
    // A kid transplanted from another ring's token onto this body.
    let foreign = server("svc", keys_policy(&[K2], &clock)).mint("deploy", json!({}), None).await;
    let foreign_kid = URL_SAFE_NO_PAD.decode(&foreign[3..]).expect("base64url")[..4].to_vec();
    let transplanted = rebody(&token, "v1.", |raw| raw[..4].copy_from_slice(&foreign_kid));
    let two_ring = server("svc", keys_policy(&[K, K2], &clock));
    two_ring.expect_call_rejected("deploy", json!({}), json!(transplanted), None).await;
}

#[tokio::test]
async fn a_reprefixed_token_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    for prefix in ["v2.", "v0.", "x1.", "v1..", ".v1."] {
        h.expect_call_rejected("deploy", json!({}), json!(format!("{prefix}{}", &token[3..])), None).await;
    }
}

#[tokio::test]
async fn a_token_minted_beyond_the_future_skew_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    // The verifier's clock is behind the minter's by more than 60 s.
    clock.set(T0 - SKEW_MS - 1);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    clock.set(T0 - 120_000);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    // Exactly 60 s behind is still within the skew.
    clock.set(T0 - SKEW_MS);
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn an_expired_token_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    clock.set(T0 + TTL_MS + 1_000);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    clock.set(T0 + 10 * TTL_MS);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
}

#[tokio::test]
async fn a_token_is_rejected_exactly_at_its_expiry_and_accepted_just_before() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    clock.set(T0 + TTL_MS);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    clock.set(T0 + TTL_MS - 1);
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn a_token_replayed_on_another_tool_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({"env": "prod"}), None).await;
    h.expect_call_rejected("destroy", json!({"env": "prod"}), json!(token), None).await;
    assert_eq!(h.expect_completes("deploy", json!({"env": "prod"}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn a_token_replayed_with_other_arguments_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({"env": "staging", "n": 1}), None).await;
    for other in [
        json!({"env": "prod", "n": 1}),
        json!({"env": "staging"}),
        json!({"env": "staging", "n": 1, "force": true}),
        json!({"env": "staging", "n": 1.0}),
        json!({"env": "staging", "n": "1"}),
        json!({}),
        Value::Null,
    ] {
        h.expect_call_rejected("deploy", other, json!(token), None).await;
    }
    // Absent, `null` and `{}` arguments are one and the same binding.
    let empty = h.mint("deploy", json!({}), None).await;
    let params = modern(json!({"name": "deploy", "requestState": empty}));
    let done = h.send("tools/call", params, None).await.expect("absent arguments match {}");
    assert_eq!(done["resultType"], "complete");
    let null = h.mint("deploy", Value::Null, None).await;
    assert_eq!(h.expect_completes("deploy", json!({}), &null, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn argument_key_order_does_not_matter() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    // Raw JSON text, so the two requests really carry the keys in different orders.
    let text = |id: i64, order: &str, state: Option<&str>| {
        let state = state.map(|s| format!(r#","requestState":"{s}""#)).unwrap_or_default();
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"{PROTOCOL_VERSION}":"2026-07-28","{CLIENT_CAPABILITIES}":{{"elicitation":{{}}}}}},"name":"sum","arguments":{order}{state}}}}}"#
        )
    };
    let request = |text: String| match decode_message(&text) {
        Ok(JsonRpcMessage::Request(request)) => request,
        other => panic!("not a request: {other:?}"),
    };
    let result = h
        .server
        .handle_request_as(
            &h.session,
            request(text(1, r#"{"a":1,"b":{"y":2,"x":[{"q":1,"p":2}]}}"#, None)),
            h.notifications.clone(),
            None,
        )
        .await;
    let token = token_of(&result);
    let retry = text(2, r#"{"b":{"x":[{"p":2,"q":1}],"y":2},"a":1}"#, Some(&token));
    let done = h.server.handle_request_as(&h.session, request(retry), h.notifications.clone(), None).await;
    assert_eq!(done.expect("reordered keys are the same arguments")["resultType"], "complete");
    assert_eq!(h.seen.last_state().as_deref(), Some("plain-state-sum-r1"));
    // Array order does matter.
    let token = token_of(
        &h.server
            .handle_request_as(&h.session, request(text(3, r#"{"a":[1,2]}"#, None)), h.notifications.clone(), None)
            .await,
    );
    let swapped = h
        .server
        .handle_request_as(&h.session, request(text(4, r#"{"a":[2,1]}"#, Some(&token))), h.notifications.clone(), None)
        .await;
    assert_rejected(swapped);
}

#[test]
fn the_arguments_digest_is_over_sorted_compact_json() {
    // The documented definition: SHA-256 of the canonical JSON (keys sorted at every
    // level, no whitespace), first 16 bytes, base64url. Pinned independently of how
    // serde_json happens to order its maps (`preserve_order`).
    let value = json!({"b": {"y": [3, {"z": 1, "a": null}], "x": "é"}, "a": true, "aa": 1.5});
    let canonical = r#"{"a":true,"aa":1.5,"b":{"x":"é","y":[3,{"a":null,"z":1}]}}"#;
    let digest = ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes());
    assert_eq!(args_digest(Some(&value)), URL_SAFE_NO_PAD.encode(&digest.as_ref()[..16]));
    let empty = ring::digest::digest(&ring::digest::SHA256, b"{}");
    assert_eq!(args_digest(None), URL_SAFE_NO_PAD.encode(&empty.as_ref()[..16]));
    assert_eq!(args_digest(Some(&json!({}))), args_digest(None));
}

#[tokio::test]
async fn a_tools_call_token_replayed_on_prompts_get_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    // Same name and same (string) arguments: only the method differs.
    let token = h.mint("deploy", json!({"env": "prod"}), None).await;
    let replay = modern(json!({"name": "deploy", "arguments": {"env": "prod"}, "requestState": token}));
    h.expect_rejected("prompts/get", replay, None).await;
    let mut prompt = modern(json!({"name": "deploy", "arguments": {"env": "prod"}}));
    let prompt_token = token_of(&h.send("prompts/get", prompt.clone(), None).await);
    h.expect_call_rejected("deploy", json!({"env": "prod"}), json!(prompt_token), None).await;
    prompt["requestState"] = json!(prompt_token);
    assert_eq!(h.send("prompts/get", prompt, None).await.expect("completes")["resultType"], "complete");
}

#[tokio::test]
async fn resources_read_tokens_are_bound_to_the_uri() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = token_of(&h.send("resources/read", modern(json!({"uri": "file:///a.txt"})), None).await);
    for uri in ["file:///b.txt", "file:///a.txt/", "FILE:///a.txt"] {
        h.expect_rejected("resources/read", modern(json!({"uri": uri, "requestState": token})), None).await;
    }
    // ... and to the method: a tool named like the URI does not accept it.
    h.expect_call_rejected("file:///a.txt", json!({}), json!(token), None).await;
    let done = h.send("resources/read", modern(json!({"uri": "file:///a.txt", "requestState": token})), None).await;
    assert_eq!(done.expect("completes")["resultType"], "complete");
}

#[tokio::test]
async fn two_servers_sharing_keys_reject_each_others_tokens_by_name() {
    let clock = TestClock::new();
    let a = server("svc-a", keys_policy(&[K], &clock));
    let b = server("svc-b", keys_policy(&[K], &clock));
    let token = a.mint("deploy", json!({}), None).await;
    b.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    // Same name, same keys: one logical service (instances behind a balancer).
    let a2 = server("svc-a", keys_policy(&[K], &clock));
    assert_eq!(a2.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn an_explicit_audience_on_one_side_only_is_rejected() {
    let clock = TestClock::new();
    let named = server("svc", keys_policy(&[K], &clock));
    let explicit = server("svc", policy(&[K], &clock).audience("svc-prod").build().expect("policy"));
    let token = named.mint("deploy", json!({}), None).await;
    explicit.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    let token = explicit.mint("deploy", json!({}), None).await;
    named.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    // An explicit audience overrides the name: differently named servers sharing it agree.
    let other = server("svc-other", policy(&[K], &clock).audience("svc-prod").build().expect("policy"));
    assert_eq!(other.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn a_token_for_another_principal_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    // One OAuth client, one issuer, two users.
    let alice = user("shared-client", "alice");
    let bob = user("shared-client", "bob");
    let token = h.mint("deploy", json!({}), Some(&alice)).await;
    h.expect_call_rejected("deploy", json!({}), json!(token), Some(&bob)).await;
    // Another client for the same subject, or another issuer, is another principal too.
    h.expect_call_rejected("deploy", json!({}), json!(token), Some(&user("other-client", "alice"))).await;
    let other_issuer = Arc::new(AuthInfo { issuer: Some("https://evil.example".into()), ..(*alice).clone() });
    h.expect_call_rejected("deploy", json!({}), json!(token), Some(&other_issuer)).await;
    // Scopes and expiry are not part of the principal.
    let rescoped = Arc::new(AuthInfo { scopes: vec![], expires_at: Some(1), ..(*alice).clone() });
    assert_eq!(h.expect_completes("deploy", json!({}), &token, Some(&rescoped)).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn principal_presence_drift_is_rejected_both_ways() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let alice = user("client-1", "alice");
    let authenticated = h.mint("deploy", json!({}), Some(&alice)).await;
    h.expect_call_rejected("deploy", json!({}), json!(authenticated), None).await;
    let anonymous = h.mint("deploy", json!({}), None).await;
    h.expect_call_rejected("deploy", json!({}), json!(anonymous), Some(&alice)).await;
    assert_eq!(h.expect_completes("deploy", json!({}), &authenticated, Some(&alice)).await, "plain-state-deploy-r1");
    assert_eq!(h.expect_completes("deploy", json!({}), &anonymous, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn a_non_string_request_state_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    for bad in [json!(42), json!({"token": token}), json!([token]), json!(true)] {
        h.expect_call_rejected("deploy", json!({}), bad, None).await;
    }
}

#[tokio::test]
async fn an_explicit_null_request_state_is_a_first_round() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let result = h.call("deploy", json!({}), Some(Value::Null), None).await;
    let token = token_of(&result);
    assert_eq!(h.seen.len(), 1);
    assert_eq!(h.seen.last_state(), None, "the handler sees no state");
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

// ---------------------------------------------------------------------------------------
// Key rotation
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn key_rotation_phases() {
    let clock = TestClock::new();
    let old = server("svc", keys_policy(&[K], &clock));
    let learning = server("svc", keys_policy(&[K, K2], &clock));
    let promoted = server("svc", keys_policy(&[K2, K], &clock));
    let retired = server("svc", keys_policy(&[K2], &clock));

    let from_old = old.mint("deploy", json!({}), None).await;
    assert_eq!(learning.expect_completes("deploy", json!({}), &from_old, None).await, "plain-state-deploy-r1");
    assert_eq!(promoted.expect_completes("deploy", json!({}), &from_old, None).await, "plain-state-deploy-r1");
    retired.expect_call_rejected("deploy", json!({}), json!(from_old), None).await;

    // The first key of the ring mints: `[K2, K]` mints under K2.
    let from_promoted = promoted.mint("deploy", json!({}), None).await;
    assert_eq!(retired.expect_completes("deploy", json!({}), &from_promoted, None).await, "plain-state-deploy-r1");
    assert_eq!(learning.expect_completes("deploy", json!({}), &from_promoted, None).await, "plain-state-deploy-r1");
    old.expect_call_rejected("deploy", json!({}), json!(from_promoted), None).await;
}

// ---------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------

fn config_error(builder: RequestStateSecurityBuilder) -> String {
    builder.build().expect_err("the configuration is refused").to_string()
}

#[test]
fn configuration_errors_are_clear() {
    let short = config_error(RequestStateSecurity::builder().keys([[0u8; 31]]));
    assert!(short.contains("key 0 is 31 bytes") && short.contains("at least 32"), "{short}");
    let second_short = config_error(RequestStateSecurity::builder().keys([&[1u8; 32][..], &[2u8; 16][..]]));
    assert!(second_short.contains("key 1 is 16 bytes"), "{second_short}");
    let empty = config_error(RequestStateSecurity::builder().keys(Vec::<Vec<u8>>::new()));
    assert!(empty.contains("key ring is empty"), "{empty}");
    let duplicate = config_error(RequestStateSecurity::builder().keys([K, K2, K]));
    assert!(duplicate.contains("key 2 repeats an earlier key"), "{duplicate}");
    let zero = config_error(RequestStateSecurity::builder().keys([K]).ttl(Duration::ZERO));
    assert!(zero.contains("ttl must be positive"), "{zero}");
    let sub_ms = config_error(RequestStateSecurity::builder().keys([K]).ttl(Duration::from_micros(999)));
    assert!(sub_ms.contains("ttl"), "{sub_ms}");
    let both = config_error(RequestStateSecurity::builder().keys([K]).codec(AesGcmCodec::new(&[K2]).expect("codec")));
    assert!(both.contains("either keys or a codec, not both"), "{both}");
    let neither = config_error(RequestStateSecurity::builder());
    assert!(neither.contains("give keys") && neither.contains("or a codec"), "{neither}");
    for message in [&short, &empty, &duplicate, &zero, &both, &neither] {
        assert!(message.starts_with("invalid request-state security: "), "{message}");
    }
    // Text keys are their UTF-8 bytes; 32 bytes is enough.
    let text = RequestStateSecurity::builder().keys(["0123456789abcdef0123456789abcdef"]).build();
    assert!(text.is_ok());
}

#[test]
fn an_explicit_policy_on_an_unnamed_server_needs_an_audience() {
    let clock = TestClock::new();
    for name in ["", "   "] {
        let error = try_server(name, keys_policy(&[K], &clock)).err().expect("refused");
        let message = error.to_string();
        assert!(message.contains("no name") && message.contains("set an audience"), "{message}");
        let with_audience = try_server(name, policy(&[K], &clock).audience("svc-prod").build().expect("policy"));
        assert!(with_audience.is_ok());
    }
    // The no-configuration default (a key that never leaves the process) is exempt.
    let default = Server::builder("", "1.0.0")
        .on_call_tool(|_ctx, _params| async { Ok(CallToolOutcome::from(CallToolResult::text("x"))) })
        .try_build();
    assert!(default.is_ok());
    let ephemeral = try_server("", RequestStateSecurity::ephemeral().expect("ephemeral"));
    assert!(ephemeral.is_ok());
}

// ---------------------------------------------------------------------------------------
// A custom codec
// ---------------------------------------------------------------------------------------

/// A reversible XOR "cipher" with an HMAC-SHA256 tag over `x1.` ‖ body. For the test
/// only: XOR with a fixed pad hides nothing from someone with two tokens.
struct XorHmacCodec {
    pad: [u8; 32],
    key: hmac::Key,
}

const X_PREFIX: &str = "x1.";

impl XorHmacCodec {
    fn new(secret: &[u8]) -> Self {
        let mut pad = [0u8; 32];
        pad.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, secret).as_ref());
        XorHmacCodec { pad, key: hmac::Key::new(hmac::HMAC_SHA256, secret) }
    }

    fn xor(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.iter().enumerate().map(|(i, b)| b ^ self.pad[i % self.pad.len()]).collect()
    }

    fn signed(body: &[u8]) -> Vec<u8> {
        [X_PREFIX.as_bytes(), body].concat()
    }
}

impl RequestStateCodec for XorHmacCodec {
    fn seal(&self, payload: &[u8]) -> Result<String, SealError> {
        let mut raw = self.xor(payload);
        let tag = hmac::sign(&self.key, &Self::signed(&raw));
        raw.extend_from_slice(tag.as_ref());
        Ok(format!("{X_PREFIX}{}", URL_SAFE_NO_PAD.encode(raw)))
    }

    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState> {
        let text = token.strip_prefix(X_PREFIX).ok_or(InvalidRequestState("malformed"))?;
        let raw = URL_SAFE_NO_PAD.decode(text).map_err(|_| InvalidRequestState("malformed"))?;
        if URL_SAFE_NO_PAD.encode(&raw) != text || raw.len() < 32 {
            return Err(InvalidRequestState("malformed"));
        }
        let (body, tag) = raw.split_at(raw.len() - 32);
        hmac::verify(&self.key, &Self::signed(body), tag).map_err(|_| InvalidRequestState("seal"))?;
        Ok(self.xor(body))
    }
}

#[tokio::test]
async fn a_custom_codec_round_trips_and_tampering_gets_the_fixed_error() {
    let clock = TestClock::new();
    let security = RequestStateSecurity::builder()
        .codec(XorHmacCodec::new(b"custom codec secret"))
        .clock(clock.clone())
        .build()
        .expect("policy");
    let h = server("svc", security);
    let token = h.mint("deploy", json!({"env": "prod"}), None).await;
    assert!(token.starts_with("x1.") && !token.contains("plain-state"), "{token}");
    let tampered = rebody(&token, X_PREFIX, |raw| raw[3] ^= 0x80);
    h.expect_call_rejected("deploy", json!({"env": "prod"}), json!(tampered), None).await;
    // The codec authenticates; the server still checks the binding and expiry.
    h.expect_call_rejected("other", json!({"env": "prod"}), json!(token), None).await;
    clock.set(T0 + TTL_MS);
    h.expect_call_rejected("deploy", json!({"env": "prod"}), json!(token), None).await;
    clock.set(T0 + 1);
    assert_eq!(h.expect_completes("deploy", json!({"env": "prod"}), &token, None).await, "plain-state-deploy-r1");
    // A `v1.` token is not this codec's.
    let aes = server("svc", keys_policy(&[K], &clock)).mint("deploy", json!({"env": "prod"}), None).await;
    h.expect_call_rejected("deploy", json!({"env": "prod"}), json!(aes), None).await;
}

#[tokio::test]
async fn codec_authenticated_bytes_that_are_not_an_envelope_are_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let codec = AesGcmCodec::new(&[K]).expect("codec");
    let good = envelope(&h.mint("deploy", json!({}), None).await, &[K]);
    let payload = good.to_payload();
    let edited = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = payload.clone();
        f(&mut bytes);
        bytes
    };
    let json_envelope = json!({"v": 1, "iat": T0, "exp": T0 + TTL_MS, "m": "tools/call", "t": "deploy",
        "a": good.a, "s": good.s, "aud": "svc"});
    let bad: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("text", b"not an envelope".to_vec()),
        ("a JSON envelope", json_envelope.to_string().into_bytes()),
        ("other version", edited(&|b| b[0] = 2)),
        ("truncated", payload[..payload.len() - 1].to_vec()),
        ("header only", payload[..17].to_vec()),
        ("trailing byte", edited(&|b| b.push(0))),
        ("invalid UTF-8 state", edited(&|b| *b.last_mut().expect("state") = 0xff)),
        ("bad optional flag", {
            // v, iat, exp, then m, t, a (short strings: one length byte each), then aud's flag.
            let at = 17 + 1 + good.m.len() + 1 + good.t.len() + 1 + good.a.len();
            assert_eq!(payload[at], 1, "aud present");
            edited(&|b| b[at] = 2)
        }),
        ("length past the end", edited(&|b| b[17] = 0x7f)),
        ("overlong length", {
            let mut b = payload[..17].to_vec();
            b.extend_from_slice(&[0x8a, 0x00]); // 10 written in two bytes
            b.extend_from_slice(&payload[18..]);
            b
        }),
        ("huge length", {
            let mut b = payload[..17].to_vec();
            b.extend_from_slice(&[0xff; 10]);
            b.extend_from_slice(&payload[18..]);
            b
        }),
    ];
    for (what, bytes) in bad {
        assert!(Envelope::from_payload(&bytes).is_err(), "{what} decodes");
        let token = codec.seal(&bytes).expect("seals");
        h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    }
    // The same path accepts a well-formed envelope sealed by hand.
    let token = codec.seal(&payload).expect("seals");
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

// ---------------------------------------------------------------------------------------
// Single use
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn single_use_mode_accepts_a_token_once() {
    let clock = TestClock::new();
    let h = server("svc", policy(&[K], &clock).single_use(InMemoryConsumedTokens::default()).build().expect("policy"));
    let token = h.mint("deploy", json!({}), None).await;
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    // A rejected token is not consumed: the binding check runs before the store.
    let other = h.mint("deploy", json!({}), None).await;
    h.expect_call_rejected("destroy", json!({}), json!(other), None).await;
    assert_eq!(h.expect_completes("deploy", json!({}), &other, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn without_single_use_a_token_is_accepted_again_within_its_ttl() {
    // The default trade-off, as in the reference SDK: within the ttl the same token may be
    // echoed again for the same method, target, arguments, audience and principal. That
    // keeps retries after a lost response working and needs no shared store across
    // instances; the price is that whoever holds a token can replay that exact request
    // until it expires. Servers whose rounds have side effects opt into `single_use`
    // (with a store shared by every instance).
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    for _ in 0..3 {
        assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
    }
}

// ---------------------------------------------------------------------------------------
// Unicode
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn non_bmp_arguments_digest_stably() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let args = json!({"clef": "𝄞🎉", "nested": {"ü": ["ß", "😀"]}});
    assert_eq!(args_digest(Some(&args)), args_digest(Some(&args.clone())));
    let token = h.mint("music", args.clone(), None).await;
    assert_eq!(h.expect_completes("music", args.clone(), &token, None).await, "plain-state-music-r1");
    // The same characters written as escaped surrogate pairs are the same arguments.
    let escaped = r#"{"clef":"\ud834\udd1e\ud83c\udf89","nested":{"\u00fc":["\u00df","\ud83d\ude00"]}}"#;
    let escaped: Value = serde_json::from_str(escaped).expect("valid JSON");
    assert_eq!(args_digest(Some(&escaped)), args_digest(Some(&args)));
    assert_eq!(h.expect_completes("music", escaped, &token, None).await, "plain-state-music-r1");
    h.expect_call_rejected("music", json!({"clef": "𝄞", "nested": {"ü": ["ß", "😀"]}}), json!(token), None).await;
}

#[test]
fn an_unpaired_surrogate_is_a_parse_error_not_a_panic() {
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"t":"\ud800"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","requestState":"\udfff"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud800\u0041"}}"#,
    ] {
        let error = decode_message(body).expect_err("a lone surrogate is not a Rust string");
        assert_eq!(error.code, ErrorCode::PARSE_ERROR);
        assert_eq!(error.code, -32700);
    }
}

// ---------------------------------------------------------------------------------------
// Logs free of secrets
// ---------------------------------------------------------------------------------------

#[derive(Clone, Default)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log lock").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogBuffer {
    type Writer = LogBuffer;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// Seals nothing: every seal fails, as with a KMS outage.
struct FailingCodec;

impl RequestStateCodec for FailingCodec {
    fn seal(&self, _payload: &[u8]) -> Result<String, SealError> {
        Err(SealError("kms unavailable".to_owned()))
    }

    fn unseal(&self, _token: &str) -> Result<Vec<u8>, InvalidRequestState> {
        Err(InvalidRequestState("malformed"))
    }
}

#[tokio::test]
async fn logs_give_reasons_but_never_secrets() {
    let logs = LogBuffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(logs.clone())
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let failing = server(
        "svc",
        RequestStateSecurity::builder().codec(FailingCodec).clock(clock.clone()).build().expect("policy"),
    );
    // tracing caches each callsite's interest when the callsite is first hit. Other tests
    // run on other threads without a subscriber; if one of them hits the rejection
    // callsite first, it is cached as "never" and this test's events vanish. Hit both
    // callsites here, then rebuild the cache from this thread, which has the subscriber.
    h.expect_call_rejected("warm-up", json!({}), json!(0), None).await;
    let _ = failing.call("warm-up", json!({}), None, None).await;
    tracing::callsite::rebuild_interest_cache();
    logs.0.lock().expect("log lock").clear();

    let client_id = "client-7f3a9c";
    let subject = "subject-alice-42";
    let alice = user(client_id, subject);
    let args = json!({"env": "prod"});
    let token = h.mint("deploy", args.clone(), Some(&alice)).await;
    let tampered = rebody(&token, "v1.", |raw| raw[20] ^= 1);
    let unknown = server("svc", keys_policy(&[K2], &clock)).mint("deploy", args.clone(), Some(&alice)).await;

    h.expect_call_rejected("destroy", args.clone(), json!(token), Some(&alice)).await;
    h.expect_call_rejected("deploy", args.clone(), json!(token), Some(&user(client_id, "subject-bob"))).await;
    h.expect_call_rejected("deploy", args.clone(), json!(token), None).await;
    h.expect_call_rejected("deploy", args.clone(), json!(tampered), Some(&alice)).await;
    h.expect_call_rejected("deploy", args.clone(), json!(unknown), Some(&alice)).await;
    h.expect_call_rejected("deploy", args.clone(), json!(42), Some(&alice)).await;
    clock.set(T0 + TTL_MS);
    h.expect_call_rejected("deploy", args.clone(), json!(token), Some(&alice)).await;

    // A seal failure is a sanitized internal error.
    let error = failing.call("deploy", args.clone(), None, Some(&alice)).await.expect_err("the seal fails");
    assert_eq!(error_json(error), json!({"code": -32603, "message": "Internal error"}));

    let text = String::from_utf8(logs.0.lock().expect("log lock").clone()).expect("UTF-8 logs");
    for reason in [
        "requestState rejected",
        "request binding",
        "principal",
        "principal drift",
        "seal",
        "unknown key",
        "non-string requestState",
        "expired",
        "refusing to seal requestState",
        "kms unavailable",
    ] {
        assert!(text.contains(reason), "the log lacks {reason:?}:\n{text}");
    }
    let principal = alice.principal();
    for secret in [
        token.as_str(),
        &token[3..],
        &token[3..40],
        tampered.as_str(),
        unknown.as_str(),
        "plain-state",
        client_id,
        subject,
        principal.as_str(),
    ] {
        assert!(!text.contains(secret), "the log leaks {secret:?}:\n{text}");
    }
}

// ---------------------------------------------------------------------------------------
// The legacy era
// ---------------------------------------------------------------------------------------

async fn legacy_session(h: &Harness) {
    let init =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}});
    let result = h.send("initialize", init, None).await.expect("initialize");
    assert_eq!(result["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn a_legacy_session_gets_the_invalid_result_error_as_before() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    legacy_session(&h).await;
    let error = h
        .send("tools/call", json!({"name": "deploy", "arguments": {}}), None)
        .await
        .expect_err("an InputRequiredResult has no legacy form");
    assert_eq!(error_json(error), json!({"code": -32603, "message": "Handler returned an invalid result"}));
    assert_eq!(h.seen.len(), 1, "the handler ran");
    assert_eq!(h.seen.last_state(), None);
    // The same Session still serves modern requests statelessly, sealed.
    let token = h.mint("deploy", json!({}), None).await;
    assert!(token.starts_with("v1."));
}

#[tokio::test]
async fn a_legacy_session_cannot_smuggle_unsealed_state_to_a_handler() {
    // Handlers only ever see state this server sealed, whatever the era: otherwise a
    // client would `initialize` first and hand any plaintext to a handler that trusts it.
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    legacy_session(&h).await;
    for forged in [json!("plain-state-deploy-r1"), json!(7)] {
        h.expect_rejected("tools/call", json!({"name": "deploy", "arguments": {}, "requestState": forged}), None).await;
    }
    h.expect_rejected("prompts/get", json!({"name": "deploy", "requestState": "plain-state-deploy-r1"}), None).await;
    h.expect_rejected("resources/read", json!({"uri": "file:///a", "requestState": "plain-state-file:///a-r1"}), None)
        .await;
    // A genuine token reaches the handler as plaintext; the handler completes.
    let token = h.mint("deploy", json!({}), None).await;
    let done = h.send("tools/call", json!({"name": "deploy", "arguments": {}, "requestState": token}), None).await;
    assert_eq!(done.expect("completes")["content"][0]["text"], "done: plain-state-deploy-r1");
}

#[tokio::test]
async fn without_security_state_passes_through_verbatim() {
    let seen = Seen::default();
    let record = seen.clone();
    let server = Server::builder("plain", "1.0.0")
        .on_call_tool(move |_ctx, params| {
            let seen = record.clone();
            async move {
                seen.record("tools/call", &params.name, params.request_state.as_deref());
                Ok(match params.request_state {
                    None => CallToolOutcome::from(question().with_state("plain-state-x")),
                    Some(_) => CallToolResult::text("done").into(),
                })
            }
        })
        .without_request_state_security()
        .build();
    let (tx, _rx) = mpsc::channel(8);
    let session = Arc::new(Session::new());
    let call = |state: Option<&str>| {
        let mut params = modern(json!({"name": "x"}));
        if let Some(state) = state {
            params["requestState"] = json!(state);
        }
        decode_request(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}))
    };
    let first = server.handle_request_as(&session, call(None), tx.clone(), None).await;
    assert_eq!(token_of(&first), "plain-state-x");
    let done = server.handle_request_as(&session, call(Some("anything")), tx.clone(), None).await;
    assert_eq!(done.expect("completes")["resultType"], "complete");
    assert_eq!(seen.last_state().as_deref(), Some("anything"));
}

// ---------------------------------------------------------------------------------------
// Property: the codec opens exactly what it sealed
// ---------------------------------------------------------------------------------------

static CODEC: LazyLock<AesGcmCodec> = LazyLock::new(|| AesGcmCodec::new(&[K, K2]).expect("codec"));
const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

#[derive(Debug, Clone)]
enum Edit {
    /// Replace the character at this position with another base64url character.
    Change(Index, usize),
    /// Delete the character at this position.
    Delete(Index),
    /// Append these characters.
    Append(String),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 0..64usize).prop_map(|(at, c)| Edit::Change(at, c)),
        any::<Index>().prop_map(Edit::Delete),
        "[A-Za-z0-9_-]{1,8}".prop_map(Edit::Append),
    ]
}

fn apply(token: &str, edit: &Edit) -> String {
    let mut bytes = token.as_bytes().to_vec();
    match edit {
        Edit::Change(at, c) => {
            let at = at.index(bytes.len());
            let mut replacement = BASE64URL[*c];
            if replacement == bytes[at] {
                replacement = BASE64URL[(c + 1) % 64];
            }
            bytes[at] = replacement;
        }
        Edit::Delete(at) => {
            bytes.remove(at.index(bytes.len()));
        }
        Edit::Append(more) => bytes.extend_from_slice(more.as_bytes()),
    }
    String::from_utf8(bytes).expect("ASCII")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_edit_of_a_sealed_token_is_rejected(payload in proptest::collection::vec(any::<u8>(), 0..512), edit in edit()) {
        let token = CODEC.seal(&payload).expect("seals");
        prop_assert_eq!(CODEC.unseal(&token).expect("the unmodified token opens"), payload);
        let edited = apply(&token, &edit);
        prop_assert_ne!(&edited, &token);
        prop_assert!(CODEC.unseal(&edited).is_err(), "{:?} of {} was accepted", edit, token);
    }
}

fn any_envelope() -> impl Strategy<Value = Envelope> {
    let text = || "\\PC{0,40}";
    (
        (any::<u64>(), any::<u64>(), text(), text(), text()),
        (
            proptest::collection::vec(any::<char>(), 0..300).prop_map(String::from_iter),
            proptest::option::of(text()),
            proptest::option::of(text()),
        ),
    )
        .prop_map(|((iat, exp, m, t, a), (s, aud, p))| Envelope { v: 1, iat, exp, m, t, a, s, aud, p })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn envelopes_round_trip_and_truncations_are_refused(envelope in any_envelope(), cut in any::<Index>(), extra in any::<u8>()) {
        let payload = envelope.to_payload();
        prop_assert_eq!(Envelope::from_payload(&payload).expect("decodes"), envelope);
        prop_assert!(Envelope::from_payload(&payload[..cut.index(payload.len())]).is_err());
        let mut longer = payload.clone();
        longer.push(extra);
        prop_assert!(Envelope::from_payload(&longer).is_err());
    }
}
