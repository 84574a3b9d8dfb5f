//! Long-lived streams (2026-07-28 `subscriptions/listen`, 2025-11-25 GET) have their own
//! caps, overall, per client (principal or peer address) and per session, and a maximum
//! lifetime; they never take the request slots, so ordinary calls keep being served.

use mcp::auth::{AuthInfo, StaticTokenVerifier};
use mcp_testkit::http::EventStream;

use super::*;
use crate::support::legacy_http::{initialize, legacy_headers};

const STREAMS_BUSY: &str = "Server busy: too many open streams; retry later";

fn listen_message(id: &str) -> Value {
    let params = modern_params(json!({}), json!({"notifications": {"toolsListChanged": true}}));
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params})
}

fn listen_headers(token: Option<&str>) -> Headers {
    let headers = Headers::modern("subscriptions/listen", None);
    match token {
        Some(token) => headers.set("Authorization", &format!("Bearer {token}")),
        None => headers,
    }
}

/// Open a listen stream and read its acknowledgement.
async fn open_listen(addr: SocketAddr, id: &str, token: Option<&str>) -> EventStream {
    let mut stream = http::open(addr, "POST", PATH, &listen_headers(token), listen_message(id).to_string()).await;
    assert_eq!(stream.status.as_u16(), 200, "listen {id}");
    assert_eq!(stream.content_type().as_deref(), Some("text/event-stream"), "listen {id}");
    let ack = stream.next_message().await.unwrap_or_else(|| panic!("listen {id} ended before its acknowledgement"));
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id, "{ack}");
    stream
}

/// A listen refused with `status` and JSON-RPC `-32000` "too many open streams".
async fn assert_listen_refused(addr: SocketAddr, id: &str, token: Option<&str>, status: u16) {
    let reply = http::send(addr, "POST", PATH, &listen_headers(token), listen_message(id).to_string()).await;
    let error = assert_error(&reply, status, -32000, &json!(id));
    assert_eq!(error["message"], STREAMS_BUSY, "{error}");
    assert_eq!(reply.header("retry-after"), Some("1"), "{:?}", reply.headers);
}

