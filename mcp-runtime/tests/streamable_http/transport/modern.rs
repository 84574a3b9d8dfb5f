//! 2026-07-28 requests: successful calls, the request-metadata and `Mcp-Param-*` headers,
//! and the errors for a missing or wrong `_meta` and for unknown or removed methods.

use super::*;

#[tokio::test]
async fn modern_call_answers_json_with_a_complete_result() {
    let (addr, _) = start().await;
    let id = json!("call-1");
    let reply = post(addr, &call_headers("echo"), &call(id.clone(), "echo", json!({"text": "hello"}))).await;
    assert_eq!(assert_tool_text(&reply, &id), "hello");
    let body = reply.json();
    assert_eq!(body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "http-transport-test");
    assert!(reply.header("mcp-session-id").is_none(), "modern requests get no session");
}

/// The built-in listener tells handlers the TCP peer of the connection.
#[tokio::test]
async fn handlers_see_the_connections_peer_address() {
    let (addr, _) = start().await;
    let id = json!(1);
    let reply = post(addr, &call_headers("peer"), &call(id.clone(), "peer", json!({}))).await;
    assert_eq!(assert_tool_text(&reply, &id), "127.0.0.1");
}

#[tokio::test]
async fn modern_input_required_is_a_200_result_and_the_retry_completes() {
    let (addr, _) = start().await;
    let caps = json!({"elicitation": {}});
    let first = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": modern_params(caps.clone(), json!({"name": "ask", "arguments": {}}))});
    let reply = post(addr, &call_headers("ask"), &first).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    let body = reply.json();
    assert_valid(MODERN, "CallToolResultResponse", &body);
    assert_eq!(body["result"]["resultType"], "input_required", "{body}");
    assert_eq!(body["result"]["inputRequests"]["name"]["method"], "elicitation/create", "{body}");
    let state = body["result"]["requestState"].clone();

    let retry = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": modern_params(caps, json!({"name": "ask", "arguments": {},
            "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}},
            "requestState": state}))});
    let reply = post(addr, &call_headers("ask"), &retry).await;
    assert_eq!(assert_tool_text(&reply, &json!(2)), "Hello, Ada!");
}

#[tokio::test]
async fn modern_input_request_without_the_capability_is_400_minus_32021() {
    let (addr, _) = start().await;
    let reply = post(addr, &call_headers("ask"), &call(json!(7), "ask", json!({}))).await;
    let error = assert_error(&reply, 400, -32021, &json!(7));
    assert_valid(MODERN, "MissingRequiredClientCapabilityError", &reply.json());
    assert_eq!(error["data"]["requiredCapabilities"], json!({"elicitation": {"form": {}}}), "{error}");
}

#[tokio::test]
async fn missing_protocol_version_header_is_a_mismatch() {
    let (addr, _) = start().await;
    let headers = call_headers("echo").remove("MCP-Protocol-Version");
    let reply = post(addr, &headers, &call(json!(1), "echo", json!({"text": "x"}))).await;
    let message = assert_mismatch(&reply, &json!(1));
    assert!(message.contains("MCP-Protocol-Version"), "{message}");
}

#[tokio::test]
async fn protocol_version_header_differing_from_meta_is_a_mismatch() {
    let (addr, _) = start().await;
    let headers = call_headers("echo").set("MCP-Protocol-Version", "2025-11-25");
    let reply = post(addr, &headers, &call(json!(2), "echo", json!({"text": "x"}))).await;
    let message = assert_mismatch(&reply, &json!(2));
    assert!(message.contains("2025-11-25") && message.contains("2026-07-28"), "{message}");
}

#[tokio::test]
async fn missing_method_header_is_a_mismatch() {
    let (addr, _) = start().await;
    let headers = call_headers("echo").remove("Mcp-Method");
    let reply = post(addr, &headers, &call(json!("m1"), "echo", json!({"text": "x"}))).await;
    let message = assert_mismatch(&reply, &json!("m1"));
    assert!(message.contains("Mcp-Method"), "{message}");
}

