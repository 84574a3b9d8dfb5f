//! Slow clients: `connections` connections at once that stall, round after round.
//!
//! - slow headers: half a request head, then nothing;
//! - slow bodies: a whole head declaring a 1,000-byte body, then its first 10 bytes.
//!
//! The server must close each (or answer 408 Request Timeout) within `limit`: its timeout
//! plus some slack. A connection still open then, or any other answer, is unexpected. A
//! round starts only if it can end before the run does.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use mcp::protocol::LATEST_PROTOCOL_VERSION;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::Shared;
use crate::client::{self, Target};
use crate::tally::{Verdict, lock};

/// How a connection stalls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stall {
    Headers,
    Bodies,
}

impl Stall {
    pub(crate) fn kind(self) -> &'static str {
        match self {
            Stall::Headers => "slow_headers",
            Stall::Bodies => "slow_bodies",
        }
    }

    /// The bytes written before stalling.
    fn bytes(self, target: &Target) -> Bytes {
        let Target { host, path, .. } = target;
        match self {
            Stall::Headers => format!("POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: appl").into(),
            Stall::Bodies => format!(
                "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {LATEST_PROTOCOL_VERSION}\r\n\
                 Mcp-Method: tools/list\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\""
            )
            .into(),
        }
    }
}

/// What became of a stalled connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The server closed it (EOF or reset) without an answer.
    Closed,
    /// The server answered with this status line.
    Answered(String),
    /// Still open at the limit.
    Open(Duration),
    /// The connection could not be made or written.
    Failed(String),
}

/// The label and verdict of an outcome.
pub(crate) fn judge_stall(outcome: &Outcome) -> (String, Verdict) {
    match outcome {
        Outcome::Closed => ("closed".into(), Verdict::Refused),
        Outcome::Answered(line) => match line.split_whitespace().nth(1) {
            Some("408") => ("408".into(), Verdict::Refused),
            Some(status) => (status.to_owned(), Verdict::Unexpected),
            None => (format!("not an HTTP answer: {line:?}"), Verdict::Unexpected),
        },
        Outcome::Open(after) => (format!("still open after {} s", after.as_secs()), Verdict::Unexpected),
        Outcome::Failed(why) => (format!("no connection ({why})"), Verdict::Unexpected),
    }
}

/// Stall one connection and wait up to `limit` for the server to end it.
async fn stall_one(target: &Target, bytes: Bytes, limit: Duration) -> Outcome {
    let mut stream = match client::tcp(target.addr, None).await {
        Ok(stream) => stream,
        Err(why) => return Outcome::Failed(why),
    };
    if let Err(e) = stream.write_all(&bytes).await {
        return Outcome::Failed(format!("write: {e}"));
    }
    let read = async {
        let mut answer = Vec::new();
        let mut buffer = [0u8; 1024];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) if answer.is_empty() => return Outcome::Closed,
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buffer[..n]),
            }
            if answer.windows(2).any(|w| w == b"\r\n") {
                break;
            }
        }
        Outcome::Answered(String::from_utf8_lossy(&answer).lines().next().unwrap_or_default().to_owned())
    };
    tokio::time::timeout(limit, read).await.unwrap_or(Outcome::Open(limit))
}

/// Stall `connections` connections at once, round after round, while a whole round fits.
pub(crate) async fn run(shared: Arc<Shared>, stall: Stall, connections: usize, limit: Duration) {
    let bytes = stall.bytes(&shared.target);
    while Instant::now() + limit <= shared.until {
        let round: Vec<_> = (0..connections)
            .map(|_| {
                let shared = Arc::clone(&shared);
                let bytes = bytes.clone();
                tokio::spawn(async move {
                    let outcome = stall_one(&shared.target, bytes, limit).await;
                    let (label, verdict) = judge_stall(&outcome);
                    lock(&shared.tally).record(stall.kind(), stall.kind(), label, verdict);
                })
            })
            .collect();
        for connection in round {
            let _ = connection.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_or_408_in_time_is_expected_and_nothing_else() {
        assert_eq!(judge_stall(&Outcome::Closed), ("closed".into(), Verdict::Refused));
        assert_eq!(
            judge_stall(&Outcome::Answered("HTTP/1.1 408 Request Timeout".into())),
            ("408".into(), Verdict::Refused)
        );
        assert_eq!(judge_stall(&Outcome::Answered("HTTP/1.1 400 Bad Request".into())).1, Verdict::Unexpected);
        assert_eq!(judge_stall(&Outcome::Answered("HTTP/1.1 200 OK".into())).1, Verdict::Unexpected);
        assert_eq!(judge_stall(&Outcome::Answered(String::new())).1, Verdict::Unexpected);
        assert_eq!(
            judge_stall(&Outcome::Open(Duration::from_secs(35))),
            ("still open after 35 s".into(), Verdict::Unexpected)
        );
        assert_eq!(judge_stall(&Outcome::Failed("connect: refused".into())).1, Verdict::Unexpected);
    }

    #[test]
    fn the_slow_head_is_unfinished_and_the_slow_body_short() {
        let target = Target {
            addr: "127.0.0.1:1".parse().expect("an address"),
            host: "127.0.0.1:1".into(),
            path: "/mcp".into(),
        };
        let head = Stall::Headers.bytes(&target);
        assert!(!head.windows(4).any(|w| w == b"\r\n\r\n"), "the head never ends");
        let body = Stall::Bodies.bytes(&target);
        let at = body.windows(4).position(|w| w == b"\r\n\r\n").expect("a whole head") + 4;
        assert_eq!(body.len() - at, 10, "10 of the 1,000 declared bytes");
        assert!(String::from_utf8_lossy(&body[..at]).contains("Content-Length: 1000\r\n"));
    }
}
