//! At the session cap, the least recently used idle session makes room.

use super::*;

#[tokio::test]
async fn at_the_cap_the_least_recently_used_idle_session_is_evicted() {
    let (addr, _) = start_with(HttpConfig::default().max_sessions(2)).await;
    let older = initialize(addr, json!({})).await;
    let newer = initialize(addr, json!({})).await;
    // Using the older session makes the newer one the least recently used.
    assert_list_ok(&post(addr, &legacy_headers(Some(&older)), &list(1)).await);

    let third = initialize(addr, json!({})).await;
    let reply = post(addr, &legacy_headers(Some(&newer)), &list(2)).await;
    assert_error(&reply, 404, -32600, &json!(2));
    assert_list_ok(&post(addr, &legacy_headers(Some(&older)), &list(3)).await);
    assert_list_ok(&post(addr, &legacy_headers(Some(&third)), &list(4)).await);
}

#[tokio::test]
async fn busy_sessions_are_not_evicted() {
    let (addr, _) = start_with(HttpConfig::default().max_sessions(2)).await;
    let streaming = initialize(addr, json!({})).await;
    let _held = open_get(addr, legacy_headers(Some(&streaming))).await;
    let working = initialize(addr, json!({})).await;
    let _call = open_slow_call(addr, &legacy_headers(Some(&working)), 5_000).await;

    let message = json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    let reply = post(addr, &legacy_headers(None), &message).await;
    assert_error(&reply, 503, -32000, &json!(7));
    assert!(reply.header("mcp-session-id").is_none(), "{:?}", reply.headers);
    assert_list_ok(&post(addr, &legacy_headers(Some(&streaming)), &list(1)).await);
    assert_list_ok(&post(addr, &legacy_headers(Some(&working)), &list(2)).await);
}
