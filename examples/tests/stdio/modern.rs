//! The servers driven over stdio as subprocesses, in raw JSON lines, under MCP 2026-07-28.
//! Everything the server writes is checked against the 2026-07-28 JSON Schema.

use std::time::Duration;

use mcp_testkit::spec::{MODERN, assert_valid};
use mcp_testkit::stdio::{StdioServer, modern_params};
use serde_json::{Value, json};

fn everything() -> StdioServer {
    StdioServer::spawn(env!("CARGO_BIN_EXE_everything"), &["stdio"])
}

fn provisioner() -> StdioServer {
    StdioServer::spawn(env!("CARGO_BIN_EXE_lowlevel_provisioner"), &["stdio"])
}

fn none() -> Value {
    json!({})
}

async fn call(server: &mut StdioServer, id: i64, tool: &str, args: Value) -> Value {
    let params = modern_params(none(), json!({"name": tool, "arguments": args}));
    let response = server.request(json!(id), "tools/call", params).await;
    assert_valid(MODERN, "CallToolResultResponse", &response);
    response
}

fn error_code(response: &Value) -> i64 {
    assert_valid(MODERN, "JSONRPCErrorResponse", response);
    response["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error response: {response}"))
}

/// After a bad message, the same process still answers a normal call.
async fn still_serving(server: &mut StdioServer, id: i64) {
    let response = call(server, id, "test_simple_text", json!({})).await;
    assert_eq!(response["result"]["content"][0]["text"], "This is a simple text response for testing.");
}

#[tokio::test]
async fn discover_reports_versions_capabilities_server_info_and_cache_hints() {
    let mut server = everything();
    let response = server.request(json!("d-1"), "server/discover", modern_params(none(), json!({}))).await;
    assert_valid(MODERN, "DiscoverResultResponse", &response);
    let result = &response["result"];
    assert_eq!(response["id"], "d-1");
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    for capability in ["tools", "prompts", "resources", "completions"] {
        assert!(result["capabilities"].get(capability).is_some(), "missing capability {capability}: {result}");
    }
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "everything");
    assert_eq!(result["instructions"], "A fixture server with one of everything.");
    assert!(result["ttlMs"].is_u64() && result["cacheScope"].is_string());
    assert_eq!(server.close().await.code(), Some(0));
}

#[tokio::test]
async fn lists_are_complete_cacheable_and_schema_valid() {
    let mut server = everything();
    for (id, method, def, key) in [
        (1, "tools/list", "ListToolsResultResponse", "tools"),
        (2, "prompts/list", "ListPromptsResultResponse", "prompts"),
        (3, "resources/list", "ListResourcesResultResponse", "resources"),
        (4, "resources/templates/list", "ListResourceTemplatesResultResponse", "resourceTemplates"),
    ] {
        let response = server.request(json!(id), method, modern_params(none(), json!({}))).await;
        assert_valid(MODERN, def, &response);
        let result = &response["result"];
        assert_eq!(result["resultType"], "complete", "{method}");
        assert!(result[key].as_array().is_some_and(|a| !a.is_empty()), "{method}: {result}");
        assert_eq!(result["ttlMs"], 0, "{method}");
        assert_eq!(result["cacheScope"], "public", "{method}");
        assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "everything");
    }
    let tools = server.request(json!(5), "tools/list", modern_params(none(), json!({}))).await;
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"test_simple_text") && names.contains(&"test_slow"), "{names:?}");
}

