//! [`IntrospectionVerifier`]: opaque access tokens, checked by asking the authorization
//! server's token introspection endpoint (RFC 7662), with a bounded cache of the answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http::Uri;
use serde::Deserialize;
use tokio::sync::OnceCell;

use super::CertificateDer;
use super::discovery::discover_endpoint;
use super::fetch::Fetcher;
use super::oauth_error::{OAuthError, OAuthErrorKind};
use super::tls::TlsSettings;
use super::{AuthInfo, TokenVerifier, VerifyRequest};
use crate::handler::BoxFuture;

/// The default longest time an answer is reused.
const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(60);
/// The default bound on cached answers.
const DEFAULT_MAX_CACHE_ENTRIES: usize = 10_000;
/// The default timeout of one metadata fetch or introspection call.
const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The default size bound of a metadata document or introspection answer.
const DEFAULT_MAX_DOCUMENT_BYTES: usize = 64 * 1024;
/// How far in the future `nbf` may be (clock skew between this server and the
/// authorization server, which has just called the token active).
const NBF_LEEWAY_SECS: u64 = 60;

/// Verifies opaque access tokens by token introspection (RFC 7662).
///
/// Each token is POSTed to the authorization server's introspection endpoint (configured
/// with [`introspection_url`](IntrospectionVerifierBuilder::introspection_url), or the
/// `introspection_endpoint` of the [`issuer`](IntrospectionVerifierBuilder::issuer)'s
/// RFC 8414 / OpenID Connect metadata), authenticated as this server with
/// [`client_credentials`](IntrospectionVerifierBuilder::client_credentials) (HTTP Basic,
/// RFC 7662 §2.1). The token is accepted when the answer holds all of these:
/// - `active` is `true`;
/// - `aud` (a string or an array) contains the configured
///   [`audience`](IntrospectionVerifierBuilder::audience) or, without one, the resource the
///   transport is configured as ([`VerifyRequest::resource`]); with neither known, `aud` is
///   not checked. With an audience known, an answer without `aud` is refused (RFC 8707: the
///   token must have been issued for this server);
/// - `iss`, when both it and the configured issuer are known, equals the issuer exactly;
/// - `exp`, if present, is not past, and `nbf`, if present, at most a minute ahead.
///
/// The [`AuthInfo`] carries `client_id`, `sub`, `iss` (or the configured issuer), the
/// scopes of `scope` (space-separated) and `exp` as `expires_at`, which the transport
/// enforces.
///
/// Answers are cached by the SHA-256 of the token (the token itself is never stored) for
/// [`cache_ttl`](IntrospectionVerifierBuilder::cache_ttl), never beyond the token's `exp`,
/// in at most [`max_cache_entries`](IntrospectionVerifierBuilder::max_cache_entries)
/// entries; a revoked token is therefore accepted until its cached answer ages out. Only
/// active answers are cached: an inactive answer or a failed call is asked again next
/// time, so that garbage tokens cannot evict good answers from the bounded cache (and
/// caching them would not slow an attacker who varies the token). Concurrent requests for
/// the same token share one introspection call.
///
/// When the endpoint cannot be asked (down, not 200, not JSON, too big, too slow), the
/// token is refused and a warning is logged; it names no token.
///
/// The metadata and the endpoint are asked over `https://`, checked against the Mozilla
/// roots and any [added](IntrospectionVerifierBuilder::add_root_certificate) for a
/// private CA. Plain `http://` is allowed only to loopback hosts (a local test server)
/// unless the builder [opts in](IntrospectionVerifierBuilder::allow_insecure_http); this
/// holds for the `introspection_endpoint` found in the metadata too.
///
/// ```
/// use std::time::Duration;
/// use mcp::auth::IntrospectionVerifier;
/// use mcp::serve::http::HttpConfig;
///
/// let verifier = IntrospectionVerifier::builder()
///     .issuer("http://127.0.0.1:9000")
///     .introspection_url("http://127.0.0.1:9000/introspect")
///     .client_credentials("mcp-server", "s3cret")
///     .cache_ttl(Duration::from_secs(30))
///     .build()
///     .unwrap();
/// // The audience is the transport's resource.
/// let config = HttpConfig::default().resource("http://127.0.0.1:8000/mcp").token_verifier(verifier);
/// # let _ = config;
/// ```
#[derive(Debug, Clone)]
pub struct IntrospectionVerifier {
    inner: Arc<Inner>,
}

