//! HTTP for the authorization flow: GETs of metadata documents and POSTs to the token and
//! registration endpoints, over the hyper client, never following redirects, each with a
//! timeout and a body bound; and which URLs may be used at all.
//!
//! The connector is the HTTP link's (`client::connector`: rustls for https, with the
//! platform's roots or `SSL_CERT_FILE`'s plus the ones added to the client builder; TCP
//! for loopback http); nothing else in the flow names the transport.

use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode, Uri, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;

use super::error::{OAuthError, OAuthErrorKind};

/// The transport under the flow's requests: the HTTP link's connector.
pub(crate) type Connector = crate::client::connector::Connector;

/// The connector for https (and loopback http), trusting the platform's roots (or
/// `SSL_CERT_FILE`'s) and `roots`. Without any root at all, https fetches would fail
/// anyway: the flow then keeps plain http (loopback) and says why once.
fn connector(roots: &crate::client::connector::Roots) -> Result<Connector, OAuthError> {
    let https = Uri::from_static("https://authorization.server/");
    let connector = crate::client::connector::build(&https, roots).or_else(|e| {
        tracing::warn!(error = %e, "no trusted roots for https authorization servers; only loopback http will work");
        crate::client::connector::build(&Uri::from_static("http://authorization.server/"), roots)
    });
    connector.map_err(|e| OAuthError::with_source(OAuthErrorKind::Config, "no connector for the flow", e))
}

/// The largest metadata document or endpoint answer read.
pub(crate) const MAX_BODY_BYTES: usize = 1024 * 1024;

/// An answer: status, headers and the (bounded) body.
pub(crate) struct Fetched {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

/// The status and the body's length only: bodies and headers may carry tokens.
impl std::fmt::Debug for Fetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetched")
            .field("status", &self.status)
            .field("content_length", &self.body.len())
            .finish_non_exhaustive()
    }
}

impl Fetched {
    /// The body as JSON, or a [`OAuthErrorKind::Fetch`] error naming `what`.
    pub(crate) fn json<T: serde::de::DeserializeOwned>(&self, what: &str) -> Result<T, OAuthError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| OAuthError::with_source(OAuthErrorKind::Fetch, format!("{what} is not the JSON expected"), e))
    }
}

/// The flow's HTTP client.
#[derive(Clone)]
pub(crate) struct OAuthHttp {
    client: HyperClient<Connector, Full<Bytes>>,
    timeout: Duration,
    allow_insecure_http: bool,
    /// Whether plain http to loopback hosts is allowed (it is, unless the MCP server is
    /// remote: then its metadata must not make the client probe local services).
    allow_loopback_http: bool,
}

impl std::fmt::Debug for OAuthHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthHttp")
            .field("timeout", &self.timeout)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("allow_loopback_http", &self.allow_loopback_http)
            .finish_non_exhaustive()
    }
}

impl OAuthHttp {
    pub(crate) fn new(
        timeout: Duration,
        allow_insecure_http: bool,
        roots: &crate::client::connector::Roots,
    ) -> Result<Self, OAuthError> {
        Ok(OAuthHttp {
            client: HyperClient::builder(TokioExecutor::new()).build(connector(roots)?),
            timeout,
            allow_insecure_http,
            allow_loopback_http: true,
        })
    }

    /// Allows (the default) or refuses plain http to loopback hosts.
    pub(crate) fn with_loopback_http(mut self, allowed: bool) -> Self {
        self.allow_loopback_http = allowed;
        self
    }

    /// Parses `url` (`what` names it in errors) and refuses what the flow must not use.
    pub(crate) fn parse_url(&self, url: &str, what: &str) -> Result<Uri, OAuthError> {
        parse_url_for(url, what, self.allow_insecure_http, self.allow_loopback_http)
    }

    /// GETs `uri` (any status is returned; redirects are not followed).
    pub(crate) async fn get(&self, uri: &Uri, accept: &str) -> Result<Fetched, OAuthError> {
        let request = Request::get(uri.clone())
            .header(header::ACCEPT, accept)
            .body(Full::new(Bytes::new()))
            .map_err(|e| OAuthError::with_source(OAuthErrorKind::Internal, format!("cannot build GET {uri}"), e))?;
        self.send(request).await
    }

