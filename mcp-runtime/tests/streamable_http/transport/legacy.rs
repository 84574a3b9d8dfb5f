//! 2025-11-25 sessions on the same endpoint.

use super::*;
use crate::support::legacy_http::{initialize, legacy_headers};

#[tokio::test]
async fn legacy_session_lifecycle() {
    let (addr, _) = start().await;
    let session = initialize(addr, json!({})).await;
    let other = initialize(addr, json!({})).await;
    assert_ne!(session, other, "each initialize opens its own session");

    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let reply = post(addr, &legacy_headers(Some(&session)), &list).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["id"], 1);
    assert!(body["result"].get("resultType").is_none(), "legacy results carry no resultType: {body}");
    assert!(body["result"].get("ttlMs").is_none(), "{body}");
    assert_valid(LEGACY, "ListToolsResult", &body["result"]);
    assert_eq!(body["result"]["tools"].as_array().map(Vec::len), Some(5));

    let reply = post(addr, &legacy_headers(Some("no-such-session")), &list).await;
    assert_error(&reply, 404, -32600, &json!(1));

    let stream =
        http::open(addr, "GET", PATH, &legacy_headers(Some(&session)).set("Accept", "text/event-stream"), "").await;
    assert_eq!(stream.status.as_u16(), 200);
    assert_eq!(stream.content_type().as_deref(), Some("text/event-stream"));
    drop(stream);

    let reply =
        http::send(addr, "GET", PATH, &legacy_headers(Some(&session)).set("Accept", "application/json"), "").await;
    assert_eq!(reply.status.as_u16(), 406, "{}", reply.body);

    let mut held =
        http::open(addr, "GET", PATH, &legacy_headers(Some(&session)).set("Accept", "text/event-stream"), "").await;
    assert_eq!(held.status.as_u16(), 200);

    let reply = http::send(addr, "DELETE", PATH, &legacy_headers(Some(&session)), "").await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert_eq!(held.next_message_within(Duration::from_secs(2)).await, None, "DELETE ends the session's GET stream");
    let reply = post(addr, &legacy_headers(Some(&session)), &list).await;
    assert_error(&reply, 404, -32600, &json!(1));
    // Notifications and responses naming the ended session get 404 as well.
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let reply = post(addr, &legacy_headers(Some(&session)), &notification).await;
    assert_error(&reply, 404, -32600, &Value::Null);
    let response = json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "cancel"}});
    let reply = post(addr, &legacy_headers(Some(&session)), &response).await;
    assert_error(&reply, 404, -32600, &Value::Null);
    let reply = http::send(addr, "DELETE", PATH, &legacy_headers(Some(&session)), "").await;
    assert_eq!(reply.status.as_u16(), 404, "{}", reply.body);
    let reply =
        http::send(addr, "GET", PATH, &legacy_headers(Some(&session)).set("Accept", "text/event-stream"), "").await;
    assert_eq!(reply.status.as_u16(), 404, "{}", reply.body);

    // The other session is untouched.
    let reply = post(addr, &legacy_headers(Some(&other)), &list).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
}

#[tokio::test]
async fn a_failed_initialize_opens_no_session() {
    let (addr, _) = start_with(HttpConfig::default().max_sessions(1)).await;
    let message = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}});
    for _ in 0..2 {
        let reply = post(addr, &legacy_headers(None), &message).await;
        let body = reply.json();
        assert_eq!(body["error"]["code"], -32602, "initialize without protocolVersion: {body}");
        assert_eq!(body["id"], 0);
        assert!(reply.header("mcp-session-id").is_none(), "no session for a failed initialize: {:?}", reply.headers);
    }
    // The failures took no session slot: the only one is still free, and then taken (its
    // open GET stream keeps it busy, so it is not evicted to make room).
    let session = initialize(addr, json!({})).await;
    let _held =
        http::open(addr, "GET", PATH, &legacy_headers(Some(&session)).set("Accept", "text/event-stream"), "").await;
    let good = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    let reply = post(addr, &legacy_headers(None), &good).await;
    assert_error(&reply, 503, -32000, &json!(1));
}

#[tokio::test]
async fn legacy_elicitation_travels_on_the_request_stream_and_the_answer_is_posted_back() {
    let (addr, _) = start().await;
    let session = initialize(addr, json!({"elicitation": {}})).await;
    let message = json!({"jsonrpc": "2.0", "id": "ask-1", "method": "tools/call",
        "params": {"name": "ask", "arguments": {}}});
    let mut stream = http::open(addr, "POST", PATH, &legacy_headers(Some(&session)), message.to_string()).await;
    assert_eq!(stream.status.as_u16(), 200);
    assert_eq!(stream.content_type().as_deref(), Some("text/event-stream"));

    let question = stream.next_message().await.expect("the elicitation request");
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_valid(LEGACY, "ElicitRequest", &question);
    let question_id = question.get("id").cloned().expect("a server request has an id");
    assert_eq!(question["params"]["message"], "What is your name?");

    let answer =
        json!({"jsonrpc": "2.0", "id": question_id, "result": {"action": "accept", "content": {"name": "Ada"}}});
    let reply = post(addr, &legacy_headers(Some(&session)), &answer).await;
    assert_eq!((reply.status.as_u16(), reply.body.as_str()), (202, ""));

    let last = stream.next_message().await.expect("the tool result");
    assert_eq!(last["id"], "ask-1", "{last}");
    assert_valid(LEGACY, "CallToolResult", &last["result"]);
    assert!(last["result"].get("resultType").is_none(), "{last}");
    assert_eq!(last["result"]["content"][0]["text"], "Hello, Ada!");
    assert_eq!(stream.next_message().await, None, "the stream ends after the response");
}
