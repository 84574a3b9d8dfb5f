//! Resolvers over Streamable HTTP: the key rules of the other modules again, on a real socket.
//!
//! 2026-07-28 calls are single POSTs (with the `Mcp-Method`/`Mcp-Name` headers) answered
//! with JSON: an `input_required` result is a 200, and the retry is another POST carrying
//! `inputResponses` and the echoed `requestState`. In a 2025-11-25 session (`initialize`,
//! `Mcp-Session-Id`) the resolvers' questions travel as server-to-client requests on the
//! `tools/call` POST's SSE stream, and the client POSTs each answer back.
//!
//! Every test serves its own server on a free port. Resolvers whose body runs are counted
//! have their own counters, used by one test only, so tests run in parallel.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp::resolve::{Answer, Elicit, ListRoots, Refusable, Resolver, Sample};
use mcp::serve::http::HttpConfig;
use mcp::{Resolve, Server};
use mcp_testkit::http::{self, Headers, PATH, Reply};
use mcp_testkit::spec::{LEGACY, MODERN, assert_valid};
use serde_json::{Value, json};

use crate::harness::sampled_text;
use crate::support::legacy_http::{initialize, legacy_headers};
use crate::support::rounds::*;

// ---------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------

/// Where something lives.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Region {
    /// Cloud region.
    region: String,
}

/// How big something is.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Size {
    /// Storage in GB.
    size_gb: u32,
}

/// A yes or no.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// A free-text answer.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Step {
    /// The answer.
    value: String,
}

const REGION: &str = "resolvers::over_http::ask_region";
const SIZE: &str = "resolvers::over_http::ask_size";
const NAME: &str = "resolvers::over_http::suggest_name";
const ROOTS: &str = "resolvers::over_http::workspace_roots";
const GO: &str = "resolvers::over_http::ask_go";

#[mcp::resolver]
fn ask_region() -> Elicit<Region> {
    Elicit::new("Which region?")
}

#[mcp::resolver]
fn ask_size() -> Elicit<Size> {
    Elicit::new("How many GB?")
}

/// Two independent questions.
#[mcp::tool]
fn place(
    /// What to place.
    name: String,
    region: Resolve<ask_region>,
    size: Resolve<ask_size>,
) -> String {
    format!("{name}: {} GB in {}", size.size_gb, region.region)
}

#[mcp::resolver]
fn suggest_name(topic: &str) -> Sample {
    Sample::user(format!("Suggest a name for {topic}."), 20)
}

#[mcp::resolver]
fn workspace_roots() -> ListRoots {
    ListRoots::new()
}

#[mcp::tool]
fn mixed(
    topic: String,
    region: Resolve<ask_region>,
    name: Resolve<suggest_name>,
    roots: Resolve<workspace_roots>,
) -> String {
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    format!("{topic}: region={} name={} roots={}", region.region, sampled_text(&name), uris.join(","))
}

static LOGIN_RUNS: AtomicUsize = AtomicUsize::new(0);
static CONFIRM_RUNS: AtomicUsize = AtomicUsize::new(0);

#[mcp::resolver]
fn login() -> Elicit<Step> {
    LOGIN_RUNS.fetch_add(1, Ordering::SeqCst);
    Elicit::new("Who are you?")
}

#[mcp::resolver]
fn confirm_login(user: Resolve<login>) -> Elicit<Confirm> {
    CONFIRM_RUNS.fetch_add(1, Ordering::SeqCst);
    Elicit::new(format!("Continue as {}?", user.value))
}

/// A question that needs the previous one's answer.
#[mcp::tool]
fn sign_in(user: Resolve<login>, confirm: Resolve<confirm_login>) -> String {
    format!("{} signed in: {}", user.value, confirm.ok)
}

#[mcp::resolver]
fn ask_go() -> Elicit<Confirm> {
    Elicit::new("Go ahead?")
}

/// Needs the value: a refusal fails the call.
#[mcp::tool]
fn strict(go: Resolve<ask_go>) -> String {
    format!("go={}", go.ok)
}

