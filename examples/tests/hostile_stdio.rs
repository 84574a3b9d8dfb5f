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

// ---------------------------------------------------------------------------------------
// Malformed lines
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn malformed_and_truncated_json_is_a_parse_error_and_the_process_keeps_serving() {
    let mut h = Hostile::provisioner();
    h.assert_still_serving().await;
    let secret = h.secret("SECRET-ARG-truncated-7f3a");
    let whole = request(json!(1), provision_params(json!({"name": secret}), json!({}))).to_string();
    let mut lines = vec![
        "{not json".to_owned(),
        "{".to_owned(),
        "}".to_owned(),
        "nul".to_owned(),
        "{'jsonrpc': '2.0'}".to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call",}"#.to_owned(),
        // A message followed by garbage, and two messages on one line.
        format!("{whole} trailing"),
        format!("{whole}{whole}"),
        // A byte-order mark before the message.
        format!("\u{feff}{whole}"),
    ];
    // The same message cut short at several points.
    for cut in [1, 10, whole.len() / 2, whole.len() - 1] {
        lines.push(whole[..cut].to_owned());
    }
    for line in lines {
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(error, json!({"code": -32700, "message": "Parse error: Invalid JSON"}), "{line:?}");
        h.assert_still_serving().await;
    }
    // A NUL byte in the middle of a message.
    let mut bytes = whole.clone().into_bytes();
    bytes.insert(20, 0);
    h.server.send_bytes(&bytes).await;
    assert_eq!(h.error_without_id().await["code"], -32700);
    h.assert_still_serving().await;
    h.finish().await;
}

#[tokio::test]
async fn blank_lines_are_skipped_and_crlf_is_accepted() {
    let mut h = Hostile::provisioner();
    for blank in ["", " ", "\t \t", "\r"] {
        h.server.send_line(blank).await;
    }
    h.expect_silence("blank lines").await;
    // A CRLF-terminated message is served like any other.
    let id = h.id();
    let line = format!("{}\r", request(id.clone(), provision_params(json!({"name": "crlf"}), json!({}))));
    h.server.send_line(&line).await;
    let response = h.server.response(&id).await;
    asked_key(&response);
    h.finish().await;
}

#[tokio::test]
async fn json_that_is_not_a_message_is_an_invalid_request() {
    let mut h = Hostile::provisioner();
    for line in ["42", "\"tools/call\"", "null", "true", "-1.5e3"] {
        h.server.send_line(line).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({"code": -32600, "message": "Invalid Request: a JSON-RPC message must be a JSON object"}),
            "{line}"
        );
        h.assert_still_serving().await;
    }
    // The envelope is wrong but the id can be read: the error echoes it.
    let params = provision_params(json!({"name": "x"}), json!({}));
    let cases = [
        (
            json!({"id": 7, "method": "tools/call", "params": params}),
            -32600,
            "Invalid Request: jsonrpc must be \"2.0\"",
        ),
        (
            json!({"jsonrpc": "1.0", "id": 7, "method": "tools/call", "params": params}),
            -32600,
            "Invalid Request: jsonrpc must be \"2.0\"",
        ),
        (json!({"jsonrpc": 2.0, "id": 7, "method": "tools/call"}), -32600, "Invalid Request: jsonrpc must be \"2.0\""),
        (json!({"jsonrpc": "2.0", "id": 7, "method": 12}), -32600, "Invalid Request: method must be a string"),
        (json!({"jsonrpc": "2.0", "id": 7, "method": null}), -32600, "Invalid Request: method must be a string"),
        (
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": [1, 2]}),
            -32602,
            "Invalid params: params must be a JSON object",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "x"}),
            -32602,
            "Invalid params: params must be a JSON object",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 7}),
            -32600,
            "Invalid Request: expected a request, a notification or a response",
        ),
    ];
    for (message, code, text) in cases {
        h.server.send(message.clone()).await;
        let response = h.server.response(&json!(7)).await;
        assert_eq!(error_of(&response, &json!(7)), json!({"code": code, "message": text}), "{message}");
        h.assert_still_serving().await;
    }
    // Params as anything but an object, with no id: the error cannot echo one.
    h.server.send_line(r#"{"jsonrpc":"2.0","method":"tools/call","params":[1]}"#).await;
    assert_eq!(h.error_without_id().await["code"], -32602);
    h.finish().await;
}