#[tokio::test]
async fn calls_prompts_resources_and_completion_return_typed_results() {
    let mut server = everything();
    let text = call(&mut server, 1, "test_simple_text", json!({})).await;
    assert_eq!(
        text["result"]["content"],
        json!([{"type": "text", "text": "This is a simple text response for testing."}])
    );
    assert_eq!(text["result"]["resultType"], "complete");

    let image = call(&mut server, 2, "test_image_content", json!({})).await;
    assert_eq!(image["result"]["content"][0]["type"], "image");
    assert_eq!(image["result"]["content"][0]["mimeType"], "image/png");

    let failed = call(&mut server, 3, "test_error_handling", json!({})).await;
    assert_eq!(failed["result"]["isError"], true, "a tool failure is a result, not a JSON-RPC error");

    let prompt = server
        .request(
            json!(4),
            "prompts/get",
            modern_params(none(), json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "testValue1", "arg2": "testValue2"}})),
        )
        .await;
    assert_valid(MODERN, "GetPromptResultResponse", &prompt);
    let prompt_text = prompt["result"]["messages"][0]["content"]["text"].as_str().unwrap_or_default();
    assert!(prompt_text.contains("testValue1") && prompt_text.contains("testValue2"), "{prompt}");

    for (id, uri, field) in [
        (5, "test://static-text", "text"),
        (6, "test://static-binary", "blob"),
        (7, "test://template/123/data", "text"),
    ] {
        let read = server.request(json!(id), "resources/read", modern_params(none(), json!({"uri": uri}))).await;
        assert_valid(MODERN, "ReadResourceResultResponse", &read);
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["uri"], uri);
        assert!(contents[field].is_string(), "{read}");
        assert!(read["result"]["ttlMs"].is_u64());
    }
    let template = server
        .request(json!(8), "resources/read", modern_params(none(), json!({"uri": "test://template/123/data"})))
        .await;
    assert!(template["result"]["contents"][0]["text"].as_str().unwrap_or_default().contains("123"));

    let completion = server
        .request(
            json!(9),
            "completion/complete",
            modern_params(none(), json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "test"}})),
        )
        .await;
    assert_valid(MODERN, "CompleteResultResponse", &completion);
    assert_eq!(completion["result"]["completion"]["values"], json!(["testValue1", "test"]));
}

#[tokio::test]
async fn provision_asks_for_the_region_then_finishes_on_the_retry() {
    // Both seal their state: the low-level provisioner by default, like the macro one.
    for binary in [env!("CARGO_BIN_EXE_lowlevel_provisioner"), env!("CARGO_BIN_EXE_provisioner")] {
        provision_round_trip(StdioServer::spawn(binary, &["stdio"])).await;
    }
}

async fn provision_round_trip(mut server: StdioServer) {
    let caps = json!({"elicitation": {}});
    let first = server
        .request(
            json!(1),
            "tools/call",
            modern_params(caps.clone(), json!({"name": "provision", "arguments": {"name": "orders"}})),
        )
        .await;
    assert_valid(MODERN, "CallToolResultResponse", &first);
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required");
    // The low-level server keys its question "region"; the macro one uses the resolver's path.
    let key = result["inputRequests"].as_object().and_then(|r| r.keys().next().cloned()).unwrap_or_default();
    assert!(key == "region" || key == "mcp_examples::provisioner::ask_region", "{key}");
    let question = &result["inputRequests"][&key];
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Which region should the database live in?");
    assert_eq!(question["params"]["requestedSchema"]["required"], json!(["region"]));
    let state = result["requestState"].clone();
    let text = state.as_str().unwrap_or_default();
    assert!(text.starts_with("v1.") && !text.contains("provision"), "{state}");

    let retry = server
        .request(
            json!(2),
            "tools/call",
            modern_params(
                caps,
                json!({
                    "name": "provision",
                    "arguments": {"name": "orders"},
                    "inputResponses": {key.clone(): {"action": "accept", "content": {"region": "eu-west-1"}}},
                    "requestState": state,
                }),
            ),
        )
        .await;
    assert_valid(MODERN, "CallToolResultResponse", &retry);
    assert_eq!(retry["result"]["resultType"], "complete");
    assert_eq!(retry["result"]["content"][0]["text"], "Provisioned 'orders' in eu-west-1.");

    // A client that declared no elicitation capability must not be asked.
    let no_caps = server
        .request(
            json!(3),
            "tools/call",
            modern_params(none(), json!({"name": "provision", "arguments": {"name": "orders"}})),
        )
        .await;
    assert_eq!(error_code(&no_caps), -32021);
    assert_valid(MODERN, "MissingRequiredClientCapabilityError", &no_caps);
    assert_eq!(no_caps["error"]["data"]["requiredCapabilities"], json!({"elicitation": {"form": {}}}));
    assert_eq!(server.close().await.code(), Some(0));
}

