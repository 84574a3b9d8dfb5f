//! The `Client` against this crate's own servers (in process and over Streamable HTTP on
//! 127.0.0.1), and against scripted fake peers where the exact wire matters: era
//! negotiation, declared capabilities, the retry loop in both eras, the manual loop and
//! resuming it elsewhere, timeouts and cancellation, notifications, the HTTP headers.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::{Asker, CallOptions, Client, ClientBuilder, ClientError, Mode, RawClient};
use mcp::protocol::{
    CallToolOutcome, CallToolParams, CallToolResult, CreateMessageParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationSchema, ErrorObject, GetPromptOutcome, GetPromptResult, InputRequest, InputRequiredResult,
    InputResponse, InputResponses, JsonObject, ListRootsResult, ListToolsResult, LoggingLevel, LoggingMessageParams,
    Outcome, PrimitiveSchema, ProgressParams, PromptMessage, ReadResourceOutcome, ReadResourceResult, RequestId,
    ResourceContents, StringSchema, Tool,
};
use mcp::resolve::{Elicit, ListRoots, Sample};
use mcp::serve::http::HttpConfig;
use mcp::{Error, RequestContext, Resolve, Server};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// How long any step may take before the test counts as hung.
const HANG: Duration = Duration::from_secs(10);

async fn within<F: Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(HANG, future).await.unwrap_or_else(|_| panic!("{what} hung"))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("expected an object, got {other}"),
    }
}

fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("")
}

// ---------------------------------------------------------------------------------------
// Connecting
// ---------------------------------------------------------------------------------------

/// How the client reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    InProcess,
    Http,
}

const BOTH_WAYS: [Via; 2] = [Via::InProcess, Via::Http];
const BOTH_ERAS: [Mode; 2] = [Mode::Auto, Mode::Legacy];

fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

async fn connect(via: Via, builder: ClientBuilder, server: &Server) -> Client {
    let client = match via {
        Via::InProcess => within("connecting", builder.connect_in_process(server)).await,
        Via::Http => {
            let addr = mcp_testkit::http::serve(server, HttpConfig::default()).await;
            within("connecting", builder.connect_http(&url(addr))).await
        }
    };
    client.unwrap_or_else(|e| panic!("connecting {via:?}: {e}"))
}

// ---------------------------------------------------------------------------------------
// Callbacks that record what they were asked
// ---------------------------------------------------------------------------------------

/// Every question a callback answered: who asked, and the message or method.
#[derive(Clone, Default)]
struct Asked(Arc<Mutex<Vec<(Asker, String)>>>);

impl Asked {
    fn push(&self, asker: Asker, what: impl Into<String>) {
        lock(&self.0).push((asker, what.into()));
    }

    fn all(&self) -> Vec<(Asker, String)> {
        lock(&self.0).clone()
    }

    /// Accept every elicitation with `{field: value}` for each field the form asks for.
    fn elicitation(&self, value: &str) -> impl Fn(Asker, ElicitRequestParams) -> AcceptFuture + use<> {
        let asked = self.clone();
        let value = value.to_owned();
        move |asker, params| {
            asked.push(asker, params.message());
            let content = match &params {
                ElicitRequestParams::Form(form) => {
                    form.requested_schema.properties.keys().map(|k| (k.clone(), Value::String(value.clone()))).collect()
                }
                ElicitRequestParams::Url(_) => JsonObject::new(),
            };
            Box::pin(async move { Ok(ElicitResult::accept(content)) })
        }
    }

    fn sampling(&self, reply: &str) -> impl Fn(Asker, CreateMessageParams) -> SampleFuture + use<> {
        let asked = self.clone();
        let reply = reply.to_owned();
        move |asker, _params| {
            asked.push(asker, "sampling/createMessage");
            let result = serde_json::from_value(json!({
                "role": "assistant",
                "content": {"type": "text", "text": reply},
                "model": "test-model",
                "stopReason": "endTurn",
            }));
            Box::pin(
                async move { result.map_err(|e| ErrorObject { code: -32603, message: e.to_string(), data: None }) },
            )
        }
    }

    fn roots(&self, uris: &[&str]) -> impl Fn(Asker) -> RootsFuture + use<> {
        let asked = self.clone();
        let roots = json!({"roots": uris.iter().map(|u| json!({"uri": u})).collect::<Vec<_>>()});
        move |asker| {
            asked.push(asker, "roots/list");
            let result = serde_json::from_value(roots.clone());
            Box::pin(
                async move { result.map_err(|e| ErrorObject { code: -32603, message: e.to_string(), data: None }) },
            )
        }
    }
}

type AcceptFuture = std::pin::Pin<Box<dyn Future<Output = Result<ElicitResult, ErrorObject>> + Send>>;
type SampleFuture = std::pin::Pin<Box<dyn Future<Output = Result<CreateMessageResult, ErrorObject>> + Send>>;
type RootsFuture = std::pin::Pin<Box<dyn Future<Output = Result<ListRootsResult, ErrorObject>> + Send>>;

/// Whether the question came the era's way: an input request under `key` (2026-07-28) or a
/// server-to-client request (2025-11-25).
fn asked_the_eras_way(asker: &Asker, legacy: bool, key: &str) -> bool {
    match asker {
        Asker::InputRequest(k) => !legacy && k == key,
        Asker::ServerRequest(_) => legacy,
    }
}

// ---------------------------------------------------------------------------------------
// The probe server: low-level handlers that record every call
// ---------------------------------------------------------------------------------------

/// What the `hang` tool went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hang {
    Started,
    /// The handler future was dropped before it finished: the call was cancelled.
    Dropped,
}

struct Probe {
    /// `(JSON-RPC id, params)` of every `tools/call`, in arrival order.
    calls: Mutex<Vec<(RequestId, Value)>>,
    hang: mpsc::UnboundedSender<Hang>,
    /// How many `hang` handlers were dropped before finishing.
    dropped: tokio::sync::watch::Sender<usize>,
}

impl Probe {
    fn calls(&self) -> Vec<(RequestId, Value)> {
        lock(&self.calls).clone()
    }
}

struct DropSignal(Arc<Probe>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.dropped.send_modify(|n| *n += 1);
        let _ = self.0.hang.send(Hang::Dropped);
    }
}

fn form(message: &str, field: &str) -> ElicitRequestParams {
    let schema = ElicitationSchema {
        properties: [(field.to_owned(), PrimitiveSchema::String(StringSchema::default()))].into(),
        required: Some(vec![field.to_owned()]),
        ..Default::default()
    };
    ElicitRequestParams::form(message, schema)
}

fn elicited(responses: Option<&InputResponses>, key: &str, field: &str) -> Option<String> {
    let answer = responses?.get(key)?.as_elicit()?;
    answer.content.as_ref()?.get(field)?.as_str().map(str::to_owned)
}

fn probe_tools() -> Vec<Tool> {
    let empty = || json!({"type": "object"});
    vec![
        Tool::new("caps", "Echo the client's capabilities.", empty()),
        Tool::new("ask", "Ask for a name.", json!({"type": "object", "properties": {"greeting": {"type": "string"}}})),
        Tool::new("twice", "Ask two questions, one round after the other.", empty()),
        Tool::new("sample", "Ask the client's model.", empty()),
        Tool::new("roots", "Ask for the client's roots.", empty()),
        Tool::new("poll", "Answer with state only, twice, then finish.", empty()),
        Tool::new("loop", "Ask forever.", empty()),
        Tool::new("hang", "Never finish.", empty()),
        Tool::new("hang_dropped", "Wait for a cancelled `hang`, then count them.", empty()),
        Tool::new("chatty", "Report progress and log.", empty()),
        Tool::new(
            "region",
            "Echo the header-mirrored arguments.",
            json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "count": {"type": "integer", "x-mcp-header": "Count"},
                "dry_run": {"type": "boolean", "x-mcp-header": "Dry-Run"},
                "note": {"type": "string"},
            }}),
        ),
    ]
}

