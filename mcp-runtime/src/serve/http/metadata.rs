//! Protected Resource Metadata (RFC 9728): the document that tells an OAuth client which
//! authorization servers issue tokens for this server, and with which scopes.

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::task::{Context, Poll};

use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use serde_json::{Map, Value, json};

use super::HttpBody;
use super::reply::{empty_response, json_response, method_not_allowed};

/// The well-known path prefix of RFC 9728 §3.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The methods the document answers.
const ALLOWED_METHODS: &str = "GET, OPTIONS";

/// Scopes a resource should not ask for: refresh is the client's business (SEP-2207).
const OFFLINE_ACCESS: &str = "offline_access";

/// This server as an OAuth 2.1 protected resource (RFC 9728), set with
/// [`HttpConfig::protected_resource`](super::HttpConfig::protected_resource).
///
/// The document is served, without authentication, at the well-known URI RFC 9728 §3.1
/// derives from the resource URI: `https://api.example.com/mcp` gives
/// `/.well-known/oauth-protected-resource/mcp`. The 401 and 403 challenges point to it in
/// `resource_metadata`.
///
/// ```
/// use mcp::serve::http::ProtectedResourceMetadata;
///
/// let metadata = ProtectedResourceMetadata::new("https://api.example.com/mcp")
///     .authorization_server("https://auth.example.com")
///     .scopes_supported(["files:read", "files:write"]);
/// assert_eq!(metadata.well_known_path(), "/.well-known/oauth-protected-resource/mcp");
/// assert_eq!(
///     metadata.document_url(),
///     "https://api.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResourceMetadata {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    resource_name: Option<String>,
    resource_documentation: Option<String>,
    /// `scheme://authority` of `resource`.
    origin: String,
    /// The path of `resource`, without a lone `/` (RFC 9728 §3.1).
    path: String,
    /// `?query` of `resource`, or empty.
    query: String,
}

impl ProtectedResourceMetadata {
    /// The metadata of the resource `resource`: this server's canonical URI, the same
    /// value its tokens' audience must name (RFC 8707), e.g. `https://api.example.com/mcp`.
    ///
    /// MCP requires at least one [`authorization_server`](Self::authorization_server).
    ///
    /// # Panics
    ///
    /// When `resource` is not an absolute `http` or `https` URI with a host, or has a
    /// fragment (RFC 9728 §2): a configuration mistake, found at startup.
    pub fn new(resource: impl Into<String>) -> Self {
        let resource = resource.into();
        let (origin, path, query) = split(&resource).unwrap_or_else(|| {
            panic!("protected resource `{resource}` must be an absolute http(s) URI with a host and no fragment")
        });
        ProtectedResourceMetadata {
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            resource_name: None,
            resource_documentation: None,
            origin,
            path,
            query,
            resource,
        }
    }