/// Takes the outcome.
#[mcp::tool]
fn lenient(go: Resolve<ask_go, Refusable>) -> String {
    match &*go {
        Answer::Accept(c) => format!("accepted go={}", c.ok),
        Answer::Decline => "declined".to_owned(),
        Answer::Cancel => "cancelled".to_owned(),
    }
}

#[mcp::resolver]
fn quota_service() -> Result<u64, mcp::Error> {
    Err(mcp::Error::invalid_params("no quota for this caller"))
}

/// Fails with a protocol error.
#[mcp::tool]
fn hard(quota: Resolve<quota_service>) -> String {
    quota.to_string()
}

fn server() -> Server {
    Server::builder("resolvers-http", "1.0.0")
        .tool::<place>()
        .tool::<mixed>()
        .tool::<sign_in>()
        .tool::<strict>()
        .tool::<lenient>()
        .tool::<hard>()
        .build()
}

async fn start() -> SocketAddr {
    http::serve(&server(), HttpConfig::default()).await
}

// ---------------------------------------------------------------------------------------
// Answers and scripts
// ---------------------------------------------------------------------------------------

fn mixed_script() -> Script {
    Script::new()
        .on("Which region?", accept(json!({"region": "eu-west-1"})))
        .on("sample: Suggest a name for orders.", sampled("orders-db"))
        .on("roots/list", roots_answer(&["file:///a", "file:///b"]))
}

const MIXED_TEXT: &str = "orders: region=eu-west-1 name=orders-db roots=file:///a,file:///b";

// ---------------------------------------------------------------------------------------
// 2026-07-28 over HTTP
// ---------------------------------------------------------------------------------------

/// One modern `tools/call` POST.
#[derive(Debug, Clone)]
struct Leg {
    tool: String,
    arguments: Value,
    capabilities: Value,
    responses: Option<Value>,
    state: Option<String>,
}

impl Leg {
    fn new(tool: &str, arguments: Value) -> Self {
        Leg { tool: tool.to_owned(), arguments, capabilities: every_capability(), responses: None, state: None }
    }

    fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    fn answers(mut self, responses: Value) -> Self {
        self.responses = Some(responses);
        self
    }

    fn state(mut self, state: &str) -> Self {
        self.state = Some(state.to_owned());
        self
    }

    async fn post(&self, addr: SocketAddr) -> Reply {
        let mut params = json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            },
            "name": self.tool,
            "arguments": self.arguments,
        });
        if let Some(responses) = &self.responses {
            params["inputResponses"] = responses.clone();
        }
        if let Some(state) = &self.state {
            params["requestState"] = json!(state);
        }
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        http::post(addr, &Headers::modern("tools/call", Some(&self.tool)), &message).await
    }

    /// The result of a 200 JSON answer, checked against the spec.
    async fn result(&self, addr: SocketAddr) -> Value {
        let reply = self.post(addr).await;
        assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
        assert_eq!(reply.content_type().as_deref(), Some("application/json"), "{}", reply.body);
        let body = reply.json();
        assert_valid(MODERN, "CallToolResultResponse", &body);
        body["result"].clone()
    }

    /// The error object of a JSON-RPC error answer with HTTP `status`.
    async fn error(&self, addr: SocketAddr, status: u16) -> Value {
        let reply = self.post(addr).await;
        assert_eq!(reply.status.as_u16(), status, "{}", reply.body);
        let body = reply.json();
        assert_valid(MODERN, "JSONRPCErrorResponse", &body);
        body["error"].clone()
    }
}
#[derive(Debug)]
struct Run {
    /// The labels asked, per round, in key order.
    asked: Vec<Vec<String>>,
    /// POSTs sent.
    legs: usize,
    /// The final (complete or `isError`) result.
    result: Value,
}

/// Answer every round from `script`, retrying with the echoed state, for at most 10 rounds.
async fn drive(addr: SocketAddr, tool: &str, arguments: Value, script: &Script) -> Run {
    let mut leg = Leg::new(tool, arguments);
    let mut asked = Vec::new();
    for legs in 1..=11 {
        let result = leg.result(addr).await;
        if result["resultType"] != "input_required" {
            return Run { asked, legs, result };
        }
        let round = questions(&result);
        let responses: serde_json::Map<String, Value> =
            round.iter().map(|(key, label)| (key.clone(), script.answer(label))).collect();
        asked.push(round.into_values().collect());
        leg = leg.answers(Value::Object(responses)).state(&state_of(&result));
    }
    panic!("{tool}: still asking after 10 rounds: {asked:?}")
}

