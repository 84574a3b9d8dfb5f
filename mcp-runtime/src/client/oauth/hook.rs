//! The per-request header hook: what the flow adds to each request it sends, to the
//! token endpoint and to the MCP server. The default presents the access token as
//! `Authorization: Bearer`. A DPoP hook (RFC 9449) adds its proof to every request,
//! presents `Authorization: DPoP <token>`, and asks for a retry with the server's nonce
//! when a refusal is only `use_dpop_nonce`, without re-authorizing.

use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};

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

    /// Whether a refusal can be fixed by the hook itself (it kept what the answer said),
    /// so the request is sent again as is, without re-authorizing.
    fn retry(&self, _status: StatusCode, _headers: &HeaderMap) -> bool {
        false
    }
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
