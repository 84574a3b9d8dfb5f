//! The hyper connector of the HTTP link: TCP for `http://`, and with the `tls` feature,
//! rustls for `https://` (HTTP/2 or HTTP/1.1, chosen by ALPN). A failed TLS handshake
//! comes out as a [`TlsFailure`] naming the host and the reason, which
//! [`TransportError::with_source`](super::TransportError::with_source) finds in hyper's
//! error and turns into a typed [`TransportErrorKind`].

use http::Uri;
use hyper_util::client::legacy::connect::HttpConnector;

use super::ClientError;
#[cfg(feature = "tls")]
use super::error::CertificateProblem;
use super::error::TransportErrorKind;

/// The root certificates a client adds in code (`tls`), on top of the platform's.
#[cfg(feature = "tls")]
pub(crate) type Roots = crate::tls::ExtraRoots;
/// Without `tls` there are none to add.
#[cfg(not(feature = "tls"))]
pub(crate) type Roots = ();

/// The connector the link's hyper client uses.
#[cfg(feature = "tls")]
pub(crate) type Connector = TlsConnector;
/// The connector the link's hyper client uses.
#[cfg(not(feature = "tls"))]
pub(crate) type Connector = HttpConnector;

fn tcp() -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector
}

/// The connector for `uri`, refusing a scheme this build does not speak.
#[cfg(not(feature = "tls"))]
pub(crate) fn build(uri: &Uri, _roots: &Roots) -> Result<Connector, ClientError> {
    match uri.scheme_str() {
        Some("http") => Ok(tcp()),
        Some("https") => Err(ClientError::transport_kind(
            TransportErrorKind::UnsupportedScheme,
            format!(
                "cannot connect to {uri}: https:// needs the `tls` feature of mcp-runtime \
                 (features = [\"tls\"] in Cargo.toml)"
            ),
        )),
        _ => Err(unsupported(uri)),
    }
}

fn unsupported(uri: &Uri) -> ClientError {
    ClientError::transport_kind(
        TransportErrorKind::UnsupportedScheme,
        format!("unsupported URL {uri}: the client speaks http:// and https://"),
    )
}

/// The connector for `uri`: for `https://`, rustls trusting the platform's roots (or
/// `SSL_CERT_FILE`'s, see [`crate::tls`]) and `roots`, offering h2 and http/1.1.
#[cfg(feature = "tls")]
pub(crate) fn build(uri: &Uri, roots: &Roots) -> Result<Connector, ClientError> {
    use hyper_rustls::HttpsConnectorBuilder;

    let store = match uri.scheme_str() {
        Some("https") => trusted_roots(roots)?,
        // Never used for http://, but the connector needs a configuration.
        Some("http") => rustls::RootCertStore::empty(),
        _ => return Err(unsupported(uri)),
    };
    let config = crate::tls::client_config(store)
        .map_err(|e| ClientError::transport_kind(TransportErrorKind::Tls, format!("TLS configuration: {e}")))?;
    let mut tcp = tcp();
    // The https connector hands https:// URIs to this one for the TCP connection.
    tcp.enforce_http(false);
    let inner =
        HttpsConnectorBuilder::new().with_tls_config(config).https_or_http().enable_all_versions().wrap_connector(tcp);
    Ok(TlsConnector { inner })
}

/// The platform's roots (or `SSL_CERT_FILE`'s) and the added ones; an error if there
/// are none at all, which would refuse every server.
#[cfg(feature = "tls")]
fn trusted_roots(roots: &Roots) -> Result<rustls::RootCertStore, ClientError> {
    let (mut store, errors) = crate::tls::native_roots();
    for error in &errors {
        tracing::warn!(%error, "a platform root certificate source could not be read");
    }
    roots.add_to(&mut store).map_err(|why| ClientError::transport_kind(TransportErrorKind::Tls, why))?;
    if store.is_empty() {
        return Err(ClientError::transport_kind(
            TransportErrorKind::Tls,
            format!(
                "no trusted root certificates: the platform store is empty or unreadable{} and none were \
                 added; install the system CA bundle, set SSL_CERT_FILE to a PEM bundle, or call \
                 ClientBuilder::add_root_certificate",
                if errors.is_empty() { String::new() } else { format!(" ({})", errors.join("; ")) }
            ),
        ));
    }
    Ok(store)
}