    /// Add an authorization server, by its issuer identifier (e.g.
    /// `https://auth.example.com`), to `authorization_servers`.
    #[must_use]
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// The scopes clients may ask for (`scopes_supported`), replacing any set before:
    /// RFC 9728 recommends it, MCP says the minimum for basic use. The 401 asks for these
    /// (`offline_access` left out: a resource does not need refresh).
    ///
    /// Left unset, the endpoint serving the document ([`serve::http`](fn@crate::serve::http)
    /// or [`McpHttpService`](super::McpHttpService)) fills it with the scopes the server's
    /// items declare ([`Server::declared_scopes`](crate::server::Server::declared_scopes), read when
    /// the endpoint is built), so they are not repeated here.
    #[must_use]
    pub fn scopes_supported<I>(mut self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// A human-readable name of the resource (`resource_name`).
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// A page of developer documentation (`resource_documentation`).
    #[must_use]
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// The resource URI, as given.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The authorization servers, as added.
    pub fn authorization_servers(&self) -> &[String] {
        &self.authorization_servers
    }

    /// The scopes set with [`scopes_supported`](Self::scopes_supported); empty when unset.
    pub fn supported_scopes(&self) -> &[String] {
        &self.scopes_supported
    }

    /// `Err` (`InvalidInput`) when the document lists no authorization server: MCP requires
    /// at least one, and a client has nowhere to get a token without it.
    pub(super) fn check(&self) -> std::io::Result<()> {
        if !self.authorization_servers.is_empty() {
            return Ok(());
        }
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "refusing to serve protected resource `{}` without an authorization server: MCP requires \
                 `authorization_servers` to name at least one issuer, the place clients get tokens from. Add it with \
                 ProtectedResourceMetadata::authorization_server(\"https://auth.example.com\")",
                self.resource
            ),
        ))
    }

    /// The path the document is served at: `/.well-known/oauth-protected-resource`
    /// followed by the resource's path (RFC 9728 §3.1).
    pub fn well_known_path(&self) -> String {
        format!("{WELL_KNOWN}{}", self.path)
    }

    /// The absolute URL of the document, as the challenges' `resource_metadata` names it.
    pub fn document_url(&self) -> String {
        format!("{}{WELL_KNOWN}{}{}", self.origin, self.path, self.query)
    }

    /// The document, as JSON.
    pub fn to_json(&self) -> Value {
        let mut document = Map::new();
        document.insert("resource".into(), json!(self.resource));
        document.insert("authorization_servers".into(), json!(self.authorization_servers));
        if !self.scopes_supported.is_empty() {
            document.insert("scopes_supported".into(), json!(self.scopes_supported));
        }
        document.insert("bearer_methods_supported".into(), json!(["header"]));
        if let Some(name) = &self.resource_name {
            document.insert("resource_name".into(), json!(name));
        }
        if let Some(url) = &self.resource_documentation {
            document.insert("resource_documentation".into(), json!(url));
        }
        Value::Object(document)
    }

    /// The scopes a 401 asks for: those supported, but `offline_access`.
    pub(super) fn challenge_scopes(&self) -> Vec<String> {
        self.scopes_supported.iter().filter(|s| *s != OFFLINE_ACCESS).cloned().collect()
    }

    /// The answer to a request for the document: `GET` gets it, `OPTIONS` (a CORS
    /// preflight) gets 204 allowing any origin, anything else 405.
    pub(super) fn respond(&self, method: &Method) -> Response<HttpBody> {
        // Public by design; browser-based clients (the Inspector) read it cross-origin.
        let any_origin = HeaderValue::from_static("*");
        if method == Method::OPTIONS {
            let mut response = empty_response(StatusCode::NO_CONTENT);
            let headers = response.headers_mut();
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, any_origin);
            headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static(ALLOWED_METHODS));
            headers.insert(header::ALLOW, HeaderValue::from_static(ALLOWED_METHODS));
            // Clients send `MCP-Protocol-Version` on discovery; `*` covers any header of a
            // request without credentials (Fetch), which is all this document needs.
            headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("*"));
            headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("86400"));
            return response;
        }
        if method != Method::GET {
            return method_not_allowed(ALLOWED_METHODS);
        }
        let mut response = json_response(StatusCode::OK, self.to_json().to_string());
        let headers = response.headers_mut();
        // Rarely changes, but clients re-read it to notice an authorization server moving.
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, any_origin);
        response
    }

    /// This document with `scopes_supported` set to `declared` when it sets none.
    pub(super) fn or_scopes(self: std::sync::Arc<Self>, declared: Vec<String>) -> std::sync::Arc<Self> {
        if !self.scopes_supported.is_empty() || declared.is_empty() {
            return self;
        }
        std::sync::Arc::new(ProtectedResourceMetadata { scopes_supported: declared, ..(*self).clone() })
    }
}