/// Retry a listen until the server has noticed a closed stream and freed its slot.
async fn listen_once_freed(addr: SocketAddr, id: &str, token: Option<&str>) -> EventStream {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let mut stream = http::open(addr, "POST", PATH, &listen_headers(token), listen_message(id).to_string()).await;
        if stream.status.as_u16() == 200 {
            let ack = stream.next_message().await.unwrap_or_else(|| panic!("listen {id} ended at once"));
            assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
            return stream;
        }
        assert!(tokio::time::Instant::now() < deadline, "closing a stream never freed its slot");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn assert_tools_list_served(addr: SocketAddr) {
    let message =
        json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list", "params": modern_params(json!({}), json!({}))});
    let reply = http::post(addr, &Headers::modern("tools/list", None), &message).await;
    assert_eq!(reply.status.as_u16(), 200, "tools/list while streams are open: {}", reply.body);
    assert_valid(MODERN, "ListToolsResultResponse", &reply.json());
}

fn get_headers(session: &str) -> Headers {
    legacy_headers(Some(session)).set("Accept", "text/event-stream")
}

#[tokio::test]
async fn listen_streams_beyond_the_request_pool_do_not_starve_calls() {
    let addr = http::serve(&server_with(Limits::default()), HttpConfig::default().max_concurrent_requests(4)).await;
    let mut streams = Vec::new();
    for i in 0..6 {
        streams.push(open_listen(addr, &format!("listen-{i}"), None).await);
    }
    assert_tools_list_served(addr).await;
    assert_still_serving(addr).await;
}

#[tokio::test]
async fn streams_over_the_overall_cap_are_503_and_calls_are_still_served() {
    let (logs, _guard) = capture_logs();
    let config = HttpConfig::default().max_concurrent_requests(4).max_streams(3).max_streams_per_client(10);
    let addr = http::serve(&server_with(Limits::default()), config).await;
    let mut streams = Vec::new();
    for i in 0..3 {
        streams.push(open_listen(addr, &format!("listen-{i}"), None).await);
    }
    let from = logs.len();
    assert_listen_refused(addr, "listen-3", None, 503).await;
    logs.assert_warned(from, "the overall stream cap");
    // A GET stream counts against the same cap.
    let session = initialize(addr, json!({})).await;
    let reply = http::send(addr, "GET", PATH, &get_headers(&session), "").await;
    assert_error(&reply, 503, -32000, &Value::Null);
    assert_eq!(reply.header("retry-after"), Some("1"), "{:?}", reply.headers);
    // Ordinary calls, all four request slots of them at once, are still served.
    let calls: Vec<_> = (0..4)
        .map(|i| {
            let message = call(json!(i), "echo", json!({"text": format!("call {i}")}), json!({}));
            tokio::spawn(async move { post(addr, "echo", &message).await })
        })
        .collect();
    for (i, task) in calls.into_iter().enumerate() {
        let reply = task.await.unwrap_or_else(|e| panic!("call {i}: {e}"));
        assert_eq!(complete_text(&assert_result(&reply, &json!(i))), format!("call {i}"));
    }
    assert_tools_list_served(addr).await;
    assert_still_serving(addr).await;
    // Closing a stream frees its slot.
    streams.pop();
    let _again = listen_once_freed(addr, "listen-again", None).await;
    assert_listen_refused(addr, "listen-4", None, 503).await;
}

#[tokio::test]
async fn streams_over_the_per_peer_cap_are_429() {
    let (logs, _guard) = capture_logs();
    let config = HttpConfig::default().max_streams(10).max_streams_per_client(2);
    let addr = http::serve(&server_with(Limits::default()), config).await;
    let first = open_listen(addr, "listen-0", None).await;
    let _second = open_listen(addr, "listen-1", None).await;
    let from = logs.len();
    assert_listen_refused(addr, "listen-2", None, 429).await;
    logs.assert_warned(from, "a client's stream cap");
    // GET streams of the same peer count too.
    let session = initialize(addr, json!({})).await;
    let reply = http::send(addr, "GET", PATH, &get_headers(&session), "").await;
    assert_error(&reply, 429, -32000, &Value::Null);
    assert_still_serving(addr).await;
    drop(first);
    let _third = listen_once_freed(addr, "listen-3", None).await;
}

fn user(subject: &str) -> AuthInfo {
    AuthInfo { client_id: "streams-client".into(), subject: Some(subject.into()), ..AuthInfo::default() }
}

#[tokio::test]
async fn streams_over_the_per_principal_cap_are_429_for_that_principal_only() {
    let (logs, _guard) = capture_logs();
    let verifier =
        StaticTokenVerifier::new([("token-alice".to_owned(), user("alice")), ("token-bob".to_owned(), user("bob"))]);
    let config = HttpConfig::default().token_verifier(verifier).max_streams(10).max_streams_per_client(2);
    let addr = http::serve(&server_with(Limits::default()), config).await;
    let _alice: Vec<_> = vec![
        open_listen(addr, "alice-0", Some("token-alice")).await,
        open_listen(addr, "alice-1", Some("token-alice")).await,
    ];
    assert_listen_refused(addr, "alice-2", Some("token-alice"), 429).await;
    // Bob comes from the same address, yet his allowance is his own.
    let _bob: Vec<_> =
        vec![open_listen(addr, "bob-0", Some("token-bob")).await, open_listen(addr, "bob-1", Some("token-bob")).await];
    assert_listen_refused(addr, "bob-2", Some("token-bob"), 429).await;
    logs.assert_clean(&["alice", "bob", "token-alice", "token-bob"]);
}

#[tokio::test]
async fn a_listen_stream_ends_with_its_result_at_the_maximum_lifetime() {
    let config = HttpConfig::default().max_stream_lifetime(Duration::from_millis(300));
    let addr = http::serve(&server_with(Limits::default()), config).await;
    let mut stream = open_listen(addr, "listen-short", None).await;
    let end = stream
        .next_message_within(Duration::from_secs(3))
        .await
        .unwrap_or_else(|| panic!("the stream closed without the listen result"));
    // The spec's graceful end: the listen result, tagged with the subscription id.
    assert_eq!(end["id"], "listen-short", "{end}");
    assert_eq!(end["result"]["resultType"], "complete", "{end}");
    assert_eq!(end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-short", "{end}");
    assert_valid(MODERN, "JSONRPCResultResponse", &end);
    assert_eq!(stream.next_message_within(Duration::from_secs(3)).await, None, "the stream closes after its result");
    // The client listens again; the ended stream's slot is free.
    let _again = open_listen(addr, "listen-again", None).await;
}

#[tokio::test]
async fn a_get_stream_closes_at_the_maximum_lifetime() {
    let config = HttpConfig::default().max_stream_lifetime(Duration::from_millis(300));
    let addr = http::serve(&server_with(Limits::default()), config).await;
    let session = initialize(addr, json!({})).await;
    let mut stream = http::open(addr, "GET", PATH, &get_headers(&session), "").await;
    assert_eq!(stream.status.as_u16(), 200);
    assert_eq!(stream.next_message_within(Duration::from_secs(3)).await, None, "the GET stream closes");
    // The session lives on: the client opens its GET stream again.
    let again = http::open(addr, "GET", PATH, &get_headers(&session), "").await;
    assert_eq!(again.status.as_u16(), 200);
}

#[tokio::test]
async fn get_streams_over_the_per_session_cap_are_409() {
    let (logs, _guard) = capture_logs();
    let addr = http::serve(&server_with(Limits::default()), HttpConfig::default().max_get_streams_per_session(1)).await;
    let session = initialize(addr, json!({})).await;
    let other = initialize(addr, json!({})).await;
    let first = http::open(addr, "GET", PATH, &get_headers(&session), "").await;
    assert_eq!(first.status.as_u16(), 200);
    let from = logs.len();
    let reply = http::send(addr, "GET", PATH, &get_headers(&session), "").await;
    let error = assert_error(&reply, 409, -32600, &Value::Null);
    assert_eq!(error["message"], "Conflict: too many GET streams for this session", "{error}");
    logs.assert_warned(from, "a session's GET stream cap");
    // Another session has its own allowance.
    let theirs = http::open(addr, "GET", PATH, &get_headers(&other), "").await;
    assert_eq!(theirs.status.as_u16(), 200);
    // Closing the stream frees the session's slot.
    drop(first);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let again = http::open(addr, "GET", PATH, &get_headers(&session), "").await;
        if again.status.as_u16() == 200 {
            break;
        }
        assert_eq!(again.status.as_u16(), 409);
        assert!(tokio::time::Instant::now() < deadline, "closing the GET stream never freed its slot");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
