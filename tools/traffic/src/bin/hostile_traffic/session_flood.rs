//! The session flood: 2025-11-25 `initialize` in a loop, never ending a session with
//! DELETE. At its session cap the server evicts the least recently used idle session, so
//! every `initialize` must succeed (200, a result and an `Mcp-Session-Id`). Every
//! `reuse_every` sessions, a `ping` names an old session: alternately the oldest remembered
//! (`reuse_oldest`: likely evicted by then) and the one before the newest (`reuse_recent`);
//! each must get 200 (still open) or 404 (evicted), nothing else.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, StatusCode};
use mcp::protocol::methods;
use serde_json::{Value, json};

use crate::Shared;
use crate::client::{self, Answer};
use crate::tally::{Verdict, lock};

pub(crate) const KIND: &str = "session_flood";
/// The 2025-11-25 revision.
const LEGACY_VERSION: &str = "2025-11-25";
/// How many session ids are remembered for reuse: more than a default cap (1024), so the
/// oldest has been evicted by the time it is reused.
const REMEMBERED: usize = 2048;

/// The label and verdict of the answer to `initialize`.
pub(crate) fn judge_initialize(status: StatusCode, session: bool, result: bool) -> (String, Verdict) {
    let label = format!("initialize {}", status.as_u16());
    match (status, session, result) {
        (StatusCode::OK, true, true) => (label, Verdict::Accepted),
        (StatusCode::OK, false, _) => (format!("{label} without Mcp-Session-Id"), Verdict::Unexpected),
        (StatusCode::OK, true, false) => (format!("{label} without a result"), Verdict::Unexpected),
        _ => (label, Verdict::Unexpected),
    }
}

/// The label and verdict of the answer to a request naming an old session (`which`).
pub(crate) fn judge_reuse(which: &str, status: StatusCode) -> (String, Verdict) {
    let label = format!("{which} {}", status.as_u16());
    match status.as_u16() {
        200 => (label, Verdict::Accepted),
        404 => (label, Verdict::Refused),
        _ => (label, Verdict::Unexpected),
    }
}

fn headers(session: Option<&str>) -> Vec<(String, String)> {
    let mut headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        ("accept".to_owned(), "application/json, text/event-stream".to_owned()),
    ];
    if let Some(session) = session {
        headers.push(("mcp-protocol-version".to_owned(), LEGACY_VERSION.to_owned()));
        headers.push(("mcp-session-id".to_owned(), session.to_owned()));
    }
    headers
}

/// Whether the answer (JSON or SSE) carries a result.
fn has_result(answer: &Answer) -> bool {
    let text = String::from_utf8_lossy(&answer.body);
    let json = if answer.is_sse() {
        text.lines().rev().find_map(|l| l.strip_prefix("data:")).map(str::trim).unwrap_or_default().to_owned()
    } else {
        text.into_owned()
    };
    serde_json::from_str::<Value>(&json).ok().is_some_and(|m| m.get("result").is_some())
}

/// Initialize sessions, pausing `pause` after each, until the time is up.
pub(crate) async fn run(shared: Arc<Shared>, pause: Duration, reuse_every: u64) {
    let target = &shared.target;
    let mut conn = None;
    let mut remembered: VecDeque<String> = VecDeque::with_capacity(REMEMBERED);
    let mut n = 0u64;
    while Instant::now() < shared.until {
        n += 1;
        let body: Bytes = json!({"jsonrpc": "2.0", "id": n, "method": methods::INITIALIZE, "params": {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "hostile_traffic", "version": env!("CARGO_PKG_VERSION")},
        }})
        .to_string()
        .into();
        let (label, verdict) = match client::fetch(target, &mut conn, &Method::POST, "", &headers(None), &body).await {
            Ok(answer) => {
                let session = answer.headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
                let judged = judge_initialize(answer.status, session.is_some(), has_result(&answer));
                if let (Some(session), Verdict::Accepted) = (session, judged.1) {
                    if remembered.len() == REMEMBERED {
                        remembered.pop_front();
                    }
                    remembered.push_back(session);
                }
                judged
            }
            Err(why) => (format!("initialize: no answer ({why})"), Verdict::Unexpected),
        };
        lock(&shared.tally).record(KIND, "initialize", label, verdict);
        if reuse_every > 0 && n.is_multiple_of(reuse_every) && remembered.len() >= 2 {
            let (which, session) = if (n / reuse_every).is_multiple_of(2) {
                ("reuse_oldest", remembered.front())
            } else {
                ("reuse_recent", remembered.get(remembered.len() - 2))
            };
            let session = session.cloned().unwrap_or_default();
            let ping: Bytes = json!({"jsonrpc": "2.0", "id": n, "method": methods::PING}).to_string().into();
            let (label, verdict) =
                match client::fetch(target, &mut conn, &Method::POST, "", &headers(Some(&session)), &ping).await {
                    Ok(answer) => judge_reuse(which, answer.status),
                    Err(why) => (format!("{which}: no answer ({why})"), Verdict::Unexpected),
                };
            lock(&shared.tally).record(KIND, which, label, verdict);
        }
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initialize_must_succeed_with_a_session() {
        assert_eq!(judge_initialize(StatusCode::OK, true, true), ("initialize 200".into(), Verdict::Accepted));
        assert_eq!(
            judge_initialize(StatusCode::SERVICE_UNAVAILABLE, false, false).1,
            Verdict::Unexpected,
            "refused at the cap"
        );
        assert_eq!(judge_initialize(StatusCode::OK, false, true).1, Verdict::Unexpected, "no session id");
        assert_eq!(judge_initialize(StatusCode::OK, true, false).1, Verdict::Unexpected, "a JSON-RPC error");
    }

    #[test]
    fn an_old_session_is_open_or_gone() {
        assert_eq!(judge_reuse("reuse_oldest", StatusCode::NOT_FOUND), ("reuse_oldest 404".into(), Verdict::Refused));
        assert_eq!(judge_reuse("reuse_recent", StatusCode::OK), ("reuse_recent 200".into(), Verdict::Accepted));
        assert_eq!(judge_reuse("reuse_oldest", StatusCode::BAD_REQUEST).1, Verdict::Unexpected);
        assert_eq!(judge_reuse("reuse_oldest", StatusCode::SERVICE_UNAVAILABLE).1, Verdict::Unexpected);
    }

    #[test]
    fn a_result_is_found_in_json_and_in_sse() {
        let answer = |sse: bool, body: &'static str| {
            let mut headers = http::HeaderMap::new();
            let content_type = if sse { "text/event-stream" } else { "application/json" };
            headers.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static(content_type));
            Answer { status: StatusCode::OK, headers, body: Bytes::from_static(body.as_bytes()) }
        };
        assert!(has_result(&answer(false, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)));
        assert!(!has_result(&answer(false, r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}"#)));
        assert!(has_result(&answer(true, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")));
    }
}