async fn probe_call(probe: Arc<Probe>, ctx: RequestContext, params: CallToolParams) -> Result<CallToolOutcome, Error> {
    let recorded = serde_json::to_value(&params).unwrap_or_default();
    lock(&probe.calls).push((ctx.request_id().clone(), recorded));
    let responses = params.input_responses.as_ref();
    let state = params.request_state.as_deref();
    let text = |t: String| Ok(CallToolResult::text(t).into());
    match params.name.as_str() {
        "caps" => Ok(CallToolResult {
            structured_content: Some(json!({
                "capabilities": ctx.client_capabilities(),
                "legacy": ctx.is_legacy(),
                "version": ctx.protocol_version(),
            })),
            ..CallToolResult::text("capabilities")
        }
        .into()),
        "ask" if ctx.is_legacy() => {
            let answer = ctx.elicit(form("What is your name?", "name")).await?;
            let name = answer.content.as_ref().and_then(|c| c.get("name")).and_then(Value::as_str);
            text(format!("Hello, {}!", name.unwrap_or("stranger")))
        }
        "ask" => match elicited(responses, "name", "name") {
            Some(name) => text(format!("Hello, {name}! (state {})", state.unwrap_or("none"))),
            None => {
                let ask = InputRequiredResult::ask("name", InputRequest::Elicit(form("What is your name?", "name")));
                Ok(ask.with_state("ask-state").into())
            }
        },
        "twice" if ctx.is_legacy() => {
            let first = ctx.elicit(form("First?", "first")).await?;
            let second = ctx.elicit(form("Second?", "second")).await?;
            let get = |r: &ElicitResult, f: &str| {
                r.content.as_ref().and_then(|c| c.get(f)).and_then(Value::as_str).unwrap_or_default().to_owned()
            };
            text(format!("first={} second={}", get(&first, "first"), get(&second, "second")))
        }
        "twice" => match (state, elicited(responses, "first", "first"), elicited(responses, "second", "second")) {
            (None, _, _) => Ok(InputRequiredResult::ask("first", InputRequest::Elicit(form("First?", "first")))
                .with_state("twice-1")
                .into()),
            (Some("twice-1"), Some(first), None) => {
                Ok(InputRequiredResult::ask("second", InputRequest::Elicit(form("Second?", "second")))
                    .with_state(format!("twice-2:{first}"))
                    .into())
            }
            (Some(s), None, Some(second)) if s.starts_with("twice-2:") => {
                text(format!("first={} second={second}", &s["twice-2:".len()..]))
            }
            other => Ok(CallToolResult::error(format!("unexpected round: {other:?}")).into()),
        },
        "sample" => {
            let request = InputRequest::Sample(CreateMessageParams::user_text("Name a colour.", 10));
            let answer = if ctx.is_legacy() {
                ctx.request_input(request).await?
            } else {
                match responses.and_then(|r| r.get("model")) {
                    Some(answer) => answer.clone(),
                    None => return Ok(InputRequiredResult::ask("model", request).into()),
                }
            };
            match answer.as_sample() {
                Some(r) => text(format!("model {} said {} block(s)", r.model, r.content.as_slice().len())),
                None => Ok(CallToolResult::error("not a sampling answer").into()),
            }
        }
        "roots" => {
            let roots = if ctx.is_legacy() {
                ctx.list_roots().await?
            } else {
                match responses.and_then(|r| r.get("roots")).and_then(InputResponse::as_roots) {
                    Some(roots) => roots.clone(),
                    None => {
                        return Ok(InputRequiredResult::ask("roots", InputRequest::ListRoots(None)).into());
                    }
                }
            };
            let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
            text(format!("roots: {}", uris.join(", ")))
        }
        "poll" => match state {
            None => Ok(InputRequiredResult::state_only("poll-1").into()),
            Some("poll-1") => Ok(InputRequiredResult::state_only("poll-2").into()),
            Some("poll-2") => text("polled".to_owned()),
            Some(other) => Ok(CallToolResult::error(format!("unexpected state {other}")).into()),
        },
        "loop" => Ok(InputRequiredResult::ask("again", InputRequest::Elicit(form("Again?", "again")))
            .with_state("loop")
            .into()),
        "hang" => {
            let _signal = DropSignal(Arc::clone(&probe));
            let _ = probe.hang.send(Hang::Started);
            std::future::pending::<()>().await;
            text("unreachable".to_owned())
        }
        "hang_dropped" => {
            // Waits (a little) for a cancelled `hang` handler, for clients in another process.
            let mut dropped = probe.dropped.subscribe();
            let waited = tokio::time::timeout(HANG, dropped.wait_for(|n| *n > 0)).await;
            let count = waited.ok().and_then(Result::ok).map(|n| *n).unwrap_or_default();
            text(format!("{count} dropped"))
        }
        "chatty" => {
            for step in 1..=3 {
                ctx.progress(f64::from(step), Some(3.0), Some(format!("step {step}"))).await;
            }
            ctx.log(LoggingLevel::Debug, Some("probe"), json!("too detailed")).await;
            ctx.log(LoggingLevel::Warning, Some("probe"), json!({"note": "careful"})).await;
            text("chatted".to_owned())
        }
        "region" => {
            let args = params.arguments.clone().unwrap_or_default();
            let get = |k: &str| args.get(k).cloned().unwrap_or(Value::Null);
            text(format!("region={} count={} dry_run={}", get("region"), get("count"), get("dry_run")))
        }
        other => Err(Error::unknown_tool(other)),
    }
}

fn probe_server() -> (Server, Arc<Probe>, mpsc::UnboundedReceiver<Hang>) {
    let (hang, hang_rx) = mpsc::unbounded_channel();
    let probe = Arc::new(Probe { calls: Mutex::default(), hang, dropped: tokio::sync::watch::Sender::new(0) });
    let handler_probe = Arc::clone(&probe);
    let server = Server::builder("probe", "1.2.3")
        .on_list_tools(|_ctx, _params| async { Ok(ListToolsResult::new(probe_tools())) })
        .on_call_tool(move |ctx, params| probe_call(Arc::clone(&handler_probe), ctx, params))
        .on_get_prompt(|ctx, params| async move {
            let audience = if ctx.is_legacy() {
                let answer = ctx.elicit(form("Who is it for?", "audience")).await?;
                answer.content.and_then(|c| c.get("audience").and_then(Value::as_str).map(str::to_owned))
            } else {
                elicited(params.input_responses.as_ref(), "audience", "audience")
            };
            Ok(match audience {
                Some(audience) => GetPromptOutcome::from(GetPromptResult::new(vec![PromptMessage::user(format!(
                    "Write a {} for {audience}.",
                    params.name
                ))])),
                None => InputRequiredResult::ask("audience", InputRequest::Elicit(form("Who is it for?", "audience")))
                    .with_state("prompt-state")
                    .into(),
            })
        })
        .on_read_resource(|ctx, params| async move {
            let reveal = if ctx.is_legacy() {
                let answer = ctx.elicit(form("Reveal it?", "ok")).await?;
                answer.content.and_then(|c| c.get("ok").and_then(Value::as_str).map(str::to_owned))
            } else {
                elicited(params.input_responses.as_ref(), "reveal", "ok")
            };
            Ok(match reveal {
                Some(ok) => ReadResourceOutcome::from(ReadResourceResult::new(vec![ResourceContents::text(
                    params.uri.clone(),
                    format!("secret of {} (ok={ok})", params.uri),
                )])),
                None => InputRequiredResult::ask("reveal", InputRequest::Elicit(form("Reveal it?", "ok"))).into(),
            })
        })
        .build();
    (server, probe, hang_rx)
}

/// The params of each recorded call, as JSON.
fn params_of(calls: &[(RequestId, Value)]) -> Vec<&Value> {
    calls.iter().map(|(_, p)| p).collect()
}

// ---------------------------------------------------------------------------------------
// The macro server: tools whose questions come from resolvers
// ---------------------------------------------------------------------------------------

/// Where to put something.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Region {
    /// A cloud region.
    region: String,
}

/// Asks where the database goes.
#[mcp::resolver]
fn ask_region() -> Elicit<Region> {
    Elicit::new("Which region should the database live in?")
}

/// Provision a database, asking for its region.
#[mcp::tool]
fn provision(
    /// The database's name.
    name: String,
    region: Resolve<ask_region>,
) -> String {
    format!("Provisioned '{name}' in {}.", region.region)
}

/// Asks the client's model.
#[mcp::resolver]
fn ask_model(topic: &str) -> Sample {
    Sample::user(format!("Suggest a name for {topic}."), 20)
}

/// Suggest a name, asking the client's model.
#[mcp::tool]
fn suggest(
    /// The topic.
    topic: String,
    suggestion: Resolve<ask_model>,
) -> String {
    let _ = topic;
    format!("Suggested by {}", suggestion.model)
}