/// `(scheme://authority, path, ?query)` of an absolute http(s) URI without a fragment; a
/// lone `/` path is dropped.
fn split(uri: &str) -> Option<(String, String, String)> {
    let (scheme, rest) = uri.split_once("://")?;
    if !(scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http")) || uri.contains('#') {
        return None;
    }
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, rest) = rest.split_at(end);
    if authority.is_empty() || authority.contains(|c: char| c.is_ascii_whitespace() || c.is_ascii_control()) {
        return None;
    }
    let (path, query) = rest.find('?').map_or((rest, ""), |at| rest.split_at(at));
    let path = if path == "/" { "" } else { path };
    Some((format!("{scheme}://{authority}"), path.to_owned(), query.to_owned()))
}

/// The [`ProtectedResourceMetadata`] document as a `tower` service, to mount in another
/// router at [`well_known_path`](ProtectedResourceMetadata::well_known_path). It answers
/// `GET` with the JSON document, `OPTIONS` with a CORS preflight (204), anything else
/// with 405.
///
/// A [`McpHttpService`](super::McpHttpService) built with
/// [`HttpConfig::protected_resource`](super::HttpConfig::protected_resource) serves the
/// document too, at that path, whatever its endpoint path: mounting the same service at
/// both paths is the simplest, and the document then lists the scopes the server's items
/// declare when the configured metadata sets none. This service serves the document
/// exactly as given, without a server.
///
/// ```
/// # async fn demo(server: mcp::Server, verifier: mcp::auth::StaticTokenVerifier) {
/// use mcp::serve::http::{HttpConfig, McpHttpService, ProtectedResourceMetadata, ProtectedResourceMetadataService};
///
/// let metadata = ProtectedResourceMetadata::new("https://api.example.com/mcp")
///     .authorization_server("https://auth.example.com")
///     .scopes_supported(["files:read"]);
/// let config = HttpConfig::default()
///     .allowed_hosts(["api.example.com"])
///     .protected_resource(metadata.clone())
///     .token_verifier(verifier);
/// let app: axum::Router = axum::Router::new()
///     .route_service(&metadata.well_known_path(), ProtectedResourceMetadataService::new(metadata))
///     .route_service("/mcp", McpHttpService::new(server, config));
/// # let _ = app;
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ProtectedResourceMetadataService {
    metadata: std::sync::Arc<ProtectedResourceMetadata>,
}

impl ProtectedResourceMetadataService {
    /// A service serving `metadata`.
    ///
    /// # Panics
    ///
    /// When `metadata` names no [authorization
    /// server](ProtectedResourceMetadata::authorization_server): MCP requires one, and the
    /// mistake is a configuration one, found at startup.
    pub fn new(metadata: ProtectedResourceMetadata) -> Self {
        if let Err(e) = metadata.check() {
            panic!("{e}");
        }
        ProtectedResourceMetadataService { metadata: std::sync::Arc::new(metadata) }
    }
}

impl<B> tower_service::Service<Request<B>> for ProtectedResourceMetadataService {
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = Ready<Result<Response<HttpBody>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        ready(Ok(self.metadata.respond(request.method())))
    }
}

#[cfg(test)]
mod tests {
    use super::{ProtectedResourceMetadata, split};

    #[test]
    fn the_well_known_uri_goes_between_host_and_path() {
        let at = |r: &str| ProtectedResourceMetadata::new(r).document_url();
        assert_eq!(
            at("https://h.example/public/mcp"),
            "https://h.example/.well-known/oauth-protected-resource/public/mcp"
        );
        assert_eq!(at("https://h.example/"), "https://h.example/.well-known/oauth-protected-resource");
        assert_eq!(at("http://127.0.0.1:8000"), "http://127.0.0.1:8000/.well-known/oauth-protected-resource");
        assert_eq!(at("https://h.example/mcp?t=1"), "https://h.example/.well-known/oauth-protected-resource/mcp?t=1");
        assert_eq!(
            ProtectedResourceMetadata::new("https://h.example").well_known_path(),
            "/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn only_absolute_http_uris_without_fragment_are_resources() {
        assert!(split("mcp").is_none());
        assert!(split("ftp://h.example/mcp").is_none());
        assert!(split("https:///mcp").is_none());
        assert!(split("https://h.example/mcp#top").is_none());
    }
}
