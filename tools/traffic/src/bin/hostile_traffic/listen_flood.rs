//! The listen flood: `subscriptions/listen` streams opened up to and beyond the server's
//! caps, held, closed, again and again; while they are held, `tools/list` must still be
//! answered (streams must not take the slots of calls).
//!
//! Each round, `peers` tasks (each from its own loopback address, 127.0.0.2 and up, when
//! there is more than one, so the per-peer and the overall caps can both be reached) open
//! `per_peer` streams one after the other. A stream is accepted when it is a 200 SSE
//! answer whose first event is the acknowledgement; a refusal is a 429 (per-peer cap) or
//! 503 (overall cap) with `Retry-After`. Then one `tools/list` probe, the hold, a second
//! probe, and every stream is closed. Anything else is unexpected.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, StatusCode};
use http_body_util::BodyExt;
use mcp::protocol::methods;
use mcp::wire::sse::Parser;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::cases::{mcp_headers, meta};
use crate::client::{self, ANSWER_TIMEOUT};
use crate::tally::{Verdict, lock};
use crate::{Shared, error_code};

pub(crate) const KIND: &str = "listen_flood";
/// The largest acknowledgement event read.
const MAX_EVENT_BYTES: usize = 64 * 1024;
/// The pause after closing the streams, so the server sees them closed before the next round.
const SETTLE: Duration = Duration::from_secs(1);

/// The shape of the flood.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Flood {
    pub(crate) peers: u8,
    pub(crate) per_peer: u32,
    pub(crate) hold: Duration,
}

/// The label and verdict of the answer to a listen request, from its head (`acknowledged`:
/// whether an SSE answer's first event was the acknowledgement).
pub(crate) fn judge_listen(status: StatusCode, sse: bool, retry_after: bool, acknowledged: bool) -> (String, Verdict) {
    match status.as_u16() {
        200 if sse && acknowledged => ("stream".into(), Verdict::Accepted),
        200 if sse => ("stream without acknowledgement".into(), Verdict::Unexpected),
        code @ (429 | 503) if retry_after => (code.to_string(), Verdict::Refused),
        code @ (429 | 503) => (format!("{code} without Retry-After"), Verdict::Unexpected),
        code => (code.to_string(), Verdict::Unexpected),
    }
}

/// Whether an SSE event's data is the `notifications/subscriptions/acknowledged` message.
pub(crate) fn is_acknowledgement(data: &str) -> bool {
    serde_json::from_str::<Value>(data).ok().is_some_and(|m| {
        m.get("method").and_then(Value::as_str) == Some(methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED)
    })
}

/// The source address of peer `index` of `peers` (none, the default route, for one peer).
pub(crate) fn source(peers: u8, index: u8) -> Option<IpAddr> {
    (peers > 1).then(|| IpAddr::V4(Ipv4Addr::new(127, 0, 0, index.saturating_add(2))))
}

fn listen_body(id: u64) -> Bytes {
    let params = json!({"_meta": meta(), "notifications": {"toolsListChanged": true}});
    json!({"jsonrpc": "2.0", "id": id, "method": methods::SUBSCRIPTIONS_LISTEN, "params": params}).to_string().into()
}

/// Open one stream from `source`: its label and verdict, and the task holding it open.
async fn open(shared: &Shared, source: Option<IpAddr>, id: u64) -> (String, Verdict, Option<JoinHandle<()>>) {
    let target = &shared.target;
    let opened = tokio::time::timeout(ANSWER_TIMEOUT, async {
        let mut sender = client::connect(target.addr, source).await?;
        let headers = mcp_headers(methods::SUBSCRIPTIONS_LISTEN, None);
        let request = client::request(target, &Method::POST, "", &headers, &listen_body(id))?;
        let response = sender.send_request(request).await.map_err(|e| format!("no answer: {e}"))?;
        let (parts, mut body) = response.into_parts();
        let sse = client::is_sse(&parts.headers);
        let retry_after = parts.headers.contains_key(http::header::RETRY_AFTER);
        let mut acknowledged = false;
        if parts.status == StatusCode::OK && sse {
            let mut parser = Parser::new(MAX_EVENT_BYTES);
            let first = loop {
                if let Some(event) = parser.next_event() {
                    break Some(event);
                }
                match body.frame().await {
                    Some(Ok(frame)) => {
                        if let Some(data) = frame.data_ref() {
                            parser.feed(data).map_err(|e| format!("acknowledgement: {e}"))?;
                        }
                    }
                    Some(Err(e)) => return Err(format!("stream: {e}")),
                    None => break parser.finish(),
                }
            };
            acknowledged = first.is_some_and(|event| is_acknowledgement(&event.data));
        }
        let (label, verdict) = judge_listen(parts.status, sse, retry_after, acknowledged);
        if verdict != Verdict::Accepted {
            // The answer's body (a JSON-RPC error) tells the code; read it for the label.
            let bytes = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
            let label = match error_code(&bytes, sse) {
                Some(code) => format!("{label} {code}"),
                None => label,
            };
            return Ok((label, verdict, None));
        }
        // Keep reading (keep-alive comments, notifications) until the round closes it.
        let held = tokio::spawn(async move {
            let _sender = sender;
            while let Some(Ok(_)) = body.frame().await {}
        });
        Ok::<_, String>((label, verdict, Some(held)))
    })
    .await;
    match opened {
        Ok(Ok(opened)) => opened,
        Ok(Err(why)) => (format!("no answer ({why})"), Verdict::Unexpected, None),
        Err(_) => (format!("no answer within {ANSWER_TIMEOUT:?}"), Verdict::Unexpected, None),
    }
}