#[tokio::test]
async fn independent_questions_go_out_in_one_round() {
    let addr = start().await;
    let first = Leg::new("place", json!({"name": "db"})).result(addr).await;
    assert_valid(MODERN, "InputRequiredResult", &first);
    assert_eq!(questions(&first), expect_questions(&[(REGION, "Which region?"), (SIZE, "How many GB?")]));

    let script = Script::new()
        .on("Which region?", accept(json!({"region": "eu-west-1"})))
        .on("How many GB?", accept(json!({"size_gb": 10})));
    let run = drive(addr, "place", json!({"name": "db"}), &script).await;
    assert_eq!(run.asked, [["Which region?", "How many GB?"]]);
    assert_eq!(run.legs, 2);
    assert_eq!(complete_text(&run.result), "db: 10 GB in eu-west-1");
}

#[tokio::test]
async fn elicitation_sampling_and_roots_batch_into_one_round() {
    let addr = start().await;
    let first = Leg::new("mixed", json!({"topic": "orders"})).result(addr).await;
    assert_eq!(
        questions(&first),
        expect_questions(&[
            (REGION, "Which region?"),
            (NAME, "sample: Suggest a name for orders."),
            (ROOTS, "roots/list"),
        ])
    );
    let run = drive(addr, "mixed", json!({"topic": "orders"}), &mixed_script()).await;
    assert_eq!(run.legs, 2);
    assert_eq!(complete_text(&run.result), MIXED_TEXT);
}

#[tokio::test]
async fn a_chain_takes_one_round_per_link_and_asks_each_question_once() {
    let addr = start().await;
    let script = Script::new()
        .on("Who are you?", accept(json!({"value": "ada"})))
        .on("Continue as ada?", accept(json!({"ok": true})));
    let run = drive(addr, "sign_in", json!({}), &script).await;
    assert_eq!(run.asked, [["Who are you?"], ["Continue as ada?"]]);
    assert_eq!(complete_text(&run.result), "ada signed in: true");
    // Bodies re-run each round (login in rounds 1-3, confirm_login in rounds 2-3).
    assert_eq!((LOGIN_RUNS.load(Ordering::SeqCst), CONFIRM_RUNS.load(Ordering::SeqCst)), (3, 2));
}

#[tokio::test]
async fn the_request_state_is_sealed_and_a_tampered_token_is_400_minus_32602() {
    let addr = start().await;
    let first = Leg::new("place", json!({"name": "db"})).result(addr).await;
    let token = state_of(&first);
    assert!(token.starts_with("v1."), "{token}");
    assert!(!token.contains("resolvers::over_http::"), "{token}");

    let answers = json!({REGION: accept(json!({"region": "eu"})), SIZE: accept(json!({"size_gb": 1}))});
    let mut chars: Vec<char> = token.chars().collect();
    let middle = chars.len() / 2;
    chars[middle] = if chars[middle] == 'A' { 'B' } else { 'A' };
    let tampered: String = chars.into_iter().collect();
    let error =
        Leg::new("place", json!({"name": "db"})).answers(answers.clone()).state(&tampered).error(addr, 400).await;
    assert_eq!(
        error,
        json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}})
    );
    // The arguments are bound too.
    let error =
        Leg::new("place", json!({"name": "other"})).answers(answers.clone()).state(&token).error(addr, 400).await;
    assert_eq!(error["data"], json!({"reason": "invalid_request_state"}));

    let done = Leg::new("place", json!({"name": "db"})).answers(answers).state(&token).result(addr).await;
    assert_eq!(complete_text(&done), "db: 1 GB in eu");
}