#[tokio::test]
async fn invalid_utf8_and_unpaired_surrogates_are_parse_errors() {
    let mut h = Hostile::provisioner();
    let template = request(json!(1), provision_params(json!({"name": "@@"}), json!({}))).to_string();
    let (before, after) = template.split_once("@@").unwrap_or_else(|| panic!("no placeholder in {template}"));
    let bad_bytes: [&[u8]; 8] = [
        b"\xff",
        b"\xfe\xff",
        b"\xc0\x80",         // an overlong NUL
        b"\xe0\x80\xaf",     // an overlong '/'
        b"\xed\xa0\x80",     // a surrogate encoded as UTF-8 (CESU-8)
        b"\x80",             // a lone continuation byte
        b"\xe2\x82",         // a sequence cut short
        b"\xf4\x90\x80\x80", // above U+10FFFF
    ];
    for bad in bad_bytes {
        let mut line = before.as_bytes().to_vec();
        line.extend_from_slice(bad);
        line.extend_from_slice(after.as_bytes());
        h.server.send_bytes(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(error, json!({"code": -32700, "message": "Parse error: Invalid JSON"}), "{bad:x?}");
        h.assert_still_serving().await;
    }
    // Unpaired surrogate escapes, in a value and in a key.
    for escaped in [r"\ud800", r"\udc00", r"\ud800x", r"\ud800\u0041", r"\udfff\ud800"] {
        let line = format!("{before}{escaped}{after}");
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(error, json!({"code": -32700, "message": "Parse error: Invalid JSON"}), "{escaped}");
        h.assert_still_serving().await;
    }
    let key = template.replacen("\"name\"", "\"\\ud800\"", 1);
    h.server.send_line(&key).await;
    assert_eq!(h.error_without_id().await["code"], -32700);
    h.assert_still_serving().await;

    // A paired surrogate escape is a valid character and survives the round trip.
    let round = h.first_round("db-\u{1F600}").await;
    let paired = request(
        json!("paired"),
        provision_params(
            json!({"name": "@@"}),
            json!({"inputResponses": {round.key: accept_region("eu")}, "requestState": round.state}),
        ),
    )
    .to_string()
    .replace("@@", r"db-\ud83d\ude00");
    h.server.send_line(&paired).await;
    let response = h.server.response(&json!("paired")).await;
    assert_eq!(complete_text(&response), "Provisioned 'db-\u{1F600}' in eu.");
    h.finish().await;
}

// ---------------------------------------------------------------------------------------
// Batches, ids, methods
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn batches_are_refused_whole_and_nothing_in_them_runs() {
    let mut h = Hostile::provisioner();
    let inner = request(json!("in-a-batch"), provision_params(json!({"name": "batched"}), json!({})));
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for batch in [json!([inner]), json!([inner, inner]), json!([notification]), json!([[inner]]), json!([1, 2])] {
        h.server.send(batch.clone()).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({
                "code": -32600,
                "message": "Invalid Request: batches are not supported; send one JSON-RPC message at a time",
            }),
            "{batch}"
        );
        h.assert_still_serving().await;
    }
    h.server.send_line("[]").await;
    assert_eq!(h.error_without_id().await["code"], -32600);
    h.server.send_line("  [ ]  ").await;
    assert_eq!(h.error_without_id().await["code"], -32600);
    h.expect_silence("the refused batches").await;
    assert!(
        h.server.transcript.iter().all(|m| m["id"] != "in-a-batch"),
        "a request inside a batch was executed: {:?}",
        h.server.transcript
    );
    h.finish().await;
}

