//! Resolvers (`#[mcp::resolver]`, `Resolve<R>`, `Resolve<R, Refusable>`) end to end over the
//! in-memory pairing: the rules of the multi round-trip engine, as a client sees them.
//!
//! Under 2026-07-28 a call answers with an `InputRequiredResult` holding every question
//! that can be asked now; the client retries with `inputResponses` and the echoed
//! `requestState` until the call completes. In a 2025-11-25 session the same resolvers
//! ask with real `elicitation/create`, `sampling/createMessage` and `roots/list` requests.
//!
//! Checklist: the reference SDK's resolver tests (`tests/server/mcpserver/test_resolve.py`)
//! and its behaviour notes, sections 1.2–1.8.
//!
//! Layout: wire helpers, a scripted client ([`Driver`]) and a legacy-session helper first;
//! then one module per topic, each with its own fixture resolvers and tools, so tests that
//! count resolver body runs never share a counter with a test running in parallel.
//!
//! Servers built with the defaults seal `requestState`; the modules that need to read or
//! forge the resolvers' plaintext state (`{"v":1,"outcomes":{..},"asked":{..}}`) build
//! their server with `without_request_state_security()`.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp::client::RawClient;
use mcp::protocol::{CreateMessageResult, ErrorObject, JsonRpcMessage, SamplingContent};
use mcp::resolve::{Answer, Elicit, ListRoots, Refusable, Resolver, Sample};
use mcp::transport::memory;
use mcp::{Resolve, Server};
use mcp_testkit::spec::{MODERN, assert_valid};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Forms shared by the fixtures
// ---------------------------------------------------------------------------------------

/// Where something lives.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Region {
    /// Cloud region, e.g. eu-west-1.
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

/// A service tier (a single choice).
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
#[serde(rename_all = "lowercase")]
enum Tier {
    Small,
    Large,
}

/// An order: a bounded integer and a choice.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Order {
    /// How many (0 to 255).
    count: u8,
    /// Which tier.
    tier: Tier,
}

// ---------------------------------------------------------------------------------------
// Wire helpers
// ---------------------------------------------------------------------------------------

const MODERN_VERSION: &str = "2026-07-28";
const LEGACY_VERSION: &str = "2025-11-25";
/// How long any exchange may take before the test fails (only to prevent hangs).
const TIMEOUT: Duration = Duration::from_secs(10);

/// Await `work`, failing the test if it hangs.
async fn within<F: Future>(what: &str, work: F) -> F::Output {
    tokio::time::timeout(TIMEOUT, work).await.unwrap_or_else(|_| panic!("{what}: no answer within {TIMEOUT:?}"))
}

fn bump(counter: &AtomicUsize) {
    counter.fetch_add(1, Ordering::SeqCst);
}

fn runs(counter: &AtomicUsize) -> usize {
    counter.load(Ordering::SeqCst)
}

/// The `_meta` of a 2026-07-28 request declaring `capabilities`.
fn meta(capabilities: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// Form elicitation, sampling and roots.
fn every_capability() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

/// An accepted elicitation.
fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn decline() -> Value {
    json!({"action": "decline"})
}

fn cancel() -> Value {
    json!({"action": "cancel"})
}

/// A sampling answer with one text block.
fn sampled(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "test-model"})
}

/// A roots answer.
fn roots_answer(uris: &[&str]) -> Value {
    json!({"roots": uris.iter().map(|uri| json!({"uri": uri})).collect::<Vec<_>>()})
}

/// The text of a sampling result's blocks.
fn sampled_text(result: &CreateMessageResult) -> String {
    result.text()
}

/// How a question reads, for scripts and assertions: an elicitation's message,
/// `sample: <first message text>`, or the method (`roots/list`).
fn label(method: &str, params: &Value) -> String {
    match method {
        "elicitation/create" => params["message"].as_str().unwrap_or_default().to_owned(),
        "sampling/createMessage" => {
            let content = &params["messages"][0]["content"];
            let text = content["text"].as_str().or_else(|| content[0]["text"].as_str());
            format!("sample: {}", text.unwrap_or_default())
        }
        other => other.to_owned(),
    }
}

/// One modern `tools/call` request.
#[derive(Debug, Clone)]
struct Leg {
    tool: String,
    arguments: Value,
    capabilities: Value,
    responses: Option<Value>,
    state: Option<String>,
}

impl Leg {
    /// A first call of `tool` declaring every capability.
    fn new(tool: &str, arguments: Value) -> Self {
        Leg { tool: tool.to_owned(), arguments, capabilities: every_capability(), responses: None, state: None }
    }

    fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// `inputResponses`.
    fn answers(mut self, responses: Value) -> Self {
        self.responses = Some(responses);
        self
    }

    /// `requestState`.
    fn state(mut self, state: &str) -> Self {
        self.state = Some(state.to_owned());
        self
    }

    fn params(&self) -> Value {
        let mut params =
            json!({"_meta": meta(&self.capabilities), "name": self.tool, "arguments": self.arguments.clone()});
        if let Some(responses) = &self.responses {
            params["inputResponses"] = responses.clone();
        }
        if let Some(state) = &self.state {
            params["requestState"] = json!(state);
        }
        params
    }

    async fn send(&self, client: &RawClient) -> Result<Value, ErrorObject> {
        within(&format!("tools/call {}", self.tool), client.request("tools/call", self.params())).await
    }

    /// The result; panics on a JSON-RPC error.
    async fn result(&self, client: &RawClient) -> Value {
        self.send(client).await.unwrap_or_else(|e| panic!("tools/call {}: {e:?}", self.tool))
    }

    /// The JSON-RPC error; panics on a result.
    async fn error(&self, client: &RawClient) -> ErrorObject {
        match self.send(client).await {
            Ok(result) => panic!("tools/call {} should fail, got {result}", self.tool),
            Err(error) => error,
        }
    }
}

/// An `input_required` result's questions: key → label.
#[track_caller]
fn questions(result: &Value) -> BTreeMap<String, String> {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let requests = result["inputRequests"].as_object().unwrap_or_else(|| panic!("no inputRequests: {result}"));
    requests
        .iter()
        .map(|(key, request)| {
            let method = request["method"].as_str().unwrap_or_default();
            (key.clone(), label(method, &request["params"]))
        })
        .collect()
}

/// An `input_required` result's `requestState`.
#[track_caller]
fn state_of(result: &Value) -> String {
    assert_eq!(result["resultType"], "input_required", "{result}");
    result["requestState"].as_str().unwrap_or_else(|| panic!("no requestState: {result}")).to_owned()
}

/// A plaintext resolver state (servers without sealing), parsed.
#[track_caller]
fn decode_state(state: &str) -> Value {
    serde_json::from_str(state).unwrap_or_else(|e| panic!("the requestState is not plaintext JSON ({e}): {state}"))
}

/// The keys of an object in a decoded state.
fn keys_of(object: &Value) -> Vec<String> {
    object.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
}

/// The text of a complete, successful tool result.
#[track_caller]
fn complete_text(result: &Value) -> String {
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_ne!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {result}")).to_owned()
}

/// The text of an `isError` tool result (either era).
#[track_caller]
fn tool_error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "expected an isError result: {result}");
    assert_ne!(result["resultType"], "input_required", "{result}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {result}")).to_owned()
}

/// `[(key, label)]` → the map [`questions`] returns.
fn expect_questions(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, l)| ((*k).to_owned(), (*l).to_owned())).collect()
}

// ---------------------------------------------------------------------------------------
// A scripted client
// ---------------------------------------------------------------------------------------

/// Answers by question label (see [`label`]); the same label always gets the same answer.
#[derive(Debug, Clone, Default)]
struct Script(Vec<(String, Value)>);

impl Script {
    fn new() -> Self {
        Script::default()
    }

    fn on(mut self, label: impl Into<String>, answer: Value) -> Self {
        self.0.push((label.into(), answer));
        self
    }

    #[track_caller]
    fn answer(&self, label: &str) -> Value {
        self.0
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, answer)| answer.clone())
            .unwrap_or_else(|| panic!("the script has no answer for {label:?}"))
    }
}

/// One `input_required` round as the driver saw it.
#[derive(Debug)]
struct Asked {
    /// The questions: key → label.
    questions: BTreeMap<String, String>,
    /// The `requestState` that came with them.
    state: String,
}

/// How a driven call ended.
#[derive(Debug)]
enum End {
    Complete(Value),
    Error(ErrorObject),
    /// Still `input_required` after the budget of answered rounds.
    GaveUp,
}

/// A driven call.
#[derive(Debug)]
struct Run {
    rounds: Vec<Asked>,
    /// Requests sent: the first call and every retry.
    legs: usize,
    /// Questions answered.
    answered: usize,
    end: End,
}

impl Run {
    /// The labels asked, per round, in key order.
    fn asked(&self) -> Vec<Vec<&str>> {
        self.rounds.iter().map(|r| r.questions.values().map(String::as_str).collect()).collect()
    }

    /// Every label asked in the call.
    fn all_asked(&self) -> Vec<&str> {
        self.asked().into_iter().flatten().collect()
    }

    /// The final result (complete, or `isError`); panics otherwise.
    #[track_caller]
    fn result(&self) -> &Value {
        match &self.end {
            End::Complete(result) => result,
            other => panic!("the call did not complete: {other:?}"),
        }
    }

    #[track_caller]
    fn text(&self) -> String {
        complete_text(self.result())
    }

    /// The JSON-RPC error that ended the call; panics otherwise.
    #[track_caller]
    fn error(&self) -> &ErrorObject {
        match &self.end {
            End::Error(error) => error,
            other => panic!("the call did not fail: {other:?}"),
        }
    }
}

/// Drives a modern call to its end: answers each round's `inputRequests` from a script and
/// retries with `inputResponses` and the echoed `requestState`, giving up when a round
/// asks after `budget` rounds were answered (the reference client's default is 10).
#[derive(Debug, Clone)]
struct Driver {
    script: Script,
    capabilities: Value,
    budget: usize,
}

impl Driver {
    fn new(script: Script) -> Self {
        Driver { script, capabilities: every_capability(), budget: 10 }
    }

    /// The capabilities every leg declares (default: [`every_capability`]).
    fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    fn budget(mut self, rounds: usize) -> Self {
        self.budget = rounds;
        self
    }