#[tokio::test]
async fn malformed_messages_get_parse_and_invalid_request_errors() {
    let mut server = everything();
    server.send_line("{not json").await;
    let parse = server.next().await;
    assert_eq!(error_code(&parse), -32700);
    assert!(parse.get("id").is_none(), "a parse error has no id: {parse}");
    still_serving(&mut server, 100).await;

    server.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/\xff\"}").await;
    assert_eq!(error_code(&server.next().await), -32700, "invalid UTF-8 is not JSON");

    for (line, echoed_id) in [
        (r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#, None),
        (r#""just a string""#, None),
        (r#"{"jsonrpc":"2.0","id":{"nested":1},"method":"tools/list"}"#, None),
        (r#"{"jsonrpc":"1.0","id":7,"method":"tools/list"}"#, Some(json!(7))),
        (r#"{"jsonrpc":"2.0","id":8,"method":42}"#, Some(json!(8))),
        (r#"{"jsonrpc":"2.0","id":9}"#, Some(json!(9))),
    ] {
        server.send_line(line).await;
        let response = server.next().await;
        assert_eq!(error_code(&response), -32600, "for {line}: {response}");
        assert_eq!(response.get("id").cloned(), echoed_id, "for {line}");
    }
    still_serving(&mut server, 101).await;

    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    server.send_line(&deep).await;
    assert_eq!(error_code(&server.next().await), -32600, "nesting beyond the depth limit (64)");
    let huge =
        format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{"pad":"{}"}}}}"#, "x".repeat(5 << 20));
    server.send_line(&huge).await;
    let too_big = server.next().await;
    assert_eq!(error_code(&too_big), -32600, "a message over the 4 MiB limit");
    assert!(too_big["error"]["message"].as_str().unwrap_or_default().contains("exceeds"));
    still_serving(&mut server, 102).await;
}

#[tokio::test]
async fn unknown_and_removed_methods_are_method_not_found() {
    let mut server = everything();
    for (id, method) in [
        (1, "unknown/method"),
        (2, "initialize"),
        (3, "ping"),
        (4, "logging/setLevel"),
        (5, "resources/subscribe"),
        (6, "resources/unsubscribe"),
    ] {
        let response = server.request(json!(id), method, modern_params(none(), json!({}))).await;
        assert_eq!(error_code(&response), -32601, "{method}: {response}");
        assert_eq!(response["id"], id, "every error echoes the request id");
    }
    // A server without tools answers tools/list with -32601 too.
    let mut bare = provisioner();
    let prompts = bare.request(json!(1), "prompts/list", modern_params(none(), json!({}))).await;
    assert_eq!(error_code(&prompts), -32601);
    still_serving(&mut server, 7).await;
}

#[tokio::test]
async fn missing_meta_bad_params_and_unknown_names_are_invalid_params() {
    let mut server = everything();
    let no_version = json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}});
    let no_caps = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    let cases = [
        ("server/discover", json!({})),
        ("tools/list", json!({"_meta": {}})),
        ("tools/list", no_version),
        ("tools/list", no_caps),
        (
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": 2026, "io.modelcontextprotocol/clientCapabilities": {}}}),
        ),
        ("tools/list", modern_params(json!("not an object"), json!({}))),
        ("tools/call", modern_params(none(), json!({"name": 5}))),
        ("tools/call", modern_params(none(), json!({"arguments": {}}))),
        ("tools/call", modern_params(none(), json!({"name": "no_such_tool"}))),
        ("prompts/get", modern_params(none(), json!({"name": "no_such_prompt"}))),
        ("prompts/get", modern_params(none(), json!({"name": "test_simple_prompt", "arguments": {"x": 1}}))),
        (
            "tools/call",
            modern_params(none(), json!({"name": "test_simple_text", "inputResponses": {"k": {"bogus": true}}})),
        ),
        ("tools/call", modern_params(none(), json!({"name": "test_simple_text", "requestState": 17}))),
    ];
    for (i, (method, params)) in cases.into_iter().enumerate() {
        let id = json!(i);
        let response = server.request(id.clone(), method, params.clone()).await;
        assert_eq!(error_code(&response), -32602, "{method} {params}: {response}");
        assert_eq!(response["id"], id);
    }
    server.send_line(r#"{"jsonrpc":"2.0","id":"np","method":"tools/list","params":"oops"}"#).await;
    let non_object = server.next().await;
    assert_eq!(error_code(&non_object), -32602);
    assert_eq!(non_object["id"], "np");

    let missing =
        server.request(json!("r"), "resources/read", modern_params(none(), json!({"uri": "test://nope"}))).await;
    assert_eq!(error_code(&missing), -32602);
    assert_eq!(missing["error"]["message"], "Resource not found");
    assert_eq!(missing["error"]["data"]["uri"], "test://nope");
    still_serving(&mut server, 99).await;
}

