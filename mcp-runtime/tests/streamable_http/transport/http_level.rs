//! HTTP-level handling (methods, content types, sizes), SSE responses, and the
//! DNS-rebinding protection.

use super::*;

#[tokio::test]
async fn notification_post_is_202_with_an_empty_body() {
    let (addr, _) = start().await;
    let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let reply = post(addr, &Headers::modern("notifications/cancelled", None), &message).await;
    assert_eq!(reply.status.as_u16(), 202, "{}", reply.body);
    assert_eq!(reply.body, "");
}

#[tokio::test]
async fn get_delete_and_put_without_a_session_are_405_and_other_paths_404() {
    let (addr, _) = start().await;
    let sse = Headers::new().set("Accept", "text/event-stream");
    for method in ["GET", "DELETE"] {
        let reply = http::send(addr, method, PATH, &sse, "").await;
        assert_eq!(reply.status.as_u16(), 405, "{method}: {}", reply.body);
        assert!(reply.header("allow").is_some_and(|a| a.contains("POST")), "{method}: {:?}", reply.headers);
    }
    let body = call(json!(1), "echo", json!({"text": "x"})).to_string();
    let reply = http::send(addr, "PUT", PATH, &call_headers("echo"), body.clone()).await;
    assert_eq!(reply.status.as_u16(), 405, "{}", reply.body);
    let reply = http::send(addr, "POST", "/other", &call_headers("echo"), body.clone()).await;
    assert_eq!(reply.status.as_u16(), 404, "{}", reply.body);
    let reply = http::send(addr, "POST", "/mcp/extra", &call_headers("echo"), body).await;
    assert_eq!(reply.status.as_u16(), 404, "{}", reply.body);
}

#[tokio::test]
async fn wrong_content_type_is_415() {
    let (addr, _) = start().await;
    let body = call(json!(1), "echo", json!({"text": "x"})).to_string();
    for content_type in ["text/plain", "application/jsonx", "multipart/form-data"] {
        let headers = call_headers("echo").set("Content-Type", content_type);
        let reply = http::send(addr, "POST", PATH, &headers, body.clone()).await;
        assert_eq!(reply.status.as_u16(), 415, "{content_type}: {}", reply.body);
    }
    let reply = http::send(addr, "POST", PATH, &call_headers("echo").remove("Content-Type"), body.clone()).await;
    assert_eq!(reply.status.as_u16(), 415, "{}", reply.body);
    let headers = call_headers("echo").set("Content-Type", "Application/JSON; charset=utf-8");
    let reply = http::send(addr, "POST", PATH, &headers, body).await;
    assert_eq!(assert_tool_text(&reply, &json!(1)), "x");
}

#[tokio::test]
async fn accept_without_event_stream_is_406() {
    let (addr, _) = start().await;
    let body = call(json!(1), "echo", json!({"text": "x"})).to_string();
    for accept in ["application/json", "text/event-stream", "text/html"] {
        let reply = http::send(addr, "POST", PATH, &call_headers("echo").set("Accept", accept), body.clone()).await;
        assert_eq!(reply.status.as_u16(), 406, "{accept}: {}", reply.body);
    }
    let reply = http::send(addr, "POST", PATH, &call_headers("echo").remove("Accept"), body.clone()).await;
    assert_eq!(reply.status.as_u16(), 406, "{}", reply.body);
    let headers = call_headers("echo").set("Accept", "text/event-stream;q=0.9, application/json");
    let reply = http::send(addr, "POST", PATH, &headers, body).await;
    assert_eq!(assert_tool_text(&reply, &json!(1)), "x");
}

#[tokio::test]
async fn malformed_json_is_400_minus_32700() {
    let (addr, _) = start().await;
    for bad in ["{not json", "", "{\"jsonrpc\": \"2.0\", \"id\": 1,"] {
        let reply = http::send(addr, "POST", PATH, &call_headers("echo"), bad).await;
        assert_error(&reply, 400, -32700, &Value::Null);
    }
    let reply = http::send(addr, "POST", PATH, &call_headers("echo"), vec![0xff, 0xfe, b'{']).await;
    assert_error(&reply, 400, -32700, &Value::Null);
}

#[tokio::test]
async fn json_array_body_is_400_minus_32600() {
    let (addr, _) = start().await;
    let batch = json!([call(json!(1), "echo", json!({"text": "x"}))]);
    let reply = post(addr, &call_headers("echo"), &batch).await;
    assert_error(&reply, 400, -32600, &Value::Null);
}

