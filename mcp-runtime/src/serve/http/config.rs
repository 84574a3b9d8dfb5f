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
/// Default [`HttpConfig::tls_handshake_timeout`].
#[cfg(feature = "tls")]
const DEFAULT_TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
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
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) public_unauthenticated: bool,
    /// Whether [`allowed_hosts`](Self::allowed_hosts) was called (the operator chose the names).
    pub(crate) allowed_hosts_set: bool,
    // 2025-11-25 session expiry.
    pub(crate) session_idle_timeout: Option<Duration>,
    pub(crate) session_max_lifetime: Option<Duration>,
    // Long-lived streams (`subscriptions/listen`, 2025-11-25 GET): their own pool.
    pub(crate) max_streams: usize,
    pub(crate) max_streams_per_client: usize,
    pub(crate) max_stream_lifetime: Duration,
    pub(crate) max_get_streams_per_session: usize,
    // Auth: the protected resource this endpoint is.
    pub(crate) resource: Option<String>,
    pub(crate) protected_resource: Option<Arc<super::ProtectedResourceMetadata>>,
    // TLS terminated in the process (`tls`).
    #[cfg(feature = "tls")]
    pub(crate) tls: Option<crate::tls::ServerTlsConfig>,
    #[cfg(feature = "tls")]
    pub(crate) tls_handshake_timeout: Duration,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("HttpConfig");
        f.field("path", &self.path)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_concurrent_requests", &self.max_concurrent_requests)
            .field("max_sessions", &self.max_sessions)
            .field("sse_keep_alive", &self.sse_keep_alive)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("token_verifier", &self.token_verifier.is_some())
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("max_connections", &self.max_connections)
            .field("public_unauthenticated", &self.public_unauthenticated)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("session_max_lifetime", &self.session_max_lifetime)
            .field("max_streams", &self.max_streams)
            .field("max_streams_per_client", &self.max_streams_per_client)
            .field("max_stream_lifetime", &self.max_stream_lifetime)
            .field("max_get_streams_per_session", &self.max_get_streams_per_session)
            .field("resource", &self.resource)
            .field("protected_resource", &self.protected_resource);
        #[cfg(feature = "tls")]
        f.field("tls", &self.tls).field("tls_handshake_timeout", &self.tls_handshake_timeout);
        f.finish()
    }
}

impl Default for HttpConfig {
    /// `/mcp`, 4 MiB bodies, 512 concurrent requests, 1024 sessions (idle for at most 30
    /// minutes, living at most 24 hours), 15 s keep-alive, and only loopback host names
    /// accepted; 30 s to send a request head (and idle kept-alive connections closed after
    /// 30 s), 30 s to send a body, 768 open connections; long-lived streams capped at 512
    /// overall, 32 per client and 2 GET streams per session, each ending after 30 minutes.
    fn default() -> Self {
        HttpConfig {
            path: Some("/mcp".to_owned()),
            max_body_bytes: crate::wire::framing::DEFAULT_MAX_MESSAGE_BYTES,
            max_concurrent_requests: 512,
            max_sessions: 1024,
            sse_keep_alive: Duration::from_secs(15),
            allowed_hosts: Some(LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect()),
            token_verifier: None,
            header_read_timeout: Duration::from_secs(30),
            body_read_timeout: Duration::from_secs(30),
            max_connections: 768,
            public_unauthenticated: false,
            allowed_hosts_set: false,
            session_idle_timeout: Some(DEFAULT_SESSION_IDLE_TIMEOUT),
            session_max_lifetime: Some(DEFAULT_SESSION_MAX_LIFETIME),
            max_streams: DEFAULT_MAX_STREAMS,
            max_streams_per_client: DEFAULT_MAX_STREAMS_PER_CLIENT,
            max_stream_lifetime: DEFAULT_MAX_STREAM_LIFETIME,
            max_get_streams_per_session: DEFAULT_MAX_GET_STREAMS_PER_SESSION,
            resource: None,
            protected_resource: None,
            #[cfg(feature = "tls")]
            tls: None,
            #[cfg(feature = "tls")]
            tls_handshake_timeout: DEFAULT_TLS_HANDSHAKE_TIMEOUT,
        }
    }
}

