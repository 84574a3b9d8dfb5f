//! Layer 4, authentication: a transport verifies a bearer token into an [`AuthInfo`],
//! which handlers read through the context and request-state sealing binds state to.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

pub use crate::handler::AuthInfo;
use crate::handler::BoxFuture;

/// Turns a bearer token into an [`AuthInfo`], or refuses it (`None`).
///
/// The HTTP transport calls [`verify_request`](Self::verify_request), which by default
/// calls [`verify`](Self::verify) with the token alone. A verifier that must check more
/// than the token (that it was issued for this server, RFC 8707; a proof bound to the
/// request) overrides `verify_request` and reads the [`VerifyRequest`].
///
/// Whatever the verifier returns, the transport refuses an [`AuthInfo`] whose
/// [`expires_at`](AuthInfo::expires_at) has passed (see [`AuthInfo::is_expired`]).
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verify `token`.
    fn verify(&self, token: &str) -> BoxFuture<Option<AuthInfo>>;

    /// Verify the token of `request`, seeing what else the transport knows: the resource
    /// this endpoint is configured as, and the request's headers. The default calls
    /// [`verify`](Self::verify) with the token.
    ///
    /// A verifier that accepts only tokens meant for this server:
    ///
    /// ```
    /// use mcp::auth::{AuthInfo, TokenVerifier, VerifyRequest};
    /// use mcp::handler::BoxFuture;
    /// use mcp::serve::http::HttpConfig;
    ///
    /// /// Tokens look like `<audience> <subject>` (a stand-in for a signed JWT's claims).
    /// struct AudienceChecked;
    ///
    /// impl TokenVerifier for AudienceChecked {
    ///     fn verify(&self, _token: &str) -> BoxFuture<Option<AuthInfo>> {
    ///         Box::pin(async { None }) // never called: verify_request is overridden
    ///     }
    ///
    ///     fn verify_request(&self, request: &VerifyRequest<'_>) -> BoxFuture<Option<AuthInfo>> {
    ///         let auth = match (request.token().split_once(' '), request.resource()) {
    ///             (Some((audience, subject)), Some(resource)) if audience == resource => Some(AuthInfo {
    ///                 client_id: "app".into(),
    ///                 subject: Some(subject.to_owned()),
    ///                 ..AuthInfo::default()
    ///             }),
    ///             _ => None,
    ///         };
    ///         Box::pin(async move { auth })
    ///     }
    /// }
    ///
    /// # block_on(async {
    /// let ours = VerifyRequest::new("https://api.example.com/mcp alice").with_resource("https://api.example.com/mcp");
    /// assert!(AudienceChecked.verify_request(&ours).await.is_some());
    /// let theirs = VerifyRequest::new("https://other.example/mcp alice").with_resource("https://api.example.com/mcp");
    /// assert!(AudienceChecked.verify_request(&theirs).await.is_none());
    /// # });
    /// let config = HttpConfig::default().resource("https://api.example.com/mcp").token_verifier(AudienceChecked);
    /// # let _ = config;
    /// # fn block_on(f: impl std::future::Future<Output = ()>) {
    /// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    /// # }
    /// ```
    fn verify_request(&self, request: &VerifyRequest<'_>) -> BoxFuture<Option<AuthInfo>> {
        self.verify(request.token())
    }

    /// [`verify_request`](Self::verify_request), the caller shared: what the HTTP transport
    /// calls, once per request. The default shares what `verify_request` returns; a verifier
    /// that keeps the callers it verified (as `JwtVerifier`'s cache does) can hand out its
    /// own instead of a copy.
    fn verify_shared(&self, request: &VerifyRequest<'_>) -> BoxFuture<Option<std::sync::Arc<AuthInfo>>> {
        let verified = self.verify_request(request);
        Box::pin(async move { verified.await.map(std::sync::Arc::new) })
    }
}

/// What a [`TokenVerifier`] is shown about a request: the bearer token, the resource the
/// endpoint is configured as ([`HttpConfig::resource`](crate::serve::http::HttpConfig::resource)),
/// and, over HTTP, the request's headers.
///
/// More may be added; build one with [`new`](Self::new) and the `with_` setters.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct VerifyRequest<'a> {
    token: &'a str,
    resource: Option<&'a str>,
    #[cfg(feature = "http")]
    headers: Option<&'a http::HeaderMap>,
}