    async fn run(&self, client: &RawClient, tool: &str, arguments: Value) -> Run {
        let mut run = Run { rounds: Vec::new(), legs: 0, answered: 0, end: End::GaveUp };
        let mut leg = Leg::new(tool, arguments).capabilities(self.capabilities.clone());
        loop {
            run.legs += 1;
            let result = match leg.send(client).await {
                Ok(result) => result,
                Err(error) => {
                    run.end = End::Error(error);
                    return run;
                }
            };
            if result["resultType"] != "input_required" {
                assert_valid(MODERN, "CallToolResult", &result);
                run.end = End::Complete(result);
                return run;
            }
            assert_valid(MODERN, "InputRequiredResult", &result);
            let asked = Asked { questions: questions(&result), state: state_of(&result) };
            let responses: serde_json::Map<String, Value> =
                asked.questions.iter().map(|(key, label)| (key.clone(), self.script.answer(label))).collect();
            let state = asked.state.clone();
            run.rounds.push(asked);
            if run.rounds.len() > self.budget {
                run.end = End::GaveUp;
                return run;
            }
            run.answered += responses.len();
            leg = leg.answers(Value::Object(responses)).state(&state);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Legacy (2025-11-25) sessions
// ---------------------------------------------------------------------------------------

/// A client that opened a legacy session declaring `capabilities`.
async fn legacy_client(server: &Server, capabilities: Value) -> RawClient {
    let client = memory::connect(server);
    let init = within(
        "initialize",
        client.request(
            "initialize",
            json!({"protocolVersion": LEGACY_VERSION, "capabilities": capabilities,
                   "clientInfo": {"name": "resolver-tests", "version": "1.0.0"}}),
        ),
    )
    .await
    .unwrap_or_else(|e| panic!("initialize: {e:?}"));
    assert_eq!(init["protocolVersion"], LEGACY_VERSION);
    client.notify("notifications/initialized", json!({})).await;
    client
}

/// A legacy `tools/call`, answering the server's requests from `script`. Returns the
/// outcome and the requests the server sent, in order, as (method, label).
async fn legacy_call(
    client: &RawClient,
    tool: &str,
    arguments: Value,
    script: &Script,
) -> (Result<Value, ErrorObject>, Vec<(String, String)>) {
    let id = client.next_id();
    let mut pending = client.start_request(id, "tools/call", json!({"name": tool, "arguments": arguments})).await;
    let mut asked = Vec::new();
    let work = async {
        loop {
            tokio::select! {
                done = &mut pending => return done.unwrap_or_else(|_| panic!("the connection closed")),
                message = client.next_message() => match message {
                    Some(JsonRpcMessage::Request(request)) => {
                        let params = request.params.map(Value::Object).unwrap_or(Value::Null);
                        let label = label(&request.method, &params);
                        let answer = script.answer(&label);
                        asked.push((request.method, label));
                        client.respond(request.id, answer).await;
                    }
                    Some(_) => {}
                    None => panic!("the server closed the connection"),
                },
            }
        }
    };
    let outcome = within(&format!("legacy tools/call {tool}"), work).await;
    (outcome, asked)
}

/// `(method, label)` pairs as owned strings.
fn requests(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(m, l)| ((*m).to_owned(), (*l).to_owned())).collect()
}

// ---------------------------------------------------------------------------------------
// Wire keys and resolved parameters
// ---------------------------------------------------------------------------------------

mod wire_keys {
    use super::*;

    const REGION_KEY: &str = "resolvers::wire_keys::ask_region";

    #[mcp::resolver]
    fn ask_region() -> Elicit<Region> {
        Elicit::new("Which region?")
    }

    /// Provision a database.
    #[mcp::tool]
    fn provision(
        /// The database's name.
        name: String,
        region: Resolve<ask_region>,
    ) -> String {
        format!("Provisioned {name} in {}.", region.region)
    }

    #[mcp::resolver(key = "pick")]
    fn first_pick() -> Elicit<Step> {
        Elicit::new("First pick?")
    }

    #[mcp::resolver(key = "pick")]
    fn second_pick() -> Elicit<Step> {
        Elicit::new("Second pick?")
    }

    /// Two resolvers sharing an explicit key.
    #[mcp::tool]
    fn pick_two(first: Resolve<first_pick>, second: Resolve<second_pick>) -> String {
        format!("first={} second={}", first.value, second.value)
    }

    /// The same, declared the other way round.
    #[mcp::tool]
    fn pick_two_reversed(second: Resolve<second_pick>, first: Resolve<first_pick>) -> String {
        format!("first={} second={}", first.value, second.value)
    }

    #[mcp::resolver(key = "pick#1")]
    fn third_pick() -> Elicit<Step> {
        Elicit::new("Third pick?")
    }

    /// Three resolvers whose keys would collide if suffixes were not checked.
    #[mcp::tool]
    fn pick_three(first: Resolve<first_pick>, second: Resolve<second_pick>, third: Resolve<third_pick>) -> String {
        format!("first={} second={} third={}", first.value, second.value, third.value)
    }

    fn server() -> Server {
        Server::builder("wire-keys", "1.0.0")
            .tool::<provision>()
            .tool::<pick_two>()
            .tool::<pick_two_reversed>()
            .tool::<pick_three>()
            .build()
    }

    #[tokio::test]
    async fn a_wire_key_is_the_module_path_and_name_and_is_the_same_in_every_server() {
        assert_eq!(<ask_region as Resolver>::KEY, REGION_KEY);
        // Two servers (think: two processes) ask under the same key, and each takes the
        // answer under it.
        for server in [server(), server()] {
            let client = memory::connect(&server);
            let first = Leg::new("provision", json!({"name": "orders"})).result(&client).await;
            assert_eq!(questions(&first), expect_questions(&[(REGION_KEY, "Which region?")]));
            assert_eq!(first["inputRequests"][REGION_KEY]["method"], "elicitation/create");
            let schema = &first["inputRequests"][REGION_KEY]["params"]["requestedSchema"];
            assert_eq!(schema["required"], json!(["region"]), "{schema}");
            assert_eq!(schema["properties"]["region"]["type"], "string", "{schema}");

            let done = Leg::new("provision", json!({"name": "orders"}))
                .answers(json!({REGION_KEY: accept(json!({"region": "eu-west-1"}))}))
                .state(&state_of(&first))
                .result(&client)
                .await;
            assert_eq!(complete_text(&done), "Provisioned orders in eu-west-1.");
        }
    }

    #[tokio::test]
    async fn an_explicit_key_overrides_the_default_and_a_repeat_gets_a_suffix_in_discovery_order() {
        assert_eq!(<first_pick as Resolver>::KEY, "pick");
        assert_eq!(<second_pick as Resolver>::KEY, "pick");
        let client = memory::connect(&server());
        for (tool, expected) in [
            ("pick_two", [("pick", "First pick?"), ("pick#1", "Second pick?")]),
            ("pick_two_reversed", [("pick", "Second pick?"), ("pick#1", "First pick?")]),
        ] {
            let first = Leg::new(tool, json!({})).result(&client).await;
            assert_eq!(questions(&first), expect_questions(&expected), "{tool}");
            let run = Driver::new(
                Script::new()
                    .on("First pick?", accept(json!({"value": "one"})))
                    .on("Second pick?", accept(json!({"value": "two"}))),
            )
            .run(&client, tool, json!({}))
            .await;
            assert_eq!(run.text(), "first=one second=two", "{tool}: each answer reaches its own parameter");
        }
    }

    #[tokio::test]
    async fn an_explicit_key_that_looks_like_a_suffix_never_collides_with_one() {
        assert_eq!(<third_pick as Resolver>::KEY, "pick#1");
        let client = memory::connect(&server());
        let first = Leg::new("pick_three", json!({})).result(&client).await;
        // `second_pick` takes `pick#1` first (discovery order); the explicit `pick#1`
        // moves on to the next free suffix of its own base.
        assert_eq!(
            questions(&first),
            expect_questions(&[("pick", "First pick?"), ("pick#1", "Second pick?"), ("pick#1#1", "Third pick?")])
        );
        let run = Driver::new(
            Script::new()
                .on("First pick?", accept(json!({"value": "one"})))
                .on("Second pick?", accept(json!({"value": "two"})))
                .on("Third pick?", accept(json!({"value": "three"}))),
        )
        .run(&client, "pick_three", json!({}))
        .await;
        assert_eq!(run.asked(), [["First pick?", "Second pick?", "Third pick?"]], "each asked once, together");
        assert_eq!(run.text(), "first=one second=two third=three");
    }

    #[tokio::test]
    async fn resolved_parameters_are_absent_from_the_advertised_input_schema() {
        let client = memory::connect(&server());
        let list = within("tools/list", client.request("tools/list", json!({"_meta": meta(&json!({}))})))
            .await
            .unwrap_or_else(|e| panic!("tools/list: {e:?}"));
        let tools = list["tools"].as_array().unwrap_or_else(|| panic!("{list}"));
        let provision = tools.iter().find(|t| t["name"] == "provision").unwrap_or_else(|| panic!("{list}"));
        let schema = &provision["inputSchema"];
        assert_eq!(keys_of(&schema["properties"]), ["name"], "{schema}");
        assert_eq!(schema["required"], json!(["name"]), "{schema}");
        let pick_two = tools.iter().find(|t| t["name"] == "pick_two").unwrap_or_else(|| panic!("{list}"));
        assert!(keys_of(&pick_two["inputSchema"]["properties"]).is_empty(), "{pick_two}");
        assert!(pick_two["inputSchema"].get("required").is_none_or(|r| r == &json!([])), "{pick_two}");
    }

    #[tokio::test]
    async fn a_client_supplied_argument_under_a_resolved_name_is_ignored() {
        let client = memory::connect(&server());
        let forged = json!({"name": "orders", "region": {"region": "forged-1"}});
        let first = Leg::new("provision", forged.clone()).result(&client).await;
        assert_eq!(questions(&first), expect_questions(&[(REGION_KEY, "Which region?")]), "still asked");
        let run = Driver::new(Script::new().on("Which region?", accept(json!({"region": "eu-west-1"}))))
            .run(&client, "provision", forged)
            .await;
        assert_eq!(run.text(), "Provisioned orders in eu-west-1.");
    }
}

// ---------------------------------------------------------------------------------------
// Batching: everything that can be asked now goes out in one round
// ---------------------------------------------------------------------------------------

mod batching {
    use super::*;

    const REGION: &str = "resolvers::batching::ask_region";
    const SIZE: &str = "resolvers::batching::ask_size";
    const NAME: &str = "resolvers::batching::suggest_name";
    const ROOTS: &str = "resolvers::batching::workspace_roots";

    #[mcp::resolver]
    pub(crate) fn ask_region() -> Elicit<Region> {
        Elicit::new("Which region?")
    }

    #[mcp::resolver]
    fn ask_size() -> Elicit<Size> {
        Elicit::new("How many GB?")
    }

    /// Two independent questions.
    #[mcp::tool]
    fn place(region: Resolve<ask_region>, size: Resolve<ask_size>) -> String {
        format!("{} GB in {}", size.size_gb, region.region)
    }

    #[mcp::resolver]
    pub(crate) fn suggest_name(topic: &str) -> Sample {
        Sample::user(format!("Suggest a name for {topic}."), 20)
    }

    #[mcp::resolver]
    pub(crate) fn workspace_roots() -> ListRoots {
        ListRoots::new()
    }

    /// One question of each kind.
    #[mcp::tool]
    pub(crate) fn mixed(
        topic: String,
        region: Resolve<ask_region>,
        name: Resolve<suggest_name>,
        roots: Resolve<workspace_roots>,
    ) -> String {
        let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
        format!("{topic}: region={} name={} roots={}", region.region, sampled_text(&name), uris.join(","))
    }

    #[mcp::resolver]
    fn ask_owner() -> Elicit<Step> {
        Elicit::new("Who owns it?")
    }

    #[mcp::resolver]
    fn ask_team() -> Elicit<Step> {
        Elicit::new("Which team?")
    }

    #[mcp::resolver]
    fn confirm_handover(owner: Resolve<ask_owner>, team: Resolve<ask_team>) -> Elicit<Confirm> {
        Elicit::new(format!("Hand it to {} of {}?", owner.value, team.value))
    }

    /// A question whose two dependencies are independent of each other.
    #[mcp::tool]
    fn hand_over(owner: Resolve<ask_owner>, confirm: Resolve<confirm_handover>) -> String {
        format!("handed to {}: {}", owner.value, confirm.ok)
    }

    /// What the mixed tool's questions are answered with.
    pub(crate) fn mixed_script() -> Script {
        Script::new()
            .on("Which region?", accept(json!({"region": "eu-west-1"})))
            .on("sample: Suggest a name for orders.", sampled("orders-db"))
            .on("roots/list", roots_answer(&["file:///a", "file:///b"]))
    }

    pub(crate) const MIXED_TEXT: &str = "orders: region=eu-west-1 name=orders-db roots=file:///a,file:///b";

    fn server() -> Server {
        Server::builder("batching", "1.0.0").tool::<place>().tool::<mixed>().tool::<hand_over>().build()
    }

    #[tokio::test]
    async fn two_independent_elicitations_go_out_in_one_input_required_result() {
        let client = memory::connect(&server());
        let first = Leg::new("place", json!({})).result(&client).await;
        assert_eq!(questions(&first), expect_questions(&[(REGION, "Which region?"), (SIZE, "How many GB?")]));

        let run = Driver::new(
            Script::new()
                .on("Which region?", accept(json!({"region": "eu-west-1"})))
                .on("How many GB?", accept(json!({"size_gb": 10}))),
        )
        .run(&client, "place", json!({}))
        .await;
        assert_eq!(run.asked(), [["Which region?", "How many GB?"]]);
        assert_eq!((run.legs, run.answered), (2, 2));
        assert_eq!(run.text(), "10 GB in eu-west-1");
    }

    #[tokio::test]
    async fn elicitation_sampling_and_roots_batch_into_one_round() {
        let client = memory::connect(&server());
        let first = Leg::new("mixed", json!({"topic": "orders"})).result(&client).await;
        assert_eq!(
            questions(&first),
            expect_questions(&[
                (REGION, "Which region?"),
                (NAME, "sample: Suggest a name for orders."),
                (ROOTS, "roots/list"),
            ])
        );
        let requests = &first["inputRequests"];
        assert_eq!(requests[REGION]["method"], "elicitation/create");
        assert_eq!(requests[NAME]["method"], "sampling/createMessage");
        assert_eq!(requests[NAME]["params"]["maxTokens"], 20);
        assert_eq!(requests[ROOTS]["method"], "roots/list");

        let run = Driver::new(mixed_script()).run(&client, "mixed", json!({"topic": "orders"})).await;
        assert_eq!(run.rounds.len(), 1, "{:?}", run.asked());
        assert_eq!(run.text(), MIXED_TEXT);
    }

    #[tokio::test]
    async fn independent_nested_dependencies_batch_into_one_round() {
        let client = memory::connect(&server());
        let run = Driver::new(
            Script::new()
                .on("Who owns it?", accept(json!({"value": "ada"})))
                .on("Which team?", accept(json!({"value": "infra"})))
                .on("Hand it to ada of infra?", accept(json!({"ok": true}))),
        )
        .run(&client, "hand_over", json!({}))
        .await;
        assert_eq!(run.asked(), vec![vec!["Who owns it?", "Which team?"], vec!["Hand it to ada of infra?"]]);
        assert_eq!(run.text(), "handed to ada: true");
    }
}

// ---------------------------------------------------------------------------------------
// Chains: one round per link; earlier answers ride along; bodies re-run, questions don't
// ---------------------------------------------------------------------------------------

mod chains {
    use super::*;

    static LOGIN_RUNS: AtomicUsize = AtomicUsize::new(0);
    static CONFIRM_RUNS: AtomicUsize = AtomicUsize::new(0);
    static SIGN_IN_RUNS: AtomicUsize = AtomicUsize::new(0);

    #[mcp::resolver]
    fn login() -> Elicit<Step> {
        bump(&LOGIN_RUNS);
        Elicit::new("Who are you?")
    }

    #[mcp::resolver]
    fn confirm_login(user: Resolve<login>) -> Elicit<Confirm> {
        bump(&CONFIRM_RUNS);
        Elicit::new(format!("Continue as {}?", user.value))
    }

    /// A question that needs the previous one's answer.
    #[mcp::tool]
    fn sign_in(user: Resolve<login>, confirm: Resolve<confirm_login>) -> String {
        bump(&SIGN_IN_RUNS);
        format!("{} signed in: {}", user.value, confirm.ok)
    }

    static BASE_RUNS: AtomicUsize = AtomicUsize::new(0);
    static LEFT_RUNS: AtomicUsize = AtomicUsize::new(0);
    static RIGHT_RUNS: AtomicUsize = AtomicUsize::new(0);

    #[mcp::resolver]
    fn base() -> Elicit<Step> {
        bump(&BASE_RUNS);
        Elicit::new("Which base?")
    }

    #[mcp::resolver]
    fn left(base: Resolve<base>) -> Elicit<Step> {
        bump(&LEFT_RUNS);
        Elicit::new(format!("Left of {}?", base.value))
    }

    #[mcp::resolver]
    fn right(base: Resolve<base>) -> Elicit<Step> {
        bump(&RIGHT_RUNS);
        Elicit::new(format!("Right of {}?", base.value))
    }

    /// A dependency shared by two resolvers and the tool itself.
    #[mcp::tool]
    fn span(left: Resolve<left>, right: Resolve<right>, base: Resolve<base>) -> String {
        format!("{} | {} | {}", left.value, base.value, right.value)
    }

    static PLAIN_RUNS: AtomicUsize = AtomicUsize::new(0);

    #[mcp::resolver]
    fn plain_base() -> u32 {
        bump(&PLAIN_RUNS);
        7
    }

    #[mcp::resolver]
    fn up(base: Resolve<plain_base>) -> Elicit<Step> {
        Elicit::new(format!("Up from {}?", *base))
    }

    #[mcp::resolver]
    fn down(base: Resolve<plain_base>) -> Elicit<Step> {
        Elicit::new(format!("Down from {}?", *base))
    }

    /// A plain-valued dependency shared by two questions.
    #[mcp::tool]
    fn around(up: Resolve<up>, down: Resolve<down>) -> String {
        format!("up={} down={}", up.value, down.value)
    }

    fn link(n: usize, previous: &Step) -> Elicit<Step> {
        Elicit::new(format!("Step {n} after {}?", previous.value))
    }

    #[mcp::resolver]
    fn c1() -> Elicit<Step> {
        Elicit::new("Step 1?")
    }
    #[mcp::resolver]
    fn c2(previous: Resolve<c1>) -> Elicit<Step> {
        link(2, &previous)
    }
    #[mcp::resolver]
    fn c3(previous: Resolve<c2>) -> Elicit<Step> {
        link(3, &previous)
    }
    #[mcp::resolver]
    fn c4(previous: Resolve<c3>) -> Elicit<Step> {
        link(4, &previous)
    }
    #[mcp::resolver]
    fn c5(previous: Resolve<c4>) -> Elicit<Step> {
        link(5, &previous)
    }
    #[mcp::resolver]
    fn c6(previous: Resolve<c5>) -> Elicit<Step> {
        link(6, &previous)
    }
    #[mcp::resolver]
    fn c7(previous: Resolve<c6>) -> Elicit<Step> {
        link(7, &previous)
    }
    #[mcp::resolver]
    fn c8(previous: Resolve<c7>) -> Elicit<Step> {
        link(8, &previous)
    }
    #[mcp::resolver]
    fn c9(previous: Resolve<c8>) -> Elicit<Step> {
        link(9, &previous)
    }
    #[mcp::resolver]
    fn c10(previous: Resolve<c9>) -> Elicit<Step> {
        link(10, &previous)
    }
    #[mcp::resolver]
    fn c11(previous: Resolve<c10>) -> Elicit<Step> {
        link(11, &previous)
    }

    /// A chain of four questions.
    #[mcp::tool]
    fn four_links(first: Resolve<c1>, last: Resolve<c4>) -> String {
        format!("first={} last={}", first.value, last.value)
    }

    /// A chain of eleven questions.
    #[mcp::tool]
    fn eleven_links(last: Resolve<c11>) -> String {
        format!("last={}", last.value)
    }

    /// Answers link n with `sn`.
    fn chain_script(links: usize) -> Script {
        let mut script = Script::new().on("Step 1?", accept(json!({"value": "s1"})));
        for n in 2..=links {
            script = script.on(format!("Step {n} after s{}?", n - 1), accept(json!({"value": format!("s{n}")})));
        }
        script
    }

    fn builder(name: &str) -> mcp::server::ServerBuilder {
        Server::builder(name, "1.0.0")
            .tool::<sign_in>()
            .tool::<span>()
            .tool::<around>()
            .tool::<four_links>()
            .tool::<eleven_links>()
    }

    fn server() -> Server {
        builder("chains").build()
    }

    /// The same tools with plaintext `requestState`, to read the engine's progress.
    fn plain_server() -> Server {
        builder("chains-plain").without_request_state_security().build()
    }

    #[tokio::test]
    async fn a_dependent_question_goes_out_in_the_next_round_and_each_question_is_asked_once() {
        let client = memory::connect(&server());
        let run = Driver::new(
            Script::new()
                .on("Who are you?", accept(json!({"value": "ada"})))
                .on("Continue as ada?", accept(json!({"ok": true}))),
        )
        .run(&client, "sign_in", json!({}))
        .await;
        assert_eq!(run.asked(), vec![vec!["Who are you?"], vec!["Continue as ada?"]]);
        assert_eq!(run.all_asked().len(), 2, "each question is asked exactly once");
        assert_eq!(run.legs, 3);
        assert_eq!(run.text(), "ada signed in: true");
        // Bodies re-run on every round; what they ask is only sent once. Round 1: `login`
        // runs and asks, `confirm_login` waits for it (not run). Round 2: `login` re-runs
        // and takes the fresh answer, `confirm_login` runs and asks. Round 3: `login`
        // re-runs (answer from the state), `confirm_login` re-runs and takes its fresh
        // answer, and the tool body runs once. The reference SDK reports the same 3 and 2.
        assert_eq!(runs(&LOGIN_RUNS), 3, "login");
        assert_eq!(runs(&CONFIRM_RUNS), 2, "confirm_login");
        assert_eq!(runs(&SIGN_IN_RUNS), 1, "the tool body");
    }

    #[tokio::test]
    async fn a_deep_chain_keeps_earlier_answers_across_rounds() {
        let client = memory::connect(&plain_server());
        let run = Driver::new(chain_script(4)).run(&client, "four_links", json!({})).await;
        assert_eq!(
            run.asked(),
            vec![vec!["Step 1?"], vec!["Step 2 after s1?"], vec!["Step 3 after s2?"], vec!["Step 4 after s3?"]]
        );
        assert_eq!(run.text(), "first=s1 last=s4");

        // Round n's state records the answers to links 1..n-1 and asks link n; an answer,
        // once recorded, is carried forward unchanged.
        let key = |n: usize| format!("resolvers::chains::c{n}");
        let mut first_seen: BTreeMap<String, Value> = BTreeMap::new();
        for (round, asked) in run.rounds.iter().enumerate() {
            let state = decode_state(&asked.state);
            assert_eq!(state["v"], 1, "{state}");
            assert_eq!(keys_of(&state["asked"]), [key(round + 1)], "round {}: {state}", round + 1);
            let mut recorded: Vec<String> = (1..=round).map(key).collect();
            recorded.sort();
            assert_eq!(keys_of(&state["outcomes"]), recorded, "round {}: {state}", round + 1);
            for k in recorded {
                let entry = state["outcomes"][&k].clone();
                assert_eq!(entry["action"], "accept", "{entry}");
                let before = first_seen.entry(k.clone()).or_insert_with(|| entry.clone());
                assert_eq!(before, &entry, "{k} changed between rounds");
            }
        }
        assert_eq!(first_seen[&key(1)]["data"], json!({"value": "s1"}), "the raw accepted content is kept");
    }

    #[tokio::test]
    async fn a_shared_dependency_runs_once_per_round_whatever_the_number_of_consumers() {
        let client = memory::connect(&server());
        let run = Driver::new(
            Script::new()
                .on("Which base?", accept(json!({"value": "b"})))
                .on("Left of b?", accept(json!({"value": "l"})))
                .on("Right of b?", accept(json!({"value": "r"}))),
        )
        .run(&client, "span", json!({}))
        .await;
        assert_eq!(run.asked(), vec![vec!["Which base?"], vec!["Left of b?", "Right of b?"]]);
        assert_eq!(run.text(), "l | b | r");
        // Three rounds, three consumers of `base` (left, right, the tool): one run a round.
        assert_eq!(runs(&BASE_RUNS), 3, "base");
        assert_eq!((runs(&LEFT_RUNS), runs(&RIGHT_RUNS)), (2, 2), "left and right run in rounds 2 and 3");
    }

    #[tokio::test]
    async fn a_plain_shared_value_is_computed_once_per_round_and_never_persisted() {
        let client = memory::connect(&plain_server());
        let run = Driver::new(
            Script::new()
                .on("Up from 7?", accept(json!({"value": "u"})))
                .on("Down from 7?", accept(json!({"value": "d"}))),
        )
        .run(&client, "around", json!({}))
        .await;
        // Keys sort `down` before `up`.
        assert_eq!(run.asked(), [["Down from 7?", "Up from 7?"]]);
        assert_eq!(run.text(), "up=u down=d");
        assert_eq!(runs(&PLAIN_RUNS), 2, "once in each of the two rounds");
        let state = decode_state(&run.rounds[0].state);
        assert!(state["outcomes"].get("resolvers::chains::plain_base").is_none(), "{state}");
    }

    #[tokio::test]
    async fn a_chain_longer_than_the_round_budget_makes_the_driver_give_up() {
        let client = memory::connect(&server());
        let expected: Vec<String> = std::iter::once("Step 1?".to_owned())
            .chain((2..=11).map(|n| format!("Step {n} after s{}?", n - 1)))
            .collect();

        let run = Driver::new(chain_script(11)).budget(10).run(&client, "eleven_links", json!({})).await;
        assert!(matches!(run.end, End::GaveUp), "{:?}", run.end);
        assert_eq!(run.answered, 10, "the user was asked exactly ten times");
        assert_eq!(run.legs, 11);
        assert_eq!(run.all_asked(), expected, "one question per round, the eleventh left unanswered");

        let run = Driver::new(chain_script(11)).budget(11).run(&client, "eleven_links", json!({})).await;
        assert_eq!((run.answered, run.legs), (11, 12));
        assert_eq!(run.text(), "last=s11");
    }
}

// ---------------------------------------------------------------------------------------
// Pinning: an answer counts only for the exact question, asked with the state that asked it
// ---------------------------------------------------------------------------------------

mod pinning {
    use super::*;

    const REGION: &str = "resolvers::pinning::region_for";
    const SIZE: &str = "resolvers::pinning::any_size";

    #[mcp::resolver]
    fn region_for(name: &str) -> Elicit<Region> {
        Elicit::new(format!("Which region for {name}?"))
    }

    #[mcp::resolver]
    fn any_size() -> Elicit<Size> {
        Elicit::new("How many GB?")
    }

    /// A question worded from an argument, and one that is not.
    #[mcp::tool]
    fn place_named(name: String, region: Resolve<region_for>, size: Resolve<any_size>) -> String {
        format!("{name}: {} GB in {}", size.size_gb, region.region)
    }

    fn builder(name: &str) -> mcp::server::ServerBuilder {
        Server::builder(name, "1.0.0").tool::<place_named>()
    }

    fn plain_server() -> Server {
        builder("pinning-plain").without_request_state_security().build()
    }

    fn both_answers() -> Value {
        json!({REGION: accept(json!({"region": "eu-west-1"})), SIZE: accept(json!({"size_gb": 10}))})
    }

    #[tokio::test]
    async fn an_answer_without_the_echoed_state_is_asked_again_not_consumed() {
        for server in [builder("pinning-sealed").build(), plain_server()] {
            let client = memory::connect(&server);
            let first = Leg::new("place_named", json!({"name": "a"})).result(&client).await;
            let asked = questions(&first);
            assert_eq!(asked.len(), 2);
            let again = Leg::new("place_named", json!({"name": "a"})).answers(both_answers()).result(&client).await;
            assert_eq!(questions(&again), asked, "{}: both questions are asked again", server.info().name);
        }
        // And nothing was recorded from the stray answers.
        let client = memory::connect(&plain_server());
        let again = Leg::new("place_named", json!({"name": "a"})).answers(both_answers()).result(&client).await;
        assert_eq!(decode_state(&state_of(&again))["outcomes"], json!({}));
    }

    #[tokio::test]
    async fn a_reworded_question_is_asked_again_and_a_siblings_answer_survives() {
        // Without sealing the arguments are not bound to the state, so a retry can change
        // the argument the region question is worded from.
        let client = memory::connect(&plain_server());
        let first = Leg::new("place_named", json!({"name": "a"})).result(&client).await;
        assert_eq!(questions(&first), expect_questions(&[(REGION, "Which region for a?"), (SIZE, "How many GB?")]));

        let second = Leg::new("place_named", json!({"name": "b"}))
            .answers(both_answers())
            .state(&state_of(&first))
            .result(&client)
            .await;
        assert_eq!(questions(&second), expect_questions(&[(REGION, "Which region for b?")]), "no failure: re-asked");
        let state = decode_state(&state_of(&second));
        assert_eq!(keys_of(&state["outcomes"]), [SIZE], "the size answer was taken: {state}");
        assert_eq!(keys_of(&state["asked"]), [REGION], "{state}");

        let done = Leg::new("place_named", json!({"name": "b"}))
            .answers(json!({REGION: accept(json!({"region": "us-east-2"}))}))
            .state(&state_of(&second))
            .result(&client)
            .await;
        assert_eq!(complete_text(&done), "b: 10 GB in us-east-2");
    }

    #[tokio::test]
    async fn a_recorded_outcome_pinned_to_another_question_is_dropped_and_the_question_asked() {
        let client = memory::connect(&plain_server());
        let first = Leg::new("place_named", json!({"name": "a"})).result(&client).await;
        let asked = decode_state(&state_of(&first))["asked"].clone();
        let size_q = asked[SIZE].clone();
        let size_entry = json!({"action": "accept", "data": {"size_gb": 10}, "q": size_q});
        let stale = "AAAAAAAAAAAAAAAAAAAAAA";
        for (what, region_entry) in [
            ("an accept for another wording", json!({"action": "accept", "data": {"region": "x"}, "q": stale})),
            ("a decline of another wording", json!({"action": "decline", "q": stale})),
            ("a cancel of another wording", json!({"action": "cancel", "q": stale})),
            ("an entry without a digest", json!({"action": "accept", "data": {"region": "x"}})),
        ] {
            let state = json!({"v": 1, "outcomes": {REGION: region_entry, SIZE: size_entry}, "asked": {}});
            let result = Leg::new("place_named", json!({"name": "a"})).state(&state.to_string()).result(&client).await;
            assert_eq!(questions(&result), expect_questions(&[(REGION, "Which region for a?")]), "{what}");
            let next = decode_state(&state_of(&result));
            assert_eq!(next["outcomes"], json!({SIZE: size_entry}), "{what}: only the sibling is carried");
        }
    }

    #[tokio::test]
    async fn a_recorded_outcome_pinned_to_the_current_question_completes_without_asking() {
        let client = memory::connect(&plain_server());
        let first = Leg::new("place_named", json!({"name": "a"})).result(&client).await;
        let asked = decode_state(&state_of(&first))["asked"].clone();
        let state = json!({"v": 1, "asked": {}, "outcomes": {
            REGION: {"action": "accept", "data": {"region": "ap-south-1"}, "q": asked[REGION]},
            SIZE: {"action": "accept", "data": {"size_gb": 3}, "q": asked[SIZE]},
        }});
        let done = Leg::new("place_named", json!({"name": "a"})).state(&state.to_string()).result(&client).await;
        assert_eq!(complete_text(&done), "a: 3 GB in ap-south-1");
    }
}

// ---------------------------------------------------------------------------------------
// Decline and cancel
// ---------------------------------------------------------------------------------------

mod refusals {
    use super::*;

    /// Runs of `strict`'s body. The legacy module also calls `strict`, but only to refuse,
    /// which never runs the body, so this stays 0 until the accepting call in the test below.
    static STRICT_RUNS: AtomicUsize = AtomicUsize::new(0);

    #[mcp::resolver]
    pub(crate) fn ask_go() -> Elicit<Confirm> {
        Elicit::new("Go ahead?")
    }

    /// Needs the value: a refusal fails the call.
    #[mcp::tool]
    pub(crate) fn strict(go: Resolve<ask_go>) -> String {
        bump(&STRICT_RUNS);
        format!("go={}", go.ok)
    }

    /// Takes the outcome: handles a refusal itself.
    #[mcp::tool]
    pub(crate) fn lenient(go: Resolve<ask_go, Refusable>) -> String {
        match &*go {
            Answer::Accept(c) => format!("accepted go={}", c.ok),
            Answer::Decline => "declined".to_owned(),
            Answer::Cancel => "cancelled".to_owned(),
        }
    }

    #[mcp::resolver]
    fn why_go(go: Resolve<ask_go>) -> Elicit<Step> {
        Elicit::new(format!("Why {}?", go.ok))
    }

    /// A resolver that needs a refused value.
    #[mcp::tool]
    fn nested_strict(why: Resolve<why_go>) -> String {
        why.value.clone()
    }

    const START: &str = "resolvers::refusals::start";

    #[mcp::resolver]
    fn start() -> Elicit<Confirm> {
        Elicit::new("Start?")
    }

    #[mcp::resolver]
    fn next_step(start: Resolve<start, Refusable>) -> Elicit<Step> {
        Elicit::new(format!("Next, after {}?", start.action()))
    }

    /// A refusal a later question builds on.
    #[mcp::tool]
    fn two_steps(start: Resolve<start, Refusable>, next: Resolve<next_step>) -> String {
        format!("start={} next={}", start.action(), next.value)
    }

    fn builder(name: &str) -> mcp::server::ServerBuilder {
        Server::builder(name, "1.0.0").tool::<strict>().tool::<lenient>().tool::<nested_strict>().tool::<two_steps>()
    }

    fn server() -> Server {
        builder("refusals").build()
    }

    /// Answers "Go ahead?" with `answer`.
    pub(crate) fn go_script(answer: Value) -> Script {
        Script::new().on("Go ahead?", answer).on("Why true?", accept(json!({"value": "because"})))
    }

    #[tokio::test]
    async fn a_refusal_fails_a_value_consumer_with_an_error_result_naming_the_parameter() {
        let client = memory::connect(&server());
        for (answer, refused) in [(decline(), "declined"), (cancel(), "cancelled")] {
            let run = Driver::new(go_script(answer)).run(&client, "strict", json!({})).await;
            assert_eq!(run.asked(), [["Go ahead?"]]);
            let text = tool_error_text(run.result());
            assert_eq!(text, format!("Resolver for parameter 'go' could not resolve: the elicitation was {refused}"));
            assert!(text.contains("parameter 'go'"), "{text}");
        }
        assert_eq!(runs(&STRICT_RUNS), 0, "the tool body never ran");
        let run = Driver::new(go_script(accept(json!({"ok": true})))).run(&client, "strict", json!({})).await;
        assert_eq!(run.text(), "go=true");
    }

    #[tokio::test]
    async fn a_refusal_a_resolver_needs_fails_the_call_naming_that_resolvers_parameter() {
        let client = memory::connect(&server());
        let run = Driver::new(go_script(decline())).run(&client, "nested_strict", json!({})).await;
        assert_eq!(
            tool_error_text(run.result()),
            "Resolver for parameter 'go' could not resolve: the elicitation was declined"
        );
        let run = Driver::new(go_script(accept(json!({"ok": true})))).run(&client, "nested_strict", json!({})).await;
        assert_eq!(run.text(), "because");
    }

    #[tokio::test]
    async fn an_outcome_consumer_receives_accept_decline_and_cancel() {
        let client = memory::connect(&server());
        for (answer, expected) in
            [(accept(json!({"ok": false})), "accepted go=false"), (decline(), "declined"), (cancel(), "cancelled")]
        {
            let run = Driver::new(go_script(answer)).run(&client, "lenient", json!({})).await;
            assert_eq!(run.text(), expected);
        }
    }

    #[tokio::test]
    async fn a_refusal_is_recorded_in_the_state_and_not_asked_again() {
        let client = memory::connect(&builder("refusals-plain").without_request_state_security().build());
        for (answer, action) in [(decline(), "decline"), (cancel(), "cancel")] {
            let next_label = format!("Next, after {action}?");
            let run = Driver::new(Script::new().on("Start?", answer).on(&next_label, accept(json!({"value": "n"}))))
                .run(&client, "two_steps", json!({}))
                .await;
            assert_eq!(run.asked(), vec![vec!["Start?".to_owned()], vec![next_label.clone()]]);
            assert_eq!(run.text(), format!("start={action} next=n"));
            let asked_start = decode_state(&run.rounds[0].state)["asked"][START].clone();
            let recorded = decode_state(&run.rounds[1].state)["outcomes"][START].clone();
            assert_eq!(recorded, json!({"action": action, "q": asked_start}), "no data, pinned to the question");
        }
    }
}

// ---------------------------------------------------------------------------------------
// The capability gate: a question the client cannot answer refuses the call (-32021)
// ---------------------------------------------------------------------------------------

mod capabilities {
    use super::*;
    use mcp::protocol::{CreateMessageParams, Tool};

    #[mcp::resolver]
    fn ask_note() -> Elicit<Step> {
        Elicit::new("Any notes?")
    }

    #[mcp::resolver]
    fn ask_model() -> Sample {
        Sample::user("Say hi.", 5)
    }

    #[mcp::resolver]
    fn ask_model_with_tools() -> Sample {
        let mut params = CreateMessageParams::user_text("Use a tool.", 5);
        params.tools = Some(vec![Tool::new("lookup", "Look something up.", json!({"type": "object"}))]);
        Sample::new(params)
    }

    #[mcp::resolver]
    fn ask_roots() -> ListRoots {
        ListRoots::new()
    }

    /// Elicits.
    #[mcp::tool]
    fn needs_elicitation(note: Resolve<ask_note>) -> String {
        note.value.clone()
    }

    /// Samples.
    #[mcp::tool]
    fn needs_sampling(reply: Resolve<ask_model>) -> String {
        sampled_text(&reply)
    }

    /// Samples with tools.
    #[mcp::tool]
    fn needs_sampling_tools(reply: Resolve<ask_model_with_tools>) -> String {
        let blocks: Vec<String> = reply
            .content
            .as_slice()
            .iter()
            .map(|block| match block {
                SamplingContent::Text(t) => format!("text {}", t.text),
                SamplingContent::ToolUse(u) => format!("tool_use {}", u.name),
                _ => "other".to_owned(),
            })
            .collect();
        format!("{} (stop: {})", blocks.join(", "), reply.stop_reason.as_deref().unwrap_or("none"))
    }

    /// Lists roots.
    #[mcp::tool]
    fn needs_roots(roots: Resolve<ask_roots>) -> String {
        roots.roots.len().to_string()
    }

    fn server() -> Server {
        Server::builder("capabilities", "1.0.0")
            .tool::<needs_elicitation>()
            .tool::<needs_sampling>()
            .tool::<needs_sampling_tools>()
            .tool::<needs_roots>()
            .build()
    }

    /// (tool, its resolver's key, what it requires)
    fn cases() -> [(&'static str, &'static str, Value); 4] {
        [
            ("needs_elicitation", "resolvers::capabilities::ask_note", json!({"elicitation": {"form": {}}})),
            ("needs_sampling", "resolvers::capabilities::ask_model", json!({"sampling": {}})),
            (
                "needs_sampling_tools",
                "resolvers::capabilities::ask_model_with_tools",
                json!({"sampling": {"tools": {}}}),
            ),
            ("needs_roots", "resolvers::capabilities::ask_roots", json!({"roots": {}})),
        ]
    }

    #[track_caller]
    fn assert_refused(error: &ErrorObject, key: &str, required: &Value) {
        assert_eq!(error.code, -32021, "{error:?}");
        assert_eq!(error.data, Some(json!({"requiredCapabilities": required})), "{error:?}");
        assert!(error.message.contains(&format!("resolver '{key}'")), "{}", error.message);
    }

    #[tokio::test]
    async fn a_modern_request_lacking_the_capability_is_refused_with_minus_32021() {
        let client = memory::connect(&server());
        for (tool, key, required) in cases() {
            let error = Leg::new(tool, json!({})).capabilities(json!({})).error(&client).await;
            assert_refused(&error, key, &required);
        }
        // Near misses: URL-only elicitation, sampling without tools for a tools question.
        let error = Leg::new("needs_elicitation", json!({}))
            .capabilities(json!({"elicitation": {"url": {}}}))
            .error(&client)
            .await;
        assert_refused(&error, "resolvers::capabilities::ask_note", &json!({"elicitation": {"form": {}}}));
        let error =
            Leg::new("needs_sampling_tools", json!({})).capabilities(json!({"sampling": {}})).error(&client).await;
        assert_refused(&error, "resolvers::capabilities::ask_model_with_tools", &json!({"sampling": {"tools": {}}}));

        // With the capability, the same calls ask.
        for (tool, caps) in [
            ("needs_elicitation", json!({"elicitation": {"form": {}}})),
            ("needs_sampling", json!({"sampling": {}})),
            ("needs_sampling_tools", json!({"sampling": {"tools": {}}})),
            ("needs_roots", json!({"roots": {}})),
        ] {
            let result = Leg::new(tool, json!({})).capabilities(caps).result(&client).await;
            assert_eq!(questions(&result).len(), 1, "{tool}: {result}");
        }
    }

    #[tokio::test]
    async fn sampling_with_tools_round_trips_with_the_declared_sub_capability() {
        let client = memory::connect(&server());
        let first = Leg::new("needs_sampling_tools", json!({}))
            .capabilities(json!({"sampling": {"tools": {}}}))
            .result(&client)
            .await;
        let request = &first["inputRequests"]["resolvers::capabilities::ask_model_with_tools"];
        assert_eq!(request["params"]["tools"][0]["name"], "lookup", "{first}");

        let tool_use = json!({"role": "assistant", "model": "test-model", "stopReason": "toolUse",
            "content": [{"type": "tool_use", "id": "call-1", "name": "lookup", "input": {"q": "x"}}]});
        for (answer, expected) in [
            (sampled("no tool needed"), "text no tool needed (stop: none)"),
            (tool_use, "tool_use lookup (stop: toolUse)"),
        ] {
            let run = Driver::new(Script::new().on("sample: Use a tool.", answer))
                .capabilities(json!({"sampling": {"tools": {}}}))
                .run(&client, "needs_sampling_tools", json!({}))
                .await;
            assert_eq!(run.text(), expected);
        }
    }

    #[tokio::test]
    async fn a_legacy_session_lacking_the_capability_is_refused_with_minus_32021() {
        let server = server();
        let client = legacy_client(&server, json!({})).await;
        for (tool, key, required) in cases() {
            let (outcome, asked) = legacy_call(&client, tool, json!({}), &Script::new()).await;
            let error = outcome.expect_err("refused");
            assert_refused(&error, key, &required);
            assert!(asked.is_empty(), "nothing was sent to the client: {asked:?}");
        }
        let client = legacy_client(&server, json!({"sampling": {}})).await;
        let (outcome, _) = legacy_call(&client, "needs_sampling_tools", json!({}), &Script::new()).await;
        assert_refused(
            &outcome.expect_err("refused"),
            "resolvers::capabilities::ask_model_with_tools",
            &json!({"sampling": {"tools": {}}}),
        );
    }
}

// ---------------------------------------------------------------------------------------
// Answers that do not fit their question
// ---------------------------------------------------------------------------------------

mod bad_answers {
    use super::*;

    pub(crate) const ORDER: &str = "resolvers::bad_answers::ask_order";
    const TITLE: &str = "resolvers::bad_answers::ask_title";
    const ROOTS: &str = "resolvers::bad_answers::ask_roots";

    #[mcp::resolver]
    pub(crate) fn ask_order() -> Elicit<Order> {
        Elicit::new("How many, and which tier?")
    }

    /// Order something.
    #[mcp::tool]
    pub(crate) fn order(order: Resolve<ask_order>) -> String {
        format!("{} x {:?}", order.count, order.tier)
    }

    #[mcp::resolver]
    fn ask_title() -> Sample {
        Sample::user("Name it.", 5)
    }

    /// Name something.
    #[mcp::tool]
    fn title(title: Resolve<ask_title>) -> String {
        sampled_text(&title)
    }

    #[mcp::resolver]
    fn ask_roots() -> ListRoots {
        ListRoots::new()
    }

    /// Count the roots.
    #[mcp::tool]
    fn count_roots(roots: Resolve<ask_roots>) -> String {
        roots.roots.len().to_string()
    }

    fn server() -> Server {
        Server::builder("bad-answers", "1.0.0").tool::<order>().tool::<title>().tool::<count_roots>().build()
    }

    /// Ask `tool` once, then answer its one question (under `key`) with `answer`.
    async fn answer_once(client: &RawClient, tool: &str, key: &str, answer: Value) -> Value {
        let first = Leg::new(tool, json!({})).result(client).await;
        assert_eq!(keys_of(&first["inputRequests"]), [key], "{first}");
        Leg::new(tool, json!({})).answers(json!({key: answer})).state(&state_of(&first)).result(client).await
    }

    /// Content that does not fit the `Order` form.
    pub(crate) fn misfits() -> Vec<(&'static str, Value)> {
        vec![
            ("a string for an integer", json!({"count": "3", "tier": "small"})),
            ("a missing required field", json!({"tier": "small"})),
            ("a null required field", json!({"count": null, "tier": "small"})),
            ("an integer above the maximum", json!({"count": 300, "tier": "small"})),
            ("a negative integer for u8", json!({"count": -1, "tier": "small"})),
            ("a fraction for an integer", json!({"count": 1.5, "tier": "small"})),
            ("a value outside the enum", json!({"count": 3, "tier": "medium"})),
            ("a number for the enum", json!({"count": 3, "tier": 1})),
        ]
    }

    /// What the schema check says, and nothing from the deserializer.
    #[track_caller]
    pub(crate) fn assert_schema_mismatch(text: &str, what: &str) {
        assert_eq!(
            text,
            format!("Resolver '{ORDER}' received an elicitation whose content does not match the requested schema"),
            "{what}"
        );
        for leak in ["invalid type", "invalid value", "missing field", "unknown variant", "expected", "line", "column"]
        {
            assert!(!text.contains(leak), "{what}: {text}");
        }
    }

    #[tokio::test]
    async fn accepted_content_failing_the_form_schema_fails_the_call_without_leaking_serde() {
        let client = memory::connect(&server());
        for (what, content) in misfits() {
            let result = answer_once(&client, "order", ORDER, accept(content)).await;
            assert_schema_mismatch(&tool_error_text(&result), what);
        }
        // Unknown fields are not a mismatch.
        let result =
            answer_once(&client, "order", ORDER, accept(json!({"count": 2, "tier": "large", "extra": [1]}))).await;
        assert_eq!(complete_text(&result), "2 x Large");
    }

    #[tokio::test]
    async fn an_accept_without_content_is_an_error_not_a_cancel() {
        let client = memory::connect(&server());
        let result = answer_once(&client, "order", ORDER, json!({"action": "accept"})).await;
        assert_eq!(
            tool_error_text(&result),
            format!("Resolver '{ORDER}' received an accepted elicitation with no content")
        );
    }

    #[tokio::test]
    async fn an_answer_of_the_wrong_kind_is_an_error() {
        let client = memory::connect(&server());
        let result = answer_once(&client, "order", ORDER, roots_answer(&["file:///a"])).await;
        assert_eq!(tool_error_text(&result), format!("Resolver '{ORDER}' received a non-elicitation response"));
        let result = answer_once(&client, "title", TITLE, accept(json!({"value": "x"}))).await;
        assert_eq!(tool_error_text(&result), format!("Resolver '{TITLE}' received a response of the wrong kind"));
        let result = answer_once(&client, "count_roots", ROOTS, sampled("x")).await;
        assert_eq!(tool_error_text(&result), format!("Resolver '{ROOTS}' received a response of the wrong kind"));
        // The right kinds complete.
        let result = answer_once(&client, "title", TITLE, sampled("Atlas")).await;
        assert_eq!(complete_text(&result), "Atlas");
        let result = answer_once(&client, "count_roots", ROOTS, roots_answer(&["file:///a", "file:///b"])).await;
        assert_eq!(complete_text(&result), "2");
    }
}

// ---------------------------------------------------------------------------------------
// Adversarial state: what a server without sealing does with state it did not write
// ---------------------------------------------------------------------------------------

mod adversarial_state {
    use super::*;

    const REGION: &str = "resolvers::adversarial_state::ask_region";
    const OWNER: &str = "resolvers::adversarial_state::ask_owner";
    const REASON: &str = "resolvers::adversarial_state::ask_reason";
    const CONFIRM: &str = "resolvers::adversarial_state::auto_confirm";
    const QUOTA: &str = "resolvers::adversarial_state::quota";
    const TITLE: &str = "resolvers::adversarial_state::ask_title";

    #[mcp::resolver]
    fn ask_region() -> Elicit<Region> {
        Elicit::new("Which region?")
    }

    /// One question.
    #[mcp::tool]
    fn provision(region: Resolve<ask_region>) -> String {
        format!("in {}", region.region)
    }

    #[mcp::resolver]
    fn ask_owner() -> Elicit<Step> {
        Elicit::new("Who owns it?")
    }

    #[mcp::resolver]
    fn ask_reason(owner: Resolve<ask_owner>) -> Elicit<Step> {
        Elicit::new(format!("Why does {} need it?", owner.value))
    }

    /// Two chained questions.
    #[mcp::tool]
    fn request_access(owner: Resolve<ask_owner>, reason: Resolve<ask_reason>) -> String {
        format!("{}: {}", owner.value, reason.value)
    }

    /// Asks only for big sizes.
    #[mcp::resolver]
    fn auto_confirm(size_gb: u32) -> Elicit<Confirm> {
        if size_gb < 100 {
            return Elicit::answered(Confirm { ok: true });
        }
        Elicit::new(format!("Really {size_gb} GB?"))
    }

    #[mcp::resolver]
    fn quota() -> u64 {
        100
    }

    /// A question that is sometimes not asked, and a plain value.
    #[mcp::tool]
    fn reserve(size_gb: u32, confirm: Resolve<auto_confirm, Refusable>, quota: Resolve<quota>) -> String {
        let ok = confirm.accepted().map(|c| c.ok);
        format!("{size_gb} GB: {} ok={ok:?} quota={}", confirm.action(), *quota)
    }

    #[mcp::resolver]
    fn ask_title(topic: &str) -> Sample {
        Sample::user(format!("Title for {topic}?"), 5)
    }

    /// A sampling question.
    #[mcp::tool]
    fn title(topic: String, title: Resolve<ask_title>) -> String {
        format!("{topic}: {}", sampled_text(&title))
    }

    fn server() -> Server {
        Server::builder("adversarial-state", "1.0.0")
            .tool::<provision>()
            .tool::<request_access>()
            .tool::<reserve>()
            .tool::<title>()
            .without_request_state_security()
            .build()
    }

    /// The digest the server pins `key`'s first-round question to.
    async fn digest(client: &RawClient, tool: &str, arguments: Value, key: &str) -> Value {
        let first = Leg::new(tool, arguments).result(client).await;
        let digest = decode_state(&state_of(&first))["asked"][key].clone();
        assert!(digest.is_string(), "{first}");
        digest
    }

    #[tokio::test]
    async fn unknown_response_keys_and_ghost_state_entries_are_ignored_and_not_carried_forward() {
        let client = memory::connect(&server());
        let first = Leg::new("request_access", json!({})).result(&client).await;
        let mut state = decode_state(&state_of(&first));
        state["outcomes"]["ghost::accepted"] = json!({"action": "accept", "data": {"value": "boo"}, "q": "x"});
        state["outcomes"]["ghost::declined"] = json!({"action": "decline", "q": "y"});
        state["asked"]["ghost::asked"] = json!("z");

        let second = Leg::new("request_access", json!({}))
            .answers(json!({OWNER: accept(json!({"value": "ada"})), "nobody::asked": accept(json!({"value": "?"}))}))
            .state(&state.to_string())
            .result(&client)
            .await;
        assert_eq!(questions(&second), expect_questions(&[(REASON, "Why does ada need it?")]));
        let next = decode_state(&state_of(&second));
        assert_eq!(keys_of(&next["outcomes"]), [OWNER], "{next}");
        assert_eq!(keys_of(&next["asked"]), [REASON], "{next}");

        let done = Leg::new("request_access", json!({}))
            .answers(json!({REASON: accept(json!({"value": "audit"})), "ghost::accepted": accept(json!({}))}))
            .state(&state_of(&second))
            .result(&client)
            .await;
        assert_eq!(complete_text(&done), "ada: audit");
    }

    #[tokio::test]
    async fn a_forged_entry_failing_the_schema_is_asked_again_not_an_error() {
        let client = memory::connect(&server());
        let q = digest(&client, "provision", json!({}), REGION).await;
        for data in [json!({"region": 5}), json!({}), json!("eu-west-1"), json!([1])] {
            let state = json!({"v": 1, "outcomes": {REGION: {"action": "accept", "data": data, "q": q}}, "asked": {}});
            let result = Leg::new("provision", json!({})).state(&state.to_string()).result(&client).await;
            assert_eq!(questions(&result), expect_questions(&[(REGION, "Which region?")]), "{data}");
            assert_eq!(decode_state(&state_of(&result))["outcomes"], json!({}), "{data}: dropped");
        }
        // A fitting one with the right digest is used as recorded.
        let state = json!({"v": 1, "outcomes": {REGION: {"action": "accept", "data": {"region": "eu"}, "q": q}}});
        let done = Leg::new("provision", json!({})).state(&state.to_string()).result(&client).await;
        assert_eq!(complete_text(&done), "in eu");
    }

    #[tokio::test]
    async fn a_decline_entry_for_a_sampling_question_is_asked_again() {
        let client = memory::connect(&server());
        let args = json!({"topic": "maps"});
        let q = digest(&client, "title", args.clone(), TITLE).await;
        for entry in [json!({"action": "decline", "q": q}), json!({"action": "cancel", "q": q})] {
            let state = json!({"v": 1, "outcomes": {TITLE: entry}});
            let result = Leg::new("title", args.clone()).state(&state.to_string()).result(&client).await;
            assert_eq!(questions(&result), expect_questions(&[(TITLE, "sample: Title for maps?")]), "{entry}");
        }
        // A recorded sampling result with the right digest is restored.
        let state = json!({"v": 1, "outcomes": {TITLE: {"action": "accept", "data": sampled("Atlas"), "q": q}}});
        let done = Leg::new("title", args).state(&state.to_string()).result(&client).await;
        assert_eq!(complete_text(&done), "maps: Atlas");
    }

    #[tokio::test]
    async fn a_state_entry_never_replaces_a_value_computed_without_asking() {
        let client = memory::connect(&server());
        // The digest of the question `auto_confirm` asks for 500 GB.
        let q = digest(&client, "reserve", json!({"size_gb": 500}), CONFIRM).await;
        let forged = json!({"v": 1, "outcomes": {
            CONFIRM: {"action": "accept", "data": {"ok": false}, "q": q},
            QUOTA: {"action": "accept", "data": 1, "q": q},
        }});
        // For 50 GB the resolver answers itself: the entry is never consulted.
        let small = Leg::new("reserve", json!({"size_gb": 50})).state(&forged.to_string()).result(&client).await;
        assert_eq!(complete_text(&small), "50 GB: accept ok=Some(true) quota=100");
        // For 500 GB it asks, and the entry pinned to that very question answers it.
        let big = Leg::new("reserve", json!({"size_gb": 500})).state(&forged.to_string()).result(&client).await;
        assert_eq!(complete_text(&big), "500 GB: accept ok=Some(false) quota=100");

        let declines = json!({"v": 1, "outcomes": {
            CONFIRM: {"action": "decline", "q": "x"},
            QUOTA: {"action": "decline", "q": "x"},
        }});
        let small = Leg::new("reserve", json!({"size_gb": 50})).state(&declines.to_string()).result(&client).await;
        assert_eq!(complete_text(&small), "50 GB: accept ok=Some(true) quota=100");
    }

    #[tokio::test]
    async fn malformed_inner_state_is_no_progress_not_an_error() {
        let client = memory::connect(&server());
        let q = digest(&client, "provision", json!({}), REGION).await;
        let good_entry = json!({"action": "accept", "data": {"region": "eu"}, "q": q});
        let answer = json!({REGION: accept(json!({"region": "eu"}))});
        for state in [
            "not json".to_owned(),
            String::new(),
            "[]".to_owned(),
            "null".to_owned(),
            json!({"v": 2, "outcomes": {REGION: good_entry}, "asked": {REGION: q}}).to_string(),
            json!({"v": "1", "outcomes": {REGION: good_entry}, "asked": {REGION: q}}).to_string(),
            json!({"outcomes": {REGION: good_entry}, "asked": {REGION: q}}).to_string(),
        ] {
            // Neither the recorded entry nor the fresh answer counts: the question is asked again.
            let result = Leg::new("provision", json!({})).answers(answer.clone()).state(&state).result(&client).await;
            assert_eq!(questions(&result), expect_questions(&[(REGION, "Which region?")]), "{state:?}");
            assert_eq!(decode_state(&state_of(&result))["outcomes"], json!({}), "{state:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Resolvers that fail
// ---------------------------------------------------------------------------------------

mod failures {
    use super::*;

    #[mcp::resolver]
    fn locked_account() -> Result<Elicit<Step>, String> {
        Err("the account is locked".to_owned())
    }

    /// Fails before asking anything.
    #[mcp::tool]
    fn soft(account: Resolve<locked_account>) -> String {
        account.value.clone()
    }

    #[mcp::resolver]
    fn quota_service() -> Result<u64, mcp::Error> {
        Err(mcp::Error::new(-32042, "quota service down").with_data(json!({"retryAfterMs": 500})))
    }

    /// Fails with a protocol error.
    #[mcp::tool]
    fn hard(quota: Resolve<quota_service>) -> String {
        quota.to_string()
    }

    #[mcp::resolver]
    fn ask_account() -> Elicit<Step> {
        Elicit::new("Which account?")
    }

    #[mcp::resolver]
    fn check_account(account: Resolve<ask_account>) -> Result<String, String> {
        if account.value == "locked" {
            return Err(format!("account {} is locked", account.value));
        }
        Ok(account.value.to_uppercase())
    }

    /// Fails once the answer is known.
    #[mcp::tool]
    fn use_account(account: Resolve<check_account>) -> String {
        format!("using {}", *account)
    }

    /// A return type that claims it never asks for input, and does.
    struct Sneaky;

    impl mcp::items::IntoToolOutcome for Sneaky {
        const MAY_REQUIRE_INPUT: bool = false;

        fn into_tool_outcome(self) -> Result<mcp::protocol::CallToolOutcome, mcp::Error> {
            Ok(mcp::protocol::InputRequiredResult::state_only("mine").into())
        }
    }

    #[mcp::resolver]
    fn constant() -> u32 {
        7
    }

    /// Gets past the compile-time check with a lying return type.
    #[mcp::tool]
    fn sneaky(_n: Resolve<constant>) -> Sneaky {
        Sneaky
    }

    fn server() -> Server {
        Server::builder("failures", "1.0.0")
            .tool::<soft>()
            .tool::<hard>()
            .tool::<use_account>()
            .tool::<sneaky>()
            .build()
    }

    #[tokio::test]
    async fn a_body_answering_input_required_next_to_resolvers_is_an_error_result() {
        let client = memory::connect(&server());
        let result = Leg::new("sneaky", json!({})).result(&client).await;
        assert_eq!(result["resultType"], "complete", "{result}");
        assert_eq!(tool_error_text(&result), "Error executing tool sneaky");
    }

    #[tokio::test]
    async fn a_resolver_err_string_is_an_error_result_naming_the_resolver() {
        let client = memory::connect(&server());
        let result = Leg::new("soft", json!({})).result(&client).await;
        assert_eq!(
            tool_error_text(&result),
            "Resolver 'resolvers::failures::locked_account' failed: the account is locked"
        );

        let run = Driver::new(Script::new().on("Which account?", accept(json!({"value": "locked"}))))
            .run(&client, "use_account", json!({}))
            .await;
        assert_eq!(run.asked(), [["Which account?"]]);
        assert_eq!(
            tool_error_text(run.result()),
            "Resolver 'resolvers::failures::check_account' failed: account locked is locked"
        );
        let run = Driver::new(Script::new().on("Which account?", accept(json!({"value": "ops"}))))
            .run(&client, "use_account", json!({}))
            .await;
        assert_eq!(run.text(), "using OPS");
    }

    #[tokio::test]
    async fn a_resolver_err_mcp_error_is_that_json_rpc_error() {
        let client = memory::connect(&server());
        let run = Driver::new(Script::new()).run(&client, "hard", json!({})).await;
        assert!(run.rounds.is_empty(), "nothing was asked");
        let error = run.error();
        assert_eq!((error.code, error.message.as_str()), (-32042, "quota service down"));
        assert_eq!(error.data, Some(json!({"retryAfterMs": 500})));
    }
}

// ---------------------------------------------------------------------------------------
// Default sealing
// ---------------------------------------------------------------------------------------

mod sealing {
    use super::*;

    const REGION: &str = "resolvers::sealing::region_for";

    #[mcp::resolver]
    fn region_for(name: &str) -> Elicit<Region> {
        Elicit::new(format!("Which region for {name}?"))
    }

    /// One question worded from an argument.
    #[mcp::tool]
    fn provision(name: String, region: Resolve<region_for>) -> String {
        format!("{name} in {}", region.region)
    }

    /// A server with macro items and no sealing configuration.
    fn server() -> Server {
        Server::builder("sealing", "1.0.0").tool::<provision>().build()
    }

    fn answer() -> Value {
        json!({REGION: accept(json!({"region": "eu-west-1"}))})
    }

    #[track_caller]
    fn assert_invalid_state(error: &ErrorObject) {
        assert_eq!((error.code, error.message.as_str()), (-32602, "Invalid or expired requestState"), "{error:?}");
        assert_eq!(error.data, Some(json!({"reason": "invalid_request_state"})), "{error:?}");
    }

    #[tokio::test]
    async fn the_request_state_is_a_sealed_token_and_the_retry_completes() {
        let client = memory::connect(&server());
        let first = Leg::new("provision", json!({"name": "orders"})).result(&client).await;
        let token = state_of(&first);
        assert!(token.starts_with("v1."), "{token}");
        for plaintext in ["outcomes", "asked", "resolvers::", "region"] {
            assert!(!token.contains(plaintext), "the token reveals {plaintext:?}: {token}");
        }
        let done =
            Leg::new("provision", json!({"name": "orders"})).answers(answer()).state(&token).result(&client).await;
        assert_eq!(complete_text(&done), "orders in eu-west-1");
    }

    #[tokio::test]
    async fn a_tampered_foreign_or_rebound_token_is_refused_with_the_fixed_error() {
        let server = server();
        let client = memory::connect(&server);
        let first = Leg::new("provision", json!({"name": "orders"})).result(&client).await;
        let token = state_of(&first);

        let mut chars: Vec<char> = token.chars().collect();
        let middle = chars.len() / 2;
        chars[middle] = if chars[middle] == 'A' { 'B' } else { 'A' };
        let tampered: String = chars.into_iter().collect();
        let error =
            Leg::new("provision", json!({"name": "orders"})).answers(answer()).state(&tampered).error(&client).await;
        assert_invalid_state(&error);

        // Arguments are bound to the token: the reworded-question retry cannot happen here.
        let error =
            Leg::new("provision", json!({"name": "other"})).answers(answer()).state(&token).error(&client).await;
        assert_invalid_state(&error);

        // The default key belongs to one server instance.
        let other = memory::connect(&self::server());
        let error =
            Leg::new("provision", json!({"name": "orders"})).answers(answer()).state(&token).error(&other).await;
        assert_invalid_state(&error);

        // The untouched token still works.
        let done =
            Leg::new("provision", json!({"name": "orders"})).answers(answer()).state(&token).result(&client).await;
        assert_eq!(complete_text(&done), "orders in eu-west-1");
    }
}

// ---------------------------------------------------------------------------------------
// 2025-11-25 sessions: the same resolvers ask over the back-channel
// ---------------------------------------------------------------------------------------

mod legacy {
    use super::*;

    static LOGIN_RUNS: AtomicUsize = AtomicUsize::new(0);
    static CONFIRM_RUNS: AtomicUsize = AtomicUsize::new(0);

    #[mcp::resolver]
    fn login() -> Elicit<Step> {
        bump(&LOGIN_RUNS);
        Elicit::new("Who are you?")
    }

    #[mcp::resolver]
    fn confirm_login(user: Resolve<login>) -> Elicit<Confirm> {
        bump(&CONFIRM_RUNS);
        Elicit::new(format!("Continue as {}?", user.value))
    }

    /// A chain of two questions.
    #[mcp::tool]
    fn sign_in(user: Resolve<login>, confirm: Resolve<confirm_login>) -> String {
        format!("{} signed in: {}", user.value, confirm.ok)
    }

    static SHARED_RUNS: AtomicUsize = AtomicUsize::new(0);

    #[mcp::resolver]
    fn shared_base() -> Elicit<Step> {
        bump(&SHARED_RUNS);
        Elicit::new("Which base?")
    }

    #[mcp::resolver]
    fn left_of(base: Resolve<shared_base>) -> Elicit<Step> {
        Elicit::new(format!("Left of {}?", base.value))
    }

    #[mcp::resolver]
    fn right_of(base: Resolve<shared_base>) -> Elicit<Step> {
        Elicit::new(format!("Right of {}?", base.value))
    }

    /// A dependency shared by two resolvers and the tool.
    #[mcp::tool]
    fn span(left: Resolve<left_of>, right: Resolve<right_of>, base: Resolve<shared_base>) -> String {
        format!("{} | {} | {}", left.value, base.value, right.value)
    }

    fn server() -> Server {
        Server::builder("legacy", "1.0.0")
            .tool::<sign_in>()
            .tool::<span>()
            .tool::<batching::mixed>()
            .tool::<refusals::strict>()
            .tool::<refusals::lenient>()
            .tool::<bad_answers::order>()
            .build()
    }

    #[tokio::test]
    async fn elicitation_sampling_and_roots_are_real_server_to_client_requests() {
        let server = server();
        let client = legacy_client(&server, every_capability()).await;
        let (outcome, asked) =
            legacy_call(&client, "mixed", json!({"topic": "orders"}), &batching::mixed_script()).await;
        let result = outcome.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            asked,
            requests(&[
                ("elicitation/create", "Which region?"),
                ("sampling/createMessage", "sample: Suggest a name for orders."),
                ("roots/list", "roots/list"),
            ])
        );
        assert!(result.get("resultType").is_none(), "legacy results carry no resultType: {result}");
        assert_eq!(result["content"][0]["text"], batching::MIXED_TEXT);
    }

    #[tokio::test]
    async fn a_chain_asks_in_order_and_each_body_runs_once() {
        let server = server();
        let client = legacy_client(&server, every_capability()).await;
        let script = Script::new()
            .on("Who are you?", accept(json!({"value": "ada"})))
            .on("Continue as ada?", accept(json!({"ok": true})));
        let (outcome, asked) = legacy_call(&client, "sign_in", json!({}), &script).await;
        assert_eq!(outcome.unwrap_or_else(|e| panic!("{e:?}"))["content"][0]["text"], "ada signed in: true");
        assert_eq!(
            asked,
            requests(&[("elicitation/create", "Who are you?"), ("elicitation/create", "Continue as ada?")])
        );
        // No rounds: each resolver waits for its answer, so each body runs once.
        assert_eq!((runs(&LOGIN_RUNS), runs(&CONFIRM_RUNS)), (1, 1));
    }

    #[tokio::test]
    async fn a_shared_dependency_is_asked_once_in_a_session() {
        let server = server();
        let client = legacy_client(&server, every_capability()).await;
        let script = Script::new()
            .on("Which base?", accept(json!({"value": "b"})))
            .on("Left of b?", accept(json!({"value": "l"})))
            .on("Right of b?", accept(json!({"value": "r"})));
        let (outcome, asked) = legacy_call(&client, "span", json!({}), &script).await;
        assert_eq!(outcome.unwrap_or_else(|e| panic!("{e:?}"))["content"][0]["text"], "l | b | r");
        assert_eq!(
            asked,
            requests(&[
                ("elicitation/create", "Which base?"),
                ("elicitation/create", "Left of b?"),
                ("elicitation/create", "Right of b?"),
            ])
        );
        assert_eq!(runs(&SHARED_RUNS), 1);
    }

    #[tokio::test]
    async fn a_refusal_fails_a_value_consumer_and_reaches_an_outcome_consumer() {
        let server = server();
        let client = legacy_client(&server, every_capability()).await;
        for (answer, refused, action) in [(decline(), "declined", "declined"), (cancel(), "cancelled", "cancelled")] {
            let script = refusals::go_script(answer);
            let (outcome, asked) = legacy_call(&client, "strict", json!({}), &script).await;
            assert_eq!(asked, requests(&[("elicitation/create", "Go ahead?")]));
            let result = outcome.unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!(
                tool_error_text(&result),
                format!("Resolver for parameter 'go' could not resolve: the elicitation was {refused}")
            );
            let (outcome, _) = legacy_call(&client, "lenient", json!({}), &script).await;
            assert_eq!(outcome.unwrap_or_else(|e| panic!("{e:?}"))["content"][0]["text"], action);
        }
    }

    #[tokio::test]
    async fn bad_answers_fail_the_call_as_they_do_in_rounds() {
        let server = server();
        let client = legacy_client(&server, every_capability()).await;
        for (what, content) in bad_answers::misfits() {
            let script = Script::new().on("How many, and which tier?", accept(content));
            let (outcome, _) = legacy_call(&client, "order", json!({}), &script).await;
            bad_answers::assert_schema_mismatch(&tool_error_text(&outcome.unwrap_or_else(|e| panic!("{e:?}"))), what);
        }
        let script = Script::new().on("How many, and which tier?", json!({"action": "accept"}));
        let (outcome, _) = legacy_call(&client, "order", json!({}), &script).await;
        assert_eq!(
            tool_error_text(&outcome.unwrap_or_else(|e| panic!("{e:?}"))),
            format!("Resolver '{}' received an accepted elicitation with no content", bad_answers::ORDER)
        );
        let script = Script::new().on("How many, and which tier?", accept(json!({"count": 4, "tier": "small"})));
        let (outcome, _) = legacy_call(&client, "order", json!({}), &script).await;
        assert_eq!(outcome.unwrap_or_else(|e| panic!("{e:?}"))["content"][0]["text"], "4 x Small");
    }
}
