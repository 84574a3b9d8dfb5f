//! [`HttpConfig`]: the endpoint's limits and policies.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::LOOPBACK_HOSTS;

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
    // Auth: the protected resource this endpoint is.
    pub(crate) resource: Option<String>,
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
            .field("resource", &self.resource)
            .finish()
    }
}

impl Default for HttpConfig {
    /// `/mcp`, 4 MiB bodies, 512 concurrent requests, 1024 sessions, 15 s keep-alive, and
    /// only loopback host names accepted.
    fn default() -> Self {
        HttpConfig {
            path: Some("/mcp".to_owned()),
            max_body_bytes: crate::wire::framing::DEFAULT_MAX_MESSAGE_BYTES,
            max_concurrent_requests: 512,
            max_sessions: 1024,
            sse_keep_alive: Duration::from_secs(15),
            allowed_hosts: Some(LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect()),
            token_verifier: None,
            resource: None,
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
    #[must_use]
    pub fn token_verifier(mut self, verifier: impl crate::auth::TokenVerifier) -> Self {
        self.token_verifier = Some(Arc::new(verifier));
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
}
