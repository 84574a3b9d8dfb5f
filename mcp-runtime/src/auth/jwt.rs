//! [`JwtVerifier`]: OAuth 2.1 access tokens in the JWT profile (RFC 9068), checked with
//! the `jsonwebtoken` crate against the issuer's JWKS.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use self::cache::VerifiedTokens;
use super::CertificateDer;
use super::fetch::Fetcher;
use super::jwks::{JwksCache, JwksSource};
use super::oauth_error::{OAuthError, OAuthErrorKind};
use super::tls::TlsSettings;
use super::{AuthInfo, TokenVerifier, VerifyRequest};
use crate::handler::BoxFuture;

/// The default clock-skew allowance for `exp` and `nbf`.
const DEFAULT_LEEWAY: Duration = Duration::from_secs(60);
/// The default shortest time between two JWKS fetches.
const DEFAULT_REFRESH_INTERVAL: Duration = Duration::from_secs(30);
/// The default timeout of one metadata or JWKS fetch.
const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The default size bound of a metadata or JWKS document.
const DEFAULT_MAX_DOCUMENT_BYTES: usize = 256 * 1024;
/// The default number of verified tokens cached.
pub const DEFAULT_VERIFIED_TOKENS: usize = 10_000;
/// The default longest time a verified token is served from the cache.
pub const DEFAULT_VERIFIED_TOKEN_MAX_AGE: Duration = Duration::from_secs(60);

/// Verifies JWT access tokens (RFC 9068) issued by one authorization server.
///
/// A token is accepted when all of these hold:
/// - its signature verifies with the issuer's key named by its `kid` (from the configured
///   JWKS URL, or the `jwks_uri` of the issuer's RFC 8414 / OpenID Connect metadata);
/// - its algorithm is an asymmetric one that fits the key (RS*, PS*, ES256, ES384, EdDSA;
///   never `none`, never HMAC);
/// - its `typ` is `at+jwt` (RFC 9068) or `JWT`, or absent;
/// - `iss` is the configured issuer, exactly;
/// - `aud` contains the configured [`audience`](JwtVerifierBuilder::audience) or, without
///   one, the resource the transport is configured as ([`VerifyRequest::resource`]);
///   tokens for other audiences are refused (RFC 8707, no token passthrough);
/// - `exp` is present and not past, and `nbf`, if present, not in the future, both with a
///   leeway.
///
/// Keys are cached; a token naming an unknown `kid` refetches the JWKS (key rotation), at
/// most once per [`refresh_interval`](JwtVerifierBuilder::refresh_interval).
///
/// Tokens that pass are cached too (by default): a client sends the same token on every
/// request, and checking its signature each time costs more than the rest of a small call.
/// The cache keeps the SHA-256 of each token (never the token) with the [`AuthInfo`] it
/// was verified as, and serves that only for the same audience, only before the token's
/// `exp` (past it, the token is checked in full again, leeway included), and for at most
/// [`verified_token_max_age`](JwtVerifierBuilder::verified_token_max_age) (default
/// 60 s; this bounds how long a token signed by a key since removed from the JWKS stays
/// accepted). It holds at most
/// [`verified_token_cache`](JwtVerifierBuilder::verified_token_cache) tokens (default
/// [`DEFAULT_VERIFIED_TOKENS`]); when full, expired entries make room first, then the
/// one that expires soonest. A refused token is never cached.
///
/// The [`AuthInfo`] carries `iss`, `sub`, `client_id` (or `azp`), the scopes of `scope`
/// (space-separated) or `scp`, and as `expires_at` the last second the token is accepted
/// (`exp` plus the leeway), which the transport enforces.
///
/// The metadata and keys are fetched over `https://`, checked against the Mozilla roots
/// and any [added](JwtVerifierBuilder::add_root_certificate) for a private CA. Plain
/// `http://` is allowed only to loopback hosts (a local test server) unless the builder
/// [opts in](JwtVerifierBuilder::allow_insecure_http); this holds for the `jwks_uri`
/// found in the metadata too.
///
/// ```
/// use std::time::Duration;
/// use mcp::auth::JwtVerifier;
///
/// let verifier = JwtVerifier::builder()
///     .issuer("https://login.example.com/")
///     .audience("https://mcp.example.com/mcp")
///     .leeway(Duration::from_secs(30))
///     .build()
///     .unwrap();
/// # let _ = verifier;
/// ```
#[derive(Debug, Clone)]
pub struct JwtVerifier {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    issuer: String,
    audience: Option<String>,
    leeway: u64,
    jwks: JwksCache,
    /// `None` when turned off.
    verified: Option<VerifiedTokens>,
}

