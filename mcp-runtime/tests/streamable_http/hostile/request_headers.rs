//! Hostile headers: unknown, garbage, repeated or mismatching `Mcp-*` headers, and
//! requests hyper cannot parse.

use super::*;

#[tokio::test]
async fn unknown_mcp_headers_are_ignored_and_garbage_ones_refused() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let message = call(json!(1), "echo", json!({"text": "h"}), json!({}));
    let body = message.to_string();
    // Unknown headers, of the Mcp- family or not, change nothing.
    for (name, value) in [
        ("Mcp-Foo", "bar"),
        ("Mcp-Param-Nope", "1"),
        ("Mcp-Param-", "x"),
        ("Mcp-Session-Id", "no-such-session"),
        ("Mcp-Session-Id", "ünïcode"),
        ("X-Garbage", "\u{80}\u{ff}"),
        ("Mcp-Name-Extra", "other"),
    ] {
        let headers = call_headers("echo").add(name, value);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        assert_eq!(complete_text(&assert_result(&reply, &json!(1))), "h", "{name}: {value}");
    }
    // A protocol version header that is not the body's.
    for version in ["garbage", "2026-07-28x", " ", "2025-11-25", "1900-01-01", "2026-07-28, 2026-07-28", "ðŸ"] {
        let headers = call_headers("echo").set("MCP-Protocol-Version", version);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 400, -32020, &json!(1));
        assert!(error["message"].as_str().unwrap_or_default().starts_with("Header mismatch"), "{error}");
        assert_still_serving(addr).await;
    }
    // A version both header and body agree on, but unsupported.
    let mut old = message.clone();
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let headers = call_headers("echo").set("MCP-Protocol-Version", "1900-01-01");
    let reply = http::post(addr, &headers, &old).await;
    assert_error(&reply, 400, -32022, &json!(1));
    // Mcp-Method and Mcp-Name not matching the body, missing, or not text.
    for (name, value) in [
        ("Mcp-Method", "tools/list"),
        ("Mcp-Method", "TOOLS/CALL"),
        ("Mcp-Method", "tööls/call"),
        ("Mcp-Name", "hold"),
        ("Mcp-Name", "échø"),
        ("Mcp-Name", "=?base64?!!!?="),
        ("Mcp-Name", "=?base64?//79?="),
    ] {
        let headers = call_headers("echo").set(name, value);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 400, -32020, &json!(1));
        assert!(error["message"].as_str().unwrap_or_default().starts_with("Header mismatch"), "{name}: {error}");
        assert_still_serving(addr).await;
    }
    for name in ["Mcp-Method", "Mcp-Name", "MCP-Protocol-Version"] {
        let headers = call_headers("echo").remove(name);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 400, -32020, &json!(1));
        assert_eq!(error["message"], format!("Header mismatch: {name} header is required"));
    }
    // Bytes that are not UTF-8 in a header value.
    let request = http::raw_request(
        addr,
        "POST",
        PATH,
        &call_headers("echo").set("Mcp-Name", "@@@@").set("Connection", "close"),
        body.as_bytes(),
    );
    let at = request.windows(4).position(|w| w == b"@@@@").unwrap_or_else(|| panic!("no placeholder"));
    let mut request = request;
    request.splice(at..at + 4, [0xffu8, 0xfe, 0x80, 0x81]);
    let reply = http::send_bytes(addr, &request, false).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        assert_error(&reply, 400, -32020, &json!(1))["message"],
        "Header mismatch: Mcp-Name header is not valid text"
    );
    assert_still_serving(addr).await;
    logs.assert_clean(&[]);
}

#[tokio::test]
async fn a_repeated_mcp_header_with_conflicting_values_is_a_mismatch() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let body = call(json!(1), "echo", json!({"text": "h"}), json!({})).to_string();
    for (name, first, second) in [
        ("Mcp-Name", "echo", "hold"),
        ("Mcp-Method", "tools/call", "tools/list"),
        ("MCP-Protocol-Version", MODERN, "2025-11-25"),
    ] {
        // Whichever of the two an intermediary reads, the body must agree with both.
        let headers = call_headers("echo").set(name, first).add(name, second);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        assert_error(&reply, 400, -32020, &json!(1));
        assert_still_serving(addr).await;
        // Repeated with the same value, it is refused all the same, and says so.
        let headers = call_headers("echo").set(name, first).add(name, first);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 400, -32020, &json!(1));
        assert_eq!(error["message"], format!("Header mismatch: {name} header appears more than once"));
    }
}

