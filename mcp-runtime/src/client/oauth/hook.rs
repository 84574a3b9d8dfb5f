//! The per-request header hook: what the flow adds to each request it sends, to the
//! token endpoint and to the MCP server. The default presents the access token as
//! `Authorization: Bearer`. A DPoP hook (RFC 9449) adds its proof to every request,
//! presents `Authorization: DPoP <token>`, and asks for a retry with the server's nonce
//! when a refusal is only `use_dpop_nonce`, without re-authorizing.

use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};

use std::sync::Mutex;

use super::dpop::{DpopKey, DpopNonces};
use super::error::{OAuthError, OAuthErrorKind};
use super::token::TokenSet;

/// Adds headers to the flow's requests.
pub(crate) trait RequestHook: Send + Sync + 'static {
    /// The headers for `method` to `uri`, presenting `token` if given (a request to the
    /// MCP server) or none (a token endpoint request).
    fn headers(
        &self,
        method: &Method,
        uri: &Uri,
        token: Option<&TokenSet>,
    ) -> Result<Vec<(HeaderName, HeaderValue)>, OAuthError>;

    /// Whether a refusal from `uri` can be fixed by the hook itself (it kept what the
    /// answer said), so the request is sent again as is, without re-authorizing. `error`
    /// is the OAuth error code of the answer (the token endpoint's body, the resource
    /// server's challenge).
    fn retry(&self, _uri: &Uri, _status: StatusCode, _headers: &HeaderMap, _error: Option<&str>) -> bool {
        false
    }

    /// Sees the headers of every other answer from `uri` (a DPoP hook keeps the server's
    /// latest nonce).
    fn observe(&self, _uri: &Uri, _headers: &HeaderMap) {}
}

/// `Authorization: Bearer <access token>` (RFC 6750 §2.1).
#[derive(Debug, Default)]
pub(crate) struct BearerHook;

impl RequestHook for BearerHook {
    fn headers(
        &self,
        _method: &Method,
        _uri: &Uri,
        token: Option<&TokenSet>,
    ) -> Result<Vec<(HeaderName, HeaderValue)>, OAuthError> {
        let Some(token) = token else { return Ok(Vec::new()) };
        let mut value = HeaderValue::from_str(&format!("Bearer {}", token.access_token()))
            .map_err(|_| OAuthError::new(OAuthErrorKind::Token, "the access token is not a valid header value"))?;
        value.set_sensitive(true);
        Ok(vec![(http::header::AUTHORIZATION, value)])
    }
}

/// DPoP (RFC 9449): one key for the whole configuration, a fresh proof on every request
/// (`htm`, `htu`, and `ath` and `Authorization: DPoP` when a DPoP-bound token is
/// presented), and each server's latest `DPoP-Nonce`.
#[derive(Debug)]
pub(crate) struct DpopHook {
    key: DpopKey,
    nonces: Mutex<DpopNonces>,
}

impl DpopHook {
    pub(crate) fn new() -> Result<Self, OAuthError> {
        let key = DpopKey::generate().map_err(|e| OAuthError::with_source(OAuthErrorKind::Internal, "DPoP key", e))?;
        tracing::debug!(jkt = key.thumbprint(), "made a DPoP key");
        Ok(DpopHook { key, nonces: Mutex::default() })
    }