#[tokio::test]
async fn an_answer_without_the_echoed_state_is_asked_again() {
    let addr = start().await;
    let answers = json!({REGION: accept(json!({"region": "eu"})), SIZE: accept(json!({"size_gb": 1}))});
    let again = Leg::new("place", json!({"name": "db"})).answers(answers).result(addr).await;
    assert_eq!(questions(&again), expect_questions(&[(REGION, "Which region?"), (SIZE, "How many GB?")]));
}

#[tokio::test]
async fn a_refusal_fails_a_value_consumer_and_reaches_an_outcome_consumer() {
    let addr = start().await;
    for (answer, refused) in [(json!({"action": "decline"}), "declined"), (json!({"action": "cancel"}), "cancelled")] {
        let script = Script::new().on("Go ahead?", answer);
        let run = drive(addr, "strict", json!({}), &script).await;
        assert_eq!(
            tool_error_text(&run.result),
            format!("Resolver for parameter 'go' could not resolve: the elicitation was {refused}")
        );
        let run = drive(addr, "lenient", json!({}), &script).await;
        assert_eq!(complete_text(&run.result), refused);
    }
}

#[tokio::test]
async fn content_failing_the_schema_is_an_error_result() {
    let addr = start().await;
    let first = Leg::new("strict", json!({})).result(addr).await;
    for content in [json!({"ok": "yes"}), json!({}), json!({"ok": 1})] {
        let result = Leg::new("strict", json!({}))
            .answers(json!({GO: accept(content.clone())}))
            .state(&state_of(&first))
            .result(addr)
            .await;
        assert_eq!(
            tool_error_text(&result),
            format!("Resolver '{GO}' received an elicitation whose content does not match the requested schema"),
            "{content}"
        );
    }
}

#[tokio::test]
async fn a_missing_capability_is_400_minus_32021() {
    let addr = start().await;
    for (tool, capabilities, required) in [
        ("place", json!({}), json!({"elicitation": {"form": {}}})),
        ("mixed", json!({"elicitation": {}}), json!({"sampling": {}})),
        ("mixed", json!({"elicitation": {}, "sampling": {}}), json!({"roots": {}})),
    ] {
        let arguments = json!({"name": "db", "topic": "orders"});
        let reply = Leg::new(tool, arguments).capabilities(capabilities).post(addr).await;
        assert_eq!(reply.status.as_u16(), 400, "{}", reply.body);
        let body = reply.json();
        assert_valid(MODERN, "MissingRequiredClientCapabilityError", &body);
        assert_eq!(body["error"]["code"], -32021, "{body}");
        assert_eq!(body["error"]["data"], json!({"requiredCapabilities": required}), "{body}");
    }
}

#[tokio::test]
async fn a_resolvers_protocol_error_keeps_its_code_and_status() {
    let addr = start().await;
    let error = Leg::new("hard", json!({})).error(addr, 400).await;
    assert_eq!(error, json!({"code": -32602, "message": "no quota for this caller"}));
}

#[tokio::test]
async fn resolved_parameters_are_not_arguments() {
    let addr = start().await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }}});
    let reply = http::post(addr, &Headers::modern("tools/list", None), &list).await;
    let body = reply.json();
    let tools = body["result"]["tools"].as_array().unwrap_or_else(|| panic!("{body}"));
    let place = tools.iter().find(|t| t["name"] == "place").unwrap_or_else(|| panic!("{body}"));
    assert_eq!(place["inputSchema"]["required"], json!(["name"]), "{place}");
    let properties: Vec<&String> =
        place["inputSchema"]["properties"].as_object().map(|p| p.keys().collect()).unwrap_or_default();
    assert_eq!(properties, ["name"], "{place}");

    // A value sent under a resolved parameter's name does not answer the question.
    let forged = json!({"name": "db", "region": {"region": "forged"}, "size": {"size_gb": 1}});
    let first = Leg::new("place", forged).result(addr).await;
    assert_eq!(questions(&first).len(), 2, "{first}");
}

// ---------------------------------------------------------------------------------------
// 2025-11-25 sessions over HTTP: questions on the POST's SSE stream
// ---------------------------------------------------------------------------------------

