//! Finding an endpoint of the issuer (`jwks_uri`, `introspection_endpoint`) in its
//! metadata: RFC 8414 first, then OpenID Connect Discovery, in the order the MCP
//! authorization spec gives.

use http::Uri;

use super::fetch::Fetcher;
use super::oauth_error::{OAuthError, OAuthErrorKind};

/// The metadata URLs to try for `issuer`, in order.
///
/// Without a path: `/.well-known/oauth-authorization-server`, then
/// `/.well-known/openid-configuration`. With a path (`/tenant1`), RFC 8414 §3.1 inserts
/// the well-known segment between the host and the path
/// (`/.well-known/oauth-authorization-server/tenant1`), OIDC is tried the same way
/// (`/.well-known/openid-configuration/tenant1`) and then appended
/// (`/tenant1/.well-known/openid-configuration`). A trailing `/` of the path is dropped.
pub(crate) fn metadata_urls(issuer: &Uri) -> Vec<String> {
    let scheme = issuer.scheme_str().unwrap_or("http");
    let authority = issuer.authority().map_or("", |a| a.as_str());
    let path = issuer.path().trim_end_matches('/');
    let origin = format!("{scheme}://{authority}");
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Fetches the issuer's metadata from the first URL that answers, checks that its
/// `issuer` is exactly `issuer` (RFC 8414 §3.3; no normalisation), and returns its
/// `jwks_uri`.
pub(crate) async fn discover_jwks_uri(fetcher: &Fetcher, issuer: &str) -> Result<Uri, OAuthError> {
    discover_endpoint(fetcher, issuer, "jwks_uri").await
}

/// As [`discover_jwks_uri`], for the metadata field `field` (e.g. `introspection_endpoint`).
pub(crate) async fn discover_endpoint(fetcher: &Fetcher, issuer: &str, field: &str) -> Result<Uri, OAuthError> {
    let issuer_uri = fetcher.parse_url(issuer, "the issuer")?;
    let mut last = None;
    for url in metadata_urls(&issuer_uri) {
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

#[cfg(test)]
mod tests {
    use super::metadata_urls;

    #[test]
    fn issuer_without_a_path_probes_the_root_documents() {
        let urls = metadata_urls(&"http://as.example".parse().expect("a URI"));
        assert_eq!(
            urls,
            [
                "http://as.example/.well-known/oauth-authorization-server",
                "http://as.example/.well-known/openid-configuration"
            ]
        );
        assert_eq!(metadata_urls(&"http://as.example/".parse().expect("a URI")), urls);
    }

    #[test]
    fn issuer_with_a_path_inserts_then_appends() {
        assert_eq!(
            metadata_urls(&"http://as.example:8080/tenant1/".parse().expect("a URI")),
            [
                "http://as.example:8080/.well-known/oauth-authorization-server/tenant1",
                "http://as.example:8080/.well-known/openid-configuration/tenant1",
                "http://as.example:8080/tenant1/.well-known/openid-configuration",
            ]
        );
    }
}