/// Asks for the client's roots.
#[mcp::resolver]
fn client_roots() -> ListRoots {
    ListRoots::new()
}

/// Count the client's roots.
#[mcp::tool]
fn count_roots(roots: Resolve<client_roots>) -> String {
    format!("{} root(s)", roots.roots.len())
}

fn macro_server() -> Server {
    Server::builder("resolvers", "1.0.0").tool::<provision>().tool::<suggest>().tool::<count_roots>().build()
}

// ---------------------------------------------------------------------------------------
// Negotiation and capabilities
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn auto_mode_negotiates_2026_07_28() {
    let (server, _probe, _hang) = probe_server();
    for via in BOTH_WAYS {
        let client = connect(via, Client::builder(), &server).await;
        assert_eq!(client.protocol_version(), "2026-07-28", "{via:?}");
        assert!(!client.is_legacy(), "{via:?}");
        let info = client.server_info().unwrap_or_else(|| panic!("{via:?}: server/discover names the server"));
        assert_eq!((info.name.as_str(), info.version.as_str()), ("probe", "1.2.3"));
        assert!(client.server_capabilities().tools.is_some(), "{via:?}");
        let result = within("caps", client.call_tool("caps", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
        let echoed = result.structured_content.unwrap_or_default();
        assert_eq!((echoed["legacy"].clone(), echoed["version"].clone()), (json!(false), json!("2026-07-28")));
    }
}

#[tokio::test]
async fn legacy_mode_negotiates_2025_11_25() {
    let (server, _probe, _hang) = probe_server();
    for via in BOTH_WAYS {
        let client = connect(via, Client::builder().mode(Mode::Legacy), &server).await;
        assert_eq!(client.protocol_version(), "2025-11-25", "{via:?}");
        assert!(client.is_legacy(), "{via:?}");
        assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("probe"), "{via:?}");
        let result = within("caps", client.call_tool("caps", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
        let echoed = result.structured_content.unwrap_or_default();
        assert_eq!((echoed["legacy"].clone(), echoed["version"].clone()), (json!(true), json!("2025-11-25")));
    }
}

#[tokio::test]
async fn an_explicit_modern_mode_skips_the_probe_and_rejects_other_versions() {
    let (server, _probe, _hang) = probe_server();
    let client = connect(Via::InProcess, Client::builder().mode(Mode::Modern("2026-07-28".into())), &server).await;
    assert_eq!(client.protocol_version(), "2026-07-28");
    within("ping", client.ping()).await.unwrap_or_else(|e| panic!("{e}"));
    for version in ["2025-11-25", "2027-01-01", ""] {
        let refused = Client::builder().mode(Mode::Modern(version.into())).connect_in_process(&server).await;
        assert!(matches!(refused, Err(ClientError::Unsupported(_))), "{version:?}: {refused:?}");
    }
}

async fn echoed_capabilities(via: Via, mode: Mode, builder: ClientBuilder, server: &Server) -> Value {
    let client = connect(via, builder.mode(mode.clone()), server).await;
    let result = within("caps", client.call_tool("caps", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
    let echoed = result.structured_content.unwrap_or_default();
    assert_eq!(echoed["legacy"], json!(mode == Mode::Legacy), "{via:?} {mode:?}");
    echoed["capabilities"].clone()
}

#[tokio::test]
async fn capabilities_are_declared_from_the_callbacks_present() {
    let (server, _probe, _hang) = probe_server();
    let asked = Asked::default();
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let none = echoed_capabilities(via, mode.clone(), Client::builder(), &server).await;
            assert_eq!(none, json!({}), "{via:?} {mode:?}: no callbacks, no capabilities");

            let logging_only = Client::builder().on_progress(|_| {}).on_log(LoggingLevel::Info, |_| {});
            let logging_only = echoed_capabilities(via, mode.clone(), logging_only, &server).await;
            assert_eq!(logging_only, json!({}), "{via:?} {mode:?}: notification callbacks declare nothing");

            let elicit = Client::builder().elicitation(asked.elicitation("x"));
            let elicit = echoed_capabilities(via, mode.clone(), elicit, &server).await;
            assert_eq!(elicit, json!({"elicitation": {"form": {}}}), "{via:?} {mode:?}");

            let all = Client::builder()
                .elicitation(asked.elicitation("x"))
                .sampling(asked.sampling("x"))
                .roots(asked.roots(&[]));
            let all = echoed_capabilities(via, mode.clone(), all, &server).await;
            assert_eq!(all["elicitation"], json!({"form": {}}), "{via:?} {mode:?}");
            assert_eq!(all["sampling"], json!({}), "{via:?} {mode:?}: no tools unless asked");
            assert!(all["roots"].is_object(), "{via:?} {mode:?}: {all}");

            let tools = Client::builder().sampling(asked.sampling("x")).sampling_tools(true);
            let tools = echoed_capabilities(via, mode.clone(), tools, &server).await;
            assert_eq!(tools, json!({"sampling": {"tools": {}}}), "{via:?} {mode:?}");
        }
    }
    assert!(asked.all().is_empty(), "declaring capabilities asks nothing");
}

// ---------------------------------------------------------------------------------------
// The auto loop
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn each_retry_is_a_new_request_with_the_same_name_and_arguments() {
    for via in BOTH_WAYS {
        let (server, probe, _hang) = probe_server();
        let asked = Asked::default();
        let client = connect(via, Client::builder().elicitation(asked.elicitation("yes")), &server).await;
        let arguments = json!({"greeting": "hi", "nested": {"list": [1, 2.5, "three"]}});
        let result = within("twice", client.call_tool("twice", arguments.clone())).await;
        let result = result.unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(text_of(&result), "first=yes second=yes", "{via:?}");
        assert_eq!(result.is_error, None);

        let calls = probe.calls();
        assert_eq!(calls.len(), 3, "{via:?}: the first request and two retries");
        let ids: Vec<&RequestId> = calls.iter().map(|(id, _)| id).collect();
        assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2], "{via:?}: ids must differ: {ids:?}");
        for params in params_of(&calls) {
            assert_eq!(params["name"], "twice", "{via:?}");
            assert_eq!(params["arguments"], arguments, "{via:?}");
            let meta = &params["_meta"];
            assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{via:?}: {meta}");
            assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"], json!({"elicitation": {"form": {}}}));
            assert!(meta["io.modelcontextprotocol/clientInfo"]["name"].is_string(), "{via:?}: {meta}");
        }
        let rounds: Vec<(Option<Vec<&String>>, Option<&str>)> = params_of(&calls)
            .iter()
            .map(|p| {
                let keys = p.get("inputResponses").and_then(Value::as_object).map(|r| r.keys().collect());
                (keys, p.get("requestState").and_then(Value::as_str))
            })
            .collect();
        let first = "first".to_owned();
        let second = "second".to_owned();
        assert_eq!(
            rounds,
            vec![(None, None), (Some(vec![&first]), Some("twice-1")), (Some(vec![&second]), Some("twice-2:yes"))],
            "{via:?}: each retry carries that round's answers and state, the first neither"
        );
        let keys: Vec<Asker> = asked.all().into_iter().map(|(a, _)| a).collect();
        assert_eq!(keys, vec![Asker::InputRequest("first".into()), Asker::InputRequest("second".into())]);
    }
}

#[tokio::test]
async fn the_auto_loop_completes_an_elicitation_tool_in_both_eras() {
    let (probe_server, _probe, _hang) = probe_server();
    let resolvers = macro_server();
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let legacy = mode == Mode::Legacy;
            let asked = Asked::default();
            let builder = || Client::builder().mode(mode.clone()).elicitation(asked.elicitation("eu-west-1"));

            let client = connect(via, builder(), &probe_server).await;
            let result = within("ask", client.call_tool("ask", json!({}))).await;
            let result = result.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"));
            let expected = if legacy { "Hello, eu-west-1!" } else { "Hello, eu-west-1! (state ask-state)" };
            assert_eq!(text_of(&result), expected, "{via:?} {mode:?}");

            let client = connect(via, builder(), &resolvers).await;
            let result = within("provision", client.call_tool("provision", json!({"name": "orders"}))).await;
            let result = result.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"));
            assert_eq!(text_of(&result), "Provisioned 'orders' in eu-west-1.", "{via:?} {mode:?}");

            let asked = asked.all();
            assert_eq!(asked.len(), 2, "{via:?} {mode:?}: one question per call: {asked:?}");
            assert!(asked_the_eras_way(&asked[0].0, legacy, "name"), "{via:?} {mode:?}: {asked:?}");
            assert!(matches!(&asked[1].0, Asker::InputRequest(_)) != legacy, "{via:?} {mode:?}: {asked:?}");
            assert_eq!(asked[1].1, "Which region should the database live in?");
        }
    }
}