fn legacy_call_message(tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": "call", "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

/// A legacy `tools/call` whose questions arrive on its SSE stream; each is answered from
/// `script` with a POST. Returns the final message and the requests, as (method, label).
async fn legacy_call(
    addr: SocketAddr,
    session: &str,
    tool: &str,
    arguments: Value,
    script: &Script,
) -> (Value, Vec<(String, String)>) {
    let message = legacy_call_message(tool, arguments);
    let mut stream = http::open(addr, "POST", PATH, &legacy_headers(Some(session)), message.to_string()).await;
    assert_eq!(stream.status.as_u16(), 200);
    assert_eq!(stream.content_type().as_deref(), Some("text/event-stream"), "a back-channel needs a stream");
    let mut asked = Vec::new();
    loop {
        let message = stream.next_message().await.unwrap_or_else(|| panic!("{tool}: the stream ended early"));
        let method = message["method"].as_str().map(str::to_owned);
        match (method, message.get("id")) {
            (Some(method), Some(id)) => {
                let schema = match method.as_str() {
                    "elicitation/create" => "ElicitRequest",
                    "sampling/createMessage" => "CreateMessageRequest",
                    _ => "ListRootsRequest",
                };
                assert_valid(LEGACY, schema, &message);
                let label = label(&method, &message["params"]);
                let answer = json!({"jsonrpc": "2.0", "id": id, "result": script.answer(&label)});
                let reply = http::post(addr, &legacy_headers(Some(session)), &answer).await;
                assert_eq!(reply.status.as_u16(), 202, "{}", reply.body);
                asked.push((method, label));
            }
            (Some(_), None) => {}
            (None, _) => {
                assert_eq!(message["id"], "call", "{message}");
                assert_eq!(stream.next_message().await, None, "the stream ends after the response");
                return (message, asked);
            }
        }
    }
}

#[tokio::test]
async fn a_legacy_session_asks_over_the_post_stream_and_finishes() {
    let addr = start().await;
    let session = initialize(addr, every_capability()).await;
    let (last, asked) = legacy_call(addr, &session, "mixed", json!({"topic": "orders"}), &mixed_script()).await;
    assert_eq!(
        asked,
        requests(&[
            ("elicitation/create", "Which region?"),
            ("sampling/createMessage", "sample: Suggest a name for orders."),
            ("roots/list", "roots/list"),
        ])
    );
    assert_valid(LEGACY, "CallToolResult", &last["result"]);
    assert!(last["result"].get("resultType").is_none(), "{last}");
    assert_eq!(last["result"]["content"][0]["text"], MIXED_TEXT);
}

#[tokio::test]
async fn a_legacy_refusal_fails_a_value_consumer_and_reaches_an_outcome_consumer() {
    let addr = start().await;
    let session = initialize(addr, every_capability()).await;
    let script = Script::new().on("Go ahead?", json!({"action": "decline"}));
    let (last, asked) = legacy_call(addr, &session, "strict", json!({}), &script).await;
    assert_eq!(asked, requests(&[("elicitation/create", "Go ahead?")]));
    assert_eq!(
        tool_error_text(&last["result"]),
        "Resolver for parameter 'go' could not resolve: the elicitation was declined"
    );
    let (last, _) = legacy_call(addr, &session, "lenient", json!({}), &script).await;
    assert_eq!(last["result"]["content"][0]["text"], "declined");
}

#[tokio::test]
async fn a_legacy_session_without_the_capability_is_refused_with_minus_32021() {
    let addr = start().await;
    let session = initialize(addr, json!({"roots": {}})).await;
    // Refused before anything is sent to the client: a plain JSON answer (200, as every
    // legacy answer), not a stream.
    let message = legacy_call_message("place", json!({"name": "db"}));
    let reply = http::post(addr, &legacy_headers(Some(&session)), &message).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("application/json"), "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["error"]["code"], -32021, "{body}");
    assert_eq!(body["error"]["data"], json!({"requiredCapabilities": {"elicitation": {"form": {}}}}), "{body}");
    assert_eq!(<ask_region as Resolver>::KEY, REGION);
    assert!(body["error"]["message"].as_str().unwrap_or_default().contains(REGION), "{body}");
}
