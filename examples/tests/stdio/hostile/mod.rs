//! Hostile input over stdio: the `provisioner` example (resolvers, sealed `requestState`)
//! runs as a child process with `RUST_LOG=debug` and its stderr captured, and is fed
//! malformed, oversized, deeply nested, duplicated, mis-encoded and mis-typed lines.
//!
//! After every hostile line the same process must still finish an ordinary two-round
//! `tools/call` (see [`Hostile::assert_still_serving`]). At the end of each test the
//! process must still be running, must exit cleanly when its input closes, and its stderr
//! must hold none of the secret values and sealed tokens the test sent.

use std::time::Duration;

use mcp_testkit::spec::{MODERN, assert_valid};
use mcp_testkit::stdio::{SpawnOptions, StdioServer, modern_params};
use serde_json::{Value, json};

mod limits;
mod lines;
mod messages;
mod retry_fields;

/// The default stdio line limit (4 MiB).
const LINE_LIMIT: usize = 4 * 1024 * 1024;
/// The default nesting limit; the message object is level 1.
const MAX_DEPTH: usize = 64;
/// The default largest `requestState`, in bytes.
const MAX_STATE: usize = 65_536;
/// The default number of `inputResponses` entries.
const MAX_RESPONSES: usize = 64;
/// The default largest `inputResponses` entry (its JSON encoding), in bytes.
const MAX_RESPONSE_BYTES: usize = 262_144;

const QUESTION: &str = "Which region should the database live in?";
const INVALID_STATE: &str = "Invalid or expired requestState";
/// How long to wait for log lines and for silence.
const LOG_WAIT: Duration = Duration::from_secs(5);
const QUIET: Duration = Duration::from_millis(300);

/// The provisioner under test, with the bookkeeping the checks need.
struct Hostile {
    server: StdioServer,
    next_id: i64,
    /// Values that must never reach stderr.
    secrets: Vec<String>,
}

/// A first round of `provision`: the question's key and the sealed state.
struct Round {
    key: String,
    state: String,
}

fn spawn(program: &str) -> StdioServer {
    let options = SpawnOptions::new().env("RUST_LOG", "debug").env("NO_COLOR", "1").capture_stderr();
    StdioServer::spawn_with(program, &["stdio"], options)
}

/// `tools/call provision` params declaring elicitation, with `extra` params merged in.
fn provision_params(arguments: Value, extra: Value) -> Value {
    let mut params = modern_params(json!({"elicitation": {}}), json!({"name": "provision", "arguments": arguments}));
    if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
        params.extend(extra);
    }
    params
}

fn request(id: Value, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn accept_region(region: &str) -> Value {
    json!({"action": "accept", "content": {"region": region}})
}

/// `n` nested arrays around `1`.
fn nested(n: usize) -> String {
    format!("{}1{}", "[".repeat(n), "]".repeat(n))
}

/// The error object of an error response to `id`, checked against the schema.
#[track_caller]
fn error_of(response: &Value, id: &Value) -> Value {
    assert_valid(MODERN, "JSONRPCErrorResponse", response);
    assert_eq!(response.get("id"), Some(id), "the error must echo the id: {response}");
    response["error"].clone()
}

/// The text of a complete `CallToolResult` response.
#[track_caller]
fn complete_text(response: &Value) -> String {
    assert_valid(MODERN, "CallToolResultResponse", response);
    let result = &response["result"];
    assert_eq!(result["resultType"], "complete", "{response}");
    assert_ne!(result["isError"], true, "{response}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {response}")).to_owned()
}

/// The text of an `isError` `CallToolResult` response.
#[track_caller]
fn tool_error_text(response: &Value) -> String {
    assert_valid(MODERN, "CallToolResultResponse", response);
    assert_eq!(response["result"]["isError"], true, "expected an isError result: {response}");
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {response}")).to_owned()
}

