//! Request hooks (`ServerBuilder::hooks`): `before` and `after` see each request's method,
//! target, verified principal, duration and outcome; a `before` refusal answers the client
//! and keeps the handler from running.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp::Server;
use mcp::handler::{AuthInfo, BoxFuture, Handler, Layer, Reply, Request};
use mcp::hooks::{OutcomeKind, RequestHooks, RequestInfo, RequestOutcome};
use mcp::protocol::{CallToolOutcome, CallToolResult, ErrorCode, InputRequest, InputRequiredResult};
use serde_json::{Value, json};

use crate::support::{dispatch_as, meta, within};

/// What one hook saw of one request.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    hook: &'static str,
    stage: &'static str,
    method: String,
    target: Option<String>,
    principal: Option<String>,
    /// The request id, protocol version and era.
    request: String,
    kind: Option<OutcomeKind>,
    duration: Option<Duration>,
}

type Log = Arc<Mutex<Vec<Seen>>>;

/// Records every `before` and `after`; refuses `before` for the principal `refuse`.
struct Recorder {
    name: &'static str,
    log: Log,
    refuse: Option<String>,
}

impl Recorder {
    fn push(&self, stage: &'static str, request: &RequestInfo<'_>, outcome: Option<&RequestOutcome>) {
        self.log.lock().unwrap_or_else(PoisonError::into_inner).push(Seen {
            hook: self.name,
            stage,
            method: request.method().to_owned(),
            target: request.target().map(str::to_owned),
            principal: request.principal().map(str::to_owned),
            request: format!("{} {} legacy={}", request.request_id(), request.protocol_version(), request.is_legacy()),
            kind: outcome.map(|o| o.kind().clone()),
            duration: outcome.map(RequestOutcome::duration),
        });
    }
}

impl RequestHooks for Recorder {
    fn before(&self, request: &RequestInfo<'_>) -> Result<(), mcp::Error> {
        self.push("before", request, None);
        match (&self.refuse, request.principal()) {
            (Some(refused), Some(principal)) if refused == principal => {
                Err(mcp::Error::new(-32000, "Rate limit exceeded; try again later"))
            }
            _ => Ok(()),
        }
    }

    fn after(&self, request: &RequestInfo<'_>, outcome: &RequestOutcome) {
        self.push("after", request, Some(outcome));
    }
}

fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn taken(log: &Log) -> Vec<Seen> {
    std::mem::take(&mut *log.lock().unwrap_or_else(PoisonError::into_inner))
}

fn user(subject: &str) -> Option<Arc<AuthInfo>> {
    Some(Arc::new(AuthInfo { client_id: "app".into(), subject: Some(subject.into()), ..AuthInfo::default() }))
}

/// The principal hooks see for [`user`]`(subject)`.
fn principal_of(subject: &str) -> Option<String> {
    user(subject).map(|auth| auth.principal())
}

/// The JSON-RPC error code of an `after`, if its outcome is an error.
fn error_code(seen: &Seen) -> Option<i32> {
    match seen.kind {
        Some(OutcomeKind::Error { code, .. }) => Some(code),
        _ => None,
    }
}

/// A low-level server whose `tools/call` answers as the tool name says, counting runs.
fn server(runs: Arc<AtomicUsize>, hooks: impl RequestHooks) -> Server {
    Server::builder("hooked", "1.0.0")
        .on_list_tools(|_ctx, _params| async { Ok(mcp::protocol::ListToolsResult::new(Vec::new())) })
        .on_call_tool(move |_ctx, params| {
            runs.fetch_add(1, Ordering::SeqCst);
            async move {
                let outcome: CallToolOutcome = match params.name.as_str() {
                    "fails" => CallToolResult::error("the disk is full").into(),
                    "asks" => InputRequiredResult::ask("zone", roots()).and_ask("size", roots()).into(),
                    "errs" => return Err(mcp::Error::new(-32042, "no such cluster")),
                    "slow" => {
                        tokio::time::sleep(Duration::from_millis(60)).await;
                        CallToolResult::text("slept").into()
                    }
                    "hangs" => std::future::pending().await,
                    "panics" => panic!("a buggy tool"),
                    _ => CallToolResult::text("done").into(),
                };
                Ok(outcome)
            }
        })
        .hooks(hooks)
        .build()
}

fn roots() -> InputRequest {
    InputRequest::ListRoots(None)
}

fn call(name: &str) -> Value {
    json!({"_meta": meta(&json!({"roots": {}})), "name": name, "arguments": {"secret": "s3cr3t"}})
}