#[tokio::test]
async fn unsupported_versions_get_32022_with_supported_and_requested() {
    let mut server = everything();
    let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999.0.0", "io.modelcontextprotocol/clientCapabilities": {}}});
    let response = server.request(json!(301), "server/discover", params).await;
    assert_eq!(error_code(&response), -32022);
    assert_valid(MODERN, "UnsupportedProtocolVersionError", &response);
    assert_eq!(response["error"]["data"], json!({"supported": ["2026-07-28"], "requested": "v999.0.0"}));
    still_serving(&mut server, 1).await;
}

#[tokio::test]
async fn handler_errors_and_panics_are_internal_errors_and_the_server_keeps_serving() {
    let mut server = everything();
    let panicked = server.request(json!(1), "tools/call", modern_params(none(), json!({"name": "test_panic"}))).await;
    assert_eq!(error_code(&panicked), -32603);
    assert_eq!(panicked["error"]["message"], "Internal error");
    let capability =
        server.request(json!(2), "tools/call", modern_params(none(), json!({"name": "test_missing_capability"}))).await;
    assert_eq!(error_code(&capability), -32021);
    assert_eq!(capability["error"]["data"]["requiredCapabilities"], json!({"sampling": {}}));
    still_serving(&mut server, 3).await;
}

#[tokio::test]
async fn progress_notifications_precede_the_result() {
    let mut server = everything();
    let mut params = modern_params(none(), json!({"name": "test_tool_with_progress"}));
    params["_meta"]["progressToken"] = json!("progress-test-1");
    server.send_request(json!(1), "tools/call", params).await;
    let mut progress = Vec::new();
    loop {
        let message = server.next().await;
        if message.get("id") == Some(&json!(1)) {
            assert_valid(MODERN, "CallToolResultResponse", &message);
            break;
        }
        assert_valid(MODERN, "ProgressNotification", &message);
        assert_eq!(message["params"]["progressToken"], "progress-test-1");
        progress.push(message["params"]["progress"].as_f64().unwrap_or(-1.0));
    }
    assert_eq!(progress, vec![0.0, 50.0, 100.0]);
    // Without a token, no progress is sent.
    let plain =
        server.request(json!(2), "tools/call", modern_params(none(), json!({"name": "test_tool_with_progress"}))).await;
    assert_valid(MODERN, "CallToolResultResponse", &plain);
    assert!(server.drain_for(Duration::from_millis(100)).await.is_empty());
}

