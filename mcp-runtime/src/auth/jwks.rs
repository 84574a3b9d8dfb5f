//! The issuer's signing keys (JWKS), cached and refetched when a token names a key the
//! cache does not hold (key rotation), at most once per refresh interval.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use http::Uri;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};

use super::discovery::discover_jwks_uri;
use super::fetch::Fetcher;
use super::oauth_error::{OAuthError, OAuthErrorKind};

/// Where the keys come from.
#[derive(Debug)]
pub(crate) enum JwksSource {
    /// A configured JWKS URL.
    Url(Uri),
    /// The `jwks_uri` of the issuer's metadata, discovered on the first fetch.
    Discover { issuer: String },
}

#[derive(Debug, Default)]
struct FetchState {
    /// The JWKS URL, once configured or discovered.
    jwks_uri: Option<Uri>,
    /// When the keys were last fetched (or a fetch was last tried): the rate limit.
    last_attempt: Option<Instant>,
}

#[derive(Debug)]
pub(crate) struct JwksCache {
    source: JwksSource,
    fetcher: Fetcher,
    refresh_interval: Duration,
    keys: RwLock<Arc<Vec<Jwk>>>,
    /// Held while fetching, so concurrent misses cause one fetch.
    state: tokio::sync::Mutex<FetchState>,
}

/// Whether `jwk` can verify a signature: not a shared secret (`oct`, which would let
/// anyone holding the public JWKS mint HMAC tokens) and not an encryption key.
fn is_signing_key(jwk: &Jwk) -> bool {
    !matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_) | AlgorithmParameters::Other(_))
        && !matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_)))
}

impl JwksCache {
    pub(crate) fn new(source: JwksSource, fetcher: Fetcher, refresh_interval: Duration) -> Self {
        let jwks_uri = match &source {
            JwksSource::Url(uri) => Some(uri.clone()),
            JwksSource::Discover { .. } => None,
        };
        JwksCache {
            source,
            fetcher,
            refresh_interval,
            keys: RwLock::new(Arc::new(Vec::new())),
            state: tokio::sync::Mutex::new(FetchState { jwks_uri, last_attempt: None }),
        }
    }

    /// The key for a token's `kid`; without a `kid`, the only signing key there is.
    fn lookup(&self, kid: Option<&str>) -> Option<Jwk> {
        let keys = Arc::clone(&self.keys.read().unwrap_or_else(std::sync::PoisonError::into_inner));
        let mut usable = keys.iter().filter(|k| is_signing_key(k));
        match kid {
            Some(kid) => usable.find(|k| k.common.key_id.as_deref() == Some(kid)).cloned(),
            None => match (usable.next(), usable.next()) {
                (Some(only), None) => Some(only.clone()),
                _ => None,
            },
        }
    }

    /// The key a token names, fetching the JWKS if the cache lacks it and the last fetch
    /// was at least the refresh interval ago.
    pub(crate) async fn key(&self, kid: Option<&str>) -> Result<Jwk, OAuthError> {
        if let Some(key) = self.lookup(kid) {
            return Ok(key);
        }
        let mut state = self.state.lock().await;
        // Another request may have refetched while this one waited.
        if let Some(key) = self.lookup(kid) {
            return Ok(key);
        }
        if let Some(last) = state.last_attempt
            && last.elapsed() < self.refresh_interval
        {
            return Err(OAuthError::new(
                OAuthErrorKind::UnknownKey,
                "no signing key matches the token's kid, and the JWKS was fetched too recently to fetch again",
            ));
        }
        state.last_attempt = Some(Instant::now());
        self.refresh(&mut state).await?;
        self.lookup(kid)
            .ok_or_else(|| OAuthError::new(OAuthErrorKind::UnknownKey, "no signing key matches the token's kid"))
    }

    async fn refresh(&self, state: &mut FetchState) -> Result<(), OAuthError> {
        let uri = match (&state.jwks_uri, &self.source) {
            (Some(uri), _) => uri.clone(),
            (None, JwksSource::Discover { issuer }) => {
                let uri = discover_jwks_uri(&self.fetcher, issuer).await?;
                state.jwks_uri = Some(uri.clone());
                uri
            }
            (None, JwksSource::Url(uri)) => uri.clone(),
        };
        let document = self.fetcher.get_json(&uri).await?;
        let Some(entries) = document.get("keys").and_then(|k| k.as_array()) else {
            return Err(OAuthError::new(OAuthErrorKind::Jwks, format!("the JWKS at {uri} has no \"keys\" array")));
        };
        // A key this build cannot read is skipped, not fatal: the others still verify.
        let keys: Vec<Jwk> = entries.iter().filter_map(|entry| serde_json::from_value(entry.clone()).ok()).collect();
        tracing::debug!(jwks_uri = %uri, keys = keys.len(), skipped = entries.len() - keys.len(), "fetched the JWKS");
        *self.keys.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(keys);
        Ok(())
    }
}
