//! Long-lived streams (2026-07-28 `subscriptions/listen`, 2025-11-25 GET) hold slots of
//! their own, never the request slots: a [`StreamLimiter`] hands out [`StreamSlot`]s, capped
//! overall, per client (principal, else peer address) and per session, each freed when
//! the slot is dropped (the stream closed), and each with a deadline (the maximum lifetime).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{HeaderValue, Response, StatusCode, header};
use tokio::time::Instant;

use super::reply::error_response;
use super::{HttpBody, HttpConfig};
use crate::handler::AuthInfo;
use crate::protocol::{ErrorCode, RequestId};

/// Who a stream is counted against for the per-client cap.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) enum Client {
    /// The authenticated principal ([`AuthInfo::principal`]).
    Principal(String),
    /// The peer's IP address; IPv6 addresses by their /64 prefix, the block one host
    /// usually holds.
    Peer(IpAddr),
    /// Neither known (mounted in a router without the peer address in the extensions):
    /// one bucket.
    Unknown,
}

impl Client {
    /// The client of a request: its principal when authenticated, else the peer address a
    /// layer in front put in the extensions, else the connection's `peer` (the built-in
    /// listener's).
    pub(crate) fn of(auth: Option<&AuthInfo>, extensions: &http::Extensions, peer: Option<SocketAddr>) -> Client {
        if let Some(auth) = auth {
            return Client::Principal(auth.principal());
        }
        match extensions.get::<SocketAddr>().copied().or(peer).map(|addr| addr.ip().to_canonical()) {
            Some(IpAddr::V6(v6)) => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                Client::Peer(IpAddr::V6(prefix.into()))
            }
            Some(v4) => Client::Peer(v4),
            None => Client::Unknown,
        }
    }
}

/// Which cap refused a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// All streams together: 503.
    Overall,
    /// This client's streams: 429.
    Client,
    /// This session's GET streams: 409.
    Session,
}

impl Refused {
    /// The HTTP answer: 503 or 429 with `Retry-After` and `-32000`, or 409 with `-32600`.
    pub(crate) fn response(self, id: Option<RequestId>) -> Response<HttpBody> {
        let status = match self {
            Refused::Overall => StatusCode::SERVICE_UNAVAILABLE,
            Refused::Client => StatusCode::TOO_MANY_REQUESTS,
            Refused::Session => {
                return error_response(
                    StatusCode::CONFLICT,
                    id,
                    ErrorCode::INVALID_REQUEST,
                    "Conflict: too many GET streams for this session",
                );
            }
        };
        let mut response = error_response(status, id, ErrorCode::SERVER_BUSY, STREAMS_BUSY);
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        response
    }
}

/// The message of a stream refused by the overall or a client's cap.
pub(crate) const STREAMS_BUSY: &str = "Server busy: too many open streams; retry later";

/// The open long-lived streams of one endpoint, and their caps.
pub(crate) struct StreamLimiter {
    shared: Arc<Shared>,
}

struct Shared {
    max_total: usize,
    max_per_client: usize,
    max_per_session: usize,
    lifetime: Duration,
    counts: Mutex<Counts>,
}

#[derive(Default)]
struct Counts {
    total: usize,
    clients: HashMap<Client, usize>,
    sessions: HashMap<String, usize>,
}

fn lock(m: &Mutex<Counts>) -> std::sync::MutexGuard<'_, Counts> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl StreamLimiter {
    pub(crate) fn new(config: &HttpConfig) -> Self {
        StreamLimiter {
            shared: Arc::new(Shared {
                max_total: config.max_streams,
                max_per_client: config.max_streams_per_client,
                max_per_session: config.max_get_streams_per_session,
                lifetime: config.max_stream_lifetime,
                counts: Mutex::new(Counts::default()),
            }),
        }
    }

    /// The maximum lifetime of a stream.
    pub(crate) fn lifetime(&self) -> Duration {
        self.shared.lifetime
    }

    /// A slot for one more stream of `client` (and, for a GET stream, of `session`), or
    /// the cap that refuses it (logged at WARN, without the client or the session id).
    pub(crate) fn acquire(&self, client: Client, session: Option<&str>) -> Result<StreamSlot, Refused> {
        let shared = &self.shared;
        let mut counts = lock(&shared.counts);
        let refused = if session.is_some_and(|s| counts.sessions.get(s).copied().unwrap_or(0) >= shared.max_per_session)
        {
            Some(Refused::Session)
        } else if counts.clients.get(&client).copied().unwrap_or(0) >= shared.max_per_client {
            Some(Refused::Client)
        } else if counts.total >= shared.max_total {
            Some(Refused::Overall)
        } else {
            None
        };
        if let Some(refused) = refused {
            drop(counts);
            match refused {
                Refused::Overall => {
                    tracing::warn!(limit = shared.max_total, "refusing a stream: the overall stream cap is reached")
                }
                Refused::Client => {
                    tracing::warn!(limit = shared.max_per_client, "refusing a stream: a client's stream cap is reached")
                }
                Refused::Session => tracing::warn!(
                    limit = shared.max_per_session,
                    "refusing a stream: a session's GET stream cap is reached"
                ),
            }
            return Err(refused);
        }
        counts.total += 1;
        *counts.clients.entry(client.clone()).or_insert(0) += 1;
        if let Some(session) = session {
            *counts.sessions.entry(session.to_owned()).or_insert(0) += 1;
        }
        drop(counts);
        Ok(StreamSlot {
            shared: Arc::clone(shared),
            client,
            session: session.map(str::to_owned),
            deadline: Instant::now().checked_add(shared.lifetime),
        })
    }
}

