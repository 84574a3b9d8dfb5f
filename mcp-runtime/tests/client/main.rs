//! The `Client` against this crate's own servers (in process and over Streamable HTTP on
//! 127.0.0.1), and against scripted fake peers where the exact wire matters: era
//! negotiation, declared capabilities, the retry loop in both eras, the manual loop and
//! resuming it elsewhere, timeouts and cancellation, notifications, the HTTP headers.
//!
//! The probe and macro servers live here; each topic is a module, and [`driver`] tests the
//! 2026-07-28 retry loop alone with fake effects.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::{Asker, CallOptions, Client, ClientBuilder, ClientError, Mode, RawClient};
use mcp::protocol::{
    CallToolOutcome, CallToolParams, CallToolResult, CreateMessageParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationSchema, GetPromptOutcome, GetPromptResult, InputRequest, InputRequiredResult,
    InputResponse, InputResponses, JsonObject, ListRootsResult, ListToolsResult, LoggingLevel, LoggingMessageParams,
    Outcome, PrimitiveSchema, ProgressParams, PromptMessage, ReadResourceOutcome, ReadResourceResult, RequestId,
    ResourceContents, StringSchema, Tool,
};
use mcp::resolve::{Elicit, ListRoots, Sample};
use mcp::serve::http::HttpConfig;
use mcp::{Error, RequestContext, Resolve, Server};
use serde_json::{Value, json};
use tokio::sync::mpsc;

#[path = "../support/mod.rs"]
mod support;

use support::{TIMEOUT, within};

mod completion;
mod driver;
mod http_headers;
mod lifecycle;
mod loops;
mod negotiation;
mod scripted_http;
mod scripted_peer;
mod stdio;
mod tasks;

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
            Box::pin(async move { result.map_err(|e| Error { code: -32603, message: e.to_string(), data: None }) })
        }
    }

    fn roots(&self, uris: &[&str]) -> impl Fn(Asker) -> RootsFuture + use<> {
        let asked = self.clone();
        let roots = json!({"roots": uris.iter().map(|u| json!({"uri": u})).collect::<Vec<_>>()});
        move |asker| {
            asked.push(asker, "roots/list");
            let result = serde_json::from_value(roots.clone());
            Box::pin(async move { result.map_err(|e| Error { code: -32603, message: e.to_string(), data: None }) })
        }
    }
}

type AcceptFuture = std::pin::Pin<Box<dyn Future<Output = Result<ElicitResult, Error>> + Send>>;
type SampleFuture = std::pin::Pin<Box<dyn Future<Output = Result<CreateMessageResult, Error>> + Send>>;
type RootsFuture = std::pin::Pin<Box<dyn Future<Output = Result<ListRootsResult, Error>> + Send>>;

/// Whether the question came the era's way: an input request under `key` (2026-07-28) or a
/// server-to-client request (2025-11-25).
fn asked_the_eras_way(asker: &Asker, legacy: bool, key: &str) -> bool {
    match asker {
        Asker::InputRequest(k) => !legacy && k == key,
        Asker::ServerRequest(_) => legacy,
        _ => false,
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
            let waited = tokio::time::timeout(TIMEOUT, dropped.wait_for(|n| *n > 0)).await;
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