/// A low-level server with one tool whose `region` argument is mirrored in `Mcp-Param-Region`.
fn mirrored_server() -> Server {
    let tool = Tool::new(
        "region",
        "Echo the region.",
        json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}),
    );
    Server::builder("hostile-http-mirrored", "1.0.0")
        .on_list_tools(move |_ctx, _params| {
            let tools = vec![tool.clone()];
            async move { Ok(ListToolsResult::new(tools)) }
        })
        .on_call_tool(|_ctx, params: CallToolParams| async move {
            let region = params.arguments.as_ref().and_then(|a| a.get("region")).and_then(Value::as_str);
            Ok(CallToolResult::text(region.unwrap_or_default()).into())
        })
        .build()
}

#[tokio::test]
async fn a_mirrored_argument_that_mismatches_its_header_is_refused_and_not_logged() {
    let (logs, _guard) = capture_logs();
    let addr = http::serve(&mirrored_server(), HttpConfig::default()).await;
    let secret = "SECRET-REGION-http-5ab9";
    let message = call(json!(1), "region", json!({"region": secret}), json!({}));
    let reply = post(addr, "region", &message).await;
    let error = assert_error(&reply, 400, -32020, &json!(1));
    assert_eq!(error["message"], "Header mismatch: Mcp-Param-Region header is required");
    for header in ["other", "=?base64?!!?=", secret.to_lowercase().as_str()] {
        let headers = call_headers("region").set("Mcp-Param-Region", header);
        let reply = http::post(addr, &headers, &message).await;
        assert_error(&reply, 400, -32020, &json!(1));
    }
    let headers = call_headers("region").set("Mcp-Param-Region", secret);
    let reply = http::post(addr, &headers, &message).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(1))), secret);
    // The value travels back to the client that sent it, but not into the logs.
    logs.assert_clean(&[secret, &secret.to_lowercase()]);
}

#[tokio::test]
async fn requests_hyper_cannot_parse_are_refused_without_harm() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let body = call(json!(1), "echo", json!({"text": "h"}), json!({})).to_string();
    let cases: [(u16, Vec<u8>); 6] = [
        // A control character in a header value.
        (
            400,
            http::raw_request(addr, "POST", PATH, &call_headers("echo").set("Mcp-Name", "ec\u{1}ho"), body.as_bytes()),
        ),
        // A space in a header name.
        (400, http::raw_request(addr, "POST", PATH, &call_headers("echo").add("Mcp Name", "echo"), body.as_bytes())),
        // A header line without a colon.
        (
            400,
            http::raw_request(addr, "POST", PATH, &call_headers("echo").add("Mcp-No-Colon", "x"), body.as_bytes())
                .replacen_bytes(b"Mcp-No-Colon: x", b"Mcp-No-Colon x"),
        ),
        // A header far larger than any sane one.
        (
            431,
            http::raw_request(
                addr,
                "POST",
                PATH,
                &call_headers("echo").add("Mcp-Huge", &"h".repeat(512 * 1024)),
                body.as_bytes(),
            ),
        ),
        // Not HTTP at all.
        (400, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 garbage\r\n\r\n".to_vec()),
        // Two Content-Length headers that disagree.
        (
            400,
            http::raw_request(
                addr,
                "POST",
                PATH,
                &call_headers("echo").set("Content-Length", &body.len().to_string()).add("Content-Length", "3"),
                body.as_bytes(),
            ),
        ),
    ];
    for (status, request) in cases {
        // hyper refuses these itself, before the MCP endpoint sees them, and closes.
        let reply = http::send_bytes(addr, &request, true).await.unwrap_or_else(|e| panic!("a {status} is due: {e}"));
        assert_eq!(reply.status.as_u16(), status, "{}", String::from_utf8_lossy(&request[..request.len().min(200)]));
        assert_eq!(reply.header("connection"), Some("close"));
        assert_still_serving(addr).await;
    }
}
