//! Finding the authorization server: the Protected Resource Metadata (RFC 9728) from the
//! challenge's `resource_metadata` or the well-known locations, its `resource` checked
//! against the MCP URL, then the authorization server's metadata (RFC 8414 and OpenID
//! Connect discovery, in the order of the MCP spec), its `issuer` compared byte for byte
//! with the issuer it was fetched for, and PKCE `S256` required.

use http::{StatusCode, Uri};
use serde::Deserialize;

use super::error::{OAuthError, OAuthErrorKind};
use super::fetch::OAuthHttp;

/// The Protected Resource Metadata of the MCP server (RFC 9728 §2), the fields the flow
/// reads.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ResourceMetadata {
    /// The protected resource's identifier: the `resource` of authorization and token
    /// requests (RFC 8707).
    pub resource: String,
    /// The issuers of the authorization servers that issue tokens for it.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes a client may request for basic use.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// Whether only DPoP-bound tokens are accepted (RFC 9449 §5.2).
    #[serde(default)]
    pub dpop_bound_access_tokens_required: bool,
}

/// An authorization server's metadata (RFC 8414 §2), the fields the flow reads.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ServerMetadata {
    /// The issuer identifier, identical to the one the document was fetched for.
    pub issuer: String,
    /// Where the user authorizes (the authorization code grant).
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    /// Where grants are exchanged for tokens.
    #[serde(default)]
    pub token_endpoint: Option<String>,
    /// Dynamic client registration (RFC 7591).
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// The scopes it knows (`offline_access` is requested only if listed here).
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// The grant types it supports.
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    /// Client authentication methods at the token endpoint; absent means
    /// `client_secret_basic` (RFC 8414 §2).
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Signing algorithms for `private_key_jwt` client assertions.
    #[serde(default)]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// PKCE methods; must contain `S256`.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Whether redirects carry `iss` (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// Whether a Client ID Metadata Document URL may be the `client_id`.
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// DPoP proof algorithms (RFC 9449 §5.1).
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// Whether `scopes_supported` lists `scope`.
    pub(crate) fn lists_scope(&self, scope: &str) -> bool {
        self.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|x| x == scope))
    }
}

/// `scheme://authority` of `uri`.
fn origin(uri: &Uri) -> String {
    format!("{}://{}", uri.scheme_str().unwrap_or("https"), uri.authority().map_or("", |a| a.as_str()))
}

/// Where to look for the resource's metadata when the challenge names none: the
/// path-suffixed location, then the root (RFC 9728 §3.1; MCP authorization spec).
pub(crate) fn resource_metadata_candidates(mcp: &Uri) -> Vec<String> {
    let base = format!("{}/.well-known/oauth-protected-resource", origin(mcp));
    let path = mcp.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!("{base}{path}"));
    }
    out.push(base);
    out
}

fn effective_port(uri: &Uri) -> Option<u16> {
    uri.port_u16().or(match uri.scheme_str().map(str::to_ascii_lowercase).as_deref() {
        Some("https") => Some(443),
        Some("http") => Some(80),
        _ => None,
    })
}