#[tokio::test]
async fn ids_of_odd_types_are_refused_or_echoed_exactly() {
    let mut h = Hostile::provisioner();
    let params = provision_params(json!({"name": "odd-id"}), json!({}));
    // Not a string or an integer (the schema's RequestId): refused without echoing the id,
    // and not executed.
    let refused =
        ["null", "true", "false", r#"{"id":1}"#, "[1]", "[]", "1.5", "-0.0", "1e3", "100000000000000000000000000000"];
    for id in refused {
        let line = request(json!("@@"), params.clone()).to_string().replacen("\"@@\"", id, 1);
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({"code": -32600, "message": "Invalid Request: id must be a string or an integer"}),
            "id {id}"
        );
        h.expect_silence(&format!("refusing id {id}")).await;
        h.assert_still_serving().await;
    }
    // Strings and integers of every size are valid ids: the response echoes them exactly.
    let long = "i".repeat(10_000);
    for id in [
        "\"\"",
        "\"0\"",
        "\" \"",
        "\"\\u00e9\\ud83d\\ude00\"",
        "0",
        "-1",
        "18446744073709551615",
        "-9223372036854775808",
        &format!("\"{long}\""),
    ] {
        let line = request(json!("@@"), params.clone()).to_string().replacen("\"@@\"", id, 1);
        h.server.send_line(&line).await;
        let response = h.server.next().await;
        let expected: Value = serde_json::from_str(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let echoed = response.get("id").unwrap_or_else(|| panic!("no id in {response}"));
        assert_eq!(echoed, &expected, "id {id} must be echoed as sent: {response}");
        assert_eq!(response["result"]["resultType"], "input_required", "{response}");
        asked_key(&response);
        h.assert_still_serving().await;
    }
    h.finish().await;
}

#[tokio::test]
async fn unknown_methods_stray_responses_and_hybrid_messages() {
    let mut h = Hostile::provisioner();
    let meta_only = modern_params(json!({}), json!({}));
    let long_method = "m".repeat(100_000);
    for method in ["tools/destroy", "", " tools/call", "TOOLS/CALL", "rpc.discover", long_method.as_str()] {
        let id = h.id();
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": meta_only});
        h.server.send(message).await;
        let response = h.server.response(&id).await;
        assert_eq!(error_of(&response, &id)["code"], -32601, "method {:?}", &method[..method.len().min(20)]);
        h.assert_still_serving().await;
    }
    // Notifications of unknown methods and responses to nothing are dropped silently.
    for message in [
        json!({"jsonrpc": "2.0", "method": "notifications/unknown", "params": {"x": 1}}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": provision_params(json!({"name": "no-id"}), json!({}))}),
        json!({"jsonrpc": "2.0", "id": 424_242, "result": {}}),
        json!({"jsonrpc": "2.0", "id": "nobody", "result": {"content": []}}),
        json!({"jsonrpc": "2.0", "id": 424_243, "error": {"code": -32603, "message": "client failure"}}),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}),
    ] {
        h.server.send(message.clone()).await;
        h.expect_silence(&message.to_string()).await;
        h.assert_still_serving().await;
    }
    // An error response whose error member is malformed is itself an invalid request.
    h.server.send(json!({"jsonrpc": "2.0", "id": 9, "error": "boom"})).await;
    let response = h.server.response(&json!(9)).await;
    assert_eq!(
        error_of(&response, &json!(9)),
        json!({"code": -32600, "message": "Invalid Request: malformed error object"})
    );
    h.assert_still_serving().await;
    // A request that also carries `result` or `error` is answered as the request it names.
    for extra in [json!({"result": {}}), json!({"error": {"code": 1, "message": "x"}})] {
        let id = h.id();
        let mut message = request(id.clone(), provision_params(json!({"name": "hybrid"}), json!({})));
        if let (Value::Object(message), Value::Object(extra)) = (&mut message, extra.clone()) {
            message.extend(extra);
        }
        h.server.send(message).await;
        let response = h.server.response(&id).await;
        asked_key(&response);
        h.expect_silence(&format!("a request with {extra}")).await;
        h.assert_still_serving().await;
    }
    h.finish().await;
}