/// One open stream's place under the caps; dropping it (the stream closed) frees it.
pub(crate) struct StreamSlot {
    shared: Arc<Shared>,
    client: Client,
    session: Option<String>,
    deadline: Option<Instant>,
}

impl StreamSlot {
    /// When the stream must end (`None`: the lifetime is too long to represent).
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut counts = lock(&self.shared.counts);
        counts.total = counts.total.saturating_sub(1);
        release(&mut counts.clients, &self.client);
        if let Some(session) = &self.session {
            release(&mut counts.sessions, session);
        }
    }
}

/// Count one fewer under `key`, forgetting keys that reach zero (the maps hold only
/// clients and sessions with open streams).
fn release<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: &K) {
    if let Some(count) = map.get_mut(key) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            map.remove(key);
        }
    }
}

/// Sleep until `deadline`, or forever without one.
pub(crate) async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(total: usize, per_client: usize, per_session: usize) -> StreamLimiter {
        let config = HttpConfig::default()
            .max_streams(total)
            .max_streams_per_client(per_client)
            .max_get_streams_per_session(per_session);
        StreamLimiter::new(&config)
    }

    fn peer(addr: &str) -> Client {
        let mut extensions = http::Extensions::new();
        extensions.insert(addr.parse::<SocketAddr>().unwrap_or_else(|e| panic!("{e}")));
        Client::of(None, &extensions, None)
    }

    #[test]
    fn caps_are_checked_session_then_client_then_overall_and_freed_on_drop() {
        let limits = limiter(3, 2, 1);
        let a = limits.acquire(peer("10.0.0.1:1"), Some("s1"));
        assert!(a.is_ok());
        assert_eq!(limits.acquire(peer("10.0.0.1:2"), Some("s1")).err(), Some(Refused::Session));
        let b = limits.acquire(peer("10.0.0.1:3"), None);
        assert!(b.is_ok());
        assert_eq!(limits.acquire(peer("10.0.0.1:4"), None).err(), Some(Refused::Client));
        let c = limits.acquire(peer("10.0.0.2:1"), None);
        assert!(c.is_ok());
        assert_eq!(limits.acquire(peer("10.0.0.3:1"), None).err(), Some(Refused::Overall));
        drop(a);
        assert!(limits.acquire(peer("10.0.0.1:5"), Some("s1")).is_ok());
        drop((b, c));
        let counts = lock(&limits.shared.counts);
        assert_eq!((counts.total, counts.clients.len(), counts.sessions.len()), (0, 0, 0), "nothing left over");
    }

    #[test]
    fn the_client_is_the_principal_else_the_peer_ip_else_one_bucket() {
        let mut extensions = http::Extensions::new();
        let connection = "10.9.9.9:7".parse::<SocketAddr>().ok();
        assert!(Client::of(None, &extensions, None) == Client::Unknown);
        assert!(Client::of(None, &extensions, connection) == peer("10.9.9.9:1"), "the connection's peer");
        extensions.insert("[2001:db8:1:2:3:4:5:6]:443".parse::<SocketAddr>().unwrap_or_else(|e| panic!("{e}")));
        assert!(Client::of(None, &extensions, None) == peer("[2001:db8:1:2:ffff::1]:80"), "one /64, one client");
        assert!(Client::of(None, &extensions, None) != peer("[2001:db8:1:3::1]:80"));
        assert!(
            Client::of(None, &extensions, connection) == peer("[2001:db8:1:2::1]:80"),
            "a layer in front knows the client better than the connection (a proxy's)"
        );
        assert!(peer("[::ffff:10.0.0.1]:1") == peer("10.0.0.1:2"), "IPv4-mapped addresses are IPv4");
        let alice = AuthInfo { subject: Some("alice".into()), ..AuthInfo::default() };
        assert!(Client::of(Some(&alice), &extensions, connection) == Client::Principal(alice.principal()));
    }
}
