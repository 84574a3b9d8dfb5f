//! [`HttpConfig`]: the endpoint's limits and policies.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::LOOPBACK_HOSTS;

/// Default [`HttpConfig::max_streams`].
const DEFAULT_MAX_STREAMS: usize = 512;
/// Default [`HttpConfig::max_streams_per_client`].
const DEFAULT_MAX_STREAMS_PER_CLIENT: usize = 32;
/// Default [`HttpConfig::max_stream_lifetime`]: 30 minutes.
const DEFAULT_MAX_STREAM_LIFETIME: Duration = Duration::from_secs(30 * 60);
/// Default [`HttpConfig::max_get_streams_per_session`].
const DEFAULT_MAX_GET_STREAMS_PER_SESSION: usize = 2;

/// Limits and policies of the HTTP endpoint, set with builder methods:
///
/// ```
/// use std::time::Duration;
/// use mcp::serve::http::HttpConfig;
///
/// let config = HttpConfig::default()
///     .allowed_hosts(["api.example.com"])
///     .max_body_bytes(1 << 20)
///     .sse_keep_alive(Duration::from_secs(30));
/// # let _ = config;
/// ```
#[derive(Clone)]
pub struct HttpConfig {
    pub(crate) path: Option<String>,
    pub(crate) max_body_bytes: usize,
    pub(crate) max_concurrent_requests: usize,
    pub(crate) max_sessions: usize,
    pub(crate) sse_keep_alive: Duration,
    pub(crate) allowed_hosts: Option<Vec<String>>,
    pub(crate) token_verifier: Option<Arc<dyn crate::auth::TokenVerifier>>,
    // Long-lived streams (`subscriptions/listen`, 2025-11-25 GET): their own pool.
    pub(crate) max_streams: usize,
    pub(crate) max_streams_per_client: usize,
    pub(crate) max_stream_lifetime: Duration,
    pub(crate) max_get_streams_per_session: usize,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("path", &self.path)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_concurrent_requests", &self.max_concurrent_requests)
            .field("max_sessions", &self.max_sessions)
            .field("sse_keep_alive", &self.sse_keep_alive)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("token_verifier", &self.token_verifier.is_some())
            .field("max_streams", &self.max_streams)
            .field("max_streams_per_client", &self.max_streams_per_client)
            .field("max_stream_lifetime", &self.max_stream_lifetime)
            .field("max_get_streams_per_session", &self.max_get_streams_per_session)
            .finish()
    }
}

impl Default for HttpConfig {
    /// `/mcp`, 4 MiB bodies, 512 concurrent requests, 1024 sessions, 15 s keep-alive,
    /// only loopback host names accepted, and long-lived streams capped at 512 overall, 32
    /// per client and 2 GET streams per session, each ending after 30 minutes.
    fn default() -> Self {
        HttpConfig {
            path: Some("/mcp".to_owned()),
            max_body_bytes: crate::wire::framing::DEFAULT_MAX_MESSAGE_BYTES,
            max_concurrent_requests: 512,
            max_sessions: 1024,
            sse_keep_alive: Duration::from_secs(15),
            allowed_hosts: Some(LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect()),
            token_verifier: None,
            max_streams: DEFAULT_MAX_STREAMS,
            max_streams_per_client: DEFAULT_MAX_STREAMS_PER_CLIENT,
            max_stream_lifetime: DEFAULT_MAX_STREAM_LIFETIME,
            max_get_streams_per_session: DEFAULT_MAX_GET_STREAMS_PER_SESSION,
        }
    }
}

impl HttpConfig {
    /// The default policy for a server bound to `addr`: DNS-rebinding protection is on for
    /// loopback addresses and off otherwise (set [`allowed_hosts`](Self::allowed_hosts)
    /// to your public host names).
    pub fn for_addr(addr: SocketAddr) -> Self {
        let mut config = HttpConfig::default();
        if !addr.ip().is_loopback() {
            config.allowed_hosts = None;
        }
        config
    }

    /// The endpoint path (default `/mcp`); other paths get 404.
    #[must_use]
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Serve every path (useful when a router already matched the route).
    #[must_use]
    pub fn any_path(mut self) -> Self {
        self.path = None;
        self
    }

    /// The largest request body accepted (default 4 MiB); larger ones get 413.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Requests handled at once (default 512); more get 503 with `Retry-After`.
    #[must_use]
    pub fn max_concurrent_requests(mut self, requests: usize) -> Self {
        self.max_concurrent_requests = requests;
        self
    }