#[tokio::test]
async fn notifications_with_bad_params_are_ignored_without_an_answer() {
    let mut h = Hostile::provisioner();
    for params in [
        json!({}),
        json!({"requestId": {"nested": true}}),
        json!({"requestId": [1, 2]}),
        json!({"requestId": null, "reason": 12}),
        json!({"requestId": 999_999_999}),
        json!({"requestId": "x".repeat(50_000)}),
    ] {
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        h.server.send(message.clone()).await;
        h.expect_silence("a malformed notifications/cancelled").await;
        h.assert_still_serving().await;
    }
    for (method, params) in [
        ("notifications/progress", json!({"progressToken": {"a": 1}, "progress": "lots"})),
        ("notifications/initialized", json!({"unexpected": [1, 2, 3]})),
        ("notifications/roots/list_changed", json!({"_meta": 5})),
        ("notifications/message", json!({"level": "emergency-ish", "data": null})),
    ] {
        h.server.send(json!({"jsonrpc": "2.0", "method": method, "params": params})).await;
        h.expect_silence(method).await;
        h.assert_still_serving().await;
    }
    // Params that are not an object make the line an invalid message; its id cannot be
    // read because it has none.
    for params in [json!([1]), json!("cancel"), json!(3)] {
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        h.server.send(message).await;
        let error = h.error_without_id().await;
        assert_eq!(error, json!({"code": -32602, "message": "Invalid params: params must be a JSON object"}));
        h.assert_still_serving().await;
    }
    h.finish().await;
}

// ---------------------------------------------------------------------------------------
// Size and nesting limits
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_line_over_the_limit_is_refused_and_a_large_one_is_served() {
    let mut h = Hostile::provisioner();
    let secret = h.secret(format!("SECRET-ARG-huge-{}", "s".repeat(64)));
    let huge = format!("{secret}{}", "x".repeat(LINE_LIMIT));
    let from = h.server.stderr_len();
    h.server.send(request(json!("huge"), provision_params(json!({"name": huge}), json!({})))).await;
    let error = h.error_without_id().await;
    assert_eq!(
        error,
        json!({"code": -32600, "message": format!("Invalid Request: message exceeds {LINE_LIMIT} bytes")})
    );
    h.expect_warn(from, "an oversized line logs a WARN").await;
    h.assert_still_serving().await;

    // Large but under the limit: the whole call, both rounds, goes through.
    let large = "L".repeat(LINE_LIMIT / 2);
    let round = h.first_round(&large).await;
    let extra = json!({"inputResponses": {round.key: accept_region("eu")}, "requestState": round.state});
    let response = h.call(json!("large"), provision_params(json!({"name": large}), extra)).await;
    assert_eq!(complete_text(&response), format!("Provisioned '{large}' in eu."));
    h.assert_still_serving().await;

    // Several oversized lines in a row, then a normal one.
    for _ in 0..3 {
        h.server.send_line(&"z".repeat(LINE_LIMIT + 1)).await;
        assert_eq!(h.error_without_id().await["code"], -32600);
    }
    h.finish().await;
}