#[tokio::test]
async fn log_messages_only_when_the_request_opts_in() {
    let mut server = everything();
    let silent =
        server.request(json!(1), "tools/call", modern_params(none(), json!({"name": "test_logging_tool"}))).await;
    assert_valid(MODERN, "CallToolResultResponse", &silent);
    assert!(server.drain_for(Duration::from_millis(100)).await.is_empty(), "no logLevel, no notifications/message");

    let mut params = modern_params(none(), json!({"name": "test_logging_tool"}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    server.request(json!(2), "tools/call", params.clone()).await;
    let logs = server.drain_for(Duration::from_millis(100)).await;
    assert_eq!(logs.len(), 3, "{logs:?}");
    for log in &logs {
        assert_valid(MODERN, "LoggingMessageNotification", log);
    }

    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("error");
    server.request(json!(3), "tools/call", params.clone()).await;
    assert!(server.drain_for(Duration::from_millis(100)).await.is_empty(), "info logs are below error");

    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("loud");
    let bad = server.request(json!(4), "tools/call", params).await;
    assert_eq!(error_code(&bad), -32602);
}

#[tokio::test]
async fn requests_run_concurrently_and_responses_match_ids() {
    let mut server = everything();
    server
        .send_request(
            json!("slow"),
            "tools/call",
            modern_params(none(), json!({"name": "test_slow", "arguments": {"ms": 800}})),
        )
        .await;
    server.send_request(json!("fast"), "tools/call", modern_params(none(), json!({"name": "test_simple_text"}))).await;
    let mut order = Vec::new();
    while order.len() < 2 {
        let message = server.next().await;
        if let Some(id) = message.get("id").and_then(Value::as_str) {
            assert_valid(MODERN, "CallToolResultResponse", &message);
            order.push(id.to_owned());
        }
    }
    assert_eq!(order, ["fast", "slow"]);
}

#[tokio::test]
async fn cancellation_stops_the_handler_and_suppresses_its_response() {
    let mut server = everything();
    let mut params = modern_params(none(), json!({"name": "test_slow", "arguments": {"ms": 1500}}));
    params["_meta"]["progressToken"] = json!("slow-1");
    server.send_request(json!("slow"), "tools/call", params).await;
    let started = server.next().await;
    assert_eq!(started["method"], "notifications/progress", "the handler is running: {started}");

    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow", "reason": "test"}});
    assert_valid(MODERN, "CancelledNotification", &cancel);
    server.send(cancel).await;

    let mut cancelled = 0;
    for attempt in 0..50 {
        let stats = call(&mut server, 1000 + attempt, "test_slow_stats", json!({})).await;
        cancelled = stats["result"]["structuredContent"]["cancelled"].as_u64().unwrap_or(0);
        if cancelled == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(cancelled, 1, "the handler was dropped");
    let later = server.drain_for(Duration::from_millis(1800)).await;
    assert!(later.iter().all(|m| m.get("id") != Some(&json!("slow"))), "no response after cancellation: {later:?}");
    let stats = call(&mut server, 2000, "test_slow_stats", json!({})).await;
    assert_eq!(stats["result"]["structuredContent"], json!({"completed": 0, "cancelled": 1}));
}

#[tokio::test]
async fn the_server_exits_cleanly_when_stdin_closes() {
    let mut server = everything();
    still_serving(&mut server, 1).await;
    let status = server.close().await;
    assert!(status.success(), "exit status {status:?}");
}

#[tokio::test]
async fn listen_acknowledges_then_forwards_only_the_requested_changes() {
    let mut server = everything();
    let params =
        modern_params(none(), json!({"notifications": {"toolsListChanged": true, "promptsListChanged": false}}));
    server.send_request(json!("listen-1"), "subscriptions/listen", params).await;
    let ack = server.next().await;
    assert_valid(MODERN, "SubscriptionsAcknowledgedNotification", &ack);
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-1");
    assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}), "only supported, requested types");

    // Both a tool change and a prompt change happen; only the tool change is forwarded.
    call(&mut server, 1, "test_trigger_prompt_change", json!({})).await;
    call(&mut server, 2, "test_trigger_tool_change", json!({})).await;
    let forwarded = server.drain_for(Duration::from_millis(200)).await;
    assert!(!forwarded.is_empty(), "the tool change reached the listener");
    for message in &forwarded {
        assert_valid(MODERN, "ToolListChangedNotification", message);
        assert_eq!(message["method"], "notifications/tools/list_changed");
        assert_eq!(message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-1");
    }
    // The dynamic tool came and went: the list is back to its usual contents.
    let tools = server.request(json!(3), "tools/list", modern_params(none(), json!({}))).await;
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    assert!(!names.contains(&"test_dynamic_tool"), "{names:?}");

    // Cancelling the listen request ends it without a response (stdio).
    server
        .send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "listen-1"}}))
        .await;
    still_serving(&mut server, 4).await;
    let after = server.drain_for(Duration::from_millis(100)).await;
    assert!(after.iter().all(|m| m.get("id") != Some(&json!("listen-1"))), "{after:?}");
}