/// The SHA-256 of a token: the cache key.
type TokenKey = [u8; 32];

/// One introspection call, shared by the requests for the same token that arrive while
/// it runs.
type Call = Arc<OnceCell<Result<Arc<Introspection>, OAuthError>>>;

struct Inner {
    issuer: Option<String>,
    audience: Option<String>,
    /// The introspection endpoint, once configured or discovered.
    endpoint: OnceCell<Uri>,
    /// `Basic …` for the client credentials.
    authorization: Option<String>,
    fetcher: Fetcher,
    cache_ttl: Duration,
    max_cache_entries: usize,
    state: Mutex<CacheState>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the credentials, not the cache.
        f.debug_struct("IntrospectionVerifier")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("endpoint", &self.endpoint.get())
            .field("client_authentication", &self.authorization.is_some())
            .field("cache_ttl", &self.cache_ttl)
            .field("max_cache_entries", &self.max_cache_entries)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct CacheState {
    answers: HashMap<TokenKey, Cached>,
    in_flight: HashMap<TokenKey, Call>,
}

struct Cached {
    answer: Arc<Introspection>,
    until: Instant,
}

/// Configures an [`IntrospectionVerifier`]; from [`IntrospectionVerifier::builder`].
#[derive(Clone)]
#[must_use]
pub struct IntrospectionVerifierBuilder {
    issuer: Option<String>,
    introspection_url: Option<String>,
    client_credentials: Option<(String, String)>,
    audience: Option<String>,
    cache_ttl: Duration,
    max_cache_entries: usize,
    fetch_timeout: Duration,
    max_document_bytes: usize,
    tls: TlsSettings,
}

impl std::fmt::Debug for IntrospectionVerifierBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifierBuilder")
            .field("issuer", &self.issuer)
            .field("introspection_url", &self.introspection_url)
            .field("client_id", &self.client_credentials.as_ref().map(|(id, _)| id))
            .field("audience", &self.audience)
            .field("cache_ttl", &self.cache_ttl)
            .field("max_cache_entries", &self.max_cache_entries)
            .field("fetch_timeout", &self.fetch_timeout)
            .field("max_document_bytes", &self.max_document_bytes)
            .field("tls", &self.tls)
            .finish_non_exhaustive()
    }
}

impl IntrospectionVerifierBuilder {
    /// The authorization server's issuer identifier: an answer's `iss`, if present, must
    /// equal it, and without an [`introspection_url`](Self::introspection_url) the
    /// endpoint is looked up in its metadata (on the first token).
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The introspection endpoint, instead of discovering it from the issuer's metadata.
    pub fn introspection_url(mut self, url: impl Into<String>) -> Self {
        self.introspection_url = Some(url.into());
        self
    }

    /// This server's credentials at the authorization server, sent as HTTP Basic
    /// authentication (`client_secret_basic`; both form-url-encoded first, RFC 6749
    /// §2.3.1). Without them no `Authorization` header is sent.
    pub fn client_credentials(mut self, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        self.client_credentials = Some((client_id.into(), client_secret.into()));
        self
    }

    /// The audience answers must carry in `aud`: this server's canonical resource URI.
    /// Without it, the resource the HTTP transport is configured as
    /// ([`HttpConfig::resource`](crate::serve::http::HttpConfig::resource)) is used.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// The longest time an active answer is reused (default 60 s; never past the token's
    /// `exp`). Zero turns the cache off.
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// The most answers cached at once (default 10 000). When full, expired answers are
    /// dropped first, then those that would expire soonest.
    pub fn max_cache_entries(mut self, entries: usize) -> Self {
        self.max_cache_entries = entries;
        self
    }

