//! The servers driven over stdio in a 2025-11-25 (`initialize`) session, in raw JSON
//! lines. Everything the server writes is checked against the 2025-11-25 JSON Schema.

use std::time::Duration;

use mcp_testkit::spec::{LEGACY, MODERN, assert_valid};
use mcp_testkit::stdio::{StdioServer, modern_params};
use serde_json::{Value, json};

fn initialize_params(version: &str, capabilities: Value) -> Value {
    json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "legacy-test", "version": "1.0.0"}})
}

/// Spawn `program`, run the handshake with these capabilities, and return the server.
async fn legacy_session(program: &str, capabilities: Value) -> StdioServer {
    let mut server = StdioServer::spawn(program, &["stdio"]);
    let response = server.request(json!(0), "initialize", initialize_params("2025-11-25", capabilities)).await;
    assert_valid(LEGACY, "JSONRPCResultResponse", &response);
    assert_valid(LEGACY, "InitializeResult", &response["result"]);
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    server
}

fn result_of(response: &Value, def: &str) -> Value {
    assert_valid(LEGACY, "JSONRPCResultResponse", response);
    let result = response.get("result").cloned().unwrap_or_else(|| panic!("not a result: {response}"));
    assert_valid(LEGACY, def, &result);
    for modern_only in ["resultType", "ttlMs", "cacheScope"] {
        assert!(result.get(modern_only).is_none(), "legacy result carries {modern_only}: {result}");
    }
    result
}

#[tokio::test]
async fn initialize_negotiates_a_legacy_version() {
    for (requested, expected) in
        [("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"), ("1999-01-01", "2025-11-25")]
    {
        let mut server = StdioServer::spawn(env!("CARGO_BIN_EXE_everything"), &["stdio"]);
        let response = server.request(json!(1), "initialize", initialize_params(requested, json!({}))).await;
        let result = result_of(&response, "InitializeResult");
        assert_eq!(result["protocolVersion"], expected, "client asked for {requested}");
        assert_eq!(result["serverInfo"]["name"], "everything");
        assert!(result["capabilities"]["tools"].is_object());
        assert_eq!(result["instructions"], "A fixture server with one of everything.");
        assert_eq!(server.close().await.code(), Some(0));
    }
}

#[tokio::test]
async fn a_legacy_session_serves_ping_set_level_lists_and_calls() {
    let mut server = legacy_session(env!("CARGO_BIN_EXE_everything"), json!({})).await;
    assert!(server.drain_for(Duration::from_millis(50)).await.is_empty(), "notifications/initialized gets no answer");
    assert_eq!(server.request(json!(1), "ping", json!({})).await["result"], json!({}));

    let tools = server.request(json!(2), "tools/list", json!({})).await;
    let tools = result_of(&tools, "ListToolsResult");
    assert!(tools["tools"].as_array().is_some_and(|t| !t.is_empty()));
    let call = server.request(json!(3), "tools/call", json!({"name": "test_simple_text", "arguments": {}})).await;
    let call = result_of(&call, "CallToolResult");
    assert_eq!(call["content"][0]["text"], "This is a simple text response for testing.");
    let read = server.request(json!(4), "resources/read", json!({"uri": "test://static-text"})).await;
    result_of(&read, "ReadResourceResult");
    let prompt = server.request(json!(5), "prompts/get", json!({"name": "test_simple_prompt"})).await;
    result_of(&prompt, "GetPromptResult");

    // Logging: everything until setLevel, then only at or above the level.
    server.request(json!(6), "tools/call", json!({"name": "test_logging_tool"})).await;
    let logs = server.drain_for(Duration::from_millis(100)).await;
    assert_eq!(logs.len(), 3, "{logs:?}");
    for log in &logs {
        assert_valid(LEGACY, "LoggingMessageNotification", log);
    }
    let set = server.request(json!(7), "logging/setLevel", json!({"level": "warning"})).await;
    assert_eq!(set["result"], json!({}));
    server.request(json!(8), "tools/call", json!({"name": "test_logging_tool"})).await;
    assert!(server.drain_for(Duration::from_millis(100)).await.is_empty(), "info is below warning");

    let unknown = server.request(json!(9), "server/discover", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601);
    assert_eq!(server.close().await.code(), Some(0));
}

#[tokio::test]
async fn provision_asks_through_the_back_channel_in_a_legacy_session() {
    for binary in [env!("CARGO_BIN_EXE_lowlevel_provisioner"), env!("CARGO_BIN_EXE_provisioner")] {
        back_channel_round_trip(binary).await;
    }
}