#[tokio::test]
async fn sampling_and_roots_callbacks_answer_in_both_eras() {
    let (probe_server, _probe, _hang) = probe_server();
    let resolvers = macro_server();
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let legacy = mode == Mode::Legacy;
            let asked = Asked::default();
            let builder = || {
                Client::builder()
                    .mode(mode.clone())
                    .sampling(asked.sampling("teal"))
                    .roots(asked.roots(&["file:///a", "file:///b"]))
            };
            let client = connect(via, builder(), &probe_server).await;
            let sampled = within("sample", client.call_tool("sample", json!({}))).await;
            assert_eq!(text_of(&sampled.unwrap_or_else(|e| panic!("{e}"))), "model test-model said 1 block(s)");
            let roots = within("roots", client.call_tool("roots", json!({}))).await;
            assert_eq!(text_of(&roots.unwrap_or_else(|e| panic!("{e}"))), "roots: file:///a, file:///b");

            let client = connect(via, builder(), &resolvers).await;
            let suggested = within("suggest", client.call_tool("suggest", json!({"topic": "birds"}))).await;
            assert_eq!(text_of(&suggested.unwrap_or_else(|e| panic!("{e}"))), "Suggested by test-model");
            let counted = within("count_roots", client.call_tool("count_roots", json!({}))).await;
            assert_eq!(text_of(&counted.unwrap_or_else(|e| panic!("{e}"))), "2 root(s)");

            let asked = asked.all();
            let methods: Vec<&str> = asked.iter().map(|(_, m)| m.as_str()).collect();
            assert_eq!(methods, ["sampling/createMessage", "roots/list", "sampling/createMessage", "roots/list"]);
            assert!(asked_the_eras_way(&asked[0].0, legacy, "model"), "{via:?} {mode:?}: {asked:?}");
            assert!(asked_the_eras_way(&asked[1].0, legacy, "roots"), "{via:?} {mode:?}: {asked:?}");
        }
    }
}

#[tokio::test]
async fn prompts_and_resources_run_the_loop_too() {
    let (server, _probe, _hang) = probe_server();
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let asked = Asked::default();
            let builder = Client::builder().mode(mode.clone()).elicitation(asked.elicitation("the team"));
            let client = connect(via, builder, &server).await;
            let prompt = within("prompt", client.get_prompt("briefing", BTreeMap::new())).await;
            let prompt = prompt.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"));
            assert_eq!(prompt.messages[0].content.as_text(), Some("Write a briefing for the team."));
            let read = within("read", client.read_resource("db://orders/config")).await;
            let read = read.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"));
            assert_eq!(
                read.contents,
                vec![ResourceContents::text("db://orders/config", "secret of db://orders/config (ok=the team)")]
            );
            assert_eq!(asked.all().len(), 2, "{via:?} {mode:?}");
        }
    }
    let asked = Asked::default();
    let client = connect(Via::InProcess, Client::builder().elicitation(asked.elicitation("-")), &server).await;
    let once = within("prompt once", client.get_prompt_once("briefing", BTreeMap::new(), CallOptions::default())).await;
    let Ok(Outcome::InputRequired(question)) = once else { panic!("expected a question, got {once:?}") };
    assert!(question.input_requests.as_ref().is_some_and(|r| r.contains_key("audience")));
    let once = within("read once", client.read_resource_once("db://x/config", CallOptions::default())).await;
    assert!(matches!(once, Ok(Outcome::InputRequired(_))), "{once:?}");
    assert!(asked.all().is_empty(), "the manual forms never call the callbacks");
}