    /// How long one metadata fetch or introspection call may take (default 10 s).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }

    /// The largest metadata document or introspection answer accepted (default 64 KiB).
    pub fn max_document_bytes(mut self, bytes: usize) -> Self {
        self.max_document_bytes = bytes;
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
    /// authorization server's place, say `active: true` to any token, and read the tokens and
    /// the client credentials sent. Only for closed test networks.
    pub fn allow_insecure_http(mut self, allow: bool) -> Self {
        self.tls.allow_insecure_http(allow);
        self
    }

    /// The verifier. Fails without an issuer or an introspection URL
    /// ([`OAuthErrorKind::Config`]), when a URL it must fetch is plain `http://` to a host
    /// that is not loopback without [`allow_insecure_http`](Self::allow_insecure_http)
    /// ([`OAuthErrorKind::InsecureUrl`]) or neither http nor https
    /// ([`OAuthErrorKind::UnsupportedScheme`]), or when an added root certificate is
    /// unusable ([`OAuthErrorKind::Config`]).
    pub fn build(self) -> Result<IntrospectionVerifier, OAuthError> {
        let issuer = self.issuer.filter(|i| !i.is_empty());
        let fetcher = Fetcher::new(self.fetch_timeout, self.max_document_bytes, &self.tls)?;
        let endpoint = OnceCell::new();
        match (&self.introspection_url, &issuer) {
            (Some(url), _) => {
                // Set on a fresh cell: cannot fail.
                let _ = endpoint.set(fetcher.parse_url(url, "the introspection URL")?);
            }
            (None, Some(issuer)) => {
                fetcher.parse_url(issuer, "the issuer (its metadata is fetched to find the introspection endpoint)")?;
            }
            (None, None) => {
                return Err(OAuthError::new(
                    OAuthErrorKind::Config,
                    "an IntrospectionVerifier needs an issuer or an introspection URL",
                ));
            }
        }
        let authorization = self.client_credentials.map(|(id, secret)| {
            let pair = format!("{}:{}", form_urlencode(&id), form_urlencode(&secret));
            format!("Basic {}", STANDARD.encode(pair))
        });
        Ok(IntrospectionVerifier {
            inner: Arc::new(Inner {
                issuer,
                audience: self.audience,
                endpoint,
                authorization,
                fetcher,
                cache_ttl: self.cache_ttl,
                max_cache_entries: self.max_cache_entries,
                state: Mutex::new(CacheState::default()),
            }),
        })
    }
}

/// `application/x-www-form-urlencoded` encoding of one name or value: unreserved bytes
/// as they are, space as `+`, everything else `%XX`.
fn form_urlencode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => out.push(char::from(byte)),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// The parts of an introspection answer (RFC 7662 §2.2) that are checked or mapped.
#[derive(Debug, Deserialize)]
struct Introspection {
    active: bool,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    iss: Option<String>,
    #[serde(default)]
    aud: Option<Audience>,
    #[serde(default)]
    exp: Option<u64>,
    #[serde(default)]
    nbf: Option<u64>,
}

/// `aud`: one audience or several.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

impl Audience {
    fn contains(&self, resource: &str) -> bool {
        match self {
            Audience::One(aud) => aud == resource,
            Audience::Many(list) => list.iter().any(|aud| aud == resource),
        }
    }
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn token_key(token: &str) -> TokenKey {
    let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
    let mut key = [0; 32];
    key.copy_from_slice(digest.as_ref());
    key
}

impl Inner {
    async fn endpoint(&self) -> Result<&Uri, OAuthError> {
        self.endpoint
            .get_or_try_init(|| async {
                let Some(issuer) = &self.issuer else {
                    // build() guarantees one of the two.
                    return Err(OAuthError::new(OAuthErrorKind::Config, "no introspection endpoint"));
                };
                discover_endpoint(&self.fetcher, issuer, "introspection_endpoint").await
            })
            .await
    }

