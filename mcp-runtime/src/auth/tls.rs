//! Transport security of the authorization server fetches, shared by both verifiers'
//! builders: which URLs may be fetched (https, or plain http to a loopback host unless
//! the builder opts in) and which roots an https server's certificate may chain to (the
//! Mozilla roots of `webpki-roots`, plus any the builder adds for a private CA).

use std::net::IpAddr;
use std::sync::Arc;

use http::Uri;
use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject as _;

use super::oauth_error::{OAuthError, OAuthErrorKind};

/// What a builder collected about TLS: checked and turned into a [`ClientConfig`] at
/// `build()`.
#[derive(Debug, Clone, Default)]
pub(crate) struct TlsSettings {
    allow_insecure_http: bool,
    extra_roots: Vec<CertificateDer<'static>>,
    /// Why a PEM bundle given to the builder could not be read; reported by `build()`.
    pem_error: Option<String>,
}

impl TlsSettings {
    pub(crate) fn allow_insecure_http(&mut self, allow: bool) {
        self.allow_insecure_http = allow;
    }

    pub(crate) fn add_root_certificate(&mut self, certificate: CertificateDer<'static>) {
        self.extra_roots.push(certificate);
    }

    /// Adds every `CERTIFICATE` block of `pem`; none, or an unreadable one, makes
    /// `build()` fail.
    pub(crate) fn add_root_certificates_pem(&mut self, pem: &[u8]) {
        let mut found = 0;
        for certificate in CertificateDer::pem_slice_iter(pem) {
            match certificate {
                Ok(certificate) => {
                    self.extra_roots.push(certificate);
                    found += 1;
                }
                Err(e) => {
                    self.pem_error.get_or_insert_with(|| format!("a root certificate PEM cannot be read: {e}"));
                    return;
                }
            }
        }
        if found == 0 {
            self.pem_error.get_or_insert_with(|| "a root certificate PEM holds no CERTIFICATE".to_owned());
        }
    }

    pub(crate) fn insecure_http_allowed(&self) -> bool {
        self.allow_insecure_http
    }

    /// The rustls client configuration: TLS 1.2 and 1.3 with the ring provider, the
    /// Mozilla roots and the added ones, no client certificate.
    pub(crate) fn client_config(&self) -> Result<ClientConfig, OAuthError> {
        if let Some(error) = &self.pem_error {
            return Err(OAuthError::new(OAuthErrorKind::Config, error.clone()));
        }
        let mut roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
        for (i, certificate) in self.extra_roots.iter().enumerate() {
            roots.add(certificate.clone()).map_err(|e| {
                OAuthError::new(OAuthErrorKind::Config, format!("added root certificate #{i} is unusable: {e}"))
            })?;
        }
        let config = ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| OAuthError::new(OAuthErrorKind::Config, format!("TLS configuration: {e}")))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(config)
    }
}

/// Whether `uri`'s host is this machine: `localhost`, or an address in 127.0.0.0/8 or
/// `::1`. Only then may plain http be used without opting in: nothing on the network
/// between can swap the keys.
pub(crate) fn is_loopback(uri: &Uri) -> bool {
    let Some(host) = uri.host() else { return false };
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    let host = host.strip_suffix('.').unwrap_or(host);
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
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
        Some("http") if allow_insecure_http || is_loopback(&uri) => Ok(uri),
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
