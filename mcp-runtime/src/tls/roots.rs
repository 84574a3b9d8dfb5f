//! Which certificates a TLS client trusts, and its rustls configuration.
//!
//! Two sets of roots are built here:
//!
//! - [`native_roots`], for the MCP client (`tls`): the platform's certificate store, read
//!   with `rustls-native-certs` (`/etc/ssl/certs` and friends on Linux, the Keychain on
//!   macOS, the system store on Windows). When `SSL_CERT_FILE` or `SSL_CERT_DIR` is set,
//!   those are read **instead of** the platform store: that is what `rustls-native-certs`,
//!   OpenSSL and curl do, so a bundle given to one tool means the same to all of them.
//!   Native roots rather than the compiled-in Mozilla list (`webpki-roots`) because an MCP
//!   client runs on a user's machine or in a company network, where the CA that signed an
//!   internal server (or a TLS-inspecting proxy) is installed in the platform store and
//!   nowhere else; and because the operator can then update or pin the roots without a
//!   rebuild.
//! - the Mozilla roots, for the server's authorization-server fetches (`oauth`, in
//!   `auth::tls`): a server in a container should not depend on its image's CA bundle.
//!
//! Either way, [`ExtraRoots`] adds certificates given in code (a private CA), on top.

use std::sync::Arc;

use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject as _;

/// Root certificates added in code, DER or PEM; a PEM that cannot be read is remembered
/// and reported when the configuration is built (builders do not fail early).
#[derive(Debug, Clone, Default)]
pub(crate) struct ExtraRoots {
    certificates: Vec<CertificateDer<'static>>,
    /// Why a PEM bundle could not be read.
    pem_error: Option<String>,
}

impl ExtraRoots {
    pub(crate) fn add_der(&mut self, certificate: CertificateDer<'static>) {
        self.certificates.push(certificate);
    }

    /// Adds every `CERTIFICATE` block of `pem`; none, or an unreadable one, is an error
    /// at [`add_to`](Self::add_to).
    pub(crate) fn add_pem(&mut self, pem: &[u8]) {
        let mut found = 0;
        for certificate in CertificateDer::pem_slice_iter(pem) {
            match certificate {
                Ok(certificate) => {
                    self.certificates.push(certificate);
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

    #[cfg(all(test, feature = "oauth"))]
    pub(crate) fn certificates(&self) -> &[CertificateDer<'static>] {
        &self.certificates
    }

    /// Adds these roots to `store`; the message says which one is unusable.
    pub(crate) fn add_to(&self, store: &mut RootCertStore) -> Result<(), String> {
        if let Some(error) = &self.pem_error {
            return Err(error.clone());
        }
        for (i, certificate) in self.certificates.iter().enumerate() {
            store.add(certificate.clone()).map_err(|e| format!("added root certificate #{i} is unusable: {e}"))?;
        }
        Ok(())
    }
}

/// The platform's roots (or those of `SSL_CERT_FILE`/`SSL_CERT_DIR` when set), read now:
/// the store, and what could not be read (logged by the caller). Certificates that do
/// not parse are skipped, as every TLS client does with a system bundle.
#[cfg(feature = "client")]
pub(crate) fn native_roots() -> (RootCertStore, Vec<String>) {
    let loaded = rustls_native_certs::load_native_certs();
    let mut store = RootCertStore::empty();
    let (added, ignored) = store.add_parsable_certificates(loaded.certs);
    if ignored > 0 {
        tracing::debug!(added, ignored, "some platform root certificates could not be parsed");
    }
    (store, loaded.errors.iter().map(ToString::to_string).collect())
}

/// A rustls client configuration trusting `roots`: TLS 1.2 and 1.3 with the ring
/// provider, no client certificate. (The ALPN protocols are set by the hyper-rustls
/// connector, from the HTTP versions it enables.)
pub(crate) fn client_config(roots: RootCertStore) -> Result<ClientConfig, rustls::Error> {
    Ok(ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