/// Whether the metadata's `resource` identifies the MCP server at `mcp`: the same origin
/// (scheme and host without case, the port with defaults), and a path that is the MCP
/// path or a prefix of it ending at a segment boundary.
pub(crate) fn resource_matches(resource: &str, mcp: &Uri) -> bool {
    let Ok(r) = resource.parse::<Uri>() else { return false };
    let same_origin = r.scheme_str().zip(mcp.scheme_str()).is_some_and(|(a, b)| a.eq_ignore_ascii_case(b))
        && r.host().zip(mcp.host()).is_some_and(|(a, b)| a.eq_ignore_ascii_case(b))
        && effective_port(&r) == effective_port(mcp);
    if !same_origin || resource.contains('#') {
        return false;
    }
    let prefix = r.path().trim_end_matches('/');
    let path = mcp.path();
    path.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Fetches the resource's metadata: from `from_challenge` alone when the 401 named it,
/// else from the well-known candidates in order. Checks `resource` against `mcp` and
/// that `authorization_servers` is not empty.
pub(crate) async fn resource_metadata(
    http: &OAuthHttp,
    mcp: &Uri,
    from_challenge: Option<&str>,
) -> Result<ResourceMetadata, OAuthError> {
    let candidates = match from_challenge {
        Some(url) => vec![url.to_owned()],
        None => resource_metadata_candidates(mcp),
    };
    let mut last = None;
    for url in &candidates {
        let uri = http.parse_url(url, "the resource metadata URL")?;
        let fetched = match http.get(&uri, "application/json").await {
            Ok(f) if f.status == StatusCode::OK => f,
            Ok(f) => {
                tracing::debug!(url = %uri, status = %f.status, "no resource metadata here");
                last =
                    Some(OAuthError::new(OAuthErrorKind::ResourceMetadata, format!("GET {uri}: status {}", f.status)));
                continue;
            }
            Err(e) => {
                last = Some(e);
                continue;
            }
        };
        let metadata: ResourceMetadata = match fetched.json("the resource metadata") {
            Ok(m) => m,
            Err(e) => {
                last = Some(OAuthError::with_source(OAuthErrorKind::ResourceMetadata, format!("GET {uri}"), e));
                continue;
            }
        };
        if !resource_matches(&metadata.resource, mcp) {
            return Err(OAuthError::new(
                OAuthErrorKind::ResourceMismatch,
                format!("the resource metadata at {uri} is for {:?}, not for {mcp}", metadata.resource),
            ));
        }
        if metadata.authorization_servers.is_empty() {
            return Err(OAuthError::new(
                OAuthErrorKind::ResourceMetadata,
                format!("the resource metadata at {uri} names no authorization server"),
            ));
        }
        return Ok(metadata);
    }
    Err(last.unwrap_or_else(|| OAuthError::new(OAuthErrorKind::ResourceMetadata, "no resource metadata found")))
}

/// Fetches and checks the metadata of `issuer`: the first candidate answering 200 with
/// JSON is used; its `issuer` must equal `issuer` exactly. PKCE `S256` is checked only by
/// the authorization code flow ([`require_pkce`]).
pub(crate) async fn server_metadata(http: &OAuthHttp, issuer: &str) -> Result<ServerMetadata, OAuthError> {
    let mut last = None;
    for url in crate::oauth_urls::authorization_server_metadata_urls(issuer) {
        let uri = http.parse_url(&url, "the authorization server metadata URL")?;
        let fetched = match http.get(&uri, "application/json").await {
            Ok(f) if f.status == StatusCode::OK => f,
            Ok(f) => {
                tracing::debug!(url = %uri, status = %f.status, "no authorization server metadata here");
                continue;
            }
            Err(e) => {
                last = Some(e);
                continue;
            }
        };
        let metadata: ServerMetadata = match fetched.json("the authorization server metadata") {
            Ok(metadata) => metadata,
            Err(e) => {
                // A 200 that is not metadata (an HTML page): the next candidate may be.
                tracing::debug!(url = %uri, "a 200 that is not authorization server metadata");
                last = Some(OAuthError::with_source(OAuthErrorKind::ServerMetadata, format!("GET {uri}"), e));
                continue;
            }
        };
        return check_server_metadata(metadata, issuer, &uri);
    }
    Err(last.unwrap_or_else(|| {
        OAuthError::new(
            OAuthErrorKind::ServerMetadata,
            format!("no metadata found for the authorization server {issuer}"),
        )
    }))
}

pub(crate) fn check_server_metadata(
    metadata: ServerMetadata,
    issuer: &str,
    uri: &Uri,
) -> Result<ServerMetadata, OAuthError> {
    if metadata.issuer != issuer {
        return Err(OAuthError::new(
            OAuthErrorKind::ServerMetadata,
            format!("the metadata at {uri} claims issuer {:?}, not {issuer:?}: not used", metadata.issuer),
        ));
    }
    Ok(metadata)
}

/// Refuses a server that does not advertise PKCE `S256`: needed by the authorization
/// code flow only, not by the client credentials or jwt-bearer grants.
pub(crate) fn require_pkce(metadata: &ServerMetadata) -> Result<(), OAuthError> {
    let issuer = &metadata.issuer;
    let s256 = metadata.code_challenge_methods_supported.as_ref().is_some_and(|m| m.iter().any(|m| m == "S256"));
    if !s256 {
        return Err(OAuthError::new(
            OAuthErrorKind::PkceUnsupported,
            format!(
                "the authorization server {issuer} does not advertise PKCE S256 (code_challenge_methods_supported)"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        s.parse().expect("test fixture")
    }

    #[test]
    fn resource_metadata_is_looked_for_path_suffixed_then_at_the_root() {
        assert_eq!(
            resource_metadata_candidates(&uri("http://localhost:3000/public/mcp")),
            [
                "http://localhost:3000/.well-known/oauth-protected-resource/public/mcp",
                "http://localhost:3000/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_candidates(&uri("https://h.example/")),
            ["https://h.example/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn resource_must_be_the_same_origin_and_a_path_prefix() {
        let mcp = uri("http://localhost:3000/mcp");
        assert!(resource_matches("http://localhost:3000/mcp", &mcp));
        assert!(resource_matches("http://localhost:3000", &mcp));
        assert!(resource_matches("http://LOCALHOST:3000/", &mcp));
        assert!(!resource_matches("https://evil.example.com/mcp", &mcp));
        assert!(!resource_matches("http://localhost:3001/mcp", &mcp));
        assert!(!resource_matches("https://localhost:3000/mcp", &mcp));
        assert!(!resource_matches("http://localhost:3000/mc", &mcp));
        assert!(!resource_matches("http://localhost:3000/mcp/more", &mcp));
        assert!(!resource_matches("not a url", &mcp));
        assert!(resource_matches("https://h.example/mcp", &uri("https://h.example:443/mcp")));
    }

    fn metadata(issuer: &str, pkce: Option<&[&str]>) -> ServerMetadata {
        serde_json::from_value(serde_json::json!({
            "issuer": issuer,
            "code_challenge_methods_supported": pkce,
        }))
        .expect("test fixture")
    }

    #[test]
    fn issuer_is_compared_byte_for_byte_and_s256_is_required() {
        let at = uri("http://localhost:1/.well-known/oauth-authorization-server");
        assert!(
            check_server_metadata(metadata("http://localhost:1", Some(&["S256"])), "http://localhost:1", &at).is_ok()
        );
        for claimed in
            ["http://localhost:1/", "HTTP://localhost:1", "http://localhost:1:80", "https://attacker.example"]
        {
            let e = check_server_metadata(metadata(claimed, Some(&["S256"])), "http://localhost:1", &at)
                .expect_err("must be refused");
            assert_eq!(e.kind(), OAuthErrorKind::ServerMetadata, "{claimed}");
        }
        for pkce in [None, Some(&["plain"][..])] {
            let checked = check_server_metadata(metadata("http://localhost:1", pkce), "http://localhost:1", &at)
                .expect("PKCE is not required of every flow");
            let e = require_pkce(&checked).expect_err("must be refused");
            assert_eq!(e.kind(), OAuthErrorKind::PkceUnsupported);
        }
    }
}