#[tokio::test]
async fn method_header_values_are_case_sensitive() {
    let (addr, _) = start().await;
    for (n, value) in ["TOOLS/CALL", "Tools/Call", "tools/list"].into_iter().enumerate() {
        let id = json!(n);
        let headers = call_headers("echo").set("Mcp-Method", value);
        let reply = post(addr, &headers, &call(id.clone(), "echo", json!({"text": "x"}))).await;
        let message = assert_mismatch(&reply, &id);
        assert!(message.contains(value), "{message}");
    }
}

#[tokio::test]
async fn missing_or_different_name_header_is_a_mismatch() {
    let (addr, _) = start().await;
    let message = call(json!(3), "echo", json!({"text": "x"}));
    let reply = post(addr, &call_headers("echo").remove("Mcp-Name"), &message).await;
    assert!(assert_mismatch(&reply, &json!(3)).contains("Mcp-Name"));
    for other in ["region", "ECHO", "=?base64?cmVnaW9u?="] {
        let reply = post(addr, &call_headers(other), &message).await;
        assert_mismatch(&reply, &json!(3));
    }
    // The name header base64-wrapped is the same name.
    let reply = post(addr, &call_headers("=?base64?ZWNobw==?="), &message).await;
    assert_eq!(assert_tool_text(&reply, &json!(3)), "x");
}

#[tokio::test]
async fn the_tasks_methods_carry_the_task_id_in_mcp_name() {
    let (addr, _) = start().await;
    for (n, method) in ["tasks/get", "tasks/update", "tasks/cancel"].into_iter().enumerate() {
        let id = json!(n);
        let message = modern_request(id.clone(), method, json!({"taskId": "t-1", "inputResponses": {}}));
        let reply = post(addr, &Headers::modern(method, None), &message).await;
        assert!(assert_mismatch(&reply, &id).contains("Mcp-Name"), "{method} without Mcp-Name");
        let reply = post(addr, &Headers::modern(method, Some("t-2")), &message).await;
        assert_mismatch(&reply, &id);
        // With the right name the request reaches dispatch (this server runs no tasks).
        let reply = post(addr, &Headers::modern(method, Some("t-1")), &message).await;
        assert_error(&reply, 404, -32601, &id);
    }
}

#[tokio::test]
async fn header_names_are_case_insensitive_on_the_wire() {
    let (addr, _) = start().await;
    let body = call(json!(4), "region", json!({"region": "us-west1", "count": 2})).to_string();
    let spellings = [
        ["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-param-region", "mcp-param-count"],
        ["MCP-PROTOCOL-VERSION", "MCP-METHOD", "MCP-NAME", "MCP-PARAM-REGION", "MCP-PARAM-COUNT"],
        ["Mcp-Protocol-version", "mCP-mEthod", "Mcp-nAME", "Mcp-Param-REGION", "mcp-PARAM-count"],
    ];
    for [version, method, name, region, count] in spellings {
        let headers = Headers::json()
            .set(version, "2026-07-28")
            .set(method, "tools/call")
            .set(name, "region")
            .set(region, "us-west1")
            .set(count, "2");
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        assert_eq!(assert_tool_text(&reply, &json!(4)), "region=\"us-west1\" count=2", "spelling {method}");
    }
}

#[tokio::test]
async fn surrounding_whitespace_in_header_values_is_tolerated() {
    let (addr, _) = start().await;
    let body = call(json!(5), "region", json!({"region": "eu", "count": 1})).to_string();
    let headers = Headers::json()
        .set("MCP-Protocol-Version", " 2026-07-28\t")
        .set("Mcp-Method", "\t tools/call  ")
        .set("Mcp-Name", "  region ")
        .set("Mcp-Param-Region", " eu ")
        .set("Mcp-Param-Count", "\t1\t");
    let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
    assert_eq!(assert_tool_text(&reply, &json!(5)), "region=\"eu\" count=1");
}

fn region_call(id: i64, arguments: Value) -> Value {
    call(json!(id), "region", arguments)
}