#[tokio::test]
async fn json_nested_deeper_than_the_limit_is_refused() {
    let mut h = Hostile::provisioner();
    // The message (1), params (2) and arguments (3) are levels too.
    let at_limit = MAX_DEPTH - 3;
    let template = request(json!("deep"), provision_params(json!({"name": "deep", "deep": "@@"}), json!({})));
    let template = template.to_string();
    let line = template.replacen("\"@@\"", &nested(at_limit), 1);
    h.server.send_line(&line).await;
    asked_key(&h.server.response(&json!("deep")).await);
    h.assert_still_serving().await;

    let secret = h.secret("SECRET-ARG-deep-91c2");
    let with_secret = request(json!("deep"), provision_params(json!({"name": secret, "deep": "@@"}), json!({})));
    let with_secret = with_secret.to_string();
    for levels in [at_limit + 1, 200, 100_000] {
        let from = h.server.stderr_len();
        let line = with_secret.replacen("\"@@\"", &nested(levels), 1);
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({"code": -32600, "message": format!("Invalid Request: JSON nested deeper than {MAX_DEPTH} levels")}),
            "{levels} levels"
        );
        h.expect_warn(from, "deep nesting logs a WARN").await;
        h.assert_still_serving().await;
    }
    // Deep nesting in `_meta` and in an unterminated prefix counts the same.
    let meta_deep = template.replacen(
        "\"io.modelcontextprotocol/protocolVersion\"",
        &format!("\"x\":{},\"io.modelcontextprotocol/protocolVersion\"", nested(MAX_DEPTH)),
        1,
    );
    h.server.send_line(&meta_deep).await;
    assert_eq!(h.error_without_id().await["code"], -32600);
    h.assert_still_serving().await;
    h.server.send_line(&"[".repeat(10_000)).await;
    assert_eq!(h.error_without_id().await["code"], -32600);
    h.assert_still_serving().await;
    h.finish().await;
}

#[tokio::test]
async fn a_duplicate_key_anywhere_refuses_the_message_unexecuted() {
    let mut h = Hostile::provisioner();
    let params = provision_params(json!({"name": "dup"}), json!({})).to_string();
    let inner = params.trim_start_matches('{');
    let cases = [
        format!(r#"{{"jsonrpc":"2.0","id":"dup-1","id":"dup-2","method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":"dup-1","method":"tools/list","method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{{"name":"other",{inner}}}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{}}}"#,
            params.replacen(r#""name":"dup""#, r#""name":"dup","name":"x""#, 1)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{}}}"#,
            params.replacen(r#""elicitation":{}"#, r#""elicitation":{},"elicitation":{"form":{}}"#, 1)
        ),
        // The same key spelled with an escape.
        format!(r#"{{"jsonrpc":"2.0","id":"dup-1","\u0069d":"dup-2","method":"tools/call","params":{params}}}"#),
    ];
    for line in cases {
        assert!(serde_json::from_str::<Value>(&line).is_ok(), "the case must be JSON apart from the duplicate: {line}");
        let from = h.server.stderr_len();
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({"code": -32600, "message": "Invalid Request: duplicate key in a JSON object"}),
            "{line}"
        );
        h.expect_warn(from, "a duplicate key logs a WARN").await;
        h.expect_silence("a refused duplicate-key message").await;
        h.assert_still_serving().await;
    }
    h.finish().await;
}

// ---------------------------------------------------------------------------------------
// requestState
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn request_state_of_the_wrong_type_is_the_fixed_error() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("typed").await;
    let answers = json!({round.key.clone(): accept_region("eu")});
    for state in [json!(12), json!(-1.5), json!(true), json!({"s": round.state}), json!([round.state]), json!({})] {
        let id = h.id();
        let extra = json!({"inputResponses": answers, "requestState": state});
        let response = h.call(id.clone(), provision_params(json!({"name": "typed"}), extra)).await;
        assert_eq!(
            error_of(&response, &id),
            json!({"code": -32602, "message": INVALID_STATE, "data": {"reason": "invalid_request_state"}}),
            "requestState {state}"
        );
        h.assert_still_serving().await;
    }
    // A null state is no state: the answer without it is not trusted, the question comes again.
    let id = h.id();
    let extra = json!({"inputResponses": answers, "requestState": null});
    let response = h.call(id, provision_params(json!({"name": "typed"}), extra)).await;
    asked_key(&response);
    h.finish().await;
}

#[tokio::test]
async fn forged_tampered_and_misbound_request_state_get_the_fixed_error_and_leak_nothing() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("forged").await;
    h.secrets.push(round.state.clone());
    let marker = h.secret("FORGED-MARKER-5d1e0c");
    let mut tampered: Vec<char> = round.state.chars().collect();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    h.secrets.push(tampered.clone());
    let truncated = h.secret(&round.state[..round.state.len() - 4]);
    let forged = [
        marker.clone(),
        format!("v1.{marker}"),
        format!("v1.{marker}.{marker}"),
        format!("v2.{}", &round.state[3..]),
        format!("{}{marker}", round.state),
        tampered,
        truncated,
        String::new(),
        "v1.".to_owned(),
        "\u{0}".to_owned(),
        "é".repeat(1000),
        // Just under the size limit: read, and rejected as forged.
        format!("v1.{marker}{}", "A".repeat(MAX_STATE - 3 - marker.len())),
    ];
    for state in forged {
        let id = h.id();
        let from = h.server.stderr_len();
        let extra = json!({"inputResponses": {round.key.clone(): accept_region("eu")}, "requestState": state});
        let response = h.call(id.clone(), provision_params(json!({"name": "forged"}), extra)).await;
        let error = error_of(&response, &id);
        assert_eq!(
            error,
            json!({"code": -32602, "message": INVALID_STATE, "data": {"reason": "invalid_request_state"}}),
            "requestState {:?}",
            state.chars().take(40).collect::<String>()
        );
        assert!(!response.to_string().contains(&marker), "the error echoes the forged state: {response}");
        let warn = h.expect_warn(from, "a rejected requestState logs a WARN").await;
        assert!(warn.contains("requestState rejected"), "{warn}");
        h.assert_still_serving().await;
    }
    // A genuine token bound to other arguments, or to another tool, is refused as well.
    let extra = json!({"inputResponses": {round.key.clone(): accept_region("eu")}, "requestState": round.state});
    let id = h.id();
    let response = h.call(id.clone(), provision_params(json!({"name": "other"}), extra.clone())).await;
    assert_eq!(error_of(&response, &id)["message"], INVALID_STATE);
    let mut cluster = provision_params(json!({"name": "forged"}), extra.clone());
    cluster["name"] = json!("provision_cluster");
    let id = h.id();
    let response = h.call(id.clone(), cluster).await;
    assert_eq!(error_of(&response, &id)["message"], INVALID_STATE);
    // The genuine token still completes its own call.
    let response = h.call(json!("genuine"), provision_params(json!({"name": "forged"}), extra)).await;
    assert_eq!(complete_text(&response), "Provisioned 'forged' in eu.");
    h.finish().await;
}