    /// Asks the endpoint about `token`.
    async fn introspect(&self, token: &str) -> Result<Arc<Introspection>, OAuthError> {
        let endpoint = self.endpoint().await?;
        let form = format!("token={}&token_type_hint=access_token", form_urlencode(token));
        let answer = self.fetcher.post_form_json(endpoint, self.authorization.as_deref(), form).await?;
        let answer: Introspection = serde_json::from_value(answer).map_err(|_| {
            OAuthError::new(
                OAuthErrorKind::Introspection,
                "the introspection answer has no boolean active, or a claim of the wrong type",
            )
        })?;
        Ok(Arc::new(answer))
    }

    /// A fresh cached answer for `key`, or the call to join or start.
    fn lookup(&self, key: &TokenKey, now: Instant) -> Result<Arc<Introspection>, Call> {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match state.answers.get(key) {
            Some(cached) if cached.until > now => return Ok(Arc::clone(&cached.answer)),
            Some(_) => {
                state.answers.remove(key);
            }
            None => {}
        }
        let call = state.in_flight.entry(*key).or_default();
        Err(Arc::clone(call))
    }

    /// Caches an active answer for `key`, for the TTL but never past its `exp`.
    fn cache(&self, key: &TokenKey, answer: &Arc<Introspection>) {
        if !answer.active || self.max_cache_entries == 0 {
            return;
        }
        let mut lifetime = self.cache_ttl;
        if let Some(exp) = answer.exp {
            lifetime = lifetime.min(Duration::from_secs(exp.saturating_sub(unix_now())));
        }
        if lifetime.is_zero() {
            return;
        }
        let now = Instant::now();
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !state.answers.contains_key(key) && state.answers.len() >= self.max_cache_entries {
            state.answers.retain(|_, cached| cached.until > now);
            while state.answers.len() >= self.max_cache_entries {
                let Some(soonest) = state.answers.iter().min_by_key(|(_, cached)| cached.until).map(|(k, _)| *k) else {
                    break;
                };
                state.answers.remove(&soonest);
            }
        }
        state.answers.insert(*key, Cached { answer: Arc::clone(answer), until: now + lifetime });
    }

    /// The answer for `token`: cached, joined, or asked for.
    async fn answer(&self, token: &str) -> Result<Arc<Introspection>, OAuthError> {
        let key = token_key(token);
        let call = match self.lookup(&key, Instant::now()) {
            Ok(answer) => return Ok(answer),
            Err(call) => call,
        };
        // Removes the call from `in_flight` when done, or when this request is dropped:
        // requests arriving later then start their own.
        let _leave = LeaveInFlight { state: &self.state, key, call: &call };
        // Whoever gets here first runs the call; the others wait for its outcome (and one
        // of them takes over if it is dropped).
        let outcome = call.get_or_init(|| self.introspect(token)).await.clone();
        if let Ok(answer) = &outcome {
            self.cache(&key, answer);
        }
        outcome
    }

