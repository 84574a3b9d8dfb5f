//! Why the authorization flow failed: a kind to branch on, a message that never holds a
//! token, code, verifier or secret, and the error behind it where there is one.

use std::fmt;
use std::sync::Arc;

/// What went wrong in the client's authorization flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OAuthErrorKind {
    /// The configuration is incomplete or invalid (no authorization handler, a client
    /// metadata URL that is not https, a private key method with no assertion).
    Config,
    /// Fetching a document or calling an endpoint failed: connection, timeout, size
    /// bound, an unexpected status, a body that is not the JSON expected.
    Fetch,
    /// No usable Protected Resource Metadata (RFC 9728): none found, not JSON, or no
    /// `authorization_servers`.
    ResourceMetadata,
    /// The Protected Resource Metadata names a `resource` that is not this MCP server
    /// (another origin, or a path that is not a prefix of the server's). No
    /// authorization request was made.
    ResourceMismatch,
    /// No usable authorization server metadata (RFC 8414 / OpenID Connect discovery), or
    /// its `issuer` is not the issuer it was fetched for.
    ServerMetadata,
    /// The authorization server does not advertise PKCE with `S256`.
    PkceUnsupported,
    /// No client identity for this authorization server: no pre-registered credentials
    /// for it, no Client ID Metadata Document support, no dynamic registration (or the
    /// registration failed).
    Registration,
    /// A URL the flow would open or fetch is unsafe: a scheme other than http(s)
    /// (`javascript:`, `data:`, `file:`), or plain http to a host that is not loopback
    /// without `allow_insecure_http(true)`.
    UnsafeUrl,
    /// The authorization handler failed, or the redirect carried an error, or no code.
    Authorization,
    /// The redirect's `state` is missing or not the one sent.
    State,
    /// The redirect's `iss` (RFC 9207) is missing where required or not the issuer the
    /// request was sent to: a possible mix-up attack. The redirect's error fields were
    /// ignored.
    Issuer,
    /// The token endpoint refused the grant or answered something that is not a token.
    Token,
    /// The server still refused after the allowed number of step-up authorizations
    /// (403 `insufficient_scope`), or asked again for scopes it was already granted.
    InsufficientScope,
    /// The token store failed to read or write.
    Store,
    /// Pre-registered credentials with a secret or key, configured for the first
    /// authorization server met, would be presented to another one than they were bound
    /// to (in this process or, through the store, an earlier run).
    CredentialsBound,
    /// The workload JWT of the jwt-bearer grant is not addressed (`aud`) to the
    /// authorization server the MCP server names: it was not sent.
    AssertionAudience,
    /// A local failure with nothing to configure: the random generator, signing,
    /// building a request, a DPoP proof.
    Internal,
}

/// A failed authorization step. Messages name URLs and OAuth error codes, never a token,
/// code, verifier, secret or assertion.
#[derive(Clone)]
pub struct OAuthError {
    kind: OAuthErrorKind,
    message: String,
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
    /// The OAuth `error` code an endpoint answered with.
    code: Option<String>,
}

impl OAuthError {
    pub(crate) fn new(kind: OAuthErrorKind, message: impl Into<String>) -> Self {
        OAuthError { kind, message: message.into(), source: None, code: None }
    }

    pub(crate) fn with_source(
        kind: OAuthErrorKind,
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Self {
        OAuthError { kind, message: message.into(), source: Some(Arc::from(source.into())), code: None }
    }

    pub(crate) fn with_code(mut self, code: Option<String>) -> Self {
        self.code = code;
        self
    }

    /// The OAuth error code the authorization server answered with, if any
    /// (`invalid_grant`, `invalid_scope`, `unauthorized_client`, ...): with
    /// [`OAuthErrorKind::Token`], why a grant was refused. A refused client credentials,
    /// jwt-bearer or enterprise grant is not retried, nor replaced by another grant.
    pub fn error_code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// What went wrong.
    pub fn kind(&self) -> OAuthErrorKind {
        self.kind
    }

    /// The description, without the source.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Debug for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthError")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .field("source", &self.source.as_ref().map(ToString::to_string))
            .field("code", &self.code)
            .finish()
    }
}

impl PartialEq for OAuthError {
    /// Equal when the kinds and messages are (sources are compared by their text).
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.message == other.message
            && self.source.as_ref().map(ToString::to_string) == other.source.as_ref().map(ToString::to_string)
    }
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(source) => write!(f, "{}: {source}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for OAuthError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<OAuthError> for crate::client::ClientError {
    fn from(e: OAuthError) -> Self {
        crate::client::ClientError::OAuth(e)
    }
}