/// The `after` a single recorder saw for one call, checking its `before` came first.
async fn outcome_of(server: &Server, log: &Log, name: &str) -> (Seen, Result<Value, mcp::Error>) {
    let answer = within(name, dispatch_as(server, "tools/call", call(name), user("alice"))).await;
    let seen = taken(log);
    assert_eq!(seen.len(), 2, "one before and one after: {seen:?}");
    let (before, after) = (&seen[0], &seen[1]);
    assert_eq!((before.stage, after.stage), ("before", "after"));
    for s in [before, after] {
        assert_eq!(s.method, "tools/call");
        assert_eq!(s.target.as_deref(), Some(name));
        assert_eq!(s.principal, principal_of("alice"));
        assert_eq!(s.request, "1 2026-07-28 legacy=false");
    }
    (after.clone(), answer)
}

#[tokio::test]
async fn after_sees_each_kind_of_outcome() {
    let (log, runs) = (log(), Arc::new(AtomicUsize::new(0)));
    let server = server(Arc::clone(&runs), Recorder { name: "r", log: Arc::clone(&log), refuse: None });

    let (seen, answer) = outcome_of(&server, &log, "deploy").await;
    assert_eq!(seen.kind, Some(OutcomeKind::Complete));
    assert_eq!(answer.expect("complete")["content"][0]["text"], "done");

    let (seen, answer) = outcome_of(&server, &log, "fails").await;
    assert_eq!(seen.kind, Some(OutcomeKind::ToolError));
    assert_eq!(answer.expect("a tool error is a result")["isError"], true);

    let (seen, answer) = outcome_of(&server, &log, "asks").await;
    let Some(OutcomeKind::InputRequired { keys, .. }) = &seen.kind else { panic!("input required: {seen:?}") };
    assert_eq!(keys, &["size", "zone"]);
    assert_eq!(answer.expect("input required")["resultType"], "input_required");

    let (seen, answer) = outcome_of(&server, &log, "errs").await;
    assert_eq!(error_code(&seen), Some(-32042));
    assert_eq!(answer.expect_err("an error").code, -32042);
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn after_sees_how_long_the_request_took() {
    let log = log();
    let server = server(Arc::default(), Recorder { name: "r", log: Arc::clone(&log), refuse: None });
    let (seen, answer) = outcome_of(&server, &log, "slow").await;
    answer.expect("slow but fine");
    let duration = seen.duration.expect("after has a duration");
    assert!(duration >= Duration::from_millis(60), "{duration:?}");
    assert!(duration < Duration::from_secs(5), "{duration:?}");
}

#[tokio::test]
async fn a_refusal_in_before_reaches_the_client_and_the_tool_does_not_run() {
    let (log, runs) = (log(), Arc::new(AtomicUsize::new(0)));
    let server =
        server(Arc::clone(&runs), Recorder { name: "r", log: Arc::clone(&log), refuse: principal_of("mallory") });
    let refused = within("refused", dispatch_as(&server, "tools/call", call("deploy"), user("mallory"))).await;
    let error = refused.expect_err("refused by the hook");
    assert_eq!((error.code, error.message.as_str()), (-32000, "Rate limit exceeded; try again later"));
    assert_eq!(runs.load(Ordering::SeqCst), 0, "the handler must not run");
    let seen = taken(&log);
    assert_eq!(seen.iter().map(|s| s.stage).collect::<Vec<_>>(), ["before", "after"]);
    assert_eq!(error_code(&seen[1]), Some(-32000));
    assert_eq!(seen[1].principal, principal_of("mallory"));

    // Another principal is not refused.
    within("allowed", dispatch_as(&server, "tools/call", call("deploy"), user("alice"))).await.expect("allowed");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn several_hooks_run_in_order_and_every_after_sees_a_refusal() {
    let log = log();
    let server = Server::builder("hooked", "1.0.0")
        .on_call_tool(|_ctx, _params| async { Ok(CallToolOutcome::from(CallToolResult::text("done"))) })
        .hooks(Recorder { name: "limit", log: Arc::clone(&log), refuse: principal_of("mallory") })
        .hooks(Recorder { name: "audit", log: Arc::clone(&log), refuse: None })
        .build();
    within("allowed", dispatch_as(&server, "tools/call", call("deploy"), user("alice"))).await.expect("allowed");
    let order = |seen: Vec<Seen>| seen.into_iter().map(|s| format!("{}:{}", s.hook, s.stage)).collect::<Vec<_>>();
    assert_eq!(order(taken(&log)), ["limit:before", "audit:before", "audit:after", "limit:after"]);

    let refused = within("refused", dispatch_as(&server, "tools/call", call("deploy"), user("mallory"))).await;
    assert_eq!(refused.expect_err("refused").code, -32000);
    let seen = taken(&log);
    assert_eq!(order(seen.clone()), ["limit:before", "audit:after", "limit:after"]);
    assert!(seen[1..].iter().all(|s| error_code(s) == Some(-32000)), "{seen:?}");
}

#[tokio::test]
async fn unauthenticated_requests_have_no_principal_and_other_methods_no_target() {
    let log = log();
    let server = server(Arc::default(), Recorder { name: "r", log: Arc::clone(&log), refuse: None });
    let list = json!({"_meta": meta(&json!({}))});
    within("list", dispatch_as(&server, "tools/list", list, None)).await.expect("tools/list");
    let seen = taken(&log);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        (seen[1].method.as_str(), seen[1].target.as_deref(), seen[1].principal.as_deref()),
        ("tools/list", None, None)
    );
    assert_eq!(seen[1].kind, Some(OutcomeKind::Complete));
}

/// Says hello.
#[mcp::tool]
fn hello(name: String) -> String {
    format!("Hello, {name}")
}

#[tokio::test]
async fn hooks_see_the_macro_items_lists_and_the_sealing_layers_refusals() {
    let log = log();
    let server = Server::builder("items", "1.0.0")
        .tool::<hello>()
        .hooks(Recorder { name: "r", log: Arc::clone(&log), refuse: None })
        .build();
    let list = within("list", dispatch_as(&server, "tools/list", json!({"_meta": meta(&json!({}))}), None)).await;
    assert_eq!(list.expect("tools/list")["tools"][0]["name"], "hello");
    let seen = taken(&log);
    assert_eq!(
        seen.iter().map(|s| (s.stage, s.method.as_str())).collect::<Vec<_>>(),
        [("before", "tools/list"), ("after", "tools/list")]
    );

    // A forged requestState is refused by the sealing layer, inside the hooks.
    let mut forged = call("hello");
    forged["arguments"] = json!({"name": "Ada"});
    forged["requestState"] = json!("forged");
    let refused = within("forged", dispatch_as(&server, "tools/call", forged, None)).await;
    assert_eq!(refused.expect_err("forged state").code, ErrorCode::INVALID_PARAMS);
    let seen = taken(&log);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[1].target.as_deref(), Some("hello"));
    assert_eq!(error_code(&seen[1]), Some(ErrorCode::INVALID_PARAMS));
}