/// Configures a [`JwtVerifier`]; from [`JwtVerifier::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct JwtVerifierBuilder {
    issuer: Option<String>,
    audience: Option<String>,
    jwks_url: Option<String>,
    leeway: Duration,
    refresh_interval: Duration,
    fetch_timeout: Duration,
    max_document_bytes: usize,
    verified_tokens: usize,
    verified_token_max_age: Duration,
    tls: TlsSettings,
}

impl JwtVerifierBuilder {
    /// The authorization server's issuer identifier: tokens' `iss` must equal it, and
    /// without a [`jwks_url`](Self::jwks_url) its metadata is looked up from it. Required.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The audience tokens must carry in `aud`: this server's canonical resource URI.
    /// Without it, the resource the HTTP transport is configured as
    /// ([`HttpConfig::resource`](crate::serve::http::HttpConfig::resource)) is used, and
    /// a request without either is refused.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Where the issuer's JWKS is, instead of discovering it from the issuer's metadata.
    pub fn jwks_url(mut self, url: impl Into<String>) -> Self {
        self.jwks_url = Some(url.into());
        self
    }

    /// The clock skew allowed when checking `exp` and `nbf` (whole seconds; default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The shortest time between two JWKS fetches (default 30 s): a token with an unknown
    /// `kid` refetches only if the last fetch is at least this old.
    pub fn refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh_interval = interval;
        self
    }

    /// How long one metadata or JWKS fetch may take (default 10 s).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }

    /// The largest metadata or JWKS document accepted (default 256 KiB).
    pub fn max_document_bytes(mut self, bytes: usize) -> Self {
        self.max_document_bytes = bytes;
        self
    }

    /// How many verified tokens are cached (default [`DEFAULT_VERIFIED_TOKENS`]); `0`
    /// turns the cache off, and every request's token is then checked in full.
    pub fn verified_token_cache(mut self, max_entries: usize) -> Self {
        self.verified_tokens = max_entries;
        self
    }

    /// The longest time a verified token is served from the cache (whole seconds; default
    /// [`DEFAULT_VERIFIED_TOKEN_MAX_AGE`]), however far its `exp` is; under a second turns
    /// the cache off.
    pub fn verified_token_max_age(mut self, max_age: Duration) -> Self {
        self.verified_token_max_age = max_age;
        self
    }

    /// Trusts `certificate` as a root for the authorization server's https certificate,
    /// next to the built-in Mozilla roots (`webpki-roots`): for a private CA. Can be
    /// called more than once; a certificate that cannot be a root makes
    /// [`build`](Self::build) fail ([`OAuthErrorKind::Config`]).
    pub fn add_root_certificate(mut self, certificate: CertificateDer<'static>) -> Self {
        self.tls.add_root_certificate(certificate);
        self
    }

    /// As [`add_root_certificate`](Self::add_root_certificate), for every `CERTIFICATE`
    /// block of a PEM bundle (e.g. the contents of a `ca.pem` file). A bundle without one,
    /// or that cannot be read, makes [`build`](Self::build) fail
    /// ([`OAuthErrorKind::Config`]).
    pub fn add_root_certificates_pem(mut self, pem: impl AsRef<[u8]>) -> Self {
        self.tls.add_root_certificates_pem(pem.as_ref());
        self
    }

    /// Allows plain `http://` URLs to any host (default `false`: only to loopback hosts,
    /// `localhost`, 127.0.0.0/8 and `::1`). Dangerous: whoever sits on the network path
    /// (a shared Wi-Fi, a compromised router, a sidecar) can then answer in the
    /// authorization server's place, swap the JWKS for keys of its own, and every token signed
    /// with those is accepted. Only for closed test networks.
    pub fn allow_insecure_http(mut self, allow: bool) -> Self {
        self.tls.allow_insecure_http(allow);
        self
    }

    /// The verifier. Fails without an issuer ([`OAuthErrorKind::Config`]), when a URL it
    /// must fetch is plain `http://` to a host that is not loopback without
    /// [`allow_insecure_http`](Self::allow_insecure_http)
    /// ([`OAuthErrorKind::InsecureUrl`]) or neither http nor https
    /// ([`OAuthErrorKind::UnsupportedScheme`]), or when an added root certificate is
    /// unusable ([`OAuthErrorKind::Config`]).
    pub fn build(self) -> Result<JwtVerifier, OAuthError> {
        let issuer = self
            .issuer
            .filter(|i| !i.is_empty())
            .ok_or_else(|| OAuthError::new(OAuthErrorKind::Config, "a JwtVerifier needs an issuer"))?;
        let fetcher = Fetcher::new(self.fetch_timeout, self.max_document_bytes, &self.tls)?;
        let source = match &self.jwks_url {
            Some(url) => JwksSource::Url(fetcher.parse_url(url, "the JWKS URL")?),
            None => {
                fetcher.parse_url(&issuer, "the issuer (its metadata is fetched to find the JWKS)")?;
                JwksSource::Discover { issuer: issuer.clone() }
            }
        };
        crate::jose::install_crypto_provider();
        Ok(JwtVerifier {
            inner: Arc::new(Inner {
                issuer,
                audience: self.audience,
                leeway: self.leeway.as_secs(),
                jwks: JwksCache::new(source, fetcher, self.refresh_interval),
                verified: VerifiedTokens::new(self.verified_tokens, self.verified_token_max_age),
            }),
        })
    }
}