    /// Open 2025-11-25 sessions at once (default 1024); more `initialize` requests get 503.
    #[must_use]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// Interval of SSE keep-alive comments (default 15 s).
    #[must_use]
    pub fn sse_keep_alive(mut self, interval: Duration) -> Self {
        self.sse_keep_alive = interval;
        self
    }

    /// Host names accepted in `Host` and `Origin` (DNS-rebinding protection); others get
    /// 403. The default accepts the loopback names only.
    #[must_use]
    pub fn allowed_hosts<I>(mut self, hosts: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Turn the `Host`/`Origin` check off (behind a proxy that checks them itself).
    #[must_use]
    pub fn allow_any_host(mut self) -> Self {
        self.allowed_hosts = None;
        self
    }

    /// Verify `Authorization: Bearer` tokens with `verifier`; requests without a valid one
    /// get 401. The caller's [`AuthInfo`] reaches handlers through the context and binds
    /// sealed request state to the principal.
    ///
    /// Without a verifier, the endpoint takes the [`AuthInfo`] that a layer in front of it
    /// (an axum middleware, a gateway adapter) inserted into the request's extensions, and
    /// treats it exactly the same way. With a verifier, the verifier wins: an `AuthInfo` in
    /// the extensions is ignored (it stays readable through
    /// [`RequestContext::http_extensions`](crate::RequestContext::http_extensions)).
    #[must_use]
    pub fn token_verifier(mut self, verifier: impl crate::auth::TokenVerifier) -> Self {
        self.token_verifier = Some(Arc::new(verifier));
        self
    }

    // Long-lived streams: `subscriptions/listen` (2026-07-28) and the 2025-11-25 GET stream.
    // They hold their own slots, never the request slots of `max_concurrent_requests`, so
    // ordinary calls are served while streams are at their caps.

    /// Long-lived streams open at once, over all clients (default 512): 2026-07-28
    /// `subscriptions/listen` streams and 2025-11-25 GET streams together. One more gets
    /// HTTP 503 with `Retry-After` and JSON-RPC `-32000` "Server busy: too many open
    /// streams; retry later". These streams never take the request slots of
    /// [`max_concurrent_requests`](Self::max_concurrent_requests).
    #[must_use]
    pub fn max_streams(mut self, streams: usize) -> Self {
        self.max_streams = streams;
        self
    }

    /// Long-lived streams one client may hold open at once (default 32). The client is the
    /// authenticated principal ([`AuthInfo::principal`](crate::handler::AuthInfo::principal))
    /// when there is one, otherwise the peer's IP address (IPv6 addresses by their /64
    /// prefix). One more gets HTTP 429 with `Retry-After` and JSON-RPC `-32000` "Server
    /// busy: too many open streams; retry later".
    ///
    /// [`serve::http`](fn@crate::serve::http) knows each peer's address. Mounted in another
    /// server (axum), the endpoint reads the peer from a [`SocketAddr`] in the request's
    /// extensions: insert it in a middleware (from axum's `ConnectInfo<SocketAddr>`).
    /// Without auth and without that, all clients share one allowance of this size.
    #[must_use]
    pub fn max_streams_per_client(mut self, streams: usize) -> Self {
        self.max_streams_per_client = streams;
        self
    }

    /// How long a long-lived stream may stay open (default 30 minutes). Then the server
    /// ends it gracefully: a `subscriptions/listen` stream gets its result (`resultType`
    /// `complete`, tagged with the subscription id) and closes, and a GET stream closes.
    /// Clients listen again (the spec's reconnect), which also rebalances them across
    /// servers behind a load balancer.
    #[must_use]
    pub fn max_stream_lifetime(mut self, lifetime: Duration) -> Self {
        self.max_stream_lifetime = lifetime;
        self
    }

    /// 2025-11-25 GET streams one session may hold open at once (default 2: one stream,
    /// and room for a client reconnecting before the server has noticed the old one is
    /// gone). One more gets HTTP 409 Conflict with JSON-RPC `-32600` "Conflict: too many
    /// GET streams for this session", as the Python SDK answers a second GET stream.
    #[must_use]
    pub fn max_get_streams_per_session(mut self, streams: usize) -> Self {
        self.max_get_streams_per_session = streams;
        self
    }
}
