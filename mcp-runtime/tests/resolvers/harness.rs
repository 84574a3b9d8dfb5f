//! The client side of the resolver tests: a modern `tools/call` request ([`Leg`]), a
//! scripted client driving a call to its end ([`Driver`]), and a legacy (2025-11-25)
//! session answering the server's requests from a script.

use super::*;

pub const LEGACY_VERSION: &str = "2025-11-25";

pub fn bump(counter: &AtomicUsize) {
    counter.fetch_add(1, Ordering::SeqCst);
}

pub fn runs(counter: &AtomicUsize) -> usize {
    counter.load(Ordering::SeqCst)
}

/// The text of a sampling result's blocks.
pub fn sampled_text(result: &CreateMessageResult) -> String {
    result.text()
}

/// One modern `tools/call` request.
#[derive(Debug, Clone)]
pub struct Leg {
    pub tool: String,
    pub arguments: Value,
    pub capabilities: Value,
    pub responses: Option<Value>,
    pub state: Option<String>,
}

impl Leg {
    /// A first call of `tool` declaring every capability.
    pub fn new(tool: &str, arguments: Value) -> Self {
        Leg { tool: tool.to_owned(), arguments, capabilities: every_capability(), responses: None, state: None }
    }

    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// `inputResponses`.
    pub fn answers(mut self, responses: Value) -> Self {
        self.responses = Some(responses);
        self
    }

    /// `requestState`.
    pub fn state(mut self, state: &str) -> Self {
        self.state = Some(state.to_owned());
        self
    }

    pub fn params(&self) -> Value {
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

    pub async fn send(&self, client: &RawClient) -> Result<Value, Error> {
        within(&format!("tools/call {}", self.tool), client.request("tools/call", self.params())).await
    }

    /// The result; panics on a JSON-RPC error.
    pub async fn result(&self, client: &RawClient) -> Value {
        self.send(client).await.unwrap_or_else(|e| panic!("tools/call {}: {e:?}", self.tool))
    }

    /// The JSON-RPC error; panics on a result.
    pub async fn error(&self, client: &RawClient) -> Error {
        match self.send(client).await {
            Ok(result) => panic!("tools/call {} should fail, got {result}", self.tool),
            Err(error) => error,
        }
    }
}

/// A plaintext resolver state (servers without sealing), parsed.
#[track_caller]
pub fn decode_state(state: &str) -> Value {
    serde_json::from_str(state).unwrap_or_else(|e| panic!("the requestState is not plaintext JSON ({e}): {state}"))
}

/// The keys of an object in a decoded state.
pub fn keys_of(object: &Value) -> Vec<String> {
    object.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
}

/// One `input_required` round as the driver saw it.
#[derive(Debug)]
pub struct Asked {
    /// The questions: key → label.
    pub questions: BTreeMap<String, String>,
    /// The `requestState` that came with them.
    pub state: String,
}

/// How a driven call ended.
#[derive(Debug)]
pub enum End {
    Complete(Value),
    Error(Error),
    /// Still `input_required` after the budget of answered rounds.
    GaveUp,
}

/// A driven call.
#[derive(Debug)]
pub struct Run {
    pub rounds: Vec<Asked>,
    /// Requests sent: the first call and every retry.
    pub legs: usize,
    /// Questions answered.
    pub answered: usize,
    pub end: End,
}

impl Run {
    /// The labels asked, per round, in key order.
    pub fn asked(&self) -> Vec<Vec<&str>> {
        self.rounds.iter().map(|r| r.questions.values().map(String::as_str).collect()).collect()
    }

    /// Every label asked in the call.
    pub fn all_asked(&self) -> Vec<&str> {
        self.asked().into_iter().flatten().collect()
    }

    /// The final result (complete, or `isError`); panics otherwise.
    #[track_caller]
    pub fn result(&self) -> &Value {
        match &self.end {
            End::Complete(result) => result,
            other => panic!("the call did not complete: {other:?}"),
        }
    }

    #[track_caller]
    pub fn text(&self) -> String {
        complete_text(self.result())
    }

    /// The JSON-RPC error that ended the call; panics otherwise.
    #[track_caller]
    pub fn error(&self) -> &Error {
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
pub struct Driver {
    pub script: Script,
    pub capabilities: Value,
    pub budget: usize,
}

impl Driver {
    pub fn new(script: Script) -> Self {
        Driver { script, capabilities: every_capability(), budget: 10 }
    }

    /// The capabilities every leg declares (default: [`every_capability`]).
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    pub fn budget(mut self, rounds: usize) -> Self {
        self.budget = rounds;
        self
    }

    pub async fn run(&self, client: &RawClient, tool: &str, arguments: Value) -> Run {
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

/// A client that opened a legacy session declaring `capabilities`.
pub async fn legacy_client(server: &Server, capabilities: Value) -> RawClient {
    let client = in_process(server);
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
pub async fn legacy_call(
    client: &RawClient,
    tool: &str,
    arguments: Value,
    script: &Script,
) -> (Result<Value, Error>, Vec<(String, String)>) {
    let id = client.next_id();
    let mut pending = client.start_request(id, "tools/call", json!({"name": tool, "arguments": arguments})).await;
    let mut asked = Vec::new();
    let work = async {
        loop {
            tokio::select! {
                done = &mut pending => return done.unwrap_or_else(|_| panic!("the connection closed")),
                message = client.next_message() => match message {
                    Some(JsonRpcMessage::Request(request)) => {
                        let params = request.params.map(|p| Value::Object(p.into())).unwrap_or(Value::Null);
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