/// The algorithms a key may verify: only the one its `alg` names, else those of its type
/// and curve. Shared-secret (`oct`) keys verify nothing.
fn algorithms_for(jwk: &Jwk) -> Vec<Algorithm> {
    let by_type: &[Algorithm] = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => &[
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
            Algorithm::PS384,
            Algorithm::PS512,
        ],
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => &[Algorithm::ES256],
            EllipticCurve::P384 => &[Algorithm::ES384],
            _ => &[],
        },
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => &[Algorithm::EdDSA],
        _ => &[],
    };
    match jwk.common.key_algorithm.and_then(|a| Algorithm::try_from(a).ok()) {
        Some(named) => by_type.iter().copied().filter(|a| *a == named).collect(),
        None if jwk.common.key_algorithm.is_some() => Vec::new(),
        None => by_type.to_vec(),
    }
}

/// `typ` of an access token: `at+jwt` (RFC 9068 §2.1, also as `application/at+jwt`) or a
/// plain `JWT`, case-insensitively (RFC 7515 §4.1.9).
fn is_access_token_type(typ: Option<&str>) -> bool {
    let Some(typ) = typ else { return true };
    let typ = typ.strip_prefix("application/").unwrap_or(typ);
    typ.eq_ignore_ascii_case("at+jwt") || typ.eq_ignore_ascii_case("jwt")
}

/// The claims read into [`AuthInfo`]; `exp`, `iss` and `aud` are checked (and required)
/// by jsonwebtoken, which reads the claims before validating: optional here, so that a
/// missing one is reported as such rather than as malformed claims.
#[derive(Deserialize)]
struct Claims {
    #[serde(default)]
    iss: Option<String>,
    #[serde(default)]
    exp: Option<u64>,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    azp: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Scp>,
}

/// `scp`: a list (Azure AD, Okta) or a space-separated string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scp {
    List(Vec<String>),
    Text(String),
}

fn scopes(claims: &Claims) -> Vec<String> {
    match (&claims.scope, &claims.scp) {
        (Some(scope), _) => scope.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect(),
        (None, Some(Scp::List(list))) => list.clone(),
        (None, Some(Scp::Text(text))) => text.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect(),
        (None, None) => Vec::new(),
    }
}