/// hyper-rustls's connector, whose TLS failures become [`TlsFailure`]s.
#[cfg(feature = "tls")]
#[derive(Clone)]
pub(crate) struct TlsConnector {
    inner: hyper_rustls::HttpsConnector<HttpConnector>,
}

#[cfg(feature = "tls")]
type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[cfg(feature = "tls")]
impl tower_service::Service<Uri> for TlsConnector {
    type Response = hyper_rustls::MaybeHttpsStream<hyper_util::rt::TokioIo<tokio::net::TcpStream>>;
    type Error = BoxError;
    type Future = std::pin::Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let host = uri.authority().map_or_else(String::new, ToString::to_string);
        let connecting = self.inner.call(uri);
        Box::pin(async move {
            connecting.await.map_err(|error| match crate::tls::find_rustls_error(error.as_ref()) {
                Some(rustls) => Box::new(TlsFailure::new(host, rustls)) as BoxError,
                None => error,
            })
        })
    }
}

/// A failed TLS handshake with `host`: its kind and a sentence for people.
#[cfg(feature = "tls")]
#[derive(Debug)]
pub(crate) struct TlsFailure {
    host: String,
    kind: TransportErrorKind,
    reason: String,
}

#[cfg(feature = "tls")]
impl TlsFailure {
    fn new(host: String, error: &rustls::Error) -> Self {
        use rustls::CertificateError as C;
        let problem = match error {
            rustls::Error::InvalidCertificate(certificate) => Some(match certificate {
                C::UnknownIssuer => CertificateProblem::UnknownIssuer,
                C::Expired | C::ExpiredContext { .. } => CertificateProblem::Expired,
                C::NotValidYet | C::NotValidYetContext { .. } => CertificateProblem::NotValidYet,
                C::NotValidForName | C::NotValidForNameContext { .. } => CertificateProblem::NameMismatch,
                C::Revoked => CertificateProblem::Revoked,
                _ => CertificateProblem::Other,
            }),
            _ => None,
        };
        match problem {
            Some(problem) => {
                let hint = match problem {
                    CertificateProblem::UnknownIssuer => {
                        "; trust its CA with SSL_CERT_FILE=ca.pem or ClientBuilder::add_root_certificate"
                    }
                    _ => "",
                };
                TlsFailure {
                    host,
                    kind: TransportErrorKind::Certificate(problem),
                    reason: format!("the server's certificate was refused: {problem} ({error}){hint}"),
                }
            }
            None => TlsFailure { host, kind: TransportErrorKind::Tls, reason: format!("{error}") },
        }
    }

    pub(crate) fn kind(&self) -> TransportErrorKind {
        self.kind
    }
}

#[cfg(feature = "tls")]
impl std::fmt::Display for TlsFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TLS handshake with {} failed: {}", self.host, self.reason)
    }
}

#[cfg(feature = "tls")]
impl std::error::Error for TlsFailure {}

/// The [`TlsFailure`] in `error`'s source chain, if any.
#[cfg(feature = "tls")]
pub(crate) fn find_tls_failure<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a TlsFailure> {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(failure) = error.downcast_ref::<TlsFailure>() {
            return Some(failure);
        }
        current = error.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    // Without `tls`, `Roots` is `()`.
    #[allow(clippy::let_unit_value)]
    fn refused(url: &str) -> ClientError {
        let roots = Roots::default();
        match build(&url.parse().expect("test fixture"), &roots) {
            Ok(_) => panic!("{url} should be refused"),
            Err(e) => e,
        }
    }

    fn kind(error: &ClientError) -> TransportErrorKind {
        match error {
            ClientError::Transport(t) => t.kind(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn other_schemes_are_refused() {
        let error = refused("ftp://127.0.0.1/mcp");
        assert_eq!(kind(&error), TransportErrorKind::UnsupportedScheme);
        assert!(error.to_string().contains("http:// and https://"), "{error}");
    }

    #[cfg(not(feature = "tls"))]
    #[test]
    fn https_without_the_tls_feature_says_to_enable_it() {
        let error = refused("https://127.0.0.1/mcp");
        assert_eq!(kind(&error), TransportErrorKind::UnsupportedScheme);
        let message = error.to_string();
        assert!(message.contains("https://") && message.contains("`tls` feature"), "{message}");
    }
}
