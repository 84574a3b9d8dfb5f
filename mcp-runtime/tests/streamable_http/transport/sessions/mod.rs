//! 2025-11-25 sessions under pressure: expiry, eviction at the cap, the per-session
//! subscription cap, binding to the principal that opened them, and unguessable ids for
//! the server's own requests.

use super::*;
use crate::support::legacy_http::{initialize, legacy_headers};

mod eviction;
mod expiry;
mod principal;
mod request_ids;
mod subscriptions;

/// A legacy `tools/list` with `id`.
fn list(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
}

/// Assert that `session` still answers `tools/list`.
#[track_caller]
fn assert_list_ok(reply: &Reply) {
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert!(reply.json()["result"]["tools"].is_array(), "{}", reply.body);
}

/// Open `session`'s GET stream (held until dropped).
async fn open_get(addr: SocketAddr, headers: Headers) -> http::EventStream {
    let stream = http::open(addr, "GET", PATH, &headers.set("Accept", "text/event-stream"), "").await;
    assert_eq!(stream.status.as_u16(), 200);
    stream
}

/// A legacy `tools/call` of `slow` sleeping `ms`, held open as an event stream.
async fn open_slow_call(addr: SocketAddr, headers: &Headers, ms: u64) -> http::EventStream {
    let message = json!({"jsonrpc": "2.0", "id": "slow-1", "method": "tools/call",
        "params": {"name": "slow", "arguments": {"ms": ms}, "_meta": {"progressToken": "slow"}}});
    let mut stream = http::open(addr, "POST", PATH, headers, message.to_string()).await;
    assert_eq!(stream.status.as_u16(), 200);
    let started = stream.next_message().await.expect("the progress notification");
    assert_eq!(started["method"], "notifications/progress", "{started}");
    stream
}