fn refusal(error: &jsonwebtoken::errors::Error) -> OAuthError {
    let (kind, detail) = match error.kind() {
        ErrorKind::InvalidSignature => (OAuthErrorKind::Signature, "the signature does not verify"),
        ErrorKind::ExpiredSignature => (OAuthErrorKind::Expired, "the token has expired"),
        ErrorKind::ImmatureSignature => (OAuthErrorKind::NotYetValid, "the token is not valid yet (nbf)"),
        ErrorKind::InvalidIssuer => (OAuthErrorKind::Issuer, "iss is not the configured issuer"),
        ErrorKind::InvalidAudience => (OAuthErrorKind::Audience, "aud does not contain this resource"),
        ErrorKind::MissingRequiredClaim(claim) => match claim.as_str() {
            "exp" => (OAuthErrorKind::Expired, "the token has no exp"),
            "iss" => (OAuthErrorKind::Issuer, "the token has no iss"),
            "aud" => (OAuthErrorKind::Audience, "the token has no aud"),
            _ => (OAuthErrorKind::Claims, "a required claim is missing"),
        },
        ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm | ErrorKind::InvalidAlgorithmName => {
            (OAuthErrorKind::Algorithm, "the algorithm is not allowed for this key")
        }
        ErrorKind::InvalidRsaKey(_)
        | ErrorKind::InvalidEcdsaKey
        | ErrorKind::InvalidEddsaKey
        | ErrorKind::InvalidKeyFormat => (OAuthErrorKind::Jwks, "the JWKS key cannot verify this token"),
        ErrorKind::Json(_) | ErrorKind::InvalidClaimFormat(_) => (OAuthErrorKind::Claims, "the claims are malformed"),
        _ => (OAuthErrorKind::Malformed, "the token is malformed"),
    };
    OAuthError::new(kind, detail)
}

impl JwtVerifier {
    /// A builder; [`issuer`](JwtVerifierBuilder::issuer) is required.
    pub fn builder() -> JwtVerifierBuilder {
        JwtVerifierBuilder {
            issuer: None,
            audience: None,
            jwks_url: None,
            leeway: DEFAULT_LEEWAY,
            refresh_interval: DEFAULT_REFRESH_INTERVAL,
            fetch_timeout: DEFAULT_FETCH_TIMEOUT,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            verified_tokens: DEFAULT_VERIFIED_TOKENS,
            verified_token_max_age: DEFAULT_VERIFIED_TOKEN_MAX_AGE,
            tls: TlsSettings::default(),
        }
    }

    /// Verifies `token` for `resource` (used when no [`audience`](JwtVerifierBuilder::audience)
    /// is configured), saying why it is refused. The [`TokenVerifier`] methods call this and
    /// log the reason at debug level. A token verified recently for the same audience is
    /// answered from the cache (see [`JwtVerifier`]).
    pub async fn verify_token(&self, token: &str, resource: Option<&str>) -> Result<AuthInfo, OAuthError> {
        self.verify_shared_token(token, resource).await.map(Arc::unwrap_or_clone)
    }

    /// [`verify_token`](Self::verify_token), the caller shared with the cache.
    async fn verify_shared_token(&self, token: &str, resource: Option<&str>) -> Result<Arc<AuthInfo>, OAuthError> {
        let inner = &self.inner;
        let audience = inner.audience.as_deref().or(resource).ok_or_else(|| {
            OAuthError::new(OAuthErrorKind::Config, "no audience to check: configure one or the transport's resource")
        })?;
        let Some(verified) = &inner.verified else {
            return self.verify_uncached(token, audience).await.map(|(auth, _)| Arc::new(auth));
        };
        let key = cache::digest(token);
        if let Some(auth) = verified.get(&key, audience, unix_now()) {
            return Ok(auth);
        }
        let (auth, exp) = self.verify_uncached(token, audience).await?;
        let auth = Arc::new(auth);
        verified.insert(key, audience, &auth, exp, unix_now());
        Ok(auth)
    }

    /// How many verified tokens are cached now (expired ones not yet dropped included).
    #[cfg(test)]
    fn cached_tokens(&self) -> usize {
        self.inner.verified.as_ref().map_or(0, VerifiedTokens::len)
    }