async fn back_channel_round_trip(binary: &str) {
    let mut server = legacy_session(binary, json!({"elicitation": {}})).await;
    server
        .send_request(json!("call-1"), "tools/call", json!({"name": "provision", "arguments": {"name": "orders"}}))
        .await;

    let ask = server.next().await;
    assert_valid(LEGACY, "JSONRPCRequest", &ask);
    assert_valid(LEGACY, "ElicitRequest", &ask);
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "Which region should the database live in?");
    let ask_id = ask["id"].clone();
    assert!(ask_id.is_number() || ask_id.is_string());

    let answer =
        json!({"jsonrpc": "2.0", "id": ask_id, "result": {"action": "accept", "content": {"region": "eu-west-1"}}});
    assert_valid(LEGACY, "JSONRPCResultResponse", &answer);
    server.send(answer).await;
    let done = server.response(&json!("call-1")).await;
    let done = result_of(&done, "CallToolResult");
    assert_eq!(done["content"][0]["text"], "Provisioned 'orders' in eu-west-1.");

    // A declined elicitation is a tool result the model can read, not a protocol error.
    server
        .send_request(json!("call-2"), "tools/call", json!({"name": "provision", "arguments": {"name": "orders"}}))
        .await;
    let ask = server.next().await;
    server.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}})).await;
    let declined = server.response(&json!("call-2")).await;
    assert_eq!(result_of(&declined, "CallToolResult")["isError"], true);

    // A client error on the back-channel fails the call with that error.
    server
        .send_request(json!("call-3"), "tools/call", json!({"name": "provision", "arguments": {"name": "orders"}}))
        .await;
    let ask = server.next().await;
    server.send(json!({"jsonrpc": "2.0", "id": ask["id"], "error": {"code": -1, "message": "user went away"}})).await;
    let failed = server.response(&json!("call-3")).await;
    assert_valid(LEGACY, "JSONRPCErrorResponse", &failed);
    assert_eq!(failed["error"]["message"], "user went away");
    assert_eq!(server.close().await.code(), Some(0));
}

#[tokio::test]
async fn sampling_goes_through_the_back_channel_too() {
    let mut server = legacy_session(env!("CARGO_BIN_EXE_everything"), json!({"sampling": {}})).await;
    server
        .send_request(
            json!(1),
            "tools/call",
            json!({"name": "test_sampling", "arguments": {"prompt": "Capital of France?"}}),
        )
        .await;
    let ask = server.next().await;
    assert_eq!(ask["method"], "sampling/createMessage");
    assert_valid(LEGACY, "CreateMessageRequest", &ask);
    assert_eq!(ask["params"]["maxTokens"], 100);
    server
        .send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
            "role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "test-model", "stopReason": "endTurn"
        }}))
        .await;
    let done = server.response(&json!(1)).await;
    assert_eq!(result_of(&done, "CallToolResult")["content"][0]["text"], "LLM response: Paris");
}

#[tokio::test]
async fn undeclared_capabilities_and_input_required_results_fail_in_legacy_sessions() {
    let mut server = legacy_session(env!("CARGO_BIN_EXE_everything"), json!({})).await;
    let no_caps = server
        .request(json!(1), "tools/call", json!({"name": "test_elicitation", "arguments": {"message": "hi"}}))
        .await;
    assert_valid(LEGACY, "JSONRPCErrorResponse", &no_caps);
    assert_eq!(no_caps["error"]["code"], -32603);

    let mrtr = server.request(json!(2), "tools/call", json!({"name": "test_input_required_result_elicitation"})).await;
    assert_valid(LEGACY, "JSONRPCErrorResponse", &mrtr);
    assert_eq!(mrtr["error"], json!({"code": -32603, "message": "Handler returned an invalid result"}));
    assert!(server.drain_for(Duration::from_millis(100)).await.is_empty(), "no request went to the client");
}

#[tokio::test]
async fn modern_requests_are_still_served_statelessly_on_a_legacy_connection() {
    let mut server = legacy_session(env!("CARGO_BIN_EXE_everything"), json!({})).await;
    let modern =
        server.request(json!(1), "tools/call", modern_params(json!({}), json!({"name": "test_simple_text"}))).await;
    assert_valid(MODERN, "CallToolResultResponse", &modern);
    assert_eq!(modern["result"]["resultType"], "complete");
    let legacy = server.request(json!(2), "tools/call", json!({"name": "test_simple_text"})).await;
    result_of(&legacy, "CallToolResult");
}

#[tokio::test]
async fn without_initialize_a_request_lacking_meta_is_invalid_params() {
    let mut server = StdioServer::spawn(env!("CARGO_BIN_EXE_everything"), &["stdio"]);
    let response = server.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(response["error"]["code"], -32602);
    let bad_init = server.request(json!(2), "initialize", json!({"capabilities": {}})).await;
    assert_eq!(bad_init["error"]["code"], -32602, "initialize needs protocolVersion: {bad_init}");
}

#[tokio::test]
async fn a_pending_back_channel_request_fails_when_the_client_goes_away() {
    let mut server = legacy_session(env!("CARGO_BIN_EXE_lowlevel_provisioner"), json!({"elicitation": {}})).await;
    server.send_request(json!(1), "tools/call", json!({"name": "provision", "arguments": {"name": "orders"}})).await;
    assert_eq!(server.next().await["method"], "elicitation/create");
    let status = server.close().await;
    assert!(status.success(), "the server exits even with a question outstanding: {status:?}");
}
