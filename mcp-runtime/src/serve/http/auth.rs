//! Bearer-token authentication of each request, with the 401 challenge.

use http::{HeaderValue, Response, StatusCode, header};

use super::HttpBody;
use super::reply::error_response;
use crate::handler::AuthInfo;
use crate::protocol::ErrorCode;

/// Verify the request's bearer token, or answer 401 with a `WWW-Authenticate` challenge.
pub(super) async fn authenticate(
    verifier: &dyn crate::auth::TokenVerifier,
    headers: &http::HeaderMap,
) -> Result<AuthInfo, Box<Response<HttpBody>>> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let challenge = |error: Option<&'static str>| {
        let mut response = error_response(
            StatusCode::UNAUTHORIZED,
            None,
            ErrorCode::INVALID_REQUEST,
            "Unauthorized: a valid bearer token is required",
        );
        let value = match error {
            Some(_) => HeaderValue::from_static("Bearer error=\"invalid_token\""),
            None => HeaderValue::from_static("Bearer"),
        };
        response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
        Box::new(response)
    };
    let Some(token) = token else {
        return Err(challenge(None));
    };
    match verifier.verify(token).await {
        Some(auth) => Ok(auth),
        None => {
            tracing::warn!("refusing a request with an invalid bearer token");
            Err(challenge(Some("invalid_token")))
        }
    }
}