#[tokio::test]
async fn gigantic_request_state_is_refused_by_its_size() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("giant").await;
    let marker = h.secret("GIANT-STATE-MARKER-77aa");
    for size in [MAX_STATE + 1, 1024 * 1024, 3 * 1024 * 1024] {
        let state = format!("v1.{marker}{}", "A".repeat(size - 3 - marker.len()));
        assert_eq!(state.len(), size);
        let id = h.id();
        let from = h.server.stderr_len();
        let extra = json!({"inputResponses": {round.key.clone(): accept_region("eu")}, "requestState": state});
        let response = h.call(id.clone(), provision_params(json!({"name": "giant"}), extra)).await;
        let error = error_of(&response, &id);
        assert_eq!(error["code"], -32602, "{size} bytes: {error}");
        assert_eq!(error["message"], format!("Invalid params: requestState exceeds {MAX_STATE} bytes"), "{size}");
        assert!(!response.to_string().contains(&marker), "the error echoes the state");
        h.expect_warn(from, "an oversized requestState logs a WARN").await;
        h.assert_still_serving().await;
    }
    h.finish().await;
}

// ---------------------------------------------------------------------------------------
// inputResponses
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn input_responses_of_the_wrong_shape_are_invalid_params() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("shape").await;
    let secret = h.secret("SECRET-ANSWER-4b8d");
    for responses in [json!([accept_region("eu")]), json!(secret), json!(12), json!(true), json!([])] {
        let id = h.id();
        let extra = json!({"inputResponses": responses, "requestState": round.state});
        let response = h.call(id.clone(), provision_params(json!({"name": "shape"}), extra)).await;
        assert_eq!(
            error_of(&response, &id),
            json!({"code": -32602, "message": "Invalid params: inputResponses must be an object"}),
            "inputResponses {responses}"
        );
        h.assert_still_serving().await;
    }
    // Entries that are not result objects.
    for entry in [json!(secret), json!(5), json!([1]), json!(null), json!(true), json!({"action": "maybe"})] {
        let id = h.id();
        let extra = json!({"inputResponses": {round.key.clone(): entry}, "requestState": round.state});
        let response = h.call(id.clone(), provision_params(json!({"name": "shape"}), extra)).await;
        let error = error_of(&response, &id);
        assert_eq!(error["code"], -32602, "entry {entry}: {error}");
        assert!(error["message"].as_str().unwrap_or_default().starts_with("Invalid params"), "{error}");
        h.assert_still_serving().await;
    }
    h.finish().await;
}