    /// Every check of `token` for `audience`: what it is verified as, and its `exp`.
    async fn verify_uncached(&self, token: &str, audience: &str) -> Result<(AuthInfo, u64), OAuthError> {
        let inner = &self.inner;
        // `alg: none` and unknown algorithms fail here: jsonwebtoken has no variant for them.
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| OAuthError::new(OAuthErrorKind::Malformed, "not a JWS with a known algorithm"))?;
        if !is_access_token_type(header.typ.as_deref()) {
            return Err(OAuthError::new(OAuthErrorKind::Type, "typ is neither at+jwt nor JWT"));
        }
        let jwk = inner.jwks.key(header.kid.as_deref()).await?;
        let allowed = algorithms_for(&jwk);
        if !allowed.contains(&header.alg) {
            return Err(OAuthError::new(OAuthErrorKind::Algorithm, "the algorithm is not allowed for this key"));
        }
        let key = DecodingKey::from_jwk(&jwk)
            .map_err(|_| OAuthError::new(OAuthErrorKind::Jwks, "the JWKS key cannot be read"))?;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = allowed;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = inner.leeway;
        validation.set_issuer(&[&inner.issuer]);
        validation.set_audience(&[audience]);
        let claims = jsonwebtoken::decode::<Claims>(token, &key, &validation).map_err(|e| refusal(&e))?.claims;
        // Required above: a token without one was refused.
        let exp = claims.exp.ok_or_else(|| OAuthError::new(OAuthErrorKind::Expired, "the token has no exp"))?;
        let scopes = scopes(&claims);
        let auth = AuthInfo {
            client_id: claims.client_id.or(claims.azp).unwrap_or_default(),
            issuer: claims.iss,
            subject: claims.sub,
            scopes,
            expires_at: Some(exp.saturating_add(inner.leeway)),
        };
        Ok((auth, exp))
    }

    /// What `token` was verified as for `resource`'s audience, if the cache holds it.
    fn cached(&self, token: &str, resource: Option<&str>) -> Option<Arc<AuthInfo>> {
        let audience = self.inner.audience.as_deref().or(resource)?;
        self.inner.verified.as_ref()?.get(&cache::digest(token), audience, unix_now())
    }

    fn verify_logged(&self, token: &str, resource: Option<&str>) -> BoxFuture<Option<Arc<AuthInfo>>> {
        // A token verified recently is answered at once, without copying it into a future.
        if let Some(auth) = self.cached(token, resource) {
            return Box::pin(std::future::ready(Some(auth)));
        }
        let this = self.clone();
        let token = token.to_owned();
        let resource = resource.map(str::to_owned);
        Box::pin(async move {
            match this.verify_shared_token(&token, resource.as_deref()).await {
                Ok(auth) => Some(auth),
                Err(e) => {
                    match e.kind() {
                        // The server's side cannot check tokens at all: the operator's problem.
                        OAuthErrorKind::Config
                        | OAuthErrorKind::UnsupportedScheme
                        | OAuthErrorKind::InsecureUrl
                        | OAuthErrorKind::Fetch
                        | OAuthErrorKind::Metadata
                        | OAuthErrorKind::Jwks => {
                            tracing::warn!(kind = ?e.kind(), error = %e, "cannot verify access tokens");
                        }
                        _ => tracing::debug!(kind = ?e.kind(), error = %e, "access token refused"),
                    }
                    None
                }
            }
        })
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify(&self, token: &str) -> BoxFuture<Option<AuthInfo>> {
        let verified = self.verify_logged(token, None);
        Box::pin(async move { verified.await.map(Arc::unwrap_or_clone) })
    }

    fn verify_request(&self, request: &VerifyRequest<'_>) -> BoxFuture<Option<AuthInfo>> {
        let verified = self.verify_logged(request.token(), request.resource());
        Box::pin(async move { verified.await.map(Arc::unwrap_or_clone) })
    }

    /// A token verified recently is answered with the cache's own caller, not a copy.
    fn verify_shared(&self, request: &VerifyRequest<'_>) -> BoxFuture<Option<Arc<AuthInfo>>> {
        self.verify_logged(request.token(), request.resource())
    }
}

/// Seconds since the Unix epoch (0 before it).
fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

mod cache;
#[cfg(test)]
mod tests;
