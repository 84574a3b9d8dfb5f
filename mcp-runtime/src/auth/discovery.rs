//! Finding an endpoint of the issuer (`jwks_uri`, `introspection_endpoint`) in its
//! metadata: RFC 8414 first, then OpenID Connect Discovery, in the order the MCP
//! authorization spec gives.

use http::Uri;

use super::fetch::Fetcher;
use super::oauth_error::{OAuthError, OAuthErrorKind};

/// Fetches the issuer's metadata from the first URL that answers, checks that its
/// `issuer` is exactly `issuer` (RFC 8414 §3.3; no normalisation), and returns its
/// `jwks_uri`.
pub(crate) async fn discover_jwks_uri(fetcher: &Fetcher, issuer: &str) -> Result<Uri, OAuthError> {
    discover_endpoint(fetcher, issuer, "jwks_uri").await
}

/// As [`discover_jwks_uri`], for the metadata field `field` (e.g. `introspection_endpoint`).
pub(crate) async fn discover_endpoint(fetcher: &Fetcher, issuer: &str, field: &str) -> Result<Uri, OAuthError> {
    fetcher.parse_url(issuer, "the issuer")?;
    let mut last = None;
    for url in crate::oauth_urls::authorization_server_metadata_urls(issuer) {
        let uri = fetcher.parse_url(&url, "the metadata URL")?;
        let document = match fetcher.get_json(&uri).await {
            Ok(document) => document,
            Err(e) => {
                tracing::debug!(error = %e, "authorization server metadata not found here");
                last = Some(e);
                continue;
            }
        };
        if document.get("issuer").and_then(|v| v.as_str()) != Some(issuer) {
            // A metadata document for another issuer is not used at all (mix-up defence).
            return Err(OAuthError::new(
                OAuthErrorKind::Metadata,
                format!("the metadata at {url} names another issuer than the configured one"),
            ));
        }
        let Some(endpoint) = document.get(field).and_then(|v| v.as_str()) else {
            return Err(OAuthError::new(OAuthErrorKind::Metadata, format!("the metadata at {url} has no {field}")));
        };
        // The same rules as for configured URLs: https metadata naming a plain http
        // endpoint on another host is refused, not followed.
        return fetcher.parse_url(endpoint, &format!("the metadata's {field}"));
    }
    Err(last.unwrap_or_else(|| OAuthError::new(OAuthErrorKind::Metadata, "no metadata URL to try")))
}