#[tokio::test]
async fn too_many_or_too_large_input_responses_are_refused() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("many").await;
    let filler = |n: usize| -> serde_json::Map<String, Value> {
        (0..n).map(|i| (format!("unknown-{i}"), json!({"action": "decline"}))).collect()
    };
    // At the limit: unknown keys are ignored, the genuine answer is used.
    let mut at_limit = filler(MAX_RESPONSES - 1);
    at_limit.insert(round.key.clone(), accept_region("eu"));
    let extra = json!({"inputResponses": at_limit, "requestState": round.state});
    let response = h.call(json!("at-limit"), provision_params(json!({"name": "many"}), extra)).await;
    assert_eq!(complete_text(&response), "Provisioned 'many' in eu.");

    let mut over = filler(MAX_RESPONSES);
    over.insert(round.key.clone(), accept_region("eu"));
    let from = h.server.stderr_len();
    let id = h.id();
    let extra = json!({"inputResponses": over, "requestState": round.state});
    let response = h.call(id.clone(), provision_params(json!({"name": "many"}), extra)).await;
    assert_eq!(
        error_of(&response, &id),
        json!({"code": -32602, "message": format!("Invalid params: more than {MAX_RESPONSES} inputResponses")})
    );
    h.expect_warn(from, "too many inputResponses log a WARN").await;
    h.assert_still_serving().await;

    // An entry of exactly the limit is used; one byte more is refused.
    let secret = h.secret("SECRET-BIG-ANSWER-0e9f");
    let envelope = accept_region("").to_string().len();
    for (size, too_large) in [(MAX_RESPONSE_BYTES, false), (MAX_RESPONSE_BYTES + 1, true)] {
        let region = format!("{secret}{}", "r".repeat(size - envelope - secret.len()));
        let entry = accept_region(&region);
        assert_eq!(entry.to_string().len(), size);
        let id = h.id();
        let from = h.server.stderr_len();
        let extra = json!({"inputResponses": {round.key.clone(): entry}, "requestState": round.state});
        let response = h.call(id.clone(), provision_params(json!({"name": "many"}), extra)).await;
        if too_large {
            assert_eq!(
                error_of(&response, &id),
                json!({
                    "code": -32602,
                    "message": format!("Invalid params: an inputResponses entry exceeds {MAX_RESPONSE_BYTES} bytes"),
                })
            );
            h.expect_warn(from, "an oversized inputResponses entry logs a WARN").await;
        } else {
            assert_eq!(complete_text(&response), format!("Provisioned 'many' in {region}."));
        }
        h.assert_still_serving().await;
    }
    h.finish().await;
}