    fn nonces(&self) -> std::sync::MutexGuard<'_, DpopNonces> {
        self.nonces.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl RequestHook for DpopHook {
    fn headers(
        &self,
        method: &Method,
        uri: &Uri,
        token: Option<&TokenSet>,
    ) -> Result<Vec<(HeaderName, HeaderValue)>, OAuthError> {
        let url = uri.to_string();
        let bound = token.filter(|t| t.token_type().eq_ignore_ascii_case("DPoP"));
        if let Some(token) = token
            && bound.is_none()
        {
            // The server issued a bearer token after all: present it as one.
            return BearerHook.headers(method, uri, Some(token));
        }
        let nonce = self.nonces().get(&url).map(str::to_owned);
        let proof = self
            .key
            .proof(method.as_str(), &url, bound.map(TokenSet::access_token), nonce.as_deref())
            .map_err(|e| OAuthError::with_source(OAuthErrorKind::Internal, "making a DPoP proof", e))?;
        let mut proof = HeaderValue::from_str(&proof)
            .map_err(|_| OAuthError::new(OAuthErrorKind::Internal, "the DPoP proof is not a valid header value"))?;
        proof.set_sensitive(true);
        let mut headers = vec![(HeaderName::from_static("dpop"), proof)];
        if let Some(token) = bound {
            let mut value = HeaderValue::from_str(&format!("DPoP {}", token.access_token()))
                .map_err(|_| OAuthError::new(OAuthErrorKind::Token, "the access token is not a valid header value"))?;
            value.set_sensitive(true);
            headers.push((http::header::AUTHORIZATION, value));
        }
        Ok(headers)
    }

    fn retry(&self, uri: &Uri, status: StatusCode, headers: &HeaderMap, error: Option<&str>) -> bool {
        let changed = self.nonces().record(&uri.to_string(), headers);
        let asked =
            error == Some("use_dpop_nonce") && matches!(status, StatusCode::BAD_REQUEST | StatusCode::UNAUTHORIZED);
        if asked && changed {
            tracing::debug!(%uri, "the server asked for a DPoP nonce; sending again with it");
        }
        asked && changed
    }

    fn observe(&self, uri: &Uri, headers: &HeaderMap) {
        self.nonces().record(&uri.to_string(), headers);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(token_type: &str) -> TokenSet {
        serde_json::from_value(serde_json::json!({"access_token": "acc3ss", "token_type": token_type}))
            .expect("test fixture")
    }

    fn claims(proof: &HeaderValue) -> serde_json::Value {
        use base64::Engine as _;
        let proof = proof.to_str().expect("ASCII");
        let part = proof.split('.').nth(1).expect("a JWT");
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).expect("base64url");
        serde_json::from_slice(&bytes).expect("JSON claims")
    }

    fn find<'a>(headers: &'a [(HeaderName, HeaderValue)], name: &str) -> Option<&'a HeaderValue> {
        headers.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    #[test]
    fn dpop_proves_every_request_and_retries_once_per_new_nonce() {
        let hook = DpopHook::new().expect("test fixture");
        let token_endpoint: Uri = "http://localhost:1/token".parse().expect("test fixture");
        let mcp: Uri = "http://localhost:2/mcp".parse().expect("test fixture");

        let at_token = hook.headers(&Method::POST, &token_endpoint, None).expect("test fixture");
        assert!(find(&at_token, "authorization").is_none());
        let first = claims(find(&at_token, "dpop").expect("a proof"));
        assert_eq!(first["htu"], "http://localhost:1/token");
        assert_eq!(first["htm"], "POST");
        assert!(first.get("nonce").is_none() && first.get("ath").is_none());

        // A 400 use_dpop_nonce with a nonce: retry; the same nonce again: no second retry.
        let mut answer = HeaderMap::new();
        answer.insert("dpop-nonce", HeaderValue::from_static("as-nonce"));
        assert!(hook.retry(&token_endpoint, StatusCode::BAD_REQUEST, &answer, Some("use_dpop_nonce")));
        assert!(!hook.retry(&token_endpoint, StatusCode::BAD_REQUEST, &answer, Some("use_dpop_nonce")));
        let again = hook.headers(&Method::POST, &token_endpoint, None).expect("test fixture");
        let again = claims(find(&again, "dpop").expect("a proof"));
        assert_eq!(again["nonce"], "as-nonce");
        assert_ne!(again["jti"], first["jti"], "a new proof per request");

        // Another error, even with a new nonce, is not the hook's to retry.
        answer.insert("dpop-nonce", HeaderValue::from_static("other"));
        assert!(!hook.retry(&token_endpoint, StatusCode::BAD_REQUEST, &answer, Some("invalid_grant")));

        let bound = hook.headers(&Method::POST, &mcp, Some(&token("DPoP"))).expect("test fixture");
        assert_eq!(find(&bound, "authorization").expect("a token").to_str().expect("ASCII"), "DPoP acc3ss");
        let proof = claims(find(&bound, "dpop").expect("a proof"));
        assert_eq!(proof["htu"], "http://localhost:2/mcp");
        assert!(proof["ath"].is_string());
        assert!(proof.get("nonce").is_none(), "nonces are per server");

        // A nonce on a success is kept for the next request.
        let mut ok = HeaderMap::new();
        ok.insert("dpop-nonce", HeaderValue::from_static("rs-nonce"));
        hook.observe(&mcp, &ok);
        let next = hook.headers(&Method::POST, &mcp, Some(&token("DPoP"))).expect("test fixture");
        assert_eq!(claims(find(&next, "dpop").expect("a proof"))["nonce"], "rs-nonce");

        // A bearer token is presented as one, without a proof.
        let bearer = hook.headers(&Method::POST, &mcp, Some(&token("Bearer"))).expect("test fixture");
        assert!(find(&bearer, "dpop").is_none());
        assert_eq!(find(&bearer, "authorization").expect("a token").to_str().expect("ASCII"), "Bearer acc3ss");
    }
}