#[tokio::test]
async fn param_header_base64_value_matching_the_body_is_accepted() {
    let (addr, _) = start().await;
    // "日本" is E6 97 A5 E6 9C AC in UTF-8; "us-west1" is plain ASCII.
    let cases = [("日本", "=?base64?5pel5pys?="), ("us-west1", "=?base64?dXMtd2VzdDE=?="), ("us-west1", "us-west1")];
    for (n, (region, header)) in cases.into_iter().enumerate() {
        let id = i64::try_from(n).unwrap_or_default();
        let headers = call_headers("region").set("Mcp-Param-Region", header);
        let reply = post(addr, &headers, &region_call(id, json!({"region": region}))).await;
        assert_eq!(assert_tool_text(&reply, &json!(id)), format!("region=\"{region}\" count=null"), "{header}");
    }
    // A base64 value that decodes to something else is a mismatch.
    let headers = call_headers("region").set("Mcp-Param-Region", "=?base64?5pel5pys?=");
    let reply = post(addr, &headers, &region_call(9, json!({"region": "中国"}))).await;
    assert_mismatch(&reply, &json!(9));
}

#[tokio::test]
async fn param_header_without_the_wrapper_is_compared_literally() {
    let (addr, _) = start().await;
    // Base64 of "us-west1", but not wrapped: it is the literal string.
    let headers = call_headers("region").set("Mcp-Param-Region", "dXMtd2VzdDE=");
    let reply = post(addr, &headers, &region_call(1, json!({"region": "us-west1"}))).await;
    assert_mismatch(&reply, &json!(1));
    let reply = post(addr, &headers, &region_call(2, json!({"region": "dXMtd2VzdDE="}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(2)), "region=\"dXMtd2VzdDE=\" count=null");
    // Only the prefix: not the wrapper either.
    let headers = call_headers("region").set("Mcp-Param-Region", "=?base64?dXMtd2VzdDE=");
    let reply = post(addr, &headers, &region_call(3, json!({"region": "=?base64?dXMtd2VzdDE="}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(3)), "region=\"=?base64?dXMtd2VzdDE=\" count=null");
}

#[tokio::test]
async fn param_header_with_bad_base64_is_a_mismatch() {
    let (addr, _) = start().await;
    for (n, bad) in ["=?base64?dXMtd2VzdDE?=", "=?base64?dXMt!!!d2VzdDE=?=", "=?base64?/w==?="].into_iter().enumerate()
    {
        let id = i64::try_from(n).unwrap_or_default();
        let headers = call_headers("region").set("Mcp-Param-Region", bad);
        let reply = post(addr, &headers, &region_call(id, json!({"region": "us-west1"}))).await;
        let message = assert_mismatch(&reply, &json!(id));
        assert!(message.contains("Mcp-Param-Region"), "{bad}: {message}");
    }
}

#[tokio::test]
async fn param_header_missing_while_the_body_has_the_value_is_a_mismatch() {
    let (addr, _) = start().await;
    let reply = post(addr, &call_headers("region"), &region_call(1, json!({"region": "us-west1"}))).await;
    assert!(assert_mismatch(&reply, &json!(1)).contains("Mcp-Param-Region"));
    let headers = call_headers("region").set("Mcp-Param-Region", "us-west1");
    let reply = post(addr, &headers, &region_call(2, json!({"region": "us-west1", "count": 3}))).await;
    assert!(assert_mismatch(&reply, &json!(2)).contains("Mcp-Param-Count"));
    // A null argument needs no header.
    let reply = post(addr, &headers, &region_call(3, json!({"region": "us-west1", "count": null}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(3)), "region=\"us-west1\" count=null");
}

#[tokio::test]
async fn integer_param_header_is_compared_numerically() {
    let (addr, _) = start().await;
    for (n, header) in ["7", "007", "=?base64?MDA3?="].into_iter().enumerate() {
        let id = i64::try_from(n).unwrap_or_default();
        let headers = call_headers("region").set("Mcp-Param-Count", header);
        let reply = post(addr, &headers, &region_call(id, json!({"count": 7}))).await;
        assert_eq!(assert_tool_text(&reply, &json!(id)), "region=null count=7", "header {header:?}");
    }
    for (n, header) in ["8", "seven", "7.5", "0x7", ""].into_iter().enumerate() {
        let id = 10 + i64::try_from(n).unwrap_or_default();
        let headers = call_headers("region").set("Mcp-Param-Count", header);
        let reply = post(addr, &headers, &region_call(id, json!({"count": 7}))).await;
        assert_mismatch(&reply, &json!(id));
    }
    // A JSON Schema integer may be written with a zero fraction: 7.0 is 7; 7.5 is no integer.
    let headers = call_headers("region").set("Mcp-Param-Count", "7");
    let reply = post(addr, &headers, &region_call(20, json!({"count": 7.0}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(20)), "region=null count=7.0");
    let reply = post(addr, &headers, &region_call(21, json!({"count": 7.5}))).await;
    assert_mismatch(&reply, &json!(21));
}

#[tokio::test]
async fn param_header_present_while_the_body_lacks_the_argument_is_a_mismatch() {
    let (addr, _) = start().await;
    let headers = call_headers("region").set("Mcp-Param-Region", "us-west1");
    let reply = post(addr, &headers, &region_call(1, json!({}))).await;
    let message = assert_mismatch(&reply, &json!(1));
    assert!(message.contains("Mcp-Param-Region"), "{message}");
    let message = call(json!(2), "region", Value::Null);
    let reply = post(addr, &headers.set("Mcp-Param-Count", "1"), &message).await;
    assert_mismatch(&reply, &json!(2));
}

#[tokio::test]
async fn unsupported_version_in_header_and_meta_is_400_minus_32022() {
    let (addr, _) = start().await;
    let mut message = call(json!("v"), "echo", json!({"text": "x"}));
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let headers = call_headers("echo").set("MCP-Protocol-Version", "1900-01-01");
    let reply = post(addr, &headers, &message).await;
    let error = assert_error(&reply, 400, -32022, &json!("v"));
    assert_valid(MODERN, "UnsupportedProtocolVersionError", &reply.json());
    assert_eq!(error["data"]["requested"], "1900-01-01", "{error}");
    let supported = error["data"]["supported"].as_array().cloned().unwrap_or_default();
    assert!(supported.contains(&json!("2026-07-28")), "{error}");
}

#[tokio::test]
async fn missing_meta_is_400_minus_32602() {
    let (addr, _) = start().await;
    let message = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "x"}}});
    let reply = post(addr, &call_headers("echo"), &message).await;
    assert_error(&reply, 400, -32602, &json!(11));
}