#[tokio::test]
async fn input_responses_of_the_wrong_kind_fail_the_call_or_ask_again() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("kind").await;
    let key = round.key.clone();
    let sampled = json!({"role": "assistant", "content": {"type": "text", "text": "eu"}, "model": "m"});
    let roots = json!({"roots": [{"uri": "file:///eu"}]});
    for (answer, why) in [
        (sampled, "a non-elicitation response"),
        (roots, "a non-elicitation response"),
        (json!({"action": "accept"}), "an accepted elicitation with no content"),
        (
            json!({"action": "accept", "content": {"region": 7}}),
            "an elicitation whose content does not match the requested schema",
        ),
        (
            json!({"action": "accept", "content": {}}),
            "an elicitation whose content does not match the requested schema",
        ),
    ] {
        let id = h.id();
        let extra = json!({"inputResponses": {key.clone(): answer}, "requestState": round.state});
        let response = h.call(id.clone(), provision_params(json!({"name": "kind"}), extra)).await;
        assert_eq!(tool_error_text(&response), format!("Resolver '{key}' received {why}"), "{answer}");
        h.assert_still_serving().await;
    }
    // Answers under keys nobody asked: ignored, and the question comes again.
    for responses in [
        json!({"unknown": accept_region("eu")}),
        json!({format!("{key} "): accept_region("eu")}),
        json!({key.to_uppercase(): accept_region("eu")}),
        json!({}),
    ] {
        let id = h.id();
        let extra = json!({"inputResponses": responses, "requestState": round.state});
        let response = h.call(id, provision_params(json!({"name": "kind"}), extra)).await;
        assert_eq!(asked_key(&response), key, "{responses}");
        h.assert_still_serving().await;
    }
    // Unknown members inside a well-formed answer are ignored.
    let answer = json!({"action": "accept", "content": {"region": "eu"}, "extra": [1], "_meta": {"x": 1}});
    let extra = json!({"inputResponses": {key.clone(): answer}, "requestState": round.state});
    let response = h.call(json!("extra-members"), provision_params(json!({"name": "kind"}), extra)).await;
    assert_eq!(complete_text(&response), "Provisioned 'kind' in eu.");
    h.finish().await;
}

// ---------------------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------------------

/// The default number of requests in flight on one connection.
const MAX_IN_FLIGHT: usize = 256;

#[tokio::test]
async fn requests_over_the_in_flight_limit_get_server_busy() {
    // The provisioner's tools answer at once; `everything` has a slow one.
    let mut server = spawn(env!("CARGO_BIN_EXE_everything"));
    let extra = 20;
    let from = server.stderr_len();
    for id in 0..(MAX_IN_FLIGHT + extra) as i64 {
        let params = modern_params(json!({}), json!({"name": "test_slow", "arguments": {"ms": 2_000}}));
        server.send_request(json!(id), "tools/call", params).await;
    }
    let mut busy = Vec::new();
    let mut done = 0;
    while done + busy.len() < MAX_IN_FLIGHT + extra {
        let response = server.next().await;
        if response.get("method").is_some() {
            continue;
        }
        if response.get("error").is_some() {
            assert_valid(MODERN, "JSONRPCErrorResponse", &response);
            assert_eq!(
                response["error"],
                json!({"code": -32000, "message": "Server busy: too many requests in flight; retry later"}),
                "{response}"
            );
            busy.push(response["id"].as_i64().unwrap_or(-1));
        } else {
            assert_eq!(response["result"]["content"][0]["text"], "Slept 2000 ms.", "{response}");
            done += 1;
        }
    }
    assert_eq!((done, busy.len()), (MAX_IN_FLIGHT, extra), "refused ids: {busy:?}");
    assert!(busy.iter().all(|id| *id >= MAX_IN_FLIGHT as i64), "only the excess is refused: {busy:?}");
    server
        .wait_for_stderr_line(from, LOG_WAIT, "refusing requests over the limit logs a WARN", |line| {
            line.contains("WARN")
        })
        .await;
    // Once the slow ones are done, the connection serves again.
    let params = modern_params(json!({}), json!({"name": "test_simple_text", "arguments": {}}));
    let response = server.request(json!("after"), "tools/call", params).await;
    assert_eq!(response["result"]["content"][0]["text"], "This is a simple text response for testing.", "{response}");
    assert!(server.is_running());
    assert_eq!(server.close().await.code(), Some(0));
}
