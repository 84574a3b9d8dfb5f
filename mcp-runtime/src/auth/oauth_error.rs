//! Why an OAuth access token, or the configuration that checks it, was refused.

use std::fmt;

/// What went wrong, for callers that branch on it (metrics, the `error` of a 401).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OAuthErrorKind {
    /// The verifier's configuration is incomplete or invalid (no issuer, no audience to
    /// check, an unparsable URL).
    Config,
    /// A URL uses a scheme that cannot be fetched: neither `https://` nor `http://`.
    UnsupportedScheme,
    /// A URL is plain `http://` to a host that is not loopback (`localhost`,
    /// 127.0.0.0/8, `::1`), configured or found in the metadata, and the builder did not
    /// opt in with `allow_insecure_http(true)`: keys or answers fetched that way could be
    /// swapped by anyone on the network path.
    InsecureUrl,
    /// Fetching the authorization server's metadata, JWKS or introspection answer failed
    /// (connection, timeout, status, size, a body that is not JSON).
    Fetch,
    /// The authorization server's metadata is unusable: not JSON, no `jwks_uri` (or
    /// `introspection_endpoint`), or an
    /// `issuer` other than the configured one (RFC 8414 §3.3).
    Metadata,
    /// The JWKS document is unusable.
    Jwks,
    /// The token is not a well-formed JWS, or its header names an unknown algorithm
    /// (`none` included).
    Malformed,
    /// The token's `typ` is neither `at+jwt` (RFC 9068) nor `JWT`.
    Type,
    /// The token's algorithm is not allowed for its key (never `none`, never HMAC).
    Algorithm,
    /// No key in the JWKS matches the token's `kid`, even after a refresh.
    UnknownKey,
    /// The signature does not verify.
    Signature,
    /// `exp` is past (beyond the leeway), or missing.
    Expired,
    /// `nbf` is in the future (beyond the leeway).
    NotYetValid,
    /// `iss` is not the configured issuer, or missing.
    Issuer,
    /// `aud` does not contain this resource, or is missing (RFC 8707).
    Audience,
    /// The claims are not what an access token carries (e.g. `sub` not a string).
    Claims,
    /// The introspection endpoint (RFC 7662) says the token is not active: unknown,
    /// revoked, expired, or not for this client.
    Inactive,
    /// The introspection endpoint's answer is unusable: JSON, but not an introspection
    /// response (no boolean `active`, a claim of the wrong type).
    Introspection,
}

/// A refused token or an unusable configuration.
///
/// The message names what failed and never contains the token, a claim value or the
/// principal.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OAuthError {
    kind: OAuthErrorKind,
    detail: String,
}

impl OAuthError {
    pub(crate) fn new(kind: OAuthErrorKind, detail: impl Into<String>) -> Self {
        OAuthError { kind, detail: detail.into() }
    }

    /// What went wrong.
    pub fn kind(&self) -> OAuthErrorKind {
        self.kind
    }
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.detail)
    }
}

impl std::error::Error for OAuthError {}