    /// Applies the rules to an answer.
    fn check(&self, answer: &Introspection, resource: Option<&str>) -> Result<AuthInfo, OAuthError> {
        if !answer.active {
            return Err(OAuthError::new(OAuthErrorKind::Inactive, "the token is not active"));
        }
        let now = unix_now();
        if answer.exp.is_some_and(|exp| exp <= now) {
            return Err(OAuthError::new(OAuthErrorKind::Expired, "the token has expired"));
        }
        if answer.nbf.is_some_and(|nbf| nbf > now.saturating_add(NBF_LEEWAY_SECS)) {
            return Err(OAuthError::new(OAuthErrorKind::NotYetValid, "the token is not valid yet (nbf)"));
        }
        if let (Some(issuer), Some(iss)) = (&self.issuer, &answer.iss)
            && issuer != iss
        {
            return Err(OAuthError::new(OAuthErrorKind::Issuer, "iss is not the configured issuer"));
        }
        if let Some(audience) = self.audience.as_deref().or(resource) {
            match &answer.aud {
                Some(aud) if aud.contains(audience) => {}
                Some(_) => return Err(OAuthError::new(OAuthErrorKind::Audience, "aud does not contain this resource")),
                None => return Err(OAuthError::new(OAuthErrorKind::Audience, "the token has no aud")),
            }
        }
        Ok(AuthInfo {
            client_id: answer.client_id.clone().unwrap_or_default(),
            issuer: answer.iss.clone().or_else(|| self.issuer.clone()),
            subject: answer.sub.clone(),
            scopes: answer
                .scope
                .as_deref()
                .map(|s| s.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect())
                .unwrap_or_default(),
            expires_at: answer.exp,
        })
    }
}

/// Takes a call out of the in-flight table, unless a newer call has replaced it.
struct LeaveInFlight<'a> {
    state: &'a Mutex<CacheState>,
    key: TokenKey,
    call: &'a Call,
}

impl Drop for LeaveInFlight<'_> {
    fn drop(&mut self) {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if state.in_flight.get(&self.key).is_some_and(|c| Arc::ptr_eq(c, self.call)) {
            state.in_flight.remove(&self.key);
        }
    }
}

impl IntrospectionVerifier {
    /// A builder; an [`issuer`](IntrospectionVerifierBuilder::issuer) or an
    /// [`introspection_url`](IntrospectionVerifierBuilder::introspection_url) is required.
    pub fn builder() -> IntrospectionVerifierBuilder {
        IntrospectionVerifierBuilder {
            issuer: None,
            introspection_url: None,
            client_credentials: None,
            audience: None,
            cache_ttl: DEFAULT_CACHE_TTL,
            max_cache_entries: DEFAULT_MAX_CACHE_ENTRIES,
            fetch_timeout: DEFAULT_FETCH_TIMEOUT,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            tls: TlsSettings::default(),
        }
    }

    /// Verifies `token` for `resource` (the audience when none is configured), saying why
    /// it is refused. The [`TokenVerifier`] methods call this and log the reason.
    pub async fn verify_token(&self, token: &str, resource: Option<&str>) -> Result<AuthInfo, OAuthError> {
        let answer = self.inner.answer(token).await?;
        self.inner.check(&answer, resource)
    }

    fn verify_logged(&self, token: &str, resource: Option<&str>) -> BoxFuture<Option<AuthInfo>> {
        let this = self.clone();
        let token = token.to_owned();
        let resource = resource.map(str::to_owned);
        Box::pin(async move {
            match this.verify_token(&token, resource.as_deref()).await {
                Ok(auth) => Some(auth),
                Err(e) => {
                    match e.kind() {
                        // The server's side cannot check tokens at all: the operator's problem.
                        OAuthErrorKind::Config
                        | OAuthErrorKind::UnsupportedScheme
                        | OAuthErrorKind::InsecureUrl
                        | OAuthErrorKind::Fetch
                        | OAuthErrorKind::Metadata
                        | OAuthErrorKind::Introspection => {
                            tracing::warn!(kind = ?e.kind(), error = %e, "cannot introspect access tokens");
                        }
                        _ => tracing::debug!(kind = ?e.kind(), error = %e, "access token refused"),
                    }
                    None
                }
            }
        })
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify(&self, token: &str) -> BoxFuture<Option<AuthInfo>> {
        self.verify_logged(token, None)
    }

    fn verify_request(&self, request: &VerifyRequest<'_>) -> BoxFuture<Option<AuthInfo>> {
        self.verify_logged(request.token(), request.resource())
    }
}

#[cfg(test)]
mod tests;
