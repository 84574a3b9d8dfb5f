//! Who is calling: the request's bearer token checked by the configured verifier, or the
//! [`AuthInfo`] a layer in front of the endpoint put in the extensions; the 401 challenge.

use std::sync::Arc;

use http::{Response, StatusCode, header};

use super::HttpBody;
use super::HttpConfig;
use super::challenge;
use super::reply::error_response;
use crate::auth::VerifyRequest;
use crate::handler::AuthInfo;
use crate::protocol::ErrorCode;

/// The caller of a request, or the 401 answer.
///
/// The transport's own verifier wins; without one, trust what a layer in front of this
/// service (axum middleware, a gateway adapter) put in the extensions. Either way, an
/// [`AuthInfo`] whose `expires_at` has passed is refused with `invalid_token`.
pub(super) async fn caller(
    config: &HttpConfig,
    headers: &http::HeaderMap,
    extensions: &http::Extensions,
) -> Result<Option<Arc<AuthInfo>>, Box<Response<HttpBody>>> {
    let auth = match &config.token_verifier {
        Some(verifier) => {
            let Some(token) = bearer_token(headers) else {
                return Err(unauthorized(config, None));
            };
            let mut request = VerifyRequest::new(token).with_headers(headers);
            if let Some(resource) = &config.resource {
                request = request.with_resource(resource);
            }
            match verifier.verify_shared(&request).await {
                Some(auth) => auth,
                None => {
                    tracing::warn!("refusing a request with an invalid bearer token");
                    return Err(unauthorized(config, Some(challenge::INVALID_TOKEN)));
                }
            }
        }
        None => match extensions.get::<AuthInfo>() {
            Some(auth) => Arc::new(auth.clone()),
            None => return Ok(None),
        },
    };
    if auth.is_expired() {
        tracing::warn!("refusing a request whose credentials have expired");
        return Err(unauthorized(config, Some(challenge::INVALID_TOKEN)));
    }
    Ok(Some(auth))
}

/// The token of an `Authorization: Bearer <token>` header. The scheme is matched without
/// regard to case (RFC 9110 §11.1) and may be followed by several spaces; no header,
/// another scheme, or no token is `None`.
fn bearer_token(headers: &http::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    Some(token.trim_matches([' ', '\t'])).filter(|t| !t.is_empty())
}

/// 401 with a `WWW-Authenticate: Bearer` challenge, naming the RFC 6750 error code when a
/// token was sent (never the token), and the metadata document and scopes when the
/// endpoint is a [protected resource](HttpConfig::protected_resource).
fn unauthorized(config: &HttpConfig, error: Option<&'static str>) -> Box<Response<HttpBody>> {
    let mut response = error_response(
        StatusCode::UNAUTHORIZED,
        None,
        ErrorCode::INVALID_REQUEST,
        "Unauthorized: a valid bearer token is required",
    );
    response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge::bearer(config, error, None));
    Box::new(response)
}