#[tokio::test]
async fn state_only_rounds_are_retried_until_the_server_finishes() {
    for via in BOTH_WAYS {
        let (server, probe, _hang) = probe_server();
        let client = connect(via, Client::builder(), &server).await;
        let result = within("poll", client.call_tool("poll", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(text_of(&result), "polled");
        let calls = probe.calls();
        let states: Vec<Option<&str>> = params_of(&calls).iter().map(|p| p["requestState"].as_str()).collect();
        assert_eq!(states, [None, Some("poll-1"), Some("poll-2")], "{via:?}");
        assert!(params_of(&calls).iter().all(|p| p.get("inputResponses").is_none()), "{via:?}");
    }
}

#[tokio::test]
async fn the_round_cap_stops_a_server_that_keeps_asking() {
    for via in BOTH_WAYS {
        let (server, probe, _hang) = probe_server();
        let asked = Asked::default();
        let builder = Client::builder().input_required_max_rounds(2).elicitation(asked.elicitation("again"));
        let client = connect(via, builder, &server).await;
        let result = within("loop", client.call_tool("loop", json!({}))).await;
        assert_eq!(result, Err(ClientError::RoundsExceeded { max_rounds: 2 }), "{via:?}");
        assert_eq!(probe.calls().len(), 3, "{via:?}: the first request and two retries");
        assert_eq!(asked.all().len(), 2, "{via:?}: two rounds answered");
    }
}

#[tokio::test]
async fn a_failing_callback_abandons_the_call() {
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let (server, probe, _hang) = probe_server();
            let refusal = ErrorObject { code: -32001, message: "the user walked away".into(), data: None };
            let error = refusal.clone();
            let builder = Client::builder().mode(mode.clone()).elicitation(move |_asker, _params| {
                let error = error.clone();
                async move { Err::<ElicitResult, _>(error) }
            });
            let client = connect(via, builder, &server).await;
            let result = within("ask", client.call_tool("ask", json!({}))).await;
            if mode == Mode::Legacy {
                // The refusal goes back to the server as the answer to its request; the
                // handler's `?` turns it into the call's error.
                let error = result.expect_err("the handler cannot go on");
                assert_eq!(error.code(), Some(-32001), "{via:?}: {error:?}");
            } else {
                assert_eq!(result, Err(ClientError::Callback { key: "name".into(), error: refusal }), "{via:?}");
                assert_eq!(probe.calls().len(), 1, "{via:?}: no retry after a failed callback");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The manual loop
// ---------------------------------------------------------------------------------------

fn accept(field: &str, value: &str) -> InputResponse {
    InputResponse::Elicit(ElicitResult::accept(object(json!({field: value}))))
}

#[tokio::test]
async fn the_manual_loop_returns_the_questions_and_resumes_anywhere() {
    let (server, probe, _hang) = probe_server();
    let asked = Asked::default();
    // A callback is present but must not be used by the manual loop.
    let first = connect(Via::InProcess, Client::builder().elicitation(asked.elicitation("auto")), &server).await;
    let once = within("once", first.call_tool_once("ask", json!({"greeting": "hi"}), CallOptions::default())).await;
    let Ok(Outcome::InputRequired(question)) = once else { panic!("expected a question, got {once:?}") };
    let requests = question.input_requests.clone().unwrap_or_default();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["name"]);
    let Some(InputRequest::Elicit(params)) = requests.get("name") else { panic!("an elicitation: {requests:?}") };
    assert_eq!(params.message(), "What is your name?");
    let state = question.request_state.clone().unwrap_or_else(|| panic!("the server sent a requestState"));
    assert!(asked.all().is_empty(), "the manual loop never calls the callbacks");

    let answers: InputResponses = [("name".to_owned(), accept("name", "Ada"))].into();
    let resume = || CallOptions {
        input_responses: Some(answers.clone()),
        request_state: Some(state.clone()),
        ..CallOptions::default()
    };
    let done = within("resume", first.call_tool_once("ask", json!({"greeting": "hi"}), resume())).await;
    let Ok(Outcome::Complete(result)) = done else { panic!("expected the result, got {done:?}") };
    assert_eq!(text_of(&result), "Hello, Ada! (state ask-state)");

    // Another client ("another process"), in process and over HTTP, resumes the same flow.
    for via in BOTH_WAYS {
        let other = connect(via, Client::builder(), &server).await;
        let done = within("resume elsewhere", other.call_tool_once("ask", json!({"greeting": "hi"}), resume())).await;
        let Ok(Outcome::Complete(result)) = done else { panic!("{via:?}: expected the result, got {done:?}") };
        assert_eq!(text_of(&result), "Hello, Ada! (state ask-state)", "{via:?}");
        // The auto form takes the same seed and finishes without asking.
        let done = within("seeded call", other.call_tool_with("ask", json!({"greeting": "hi"}), resume())).await;
        assert_eq!(text_of(&done.unwrap_or_else(|e| panic!("{e}"))), "Hello, Ada! (state ask-state)");
    }
    let calls = probe.calls();
    assert_eq!(calls.len(), 6);
    assert!(
        calls[1..].iter().all(|(_, p)| p["requestState"] == "ask-state" && p["inputResponses"]["name"].is_object())
    );
    assert!(asked.all().is_empty());
}

#[tokio::test]
async fn a_sealed_resolver_flow_resumes_from_another_client() {
    let server = macro_server();
    let first = connect(Via::InProcess, Client::builder(), &server).await;
    let once = within("once", first.call_tool_once("provision", json!({"name": "orders"}), CallOptions::default()));
    // Without the capability the resolver refuses; with it, it asks.
    let refused = once.await.expect_err("no elicitation capability declared");
    assert_eq!(refused.code(), Some(-32021));

    let asked = Asked::default();
    let first = connect(Via::InProcess, Client::builder().elicitation(asked.elicitation("unused")), &server).await;
    let once = within("once", first.call_tool_once("provision", json!({"name": "orders"}), CallOptions::default()));
    let Ok(Outcome::InputRequired(question)) = once.await else { panic!("expected a question") };
    let requests = question.input_requests.unwrap_or_default();
    let (key, request) = requests.iter().next().unwrap_or_else(|| panic!("one question"));
    assert_eq!(request.method(), "elicitation/create");
    let state = question.request_state.unwrap_or_else(|| panic!("sealed state"));

    let answers: InputResponses = [(key.clone(), accept("region", "ap-south-1"))].into();
    let builder = Client::builder().elicitation(asked.elicitation("unused"));
    let second = connect(Via::Http, builder, &server).await;
    let options = CallOptions { input_responses: Some(answers), request_state: Some(state), ..CallOptions::default() };
    let done = within("resume", second.call_tool_once("provision", json!({"name": "orders"}), options)).await;
    let Ok(Outcome::Complete(result)) = done else { panic!("expected the result, got {done:?}") };
    assert_eq!(text_of(&result), "Provisioned 'orders' in ap-south-1.");
    assert!(asked.all().is_empty());
}

// ---------------------------------------------------------------------------------------
// Missing callbacks
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_resolver_tool_is_refused_by_the_server_when_the_callback_is_missing() {
    let server = macro_server();
    for via in BOTH_WAYS {
        let client = connect(via, Client::builder(), &server).await;
        let cases = [
            ("provision", json!({"name": "orders"}), json!({"elicitation": {"form": {}}})),
            ("suggest", json!({"topic": "birds"}), json!({"sampling": {}})),
            ("count_roots", json!({}), json!({"roots": {}})),
        ];
        for (tool, arguments, required) in cases {
            let result = within(tool, client.call_tool(tool, arguments)).await;
            match result {
                Err(ClientError::Rpc(e)) => {
                    assert_eq!(e.code, -32021, "{via:?} {tool}: {e:?}");
                    assert_eq!(e.data, Some(json!({"requiredCapabilities": required})), "{via:?} {tool}");
                }
                other => panic!("{via:?} {tool}: expected -32021, got {other:?}"),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Timeouts and cancellation
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_timeout_ends_the_call_and_cancels_it_on_the_server() {
    for (via, per_call) in [(Via::InProcess, false), (Via::InProcess, true), (Via::Http, false)] {
        let (server, _probe, mut hang) = probe_server();
        let builder = if per_call { Client::builder() } else { Client::builder().timeout(Duration::from_millis(300)) };
        let client = connect(via, builder, &server).await;
        let options = CallOptions { timeout: per_call.then_some(Duration::from_millis(300)), ..CallOptions::default() };
        let result = within("hang", client.call_tool_with("hang", json!({}), options)).await;
        assert_eq!(result, Err(ClientError::Timeout), "{via:?}");
        assert_eq!(within("start", hang.recv()).await, Some(Hang::Started), "{via:?}");
        assert_eq!(
            within("cancellation", hang.recv()).await,
            Some(Hang::Dropped),
            "{via:?}: the handler was cancelled"
        );
        // The client still works afterwards.
        within("ping", client.ping()).await.unwrap_or_else(|e| panic!("{via:?}: {e}"));
    }
}

// ---------------------------------------------------------------------------------------
// Notifications
// ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn progress_and_log_callbacks_receive_the_notifications_of_a_call() {
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let (server, _probe, _hang) = probe_server();
            let progress: Arc<Mutex<Vec<ProgressParams>>> = Arc::default();
            let logs: Arc<Mutex<Vec<LoggingMessageParams>>> = Arc::default();
            let (p, l) = (Arc::clone(&progress), Arc::clone(&logs));
            let builder = Client::builder()
                .mode(mode.clone())
                .on_progress(move |params| lock(&p).push(params))
                .on_log(LoggingLevel::Info, move |params| lock(&l).push(params));
            let client = connect(via, builder, &server).await;
            let result = within("chatty", client.call_tool("chatty", json!({}))).await;
            assert_eq!(text_of(&result.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"))), "chatted");

            let progress = lock(&progress).clone();
            let steps: Vec<(f64, Option<f64>, Option<String>)> =
                progress.iter().map(|p| (p.progress, p.total, p.message.clone())).collect();
            let expected: Vec<(f64, Option<f64>, Option<String>)> =
                (1..=3).map(|s| (f64::from(s), Some(3.0), Some(format!("step {s}")))).collect();
            assert_eq!(steps, expected, "{via:?} {mode:?}: every progress notification, before the result");
            let token = &progress[0].progress_token;
            assert!(progress.iter().all(|p| &p.progress_token == token), "{via:?} {mode:?}: one token per call");

            let logs = lock(&logs).clone();
            let logs: Vec<(LoggingLevel, Option<String>, Value)> =
                logs.into_iter().map(|l| (l.level, l.logger, l.data)).collect();
            assert_eq!(
                logs,
                vec![(LoggingLevel::Warning, Some("probe".to_owned()), json!({"note": "careful"}))],
                "{via:?} {mode:?}: messages at the chosen level and above, before the result"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// HTTP headers
// ---------------------------------------------------------------------------------------

/// The headers of every POST that reached the server.
type Seen = Arc<Mutex<Vec<http::HeaderMap>>>;

/// Serve `server` behind a layer that records each request's headers.
async fn serve_recording(server: &Server) -> (SocketAddr, Seen) {
    let seen: Seen = Arc::default();
    let record = Arc::clone(&seen);
    let app = axum::Router::new()
        .route_service("/mcp", mcp::serve::http::McpHttpService::new(server.clone(), HttpConfig::default()))
        .layer(axum::middleware::from_fn(move |request: axum::extract::Request, next: axum::middleware::Next| {
            lock(&record).push(request.headers().clone());
            next.run(request)
        }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, seen)
}

fn header<'a>(headers: &'a http::HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn methods_seen(seen: &Seen) -> Vec<String> {
    lock(seen).iter().map(|h| header(h, "mcp-method").unwrap_or("-").to_owned()).collect()
}

#[tokio::test]
async fn modern_posts_carry_the_request_headers() {
    let (server, _probe, _hang) = probe_server();
    let (addr, seen) = serve_recording(&server).await;
    let client = within("connect", Client::builder().connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    let tools = within("list", client.list_tools()).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tools.len(), probe_tools().len());
    let arguments = json!({"region": "Zürich ", "count": 3, "dry_run": true, "note": "not mirrored"});
    let result = within("region", client.call_tool("region", arguments)).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text_of(&result), "region=\"Zürich \" count=3 dry_run=true");

    let seen = lock(&seen).clone();
    let methods: Vec<Option<&str>> = seen.iter().map(|h| header(h, "mcp-method")).collect();
    assert_eq!(methods, [Some("server/discover"), Some("tools/list"), Some("tools/call")]);
    for headers in &seen {
        assert_eq!(header(headers, "mcp-protocol-version"), Some("2026-07-28"), "{headers:?}");
        assert!(header(headers, "mcp-session-id").is_none(), "no sessions in 2026-07-28");
    }
    assert_eq!(header(&seen[1], "mcp-name"), None, "tools/list has no name");
    let call = &seen[2];
    assert_eq!(header(call, "mcp-name"), Some("region"));
    // Not plain visible ASCII (and a trailing space): base64 of the UTF-8 bytes.
    assert_eq!(header(call, "mcp-param-region"), Some("=?base64?WsO8cmljaCA=?="));
    assert_eq!(header(call, "mcp-param-count"), Some("3"));
    assert_eq!(header(call, "mcp-param-dry-run"), Some("true"));
    let params: Vec<&str> = call.keys().map(http::HeaderName::as_str).filter(|n| n.starts_with("mcp-param-")).collect();
    assert_eq!(params.len(), 3, "only annotated arguments are mirrored: {params:?}");
}

#[tokio::test]
async fn legacy_posts_carry_the_session_instead() {
    let (server, _probe, _hang) = probe_server();
    let (addr, seen) = serve_recording(&server).await;
    let builder = Client::builder().mode(Mode::Legacy);
    let client = within("connect", builder.connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    within("list", client.list_tools()).await.unwrap_or_else(|e| panic!("{e}"));
    let seen = lock(&seen).clone();
    assert!(header(&seen[0], "mcp-session-id").is_none(), "initialize starts the session");
    for later in &seen[1..] {
        assert!(header(later, "mcp-session-id").is_some(), "{later:?}");
        assert_eq!(header(later, "mcp-protocol-version"), Some("2025-11-25"));
        assert!(header(later, "mcp-method").is_none());
    }
}

#[tokio::test]
async fn a_header_mismatch_lists_the_tools_again_and_resends_once() {
    let (server, probe, _hang) = probe_server();
    let (addr, seen) = serve_recording(&server).await;
    let client = within("connect", Client::builder().connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    // No tools/list first: the client cannot know `region` is mirrored into a header.
    let result = within("region", client.call_tool("region", json!({"region": "eu-west-1", "count": 7}))).await;
    assert_eq!(text_of(&result.unwrap_or_else(|e| panic!("{e}"))), "region=\"eu-west-1\" count=7 dry_run=null");
    assert_eq!(methods_seen(&seen), ["server/discover", "tools/call", "tools/list", "tools/call"]);
    let seen = lock(&seen).clone();
    assert!(header(&seen[1], "mcp-param-region").is_none());
    assert_eq!(header(&seen[3], "mcp-param-region"), Some("eu-west-1"));
    assert_eq!(header(&seen[3], "mcp-param-count"), Some("7"));
    assert_eq!(probe.calls().len(), 1, "the refused POST never reached the handler");
}

#[tokio::test]
async fn list_tools_over_http_drops_tools_with_invalid_header_annotations() {
    let tools = || {
        vec![
            Tool::new("plain", "No headers.", json!({"type": "object"})),
            Tool::new(
                "good",
                "A string, an integer and a boolean.",
                json!({"type": "object", "properties": {
                    "a": {"type": "string", "x-mcp-header": "A"},
                    "b": {"type": "integer", "x-mcp-header": "B"},
                    "c": {"type": "boolean", "x-mcp-header": "C"},
                }}),
            ),
            Tool::new(
                "number",
                "A number.",
                json!({"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}),
            ),
            Tool::new(
                "in_items",
                "Nested in items.",
                json!({"type": "object", "properties": {
                    "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
                }}),
            ),
            Tool::new(
                "nested",
                "Nested in an object.",
                json!({"type": "object", "properties": {
                    "outer": {"type": "object", "properties": {"inner": {"type": "string", "x-mcp-header": "Inner"}}},
                }}),
            ),
            Tool::new(
                "twice",
                "The same header twice, in different case.",
                json!({"type": "object", "properties": {
                    "a": {"type": "string", "x-mcp-header": "Same"},
                    "b": {"type": "string", "x-mcp-header": "SAME"},
                }}),
            ),
            Tool::new(
                "bad_name",
                "Not a header token.",
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}}),
            ),
            Tool::new(
                "empty_name",
                "An empty header name.",
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            ),
        ]
    };
    let server = Server::builder("headers", "1.0.0")
        .on_list_tools(move |_ctx, _params| {
            let tools = tools();
            async move { Ok(ListToolsResult::new(tools)) }
        })
        .build();
    let names = |tools: Vec<Tool>| tools.into_iter().map(|t| t.name).collect::<Vec<_>>();
    let over_http = connect(Via::Http, Client::builder(), &server).await;
    let listed = within("list", over_http.list_tools()).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names(listed), ["plain", "good"]);
    // The rule is HTTP's: in process every tool is kept.
    let in_process = connect(Via::InProcess, Client::builder(), &server).await;
    let listed = within("list", in_process.list_tools()).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names(listed).len(), 8);
}

// ---------------------------------------------------------------------------------------
// The connection's lifetime and the order of what arrives on it
// ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn notifications_reach_the_callbacks_before_the_call_returns() {
    let (server, _probe, _hang) = probe_server();
    for via in BOTH_WAYS {
        let progress: Arc<Mutex<Vec<ProgressParams>>> = Arc::default();
        let seen = Arc::clone(&progress);
        let builder = Client::builder().on_progress(move |params| {
            // A callback that takes a moment (a UI update, say) must still see every
            // notification the server sent before its result, before the call returns.
            std::thread::sleep(Duration::from_micros(200));
            lock(&seen).push(params);
        });
        let client = connect(via, builder, &server).await;
        for round in 0..50 {
            lock(&progress).clear();
            within("chatty", client.call_tool("chatty", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(lock(&progress).len(), 3, "{via:?}, call {round}: progress arrived after the result");
        }
    }
}

#[tokio::test]
async fn dropping_the_client_closes_the_in_process_connection() {
    let (server, _probe, _hang) = probe_server();
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn({
        let server = server.clone();
        async move { mcp::serve::connection(server, server_read, server_write).await }
    });
    let (client_read, client_write) = tokio::io::split(client_end);
    let raw = RawClient::new(client_read, client_write);
    let client = within("connect", Client::builder().connect_raw(raw)).await.unwrap_or_else(|e| panic!("{e}"));
    within("ping", client.ping()).await.unwrap_or_else(|e| panic!("{e}"));
    let copy = client.clone();
    drop(client);
    within("ping", copy.ping()).await.unwrap_or_else(|e| panic!("a clone keeps the connection: {e}"));
    drop(copy);
    let served = within("the server seeing the client leave", serving).await;
    assert!(served.is_ok_and(|r| r.is_ok()), "the connection ends cleanly");
}

// ---------------------------------------------------------------------------------------
// A scripted server, for what our own server never sends
// ---------------------------------------------------------------------------------------

/// The server end of an in-memory pipe, driven line by line by the test.
struct Peer {
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
}

impl Peer {
    /// The next message the client sent.
    async fn recv(&mut self) -> Value {
        let line = within("the client's next message", self.lines.next_line()).await;
        let line = line.unwrap_or_else(|e| panic!("{e}")).unwrap_or_else(|| panic!("the client closed the pipe"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The next message, which must be `method`.
    async fn expect(&mut self, method: &str) -> Value {
        let message = self.recv().await;
        assert_eq!(message["method"], method, "{message}");
        message
    }

    async fn send(&mut self, message: Value) {
        use tokio::io::AsyncWriteExt;
        let line = format!("{message}\n");
        within("writing to the client", self.writer.write_all(line.as_bytes())).await.unwrap_or_else(|e| panic!("{e}"));
    }

    async fn answer(&mut self, request: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result})).await;
    }

    async fn refuse(&mut self, request: &Value, code: i32, message: &str) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": message}})).await;
    }
}

/// A client connected to a [`Peer`] that answers the negotiation: `server/discover` when
/// `modern`, else a refusal of it and the `initialize` handshake.
async fn connect_peer(builder: ClientBuilder, modern: bool) -> (Client, Peer) {
    use tokio::io::AsyncBufReadExt;
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_end);
    let (server_read, writer) = tokio::io::split(server_end);
    let mut peer = Peer { lines: tokio::io::BufReader::new(server_read).lines(), writer };
    let negotiate = async {
        let discover = peer.expect("server/discover").await;
        assert_eq!(discover["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        if modern {
            let result = json!({
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "0.1"}},
            });
            peer.answer(&discover, result).await;
        } else {
            peer.refuse(&discover, -32601, "Method not found").await;
            let initialize = peer.expect("initialize").await;
            assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");
            let result = json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "0.1"},
            });
            peer.answer(&initialize, result).await;
            peer.expect("notifications/initialized").await;
        }
    };
    let (client, ()) = tokio::join!(builder.connect_raw(RawClient::new(client_read, client_write)), negotiate);
    let client = client.unwrap_or_else(|e| panic!("connecting to the scripted server: {e}"));
    assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("scripted"));
    assert_eq!(client.is_legacy(), !modern);
    (client, peer)
}

/// Call tool `x` and answer its first round with `result`.
async fn call_answered_with(client: &Client, peer: &mut Peer, result: Value) -> Result<CallToolResult, ClientError> {
    let serve = async {
        let call = peer.expect("tools/call").await;
        peer.answer(&call, result).await;
    };
    let (outcome, ()) = tokio::join!(within("call", client.call_tool("x", json!({}))), serve);
    outcome
}

/// Send one more request and check it is the next message on the wire (nothing, such
/// as a retry, came in between).
async fn next_request_is_the_next_call(client: &Client, peer: &mut Peer) {
    let serve = async {
        let next = peer.recv().await;
        assert_eq!(next["method"], "test/next", "expected nothing before the next call: {next}");
        peer.answer(&next, json!({"ok": true})).await;
    };
    let (answer, ()) = tokio::join!(client.request("test/next", json!({})), serve);
    assert_eq!(answer.unwrap_or_else(|e| panic!("{e}")), json!({"ok": true}));
}

#[tokio::test]
async fn a_result_without_result_type_is_complete_and_an_unknown_one_is_invalid() {
    let (client, mut peer) = connect_peer(Client::builder(), true).await;
    let plain = json!({"content": [{"type": "text", "text": "from an older server"}]});
    let result = call_answered_with(&client, &mut peer, plain).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text_of(&result), "from an older server");

    let complete = json!({"resultType": "complete", "content": [{"type": "text", "text": "tagged"}]});
    let result = call_answered_with(&client, &mut peer, complete).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text_of(&result), "tagged");

    for unknown in ["task", "Complete", "input-required", ""] {
        let odd = json!({"resultType": unknown, "content": [{"type": "text", "text": "?"}]});
        let result = call_answered_with(&client, &mut peer, odd).await;
        assert!(matches!(&result, Err(ClientError::Protocol(_))), "resultType {unknown:?}: {result:?}");
    }
    let odd = json!({"resultType": 7, "content": []});
    let result = call_answered_with(&client, &mut peer, odd).await;
    assert!(matches!(&result, Err(ClientError::Protocol(_))), "a resultType that is not a string: {result:?}");

    // The manual form reads results the same way.
    let serve = async {
        let call = peer.expect("tools/call").await;
        peer.answer(&call, json!({"resultType": "task", "taskId": "t1"})).await;
    };
    let (once, ()) = tokio::join!(client.call_tool_once("x", json!({}), CallOptions::default()), serve);
    assert!(matches!(&once, Err(ClientError::Protocol(_))), "{once:?}");
}

#[tokio::test]
async fn without_a_callback_the_client_refuses_the_question_itself() {
    // A server that asks without checking the declared capabilities (ours refuses first,
    // with -32021): the client's default answer is the SDKs' -32600 refusal.
    let (client, mut peer) = connect_peer(Client::builder(), true).await;
    let cases = [
        (
            json!({"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}),
            "Elicitation not supported",
        ),
        (
            json!({"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}),
            "Sampling not supported",
        ),
        (json!({"method": "roots/list"}), "List roots not supported"),
    ];
    for (question, message) in cases {
        let ask = json!({"resultType": "input_required", "inputRequests": {"q": question}, "requestState": "s"});
        let result = call_answered_with(&client, &mut peer, ask).await;
        let expected = ErrorObject { code: -32600, message: message.to_owned(), data: None };
        assert_eq!(result, Err(ClientError::Callback { key: "q".into(), error: expected }));
        // No retry was sent: the next thing on the wire is the next request.
        next_request_is_the_next_call(&client, &mut peer).await;
    }
}

#[tokio::test]
async fn a_legacy_session_answers_the_servers_requests_with_the_callbacks() {
    let asked = Asked::default();
    let builder = Client::builder().elicitation(asked.elicitation("Ada"));
    let (client, mut peer) = connect_peer(builder, false).await;
    assert_eq!(client.protocol_version(), "2025-11-25");
    let serve = async {
        let call = peer.expect("tools/call").await;
        assert!(call["params"].get("_meta").is_none(), "no per-request _meta in a legacy session: {call}");
        let mut answers = Vec::new();
        let questions = [
            (
                "e1",
                json!({"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}),
            ),
            ("s1", json!({"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}})),
            ("r1", json!({"method": "roots/list"})),
            ("p1", json!({"method": "ping"})),
            ("u1", json!({"method": "tasks/list"})),
        ];
        for (id, question) in questions {
            let mut request = question;
            request["jsonrpc"] = json!("2.0");
            request["id"] = json!(id);
            peer.send(request).await;
            answers.push(peer.recv().await);
        }
        peer.answer(&call, json!({"content": [{"type": "text", "text": "done"}]})).await;
        answers
    };
    let (result, answers) = tokio::join!(within("call", client.call_tool("x", json!({}))), serve);
    assert_eq!(text_of(&result.unwrap_or_else(|e| panic!("{e}"))), "done");
    let by_id =
        |id: &str| answers.iter().find(|a| a["id"] == id).cloned().unwrap_or_else(|| panic!("no answer to {id}"));
    assert_eq!(by_id("e1")["result"], json!({"action": "accept", "content": {"name": "Ada"}}));
    assert_eq!(by_id("s1")["error"], json!({"code": -32600, "message": "Sampling not supported"}));
    assert_eq!(by_id("r1")["error"], json!({"code": -32600, "message": "List roots not supported"}));
    assert_eq!(by_id("p1")["result"], json!({}));
    assert_eq!(by_id("u1")["error"]["code"], -32601);
    let asked = asked.all();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0], (Asker::ServerRequest(RequestId::from("e1")), "Name?".to_owned()));
}

#[tokio::test]
async fn a_timeout_sends_notifications_cancelled_for_the_abandoned_request() {
    let builder = Client::builder().timeout(Duration::from_millis(200));
    let (client, mut peer) = connect_peer(builder, true).await;
    let serve = async {
        let call = peer.expect("tools/call").await;
        let cancelled = peer.expect("notifications/cancelled").await;
        (call, cancelled)
    };
    let (result, (call, cancelled)) = tokio::join!(within("call", client.call_tool("x", json!({}))), serve);
    assert_eq!(result, Err(ClientError::Timeout));
    assert_eq!(cancelled["params"]["requestId"], call["id"], "{cancelled}");
    assert!(cancelled.get("id").is_none(), "a notification has no id");
    // A late answer to the abandoned request is ignored; the next call works.
    peer.answer(&call, json!({"content": []})).await;
    next_request_is_the_next_call(&client, &mut peer).await;
}

#[tokio::test]
async fn a_server_that_refuses_every_version_we_speak_is_unsupported() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_end);
    let (server_read, writer) = tokio::io::split(server_end);
    use tokio::io::AsyncBufReadExt;
    let mut peer = Peer { lines: tokio::io::BufReader::new(server_read).lines(), writer };
    let serve = async {
        let discover = peer.expect("server/discover").await;
        let error = json!({"code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2027-01-01"], "requested": "2026-07-28"}});
        peer.send(json!({"jsonrpc": "2.0", "id": discover["id"], "error": error})).await;
    };
    let (client, ()) = tokio::join!(Client::builder().connect_raw(RawClient::new(client_read, client_write)), serve);
    assert!(matches!(&client, Err(ClientError::Unsupported(_))), "{client:?}");
}

#[tokio::test]
async fn a_raw_client_already_read_from_still_connects() {
    use tokio::io::AsyncBufReadExt;
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_end);
    let (server_read, writer) = tokio::io::split(server_end);
    let mut peer = Peer { lines: tokio::io::BufReader::new(server_read).lines(), writer };
    let raw = RawClient::new(client_read, client_write);
    // The caller reads a notification itself before handing the stream to a Client.
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": 1}}))
        .await;
    let early = within("the early notification", raw.next_message()).await;
    assert!(matches!(early, Some(mcp::protocol::JsonRpcMessage::Notification(_))), "{early:?}");
    let serve = async {
        let discover = peer.expect("server/discover").await;
        peer.answer(&discover, json!({"supportedVersions": ["2026-07-28"], "capabilities": {}})).await;
    };
    let (client, ()) = tokio::join!(within("connect", Client::builder().connect_raw(raw)), serve);
    let client = client.unwrap_or_else(|e| panic!("{e}"));
    next_request_is_the_next_call(&client, &mut peer).await;
}

// ---------------------------------------------------------------------------------------
// A scripted HTTP server
// ---------------------------------------------------------------------------------------

/// One POST as the scripted HTTP server saw it: lowercased header names, and the body.
#[derive(Debug, Clone)]
struct Post {
    headers: BTreeMap<String, String>,
    body: Value,
}

/// What the scripted HTTP server answers: status, content type, body.
type Reply = (u16, &'static str, String);

/// Serve HTTP/1.1 on 127.0.0.1, one request per connection, answering each POST with
/// `respond`; every POST is recorded.
async fn scripted_http(
    respond: impl Fn(&Post) -> Reply + Send + Sync + 'static,
) -> (SocketAddr, Arc<Mutex<Vec<Post>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let posts: Arc<Mutex<Vec<Post>>> = Arc::default();
    let record = Arc::clone(&posts);
    let respond = Arc::new(respond);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let record = Arc::clone(&record);
            let respond = Arc::clone(&respond);
            tokio::spawn(async move {
                let mut buffer = Vec::new();
                let mut chunk = [0u8; 4096];
                let head_end = loop {
                    if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                        break end;
                    }
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                    }
                };
                let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
                let headers: BTreeMap<String, String> = head
                    .lines()
                    .skip(1)
                    .filter_map(|line| line.split_once(':'))
                    .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .collect();
                let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
                let mut body = buffer[head_end + 4..].to_vec();
                while body.len() < length {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => body.extend_from_slice(&chunk[..n]),
                    }
                }
                let post = Post { headers, body: serde_json::from_slice(&body).unwrap_or(Value::Null) };
                lock(&record).push(post.clone());
                let (status, content_type, body) = respond(&post);
                let response = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    (addr, posts)
}

fn rpc_result(post: &Post, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": post.body["id"], "result": result}).to_string()
}

fn discovered(post: &Post) -> Reply {
    let result = json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}});
    (200, "application/json", rpc_result(post, result))
}