/// One `tools/list` on a new connection: it must be answered with a result.
async fn probe(shared: &Shared) {
    let body: Bytes = json!({"jsonrpc": "2.0", "id": 1, "method": methods::TOOLS_LIST, "params": {"_meta": meta()}})
        .to_string()
        .into();
    let headers = mcp_headers(methods::TOOLS_LIST, None);
    let (label, verdict) = match client::fetch(&shared.target, &mut None, &Method::POST, "", &headers, &body).await {
        Ok(answer) => {
            let code = error_code(&answer.body, answer.is_sse());
            let label = format!("tools/list {}", answer.status.as_u16());
            match code {
                None if answer.status == StatusCode::OK => (label, Verdict::Accepted),
                None => (label, Verdict::Unexpected),
                Some(code) => (format!("{label} {code}"), Verdict::Unexpected),
            }
        }
        Err(why) => (format!("tools/list: no answer ({why})"), Verdict::Unexpected),
    };
    lock(&shared.tally).record(KIND, "listen_probe", label, verdict);
}

/// Flood round after round until the time is up.
pub(crate) async fn run(shared: Arc<Shared>, flood: Flood) {
    let mut round = 0u64;
    while Instant::now() < shared.until {
        round += 1;
        let peers: Vec<_> = (0..flood.peers.max(1))
            .map(|peer| {
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    let source = source(flood.peers, peer);
                    let mut held = Vec::new();
                    for i in 0..flood.per_peer {
                        let id = (round << 32) | (u64::from(peer) << 24) | u64::from(i);
                        let (label, verdict, stream) = open(&shared, source, id).await;
                        lock(&shared.tally).record(KIND, "listen", label, verdict);
                        held.extend(stream);
                    }
                    held
                })
            })
            .collect();
        let mut held = Vec::new();
        for peer in peers {
            held.extend(peer.await.unwrap_or_default());
        }
        tracing::debug!(round, streams = held.len(), "listen flood: streams open");
        probe(&shared).await;
        let left = shared.until.saturating_duration_since(Instant::now());
        tokio::time::sleep(flood.hold.min(left)).await;
        probe(&shared).await;
        for stream in held {
            stream.abort();
        }
        tokio::time::sleep(SETTLE.min(shared.until.saturating_duration_since(Instant::now()))).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_and_refusals_at_a_cap_are_expected_and_nothing_else() {
        let judge = |status: u16, sse, retry_after, ack| {
            judge_listen(StatusCode::from_u16(status).expect("a status"), sse, retry_after, ack)
        };
        assert_eq!(judge(200, true, false, true), ("stream".into(), Verdict::Accepted));
        assert_eq!(judge(429, false, true, false), ("429".into(), Verdict::Refused));
        assert_eq!(judge(503, false, true, false), ("503".into(), Verdict::Refused));
        assert_eq!(judge(503, false, false, false), ("503 without Retry-After".into(), Verdict::Unexpected));
        assert_eq!(judge(200, true, false, false).1, Verdict::Unexpected, "no acknowledgement");
        assert_eq!(judge(200, false, false, false).1, Verdict::Unexpected, "JSON, not a stream");
        assert_eq!(judge(400, false, true, false).1, Verdict::Unexpected);
        assert_eq!(judge(500, false, true, false).1, Verdict::Unexpected);
    }

    #[test]
    fn only_the_acknowledgement_is_one() {
        let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}"#;
        assert!(is_acknowledgement(ack));
        assert!(!is_acknowledgement(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#));
        assert!(!is_acknowledgement(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert!(!is_acknowledgement("not json"));
    }

    #[test]
    fn peers_get_their_own_loopback_address_when_there_are_several() {
        assert_eq!(source(1, 0), None);
        assert_eq!(source(3, 0), Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2))));
        assert_eq!(source(3, 2), Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 4))));
    }
}
