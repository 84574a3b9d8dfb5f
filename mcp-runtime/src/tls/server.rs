//! [`ServerTlsConfig`]: the certificate and key a server terminates TLS with.

use std::io;
use std::path::Path;
use std::sync::Arc;

use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// The ALPN protocols offered when the configuration names none: HTTP/2 first.
const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// The TLS side of an HTTPS server: a certificate chain and its private key (or a
/// rustls [`ServerConfig`] built by hand). Give it to
/// [`HttpConfig::tls`](crate::serve::http::HttpConfig::tls).
///
/// Clients choose HTTP/2 or HTTP/1.1 by ALPN. TLS 1.2 and 1.3 are served, with the
/// ring provider; no client certificate is asked for.
///
/// ```no_run
/// use mcp::serve::http::HttpConfig;
/// use mcp::tls::ServerTlsConfig;
///
/// # fn main() -> std::io::Result<()> {
/// let tls = ServerTlsConfig::from_pem_files("/etc/mcp/cert.pem", "/etc/mcp/key.pem")?;
/// let config = HttpConfig::default().allowed_hosts(["mcp.example.com"]).tls(tls);
/// # let _ = config;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ServerTlsConfig {
    config: Arc<ServerConfig>,
}

impl std::fmt::Debug for ServerTlsConfig {
    /// The ALPN protocols only: never the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let alpn: Vec<String> =
            self.config.alpn_protocols.iter().map(|p| String::from_utf8_lossy(p).into_owned()).collect();
        f.debug_struct("ServerTlsConfig").field("alpn", &alpn).finish_non_exhaustive()
    }
}

impl ServerTlsConfig {
    /// The certificate chain in `cert_file` (PEM, the server's certificate first, then
    /// the intermediates) and the private key in `key_file` (PEM: PKCS#8, PKCS#1 or
    /// SEC1). Errors name the file and what is wrong with it, never the key.
    pub fn from_pem_files(cert_file: impl AsRef<Path>, key_file: impl AsRef<Path>) -> io::Result<Self> {
        let (cert_file, key_file) = (cert_file.as_ref(), key_file.as_ref());
        let read = |path: &Path, what: &str| {
            std::fs::read(path)
                .map_err(|e| io::Error::new(e.kind(), format!("cannot read the TLS {what} {}: {e}", path.display())))
        };
        let chain = read(cert_file, "certificate file")?;
        let key = read(key_file, "key file")?;
        let chain = certificates(&chain).map_err(|why| invalid(format!("{}: {why}", cert_file.display())))?;
        let key = private_key(&key).map_err(|why| invalid(format!("{}: {why}", key_file.display())))?;
        Self::from_der(chain, key)
    }

    /// Like [`from_pem_files`](Self::from_pem_files), from PEM text in memory.
    pub fn from_pem(cert_chain_pem: &[u8], key_pem: &[u8]) -> io::Result<Self> {
        let chain = certificates(cert_chain_pem).map_err(|why| invalid(format!("the certificate chain: {why}")))?;
        let key = private_key(key_pem).map_err(|why| invalid(format!("the private key: {why}")))?;
        Self::from_der(chain, key)
    }

    /// A certificate chain (the server's first) and its private key, DER.
    pub fn from_der(chain: Vec<CertificateDer<'static>>, key: PrivateKeyDer<'static>) -> io::Result<Self> {
        let config = ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| invalid(format!("TLS configuration: {e}")))?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| invalid(format!("the certificate and key cannot be used together: {e}")))?;
        Ok(Self::from_rustls(config))
    }

    /// A rustls configuration built by hand (client certificates, a certificate
    /// resolver, other protocol versions). If it names no ALPN protocols, `h2` and
    /// `http/1.1` are offered; a configuration naming only `http/1.1` serves HTTP/1.1 only.
    pub fn from_rustls(config: impl Into<Arc<ServerConfig>>) -> Self {
        let mut config = config.into();
        if config.alpn_protocols.is_empty() {
            Arc::make_mut(&mut config).alpn_protocols = ALPN.iter().map(|p| p.to_vec()).collect();
        }
        ServerTlsConfig { config }
    }

    /// The acceptor each accepted TCP stream is handed to.
    pub(crate) fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        tokio_rustls::TlsAcceptor::from(Arc::clone(&self.config))
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// Every `CERTIFICATE` of `pem`; at least one.
fn certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let chain: Vec<_> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("not a PEM certificate chain ({e})"))?;
    if chain.is_empty() {
        return Err("no CERTIFICATE in the PEM".to_owned());
    }
    Ok(chain)
}

/// The first private key of `pem`.
fn private_key(pem: &[u8]) -> Result<PrivateKeyDer<'static>, String> {
    // The PEM parser's error is left out: some of its variants quote the input's text.
    PrivateKeyDer::from_pem_slice(pem)
        .map_err(|_| "no usable PRIVATE KEY in the PEM (PKCS#8, PKCS#1 \"RSA\" or SEC1 \"EC\")".to_owned())
}