#[tokio::test]
async fn a_header_mismatch_is_resent_only_once() {
    let (addr, posts) = scripted_http(|post| match post.body["method"].as_str() {
        Some("server/discover") => discovered(post),
        Some("tools/list") => {
            let tool = json!({"name": "region", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}}}});
            (200, "application/json", rpc_result(post, json!({"tools": [tool]})))
        }
        _ => {
            let error = json!({"code": -32020, "message": "Header mismatch: always"});
            (400, "application/json", json!({"jsonrpc": "2.0", "id": post.body["id"], "error": error}).to_string())
        }
    })
    .await;
    let client = within("connect", Client::builder().connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    let result = within("call", client.call_tool("region", json!({"region": "eu"}))).await;
    assert_eq!(result.map_err(|e| e.code()), Err(Some(-32020)));
    let posts = lock(&posts).clone();
    let methods: Vec<&str> = posts.iter().map(|p| p.body["method"].as_str().unwrap_or("-")).collect();
    assert_eq!(methods, ["server/discover", "tools/call", "tools/list", "tools/call"]);
    assert_eq!(posts[3].headers.get("mcp-param-region").map(String::as_str), Some("eu"));
    assert_ne!(posts[1].body["id"], posts[3].body["id"], "the resend is a new request");
}

#[tokio::test]
async fn an_sse_answer_delivers_its_notifications_then_its_result() {
    let (addr, posts) = scripted_http(|post| match post.body["method"].as_str() {
        Some("server/discover") => discovered(post),
        _ => {
            let token = post.body["params"]["_meta"]["progressToken"].clone();
            let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 1, "total": 2}});
            let result = rpc_result(post, json!({"content": [{"type": "text", "text": "streamed"}]}));
            let body =
                format!(": keep-alive\r\n\r\nevent: message\r\ndata: {progress}\r\n\r\nid: 1\ndata: {result}\n\n");
            (200, "text/event-stream", body)
        }
    })
    .await;
    let progress: Arc<Mutex<Vec<ProgressParams>>> = Arc::default();
    let seen = Arc::clone(&progress);
    let builder = Client::builder().on_progress(move |p| lock(&seen).push(p));
    let client = within("connect", builder.connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    let result = within("call", client.call_tool("anything", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text_of(&result), "streamed", "no resultType over HTTP either: complete");
    let progress = lock(&progress).clone();
    assert_eq!(progress.iter().map(|p| (p.progress, p.total)).collect::<Vec<_>>(), [(1.0, Some(2.0))]);
    let posts = lock(&posts).clone();
    assert_eq!(posts[1].headers.get("mcp-name").map(String::as_str), Some("anything"));
    assert_eq!(posts[1].headers.get("accept").map(String::as_str), Some("application/json, text/event-stream"));
}

#[tokio::test]
async fn an_unknown_result_type_over_http_is_a_protocol_error() {
    let (addr, _posts) = scripted_http(|post| match post.body["method"].as_str() {
        Some("server/discover") => discovered(post),
        _ => (200, "application/json", rpc_result(post, json!({"resultType": "surprise", "content": []}))),
    })
    .await;
    let client = within("connect", Client::builder().connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    let result = within("call", client.call_tool("x", json!({}))).await;
    assert!(matches!(&result, Err(ClientError::Protocol(why)) if why.contains("surprise")), "{result:?}");
}

// ---------------------------------------------------------------------------------------
// stdio: this test binary, re-run as the probe server
// ---------------------------------------------------------------------------------------

/// Set in the environment of the child that serves the probe server over stdio.
const STDIO_CHILD: &str = "MCP_CLIENT_TEST_STDIO_CHILD";

/// The stdio server the stdio tests spawn: this test binary, running only this test.
#[test]
#[ignore = "the probe server over stdio; runs only as the child of the stdio tests"]
fn stdio_child_server() {
    use std::io::Write;
    if std::env::var_os(STDIO_CHILD).is_none() {
        return;
    }
    // End the test harness's "test ... " line: the client skips lines that are not JSON.
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(b"\n").and_then(|()| stdout.flush());
    let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let (server, _probe, _hang) = runtime.block_on(async { probe_server() });
    let _ = runtime.block_on(async { mcp::serve::stdio(server).await });
}

fn stdio_child() -> tokio::process::Command {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let mut command = tokio::process::Command::new(exe);
    command
        .args(["stdio_child_server", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(STDIO_CHILD, "1")
        .stderr(std::process::Stdio::null());
    command
}

#[tokio::test]
async fn a_stdio_child_serves_both_eras_and_sees_cancellations() {
    for mode in BOTH_ERAS {
        let asked = Asked::default();
        let builder = Client::builder().mode(mode.clone()).elicitation(asked.elicitation("Grace"));
        let client = within("spawning", builder.connect_stdio(&mut stdio_child())).await;
        let client = client.unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let legacy = mode == Mode::Legacy;
        assert_eq!(client.protocol_version(), if legacy { "2025-11-25" } else { "2026-07-28" });
        assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("probe"));

        let result = within("ask", client.call_tool("ask", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
        let expected = if legacy { "Hello, Grace!" } else { "Hello, Grace! (state ask-state)" };
        assert_eq!(text_of(&result), expected, "{mode:?}");
        assert!(asked_the_eras_way(&asked.all()[0].0, legacy, "name"), "{mode:?}: {:?}", asked.all());

        let options = CallOptions { timeout: Some(Duration::from_millis(300)), ..CallOptions::default() };
        let result = within("hang", client.call_tool_with("hang", json!({}), options)).await;
        assert_eq!(result, Err(ClientError::Timeout), "{mode:?}");
        let report = within("report", client.call_tool("hang_dropped", json!({}))).await;
        assert_eq!(text_of(&report.unwrap_or_else(|e| panic!("{e}"))), "1 dropped", "{mode:?}: the server cancelled");
    }
}