#[tokio::test]
async fn missing_client_capabilities_is_400_minus_32602() {
    let (addr, _) = start().await;
    let mut message = call(json!(12), "echo", json!({"text": "x"}));
    let meta = message["params"]["_meta"].as_object_mut().expect("_meta is an object");
    meta.remove("io.modelcontextprotocol/clientCapabilities");
    let reply = post(addr, &call_headers("echo"), &message).await;
    let error = assert_error(&reply, 400, -32602, &json!(12));
    assert!(error["message"].as_str().is_some_and(|m| m.contains("clientCapabilities")), "{error}");
}

#[tokio::test]
async fn unknown_method_is_404_minus_32601() {
    let (addr, _) = start().await;
    let reply = post(addr, &Headers::modern("foo/bar", None), &modern_request(json!(13), "foo/bar", json!({}))).await;
    assert_error(&reply, 404, -32601, &json!(13));
}

#[tokio::test]
async fn removed_methods_with_modern_meta_are_404() {
    let (addr, _) = start().await;
    let removed = [
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "file:///x"})),
        (
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        ),
    ];
    for (n, (method, extra)) in removed.into_iter().enumerate() {
        let id = json!(format!("removed-{n}"));
        let reply = post(addr, &Headers::modern(method, None), &modern_request(id.clone(), method, extra)).await;
        assert_error(&reply, 404, -32601, &id);
        assert!(reply.header("mcp-session-id").is_none(), "{method} must not open a session");
    }
}