impl<'a> VerifyRequest<'a> {
    /// A request carrying `token`, with no resource and no headers.
    pub fn new(token: &'a str) -> Self {
        VerifyRequest {
            token,
            resource: None,
            #[cfg(feature = "http")]
            headers: None,
        }
    }

    /// The canonical URI of the resource the token must be meant for.
    #[must_use]
    pub fn with_resource(mut self, resource: &'a str) -> Self {
        self.resource = Some(resource);
        self
    }

    /// The headers of the HTTP request.
    #[cfg(feature = "http")]
    #[must_use]
    pub fn with_headers(mut self, headers: &'a http::HeaderMap) -> Self {
        self.headers = Some(headers);
        self
    }

    /// The bearer token (without the `Bearer` scheme).
    pub fn token(&self) -> &'a str {
        self.token
    }

    /// The canonical URI of this server as a protected resource (RFC 8707, RFC 9728), if
    /// one is configured: the audience a token must have been issued for.
    pub fn resource(&self) -> Option<&'a str> {
        self.resource
    }

    /// The HTTP request's headers (`None` outside HTTP).
    #[cfg(feature = "http")]
    pub fn headers(&self) -> Option<&'a http::HeaderMap> {
        self.headers
    }
}

impl AuthInfo {
    /// Whether [`expires_at`](Self::expires_at) (seconds since the Unix epoch) is at or
    /// before now. Without an expiry, never.
    ///
    /// ```
    /// use mcp::auth::AuthInfo;
    ///
    /// assert!(AuthInfo { expires_at: Some(1), ..AuthInfo::default() }.is_expired());
    /// assert!(!AuthInfo { expires_at: Some(u64::MAX), ..AuthInfo::default() }.is_expired());
    /// assert!(!AuthInfo::default().is_expired());
    /// ```
    pub fn is_expired(&self) -> bool {
        self.is_expired_at(SystemTime::now())
    }

    /// Whether [`expires_at`](Self::expires_at) is at or before `now` (RFC 7519: a token
    /// must not be accepted on or after its expiry).
    pub fn is_expired_at(&self, now: SystemTime) -> bool {
        let now = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        self.expires_at.is_some_and(|at| at <= now)
    }
}

/// A verifier with a fixed table of tokens, for tests and examples.
#[derive(Debug, Clone, Default)]
pub struct StaticTokenVerifier {
    tokens: Arc<Vec<(String, AuthInfo)>>,
}

impl StaticTokenVerifier {
    /// A verifier accepting exactly these tokens.
    pub fn new(tokens: impl IntoIterator<Item = (String, AuthInfo)>) -> Self {
        StaticTokenVerifier { tokens: Arc::new(tokens.into_iter().collect()) }
    }
}

impl TokenVerifier for StaticTokenVerifier {
    fn verify(&self, token: &str) -> BoxFuture<Option<AuthInfo>> {
        let found = self
            .tokens
            .iter()
            .find(|(t, _)| crate::sealing::constant_time_eq(t.as_bytes(), token.as_bytes()))
            .map(|(_, info)| info.clone());
        Box::pin(async move { found })
    }
}

#[cfg(all(feature = "oauth", feature = "server"))]
mod discovery;
#[cfg(all(feature = "oauth", feature = "server"))]
mod fetch;
#[cfg(all(feature = "oauth", feature = "server"))]
mod introspection;
#[cfg(all(feature = "oauth", feature = "server"))]
mod jwks;
#[cfg(all(feature = "oauth", feature = "server"))]
mod jwt;
#[cfg(all(feature = "oauth", feature = "server"))]
mod oauth_error;
#[cfg(all(feature = "oauth", feature = "server"))]
mod tls;

#[cfg(all(feature = "oauth", feature = "server"))]
pub use introspection::{IntrospectionVerifier, IntrospectionVerifierBuilder};
#[cfg(all(feature = "oauth", feature = "server"))]
pub use jwt::{DEFAULT_VERIFIED_TOKEN_MAX_AGE, DEFAULT_VERIFIED_TOKENS, JwtVerifier, JwtVerifierBuilder};
#[cfg(all(feature = "oauth", feature = "server"))]
pub use oauth_error::{OAuthError, OAuthErrorKind};
/// A DER certificate, for [`JwtVerifierBuilder::add_root_certificate`] and
/// [`IntrospectionVerifierBuilder::add_root_certificate`] (re-exported from
/// `rustls-pki-types`).
#[cfg(all(feature = "oauth", feature = "server"))]
pub use rustls_pki_types::CertificateDer;