#[tokio::test]
async fn a_request_dropped_unanswered_is_reported_cancelled() {
    let log = log();
    let server = server(Arc::default(), Recorder { name: "r", log: Arc::clone(&log), refuse: None });
    let cut = tokio::time::timeout(Duration::from_millis(50), dispatch_as(&server, "tools/call", call("hangs"), None));
    assert!(cut.await.is_err(), "the tool hangs");
    let seen = taken(&log);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[1].kind, Some(OutcomeKind::Cancelled));
}

#[tokio::test]
async fn a_panicking_handler_is_reported_as_an_internal_error() {
    let log = log();
    let server = server(Arc::default(), Recorder { name: "r", log: Arc::clone(&log), refuse: None });
    let dispatched = tokio::spawn(async move { dispatch_as(&server, "tools/call", call("panics"), None).await });
    let joined = within("panicking tool", dispatched).await;
    assert!(joined.is_err_and(|e| e.is_panic()), "the panic goes on to the transport");
    let seen = taken(&log);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(error_code(&seen[1]), Some(ErrorCode::INTERNAL_ERROR));
}

/// A layer whose `call` panics before it returns a future.
struct PanicsInCall;

impl<H: Handler> Layer<H> for PanicsInCall {
    type Handler = PanickingCall;

    fn layer(&self, _inner: H) -> PanickingCall {
        PanickingCall
    }
}

struct PanickingCall;

impl Handler for PanickingCall {
    fn call(&self, _request: Request) -> BoxFuture<Result<Reply, mcp::Error>> {
        panic!("a buggy layer")
    }
}

