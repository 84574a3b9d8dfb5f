//! A session's `resources/subscribe` set is bounded.

use mcp::limits::Limits;
use mcp::protocol::{ReadResourceOutcome, ReadResourceResult};

use super::*;

async fn subscribe(addr: SocketAddr, session: &str, id: i64, method: &str, uri: &str) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": uri}});
    let reply = post(addr, &legacy_headers(Some(session)), &message).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    reply.json()
}

#[tokio::test]
async fn resource_subscriptions_per_session_are_capped() {
    let server = Server::builder("subscriptions", "1.0.0")
        .limits(Limits::default().max_subscriptions_per_session(2))
        .on_read_resource(|_ctx, _params| async { Ok(ReadResourceOutcome::from(ReadResourceResult::new(vec![]))) })
        .build();
    let addr = http::serve(&server, HttpConfig::default()).await;
    let session = initialize(addr, json!({})).await;

    assert_eq!(subscribe(addr, &session, 1, "resources/subscribe", "file:///a").await["result"], json!({}));
    assert_eq!(subscribe(addr, &session, 2, "resources/subscribe", "file:///b").await["result"], json!({}));
    let refused = subscribe(addr, &session, 3, "resources/subscribe", "file:///c").await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(refused["error"]["message"], "Invalid params: a session may subscribe to at most 2 resources");
    // Subscribing again to a subscribed resource takes no new room.
    assert_eq!(subscribe(addr, &session, 4, "resources/subscribe", "file:///a").await["result"], json!({}));
    // Unsubscribing frees room; other sessions have their own.
    assert_eq!(subscribe(addr, &session, 5, "resources/unsubscribe", "file:///a").await["result"], json!({}));
    assert_eq!(subscribe(addr, &session, 6, "resources/subscribe", "file:///c").await["result"], json!({}));
    let other = initialize(addr, json!({})).await;
    assert_eq!(subscribe(addr, &other, 7, "resources/subscribe", "file:///d").await["result"], json!({}));
}