#[tokio::test]
async fn a_response_posted_outside_a_session_is_400() {
    let (addr, _) = start().await;
    let message = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
    let reply = post(addr, &Headers::json().set("MCP-Protocol-Version", "2026-07-28"), &message).await;
    assert_error(&reply, 400, -32600, &Value::Null);
}

#[tokio::test]
async fn oversized_body_is_413_and_the_server_keeps_serving() {
    let config = HttpConfig::default().max_body_bytes(1024);
    let (addr, _) = start_with(config).await;
    let big = call(json!(1), "echo", json!({"text": "x".repeat(10 * 1024)})).to_string();
    let reply = http::send(addr, "POST", PATH, &call_headers("echo"), big).await;
    assert_eq!(reply.status.as_u16(), 413, "{}", reply.body);
    assert_error(&reply, 413, -32600, &Value::Null);
    // A body just under the limit still works.
    let small = call(json!(2), "echo", json!({"text": "y".repeat(512)}));
    let reply = post(addr, &call_headers("echo"), &small).await;
    assert_eq!(assert_tool_text(&reply, &json!(2)), "y".repeat(512));
    assert_serving(addr).await;
}

#[tokio::test]
async fn progress_switches_the_response_to_sse_with_notifications_then_the_result() {
    let (addr, _) = start().await;
    let message = with_progress_token(call(json!("p"), "progress", json!({})), "token-1");
    let reply = post(addr, &call_headers("progress"), &message).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("text/event-stream"));
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    let messages = reply.sse_messages();
    assert_eq!(messages.len(), 4, "three progress notifications and the response: {messages:#?}");
    for (step, notification) in messages[..3].iter().enumerate() {
        assert_valid(MODERN, "ProgressNotification", notification);
        assert_eq!(notification["params"]["progressToken"], "token-1");
        let progress = notification["params"]["progress"].as_f64();
        assert_eq!(progress, Some(step as f64 + 1.0), "progress in order: {notification}");
        assert_eq!(notification["params"]["total"].as_f64(), Some(3.0), "{notification}");
    }
    let last = &messages[3];
    assert_valid(MODERN, "CallToolResultResponse", last);
    assert_eq!(last["id"], "p");
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(last["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn without_a_progress_token_the_same_call_answers_json() {
    let (addr, _) = start().await;
    let reply = post(addr, &call_headers("progress"), &call(json!(1), "progress", json!({}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(1)), "done");
}

#[tokio::test]
async fn foreign_host_or_origin_is_403() {
    let (addr, _) = start().await;
    let message = call(json!(1), "echo", json!({"text": "x"}));
    let reply = post(addr, &call_headers("echo").set("Host", "evil.example.com"), &message).await;
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.body);
    let reply =
        post(addr, &call_headers("echo").set("Host", &format!("evil.example.com:{}", addr.port())), &message).await;
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.body);
    let headers = call_headers("echo")
        .set("Host", &format!("localhost:{}", addr.port()))
        .set("Origin", "http://evil.example.com");
    let reply = post(addr, &headers, &message).await;
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.body);
    // A GET from a foreign host is refused before anything else.
    let reply = http::send(addr, "GET", PATH, &Headers::new().set("Host", "evil.example.com"), "").await;
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.body);
}

#[tokio::test]
async fn loopback_host_and_origin_are_accepted() {
    let (addr, _) = start().await;
    let message = call(json!(1), "echo", json!({"text": "x"}));
    let headers = call_headers("echo").set("Host", &format!("localhost:{}", addr.port()));
    assert_eq!(assert_tool_text(&post(addr, &headers, &message).await, &json!(1)), "x");
    let headers = headers.set("Origin", "http://localhost:5173");
    assert_eq!(assert_tool_text(&post(addr, &headers, &message).await, &json!(1)), "x");
}

#[tokio::test]
async fn without_allowed_hosts_any_host_is_accepted() {
    let (addr, _) = start_with(HttpConfig::default().allow_any_host()).await;
    let message = call(json!(1), "echo", json!({"text": "x"}));
    let headers = call_headers("echo").set("Host", "evil.example.com").set("Origin", "http://evil.example.com");
    assert_eq!(assert_tool_text(&post(addr, &headers, &message).await, &json!(1)), "x");
}