/// The single question of an `input_required` response: its key.
#[track_caller]
fn asked_key(response: &Value) -> String {
    assert_valid(MODERN, "CallToolResultResponse", response);
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let requests = result["inputRequests"].as_object().unwrap_or_else(|| panic!("no inputRequests: {response}"));
    assert_eq!(requests.len(), 1, "{response}");
    let (key, question) = requests.iter().next().unwrap_or_else(|| panic!("no question: {response}"));
    assert_eq!(question["method"], "elicitation/create", "{response}");
    assert_eq!(question["params"]["message"], QUESTION, "{response}");
    key.clone()
}

impl Hostile {
    fn provisioner() -> Self {
        Hostile { server: spawn(env!("CARGO_BIN_EXE_provisioner")), next_id: 1_000, secrets: Vec::new() }
    }

    fn id(&mut self) -> Value {
        self.next_id += 1;
        json!(self.next_id)
    }

    /// Remember `value` as a secret that stderr must never show; returns it.
    fn secret(&mut self, value: impl Into<String>) -> String {
        let value = value.into();
        self.secrets.push(value.clone());
        value
    }

    async fn call(&mut self, id: Value, params: Value) -> Value {
        self.server.send(request(id.clone(), params)).await;
        self.server.response(&id).await
    }

    /// Start `provision` for `name`: the question's key and the sealed state.
    async fn first_round(&mut self, name: &str) -> Round {
        let id = self.id();
        let response = self.call(id, provision_params(json!({"name": name}), json!({}))).await;
        let key = asked_key(&response);
        let state = response["result"]["requestState"]
            .as_str()
            .unwrap_or_else(|| panic!("no requestState: {response}"))
            .to_owned();
        assert!(state.starts_with("v1."), "the provisioner seals its state: {state}");
        Round { key, state }
    }

    /// The same process still finishes an ordinary two-round `tools/call`.
    async fn assert_still_serving(&mut self) {
        let name = format!("alive-{}", self.next_id);
        let round = self.first_round(&name).await;
        let id = self.id();
        let extra = json!({"inputResponses": {round.key: accept_region("eu-west-1")}, "requestState": round.state});
        let response = self.call(id, provision_params(json!({"name": name}), extra)).await;
        assert_eq!(complete_text(&response), format!("Provisioned '{name}' in eu-west-1."));
    }

    /// The next message is an error response without an id (the request's id could not be
    /// read); returns its error object.
    async fn error_without_id(&mut self) -> Value {
        let response = self.server.next().await;
        assert_valid(MODERN, "JSONRPCErrorResponse", &response);
        assert!(response.get("id").is_none_or(Value::is_null), "no id could be read, yet: {response}");
        response["error"].clone()
    }

    /// Nothing arrives for a while.
    async fn expect_silence(&mut self, after: &str) {
        let extra = self.server.drain_for(QUIET).await;
        assert!(extra.is_empty(), "nothing is due after {after}, yet the server wrote {extra:?}");
    }

    /// A WARN line appears on stderr after byte `from`; returns it.
    async fn expect_warn(&self, from: usize, what: &str) -> String {
        self.server.wait_for_stderr_line(from, LOG_WAIT, what, |line| line.contains("WARN")).await
    }

    /// The process is alive, exits cleanly when its input closes, logged no panic, and its
    /// stderr holds none of the secrets.
    async fn finish(mut self) {
        assert!(self.server.is_running(), "the server process died");
        self.assert_still_serving().await;
        let stderr = self.server.stderr();
        for secret in &self.secrets {
            let shown: String = secret.chars().take(80).collect();
            assert!(!stderr.contains(secret.as_str()), "stderr shows the secret {shown:?}:\n{stderr}");
        }
        assert!(!stderr.contains("panicked"), "a panic was logged:\n{stderr}");
        let status = self.server.close().await;
        assert_eq!(status.code(), Some(0), "exit status after stdin closed");
    }
}
