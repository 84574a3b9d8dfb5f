//! Transport security of the authorization server fetches, shared by both verifiers'
//! builders: which URLs may be fetched (https, or plain http to a loopback host unless
//! the builder opts in) and which roots an https server's certificate may chain to (the
//! Mozilla roots of `webpki-roots`, plus any the builder adds for a private CA).

use http::Uri;
use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::CertificateDer;

use super::oauth_error::{OAuthError, OAuthErrorKind};
use crate::tls::ExtraRoots;

/// What a builder collected about TLS: checked and turned into a [`ClientConfig`] at
/// `build()`.
#[derive(Debug, Clone, Default)]
pub(crate) struct TlsSettings {
    allow_insecure_http: bool,
    /// Roots added by the builder (and why a PEM given to it could not be read).
    extra_roots: ExtraRoots,
}

impl TlsSettings {
    pub(crate) fn allow_insecure_http(&mut self, allow: bool) {
        self.allow_insecure_http = allow;
    }

    pub(crate) fn add_root_certificate(&mut self, certificate: CertificateDer<'static>) {
        self.extra_roots.add_der(certificate);
    }

    /// Adds every `CERTIFICATE` block of `pem`; none, or an unreadable one, makes
    /// `build()` fail.
    pub(crate) fn add_root_certificates_pem(&mut self, pem: &[u8]) {
        self.extra_roots.add_pem(pem);
    }

    pub(crate) fn insecure_http_allowed(&self) -> bool {
        self.allow_insecure_http
    }

    /// The rustls client configuration: TLS 1.2 and 1.3 with the ring provider, the
    /// Mozilla roots and the added ones, no client certificate.
    pub(crate) fn client_config(&self) -> Result<ClientConfig, OAuthError> {
        let mut roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
        self.extra_roots.add_to(&mut roots).map_err(|why| OAuthError::new(OAuthErrorKind::Config, why))?;
        crate::tls::client_config(roots)
            .map_err(|e| OAuthError::new(OAuthErrorKind::Config, format!("TLS configuration: {e}")))
    }
}

/// Parses `url` (`what` names it in errors) and refuses what must not be fetched: a
/// scheme other than http and https ([`OAuthErrorKind::UnsupportedScheme`]), or plain
/// http to a host other than loopback unless `allow_insecure_http`
/// ([`OAuthErrorKind::InsecureUrl`]).
pub(crate) fn parse_url(url: &str, what: &str, allow_insecure_http: bool) -> Result<Uri, OAuthError> {
    let uri: Uri = url.parse().map_err(|_| OAuthError::new(OAuthErrorKind::Config, format!("{what} is not a URL")))?;
    if uri.scheme().is_none() || uri.host().is_none_or(str::is_empty) {
        return Err(OAuthError::new(OAuthErrorKind::Config, format!("{what} must be an absolute https:// URL")));
    }
    match uri.scheme_str() {
        Some("https") => Ok(uri),
        Some("http") if allow_insecure_http || crate::oauth_urls::is_loopback(&uri) => Ok(uri),
        Some("http") => Err(OAuthError::new(
            OAuthErrorKind::InsecureUrl,
            format!(
                "{what} is plain http:// to a host that is not loopback: use https://, or opt in with \
                 allow_insecure_http(true)"
            ),
        )),
        _ => Err(OAuthError::new(
            OAuthErrorKind::UnsupportedScheme,
            format!("{what} must be an https:// (or loopback http://) URL"),
        )),
    }
}

#[cfg(test)]
pub(crate) mod tests;
