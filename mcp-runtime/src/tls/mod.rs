//! TLS with rustls (the ring provider), shared by the client and the server (the `tls`
//! feature; `oauth` turns it on).
//!
//! - The client ([`Client::builder().connect_http("https://…")`](crate::client::ClientBuilder::connect_http))
//!   trusts the platform's root certificates, or those of `SSL_CERT_FILE` /
//!   `SSL_CERT_DIR` when set (which replace the platform store, as in OpenSSL, curl
//!   and `rustls-native-certs`), plus any added with
//!   [`ClientBuilder::add_root_certificate`](crate::client::ClientBuilder::add_root_certificate).
//!   It offers HTTP/2 and HTTP/1.1 by ALPN.
//! - The server ([`HttpConfig::tls`](crate::serve::http::HttpConfig::tls)) terminates
//!   TLS itself with a [`ServerTlsConfig`], serving HTTP/2 or HTTP/1.1 as ALPN chose.
//!
//! `rustls` and the certificate types are re-exported so that a configuration built by
//! hand uses the same versions as this crate.

#[cfg(feature = "client")]
use std::error::Error as StdError;

pub use rustls;
pub use rustls_pki_types::{CertificateDer, PrivateKeyDer};

#[cfg(any(feature = "client", all(feature = "oauth", feature = "server")))]
mod roots;
#[cfg(feature = "server")]
mod server;

#[cfg(feature = "client")]
pub(crate) use roots::native_roots;
#[cfg(any(feature = "client", all(feature = "oauth", feature = "server")))]
pub(crate) use roots::{ExtraRoots, client_config};
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use server::ServerTlsConfig;

/// The rustls error somewhere in `error`'s source chain. tokio-rustls reports a failed
/// handshake as an `io::Error` wrapping the rustls error (and hyper-rustls wraps that in
/// another), and `io::Error::source` skips the wrapped error itself, so the chain goes
/// through each `io::Error`'s inner error instead.
#[cfg(feature = "client")]
pub(crate) fn find_rustls_error<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a rustls::Error> {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(rustls) = error.downcast_ref::<rustls::Error>() {
            return Some(rustls);
        }
        current = match error.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref) {
            // hyper-rustls wraps tokio-rustls's `io::Error` in another one.
            Some(inner) => Some(inner as &(dyn StdError + 'static)),
            None => error.source(),
        };
    }
    None
}
