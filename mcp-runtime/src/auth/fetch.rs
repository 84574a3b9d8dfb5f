//! Fetching the authorization server's JSON documents (metadata, JWKS, introspection
//! answers) with the hyper client over https (rustls, see [`super::tls`]) or loopback
//! http: GET or a form POST, no redirects, a timeout and a size bound.

use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode, Uri, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use super::oauth_error::{OAuthError, OAuthErrorKind};
use super::tls::TlsSettings;

/// A JSON fetcher: GET, or POST of a form (RFC 7662 introspection).
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    allow_insecure_http: bool,
    timeout: Duration,
    max_bytes: usize,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("timeout", &self.timeout)
            .field("max_bytes", &self.max_bytes)
            .finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A fetcher with `tls`'s roots; fails when they are unusable (an unreadable PEM, a
    /// certificate that is not one).
    pub(crate) fn new(timeout: Duration, max_bytes: usize, tls: &TlsSettings) -> Result<Self, OAuthError> {
        let mut http = HttpConnector::new();
        http.set_nodelay(true);
        http.set_connect_timeout(Some(timeout));
        // The https connector hands https:// URIs to this one for the TCP connection.
        http.enforce_http(false);
        // `https_or_http`: which URLs may go over plain http is decided by `parse_url`,
        // before anything is fetched.
        let connector = HttpsConnectorBuilder::new()
            .with_tls_config(tls.client_config()?)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Ok(Fetcher {
            client: Client::builder(TokioExecutor::new()).build(connector),
            allow_insecure_http: tls.insecure_http_allowed(),
            timeout,
            max_bytes,
        })
    }

    /// Parses `url` (`what` names it in errors) and refuses what this fetcher must not
    /// fetch: see [`super::tls::parse_url`].
    pub(crate) fn parse_url(&self, url: &str, what: &str) -> Result<Uri, OAuthError> {
        super::tls::parse_url(url, what, self.allow_insecure_http)
    }

    /// GETs `uri` and parses the body as JSON. Anything but a 200 is an error; so is a
    /// body over the size bound or an answer slower than the timeout.
    pub(crate) async fn get_json(&self, uri: &Uri) -> Result<serde_json::Value, OAuthError> {
        let request = Request::get(uri.clone())
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Bytes::new()))
            .map_err(|_| OAuthError::new(OAuthErrorKind::Config, "cannot build the request"))?;
        self.send_json(request, "GET", uri).await
    }

    /// POSTs `form` (already `application/x-www-form-urlencoded`) to `uri`, with
    /// `authorization` as the `Authorization` header if given, and parses the answer as
    /// [`get_json`](Self::get_json) does. Errors name the URL, never the form or the header.
    pub(crate) async fn post_form_json(
        &self,
        uri: &Uri,
        authorization: Option<&str>,
        form: String,
    ) -> Result<serde_json::Value, OAuthError> {
        let mut request = Request::post(uri.clone())
            .header(header::ACCEPT, "application/json")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some(authorization) = authorization {
            request = request.header(header::AUTHORIZATION, authorization);
        }
        let request = request
            .body(Full::new(Bytes::from(form)))
            .map_err(|_| OAuthError::new(OAuthErrorKind::Config, "cannot build the request"))?;
        self.send_json(request, "POST", uri).await
    }

    async fn send_json(
        &self,
        request: Request<Full<Bytes>>,
        method: &str,
        uri: &Uri,
    ) -> Result<serde_json::Value, OAuthError> {
        let fetch = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| OAuthError::new(OAuthErrorKind::Fetch, format!("{method} {uri}: {e}")))?;
            if response.status() != StatusCode::OK {
                return Err(OAuthError::new(
                    OAuthErrorKind::Fetch,
                    format!("{method} {uri}: status {}", response.status()),
                ));
            }
            let body = Limited::new(response.into_body(), self.max_bytes)
                .collect()
                .await
                .map_err(|e| OAuthError::new(OAuthErrorKind::Fetch, format!("{method} {uri}: body: {e}")))?
                .to_bytes();
            serde_json::from_slice(&body)
                .map_err(|_| OAuthError::new(OAuthErrorKind::Fetch, format!("{method} {uri}: the body is not JSON")))
        };
        tokio::time::timeout(self.timeout, fetch).await.map_err(|_| {
            OAuthError::new(OAuthErrorKind::Fetch, format!("{method} {uri}: no answer within {:?}", self.timeout))
        })?
    }
}