impl HttpConfig {
    /// The default policy for a server bound to `addr`: the same for every address, the
    /// [default](Self::default) (loopback host names only). It used to turn the
    /// `Host`/`Origin` check off for non-loopback addresses; now a server on such an
    /// address needs [`allowed_hosts`](Self::allowed_hosts) (your public host names), a
    /// [`token_verifier`](Self::token_verifier), or
    /// [`allow_public_unauthenticated`](Self::allow_public_unauthenticated), or
    /// [`serve::http`](fn@crate::serve::http) refuses to start.
    pub fn for_addr(addr: SocketAddr) -> Self {
        let _ = addr;
        HttpConfig::default()
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

    /// Open 2025-11-25 sessions at once (default 1024). At the cap, an `initialize` ends the
    /// least recently used idle session (no request in flight, no GET stream open), whose id
    /// then gets 404 "Session not found"; only when every session is busy does it get 503
    /// with JSON-RPC `-32000` "Server busy: too many sessions; retry later".
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
    /// 403. The default accepts the loopback names only. Setting them is one of the ways
    /// to serve on a non-loopback address (see
    /// [`allow_public_unauthenticated`](Self::allow_public_unauthenticated)).
    #[must_use]
    pub fn allowed_hosts<I>(mut self, hosts: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self.allowed_hosts_set = true;
        self
    }

    /// Turn the `Host`/`Origin` check off (behind a proxy that checks them itself). On a
    /// non-loopback address this also needs a [`token_verifier`](Self::token_verifier) or
    /// [`allow_public_unauthenticated`](Self::allow_public_unauthenticated).
    #[must_use]
    pub fn allow_any_host(mut self) -> Self {
        self.allowed_hosts = None;
        self.allowed_hosts_set = false;
        self
    }

    /// Verify `Authorization: Bearer` tokens with `verifier`; requests without a valid one
    /// get 401. The caller's [`AuthInfo`] reaches handlers through the context and binds
    /// sealed request state to the principal. The scheme is matched without regard to
    /// case (`bearer`, `BEARER`), and the transport calls the verifier's
    /// [`verify_request`](crate::auth::TokenVerifier::verify_request).
    ///
    /// An [`AuthInfo`](crate::handler::AuthInfo) whose
    /// [`expires_at`](crate::auth::AuthInfo::expires_at) (seconds since the Unix epoch) is
    /// now or past gets 401 with `WWW-Authenticate: Bearer error="invalid_token"`, whether
    /// the verifier or a layer produced it.
    ///
    /// Without a verifier, the endpoint takes the [`AuthInfo`] that a layer in front of it
    /// (an axum middleware, a gateway adapter) inserted into the request's extensions, and
    /// treats it exactly the same way. With a verifier, the verifier wins: an `AuthInfo` in
    /// the extensions is ignored (it stays readable through
    /// [`RequestContext::http_extensions`](crate::RequestContext::http_extensions)).
    ///
    /// A verifier is one of the ways to serve on a non-loopback address (see
    /// [`allow_public_unauthenticated`](Self::allow_public_unauthenticated)).
    ///
    /// [`AuthInfo`]: crate::handler::AuthInfo
    #[must_use]
    pub fn token_verifier(mut self, verifier: impl crate::auth::TokenVerifier) -> Self {
        self.token_verifier = Some(Arc::new(verifier));
        self
    }

    /// How long a client has to send a whole request head (default 30 s). hyper's timer
    /// starts when the connection waits for a request, so this is also the idle timeout of
    /// kept-alive connections: one with no request in flight is closed when no complete
    /// head arrives within it. Exceeding it closes the connection without a response
    /// (hyper sends no 408: there is no request to answer yet). Behind a reverse proxy that
    /// keeps upstream connections alive, set the proxy's idle timeout below this (nginx:
    /// `keepalive_timeout` in the `upstream` block, default 60 s).
    ///
    /// Over TLS with HTTP/2 it is the idle timeout too: a connection with no request open
    /// for this long is shut down gracefully (GOAWAY), and one that sent no request at all
    /// (not even its preface) is dropped.
    #[must_use]
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a client has to send a whole request body once its head arrived (default
    /// 30 s). A body that stalls gets 408 Request Timeout with a JSON-RPC `-32600` error
    /// ("Request Timeout: the request body did not arrive in time", id null), and the
    /// connection is closed.
    #[must_use]
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// Open connections at once (default 768, at least 1). The default fits the common
    /// 1024 file-descriptor limit with 256 to spare for the listener, logs and what
    /// handlers open. Connections over it are not accepted: they wait in the kernel's
    /// listen backlog until one closes (so they cost no descriptor), and the kernel refuses
    /// new ones once the backlog is full. A WARN is logged when the cap is reached, at most
    /// once a minute. Only [`serve::http`](fn@crate::serve::http) applies it; a
    /// [`McpHttpService`](super::McpHttpService) mounted elsewhere is capped by that server.
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }

    /// Serve on a non-loopback address with neither [`allowed_hosts`](Self::allowed_hosts)
    /// nor a [`token_verifier`](Self::token_verifier), on purpose: a server public and
    /// unauthenticated by design, or one behind a layer that authenticates (the transport
    /// cannot tell). Without it, [`serve::http`](fn@crate::serve::http) on such an address
    /// refuses to start (its future returns an `InvalidInput` error naming the ways out).
    /// It does not change the `Host`/`Origin` check: the loopback names stay the only ones
    /// accepted unless you also call [`allow_any_host`](Self::allow_any_host) or set
    /// [`allowed_hosts`](Self::allowed_hosts).
    #[must_use]
    pub fn allow_public_unauthenticated(mut self) -> Self {
        self.public_unauthenticated = true;
        self
    }

    /// How long a 2025-11-25 session may sit idle (no request in flight, no GET stream open)
    /// before the server ends it (default 30 minutes, as the Python SDK; `None`: never).
    /// Ending it works as DELETE does; its id then gets 404 with JSON-RPC `-32600`
    /// "Session not found", and the client initializes again.
    #[must_use]
    pub fn session_idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// How long a 2025-11-25 session may live, busy or not (default 24 hours; `None`: no
    /// limit). Past it, the server ends the session as DELETE does: its running requests
    /// are aborted, its GET streams close and its questions to the client fail; its id then
    /// gets 404 with JSON-RPC `-32600` "Session not found", and the client initializes again.
    #[must_use]
    pub fn session_max_lifetime(mut self, lifetime: Option<Duration>) -> Self {
        self.session_max_lifetime = lifetime;
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
    ///
    /// Over TLS with HTTP/2 it is also each connection's `SETTINGS_MAX_CONCURRENT_STREAMS`
    /// (at least 1), so that one connection cannot take every request slot.
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

    /// The canonical URI of this server as an OAuth protected resource (RFC 8707, RFC
    /// 9728), e.g. `https://api.example.com/mcp`; no default. The token verifier sees it in
    /// [`VerifyRequest::resource`](crate::auth::VerifyRequest::resource) and should refuse
    /// tokens issued for another audience; its refusal is a 401 with
    /// `WWW-Authenticate: Bearer error="invalid_token"`.
    #[must_use]
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource = Some(uri.into());
        self
    }

    /// Serve this endpoint as an OAuth 2.1 protected resource (RFC 9728): the metadata
    /// document at its [well-known path](super::ProtectedResourceMetadata::well_known_path),
    /// without authentication (the endpoint's path and host checks do not apply to it;
    /// `GET` gets it, `OPTIONS` a CORS preflight, other methods 405), and challenges that
    /// point to it. Also sets [`resource`](Self::resource) to the metadata's resource URI.
    ///
    /// - Without [`scopes_supported`](super::ProtectedResourceMetadata::scopes_supported),
    ///   the document lists the scopes the server's items declare
    ///   ([`Server::declared_scopes`](crate::server::Server::declared_scopes)), and so does the 401.
    /// - MCP requires at least one
    ///   [`authorization_server`](super::ProtectedResourceMetadata::authorization_server):
    ///   without one [`serve::http`](fn@crate::serve::http) returns an `InvalidInput` error
    ///   and [`McpHttpService::new`](super::McpHttpService::new) panics.
    /// - A request without a token gets 401 with
    ///   `WWW-Authenticate: Bearer resource_metadata="<document URL>", scope="<scopes supported>"`;
    ///   a refused or expired token gets `Bearer error="invalid_token", resource_metadata=…, scope=…`.
    /// - A handler returning [`Error::insufficient_scope`](crate::Error::insufficient_scope)
    ///   gets 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
    ///   resource_metadata="…", scope="<the scopes it names>"` and the JSON-RPC error as body
    ///   (unless the handler sent notifications first: the SSE stream has begun with 200).
    ///
    /// ```
    /// use mcp::serve::http::{HttpConfig, ProtectedResourceMetadata};
    ///
    /// let config = HttpConfig::default().protected_resource(
    ///     ProtectedResourceMetadata::new("https://api.example.com/mcp")
    ///         .authorization_server("https://auth.example.com")
    ///         .scopes_supported(["files:read"]),
    /// );
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn protected_resource(mut self, metadata: super::ProtectedResourceMetadata) -> Self {
        self.resource = Some(metadata.resource().to_owned());
        self.protected_resource = Some(Arc::new(metadata));
        self
    }

    /// Terminate TLS in the process: [`serve::http`](fn@crate::serve::http) serves
    /// `https://` with this certificate, HTTP/2 or HTTP/1.1 as each client's ALPN
    /// chooses. The limits are the same as without TLS (the connection cap, the
    /// header-read and body-read timeouts), plus
    /// [`tls_handshake_timeout`](Self::tls_handshake_timeout). An HTTP/2 request's
    /// `:authority` is checked against [`allowed_hosts`](Self::allowed_hosts) as
    /// `Host` is. A [`McpHttpService`](super::McpHttpService) mounted in another server
    /// ignores this: TLS is that server's job. Needs the `tls` feature.
    ///
    /// ```no_run
    /// use mcp::serve::http::HttpConfig;
    /// use mcp::tls::ServerTlsConfig;
    ///
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let tls = ServerTlsConfig::from_pem_files("cert.pem", "key.pem")?;
    ///     let server = mcp::Server::builder("hello", "1.0.0").build();
    ///     let listener = tokio::net::TcpListener::bind("127.0.0.1:8443").await?;
    ///     mcp::serve::http(listener, server).config(HttpConfig::default().tls(tls)).await
    /// }
    /// ```
    #[cfg(feature = "tls")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
    #[must_use]
    pub fn tls(mut self, tls: crate::tls::ServerTlsConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    /// How long a client may take to finish the TLS handshake after connecting
    /// (default 10 s); a slower one is dropped, freeing its connection slot. Needs the
    /// `tls` feature.
    #[cfg(feature = "tls")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
    #[must_use]
    pub fn tls_handshake_timeout(mut self, timeout: Duration) -> Self {
        self.tls_handshake_timeout = timeout;
        self
    }
}

/// Default [`HttpConfig::session_idle_timeout`]: 30 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// Default [`HttpConfig::session_max_lifetime`]: 24 hours.
pub const DEFAULT_SESSION_MAX_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);