    /// Sends `request` and reads the answer, within the timeout and the body bound. The
    /// error names the method and URL, never the headers or body sent.
    pub(crate) async fn send(&self, request: Request<Full<Bytes>>) -> Result<Fetched, OAuthError> {
        let what = format!("{} {}", request.method(), request.uri());
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| OAuthError::with_source(OAuthErrorKind::Fetch, what.clone(), e))?;
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, MAX_BODY_BYTES)
                .collect()
                .await
                .map_err(|e| OAuthError::new(OAuthErrorKind::Fetch, format!("{what}: reading the body: {e}")))?
                .to_bytes();
            Ok(Fetched { status: parts.status, headers: parts.headers, body })
        };
        tokio::time::timeout(self.timeout, exchange).await.map_err(|_| {
            OAuthError::new(OAuthErrorKind::Fetch, format!("{what}: no answer within {:?}", self.timeout))
        })?
    }
}

/// Parses `url` and refuses a scheme other than http and https (`javascript:`, `data:`,
/// `file:`; [`OAuthErrorKind::UnsafeUrl`]) and plain http to a host that is not loopback
/// unless `allow_insecure_http`.
pub(crate) fn parse_url(url: &str, what: &str, allow_insecure_http: bool) -> Result<Uri, OAuthError> {
    parse_url_for(url, what, allow_insecure_http, true)
}

/// As [`parse_url`], but plain http to a loopback host is refused too unless
/// `allow_loopback_http` (or `allow_insecure_http`).
fn parse_url_for(
    url: &str,
    what: &str,
    allow_insecure_http: bool,
    allow_loopback_http: bool,
) -> Result<Uri, OAuthError> {
    let scheme_ok = url.get(..8).is_some_and(|s| s.eq_ignore_ascii_case("https://"))
        || url.get(..7).is_some_and(|s| s.eq_ignore_ascii_case("http://"));
    if !scheme_ok {
        return Err(OAuthError::new(OAuthErrorKind::UnsafeUrl, format!("{what} must be an https:// URL")));
    }
    let uri: Uri = url
        .parse()
        .map_err(|e| OAuthError::with_source(OAuthErrorKind::UnsafeUrl, format!("{what} is not a valid URL"), e))?;
    if uri.host().is_none_or(str::is_empty) {
        return Err(OAuthError::new(OAuthErrorKind::UnsafeUrl, format!("{what} has no host")));
    }
    if uri.scheme_str().is_some_and(|s| s.eq_ignore_ascii_case("http"))
        && !allow_insecure_http
        && !(allow_loopback_http && crate::oauth_urls::is_loopback(&uri))
    {
        return Err(OAuthError::new(
            OAuthErrorKind::UnsafeUrl,
            format!("{what} is plain http:// to a host that is not loopback (opt in with allow_insecure_http(true))"),
        ));
    }
    Ok(uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_and_loopback_http_are_allowed() {
        assert!(parse_url("https://as.example.com/authorize", "u", false).is_ok());
        assert!(parse_url("http://localhost:3000/authorize", "u", false).is_ok());
        assert!(parse_url("http://127.0.0.1:1/x", "u", false).is_ok());
        assert!(parse_url("http://[::1]:1/x", "u", false).is_ok());
        for bad in ["javascript:alert(1)", "data:text/html,hi", "file:///etc/passwd", "ftp://x/y", "//x/y", "https:/x"]
        {
            let e = parse_url(bad, "u", true).expect_err("must be refused");
            assert_eq!(e.kind(), OAuthErrorKind::UnsafeUrl, "{bad}");
        }
        let e = parse_url("http://as.example.com/authorize", "u", false).expect_err("must be refused");
        assert_eq!(e.kind(), OAuthErrorKind::UnsafeUrl);
        assert!(parse_url("http://as.example.com/authorize", "u", true).is_ok());
    }

    #[test]
    fn fetched_debug_shows_no_body_or_headers() {
        let mut headers = HeaderMap::new();
        headers.insert("dpop-nonce", http::HeaderValue::from_static("n0nce"));
        let fetched =
            Fetched { status: StatusCode::OK, headers, body: Bytes::from_static(b"{\"access_token\":\"s3cret\"}") };
        let shown = format!("{fetched:?}");
        assert!(shown.contains("200") && shown.contains("content_length"), "{shown}");
        assert!(!shown.contains("s3cret") && !shown.contains("n0nce"), "{shown}");
    }

    #[test]
    fn a_remote_server_cannot_send_the_flow_to_loopback_http() {
        for local in ["http://localhost:3000/x", "http://127.0.0.1:1/x", "http://[::1]:1/x"] {
            let e = parse_url_for(local, "u", false, false).expect_err("must be refused");
            assert_eq!(e.kind(), OAuthErrorKind::UnsafeUrl, "{local}");
            assert!(parse_url_for(local, "u", true, false).is_ok(), "{local}");
        }
        assert!(parse_url_for("https://localhost:3000/x", "u", false, false).is_ok());
    }
}