#[tokio::test]
async fn a_layer_panicking_in_call_is_reported_as_an_internal_error() {
    let (log, runs) = (log(), Arc::new(AtomicUsize::new(0)));
    let server = Server::builder("hooked", "1.0.0")
        .on_call_tool({
            let runs = Arc::clone(&runs);
            move |_ctx, _params| {
                runs.fetch_add(1, Ordering::SeqCst);
                async { Ok(CallToolOutcome::from(CallToolResult::text("done"))) }
            }
        })
        .layer(PanicsInCall)
        .hooks(Recorder { name: "r", log: Arc::clone(&log), refuse: None })
        .build();

    // The panic goes on past the hooks, where a transport catches it.
    let dispatched = tokio::spawn({
        let server = server.clone();
        async move { dispatch_as(&server, "tools/call", call("deploy"), None).await }
    });
    let joined = within("panicking layer", dispatched).await;
    assert!(joined.is_err_and(|e| e.is_panic()), "the panic goes on to the transport");
    let seen = taken(&log);
    assert_eq!(seen.iter().map(|s| s.stage).collect::<Vec<_>>(), ["before", "after"]);
    assert_eq!(error_code(&seen[1]), Some(ErrorCode::INTERNAL_ERROR));
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    // Through a transport the client gets the -32603 `after` saw.
    let client = mcp::client::in_process(&server);
    let answer = within("in process", client.request("tools/call", call("deploy"))).await;
    assert_eq!(answer.expect_err("the layer panicked").code, ErrorCode::INTERNAL_ERROR);
    let seen = taken(&log);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(error_code(&seen[1]), Some(ErrorCode::INTERNAL_ERROR));
}

/// Records each request's principal.
struct Principals(Arc<Mutex<Vec<Option<String>>>>);

impl RequestHooks for Principals {
    fn before(&self, request: &RequestInfo<'_>) -> Result<(), mcp::Error> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(request.principal().map(str::to_owned));
        Ok(())
    }
}

#[tokio::test]
async fn the_principal_is_client_issuer_and_subject_together() {
    let principals = Arc::new(Mutex::new(Vec::new()));
    let server = server(Arc::default(), Principals(Arc::clone(&principals)));
    let from = |issuer: &str| AuthInfo {
        client_id: "app".into(),
        issuer: Some(issuer.into()),
        subject: Some("alice".into()),
        ..AuthInfo::default()
    };
    // A client-credentials token: a client id and no subject.
    let service = AuthInfo { client_id: "nightly-backup".into(), ..AuthInfo::default() };
    let callers = [Some(from("https://a.example")), Some(from("https://b.example")), Some(service), None];
    for auth in &callers {
        let answer = dispatch_as(&server, "tools/call", call("deploy"), auth.clone().map(Arc::new));
        within("call", answer).await.expect("answered");
    }
    let seen = std::mem::take(&mut *principals.lock().unwrap_or_else(PoisonError::into_inner));
    let expected: Vec<Option<String>> = callers.iter().map(|auth| auth.as_ref().map(AuthInfo::principal)).collect();
    assert_eq!(seen, expected, "the principal is the one sealing binds to");
    let [a, b, service, anonymous] = &seen[..] else { panic!("four requests: {seen:?}") };
    assert_ne!(a, b, "the same subject from two issuers");
    assert!(service.is_some(), "a client-credentials token has a principal");
    assert_eq!(anonymous, &None);
}

/// Panics in `before` for tool calls, and always in `after`.
struct Panics;

impl RequestHooks for Panics {
    fn before(&self, request: &RequestInfo<'_>) -> Result<(), mcp::Error> {
        assert_ne!(request.method(), "tools/call", "a buggy hook");
        Ok(())
    }

    fn after(&self, _request: &RequestInfo<'_>, _outcome: &RequestOutcome) {
        panic!("a buggy hook");
    }
}

#[tokio::test]
async fn a_panicking_hook_fails_only_its_request() {
    let log = log();
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("hooked", "1.0.0")
        .on_call_tool({
            let runs = Arc::clone(&runs);
            move |_ctx, _params| {
                runs.fetch_add(1, Ordering::SeqCst);
                async { Ok(CallToolOutcome::from(CallToolResult::text("done"))) }
            }
        })
        .on_list_tools(|_ctx, _params| async { Ok(mcp::protocol::ListToolsResult::new(Vec::new())) })
        .hooks(Recorder { name: "r", log: Arc::clone(&log), refuse: None })
        .hooks(Panics)
        .build();
    let refused = within("call", dispatch_as(&server, "tools/call", call("deploy"), None)).await;
    assert_eq!(refused.expect_err("before panicked").code, ErrorCode::INTERNAL_ERROR);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let seen = taken(&log);
    assert_eq!(seen.last().and_then(error_code), Some(ErrorCode::INTERNAL_ERROR));

    // `after` panics: the answer is unaffected and the other hook's `after` still runs.
    let list = within("list", dispatch_as(&server, "tools/list", json!({"_meta": meta(&json!({}))}), None)).await;
    assert_eq!(list.expect("listed")["tools"], json!([]));
    assert_eq!(taken(&log).last().and_then(|s| s.kind.clone()), Some(OutcomeKind::Complete));
}
