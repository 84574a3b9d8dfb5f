//! Which URLs may be fetched, and the roots a builder adds; plus [`TestPki`], the
//! throwaway CA and loopback server certificate the https tests of the verifiers use.

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls_pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::TlsAcceptor;

use super::*;

/// A TEST-ONLY CA, made fresh for each test, and a TLS acceptor whose certificate (for
/// `127.0.0.1`, `::1` and `localhost`) it signed. No key leaves the process.
pub(crate) struct TestPki {
    pub(crate) ca_der: CertificateDer<'static>,
    pub(crate) ca_pem: String,
    pub(crate) acceptor: TlsAcceptor,
}

impl TestPki {
    pub(crate) fn new() -> Self {
        let ca_key = KeyPair::generate().expect("test fixture");
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("test fixture");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        ca_params.distinguished_name.push(DnType::CommonName, "mcp-runtime test CA");
        let ca = ca_params.self_signed(&ca_key).expect("test fixture");
        let issuer = Issuer::new(ca_params, ca_key);

        let server_key = KeyPair::generate().expect("test fixture");
        let server_params =
            CertificateParams::new(vec!["127.0.0.1".to_owned(), "::1".to_owned(), "localhost".to_owned()])
                .expect("test fixture");
        let server = server_params.signed_by(&server_key, &issuer).expect("test fixture");

        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("test fixture")
            .with_no_client_auth()
            .with_single_cert(
                vec![server.der().clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der())),
            )
            .expect("test fixture");
        TestPki { ca_der: ca.der().clone(), ca_pem: ca.pem(), acceptor: TlsAcceptor::from(Arc::new(config)) }
    }
}

#[test]
fn plain_http_elsewhere_than_loopback_needs_the_opt_in() {
    let kind = |url: &str, insecure: bool| parse_url(url, "the URL", insecure).map(|_| ()).map_err(|e| e.kind());
    assert_eq!(kind("https://as.example/jwks", false), Ok(()));
    assert_eq!(kind("http://127.0.0.1:9000/jwks", false), Ok(()));
    assert_eq!(kind("http://localhost:9000", false), Ok(()));
    assert_eq!(kind("http://as.example/jwks", false), Err(OAuthErrorKind::InsecureUrl));
    assert_eq!(kind("http://10.0.0.1/jwks", false), Err(OAuthErrorKind::InsecureUrl));
    assert_eq!(kind("http://as.example/jwks", true), Ok(()));
    assert_eq!(kind("ftp://as.example/jwks", true), Err(OAuthErrorKind::UnsupportedScheme));
    assert_eq!(kind("as.example", true), Err(OAuthErrorKind::Config));
    assert_eq!(kind("/jwks", true), Err(OAuthErrorKind::Config));
    assert_eq!(kind("not a url", true), Err(OAuthErrorKind::Config));
    let message = parse_url("http://as.example/jwks", "the JWKS URL", false).expect_err("insecure").to_string();
    assert!(message.contains("the JWKS URL") && message.contains("allow_insecure_http"), "{message}");
}

#[test]
fn root_certificates_are_added_as_der_or_pem() {
    let pki = TestPki::new();
    let mut der = TlsSettings::default();
    der.add_root_certificate(pki.ca_der.clone());
    assert!(der.client_config().is_ok());
    let mut pem = TlsSettings::default();
    pem.add_root_certificates_pem(pki.ca_pem.as_bytes());
    assert_eq!(pem.extra_roots.certificates(), std::slice::from_ref(&pki.ca_der));
    assert!(pem.client_config().is_ok());
}

#[test]
fn unusable_root_certificates_fail_the_configuration() {
    let kind = |tls: TlsSettings| tls.client_config().map(|_| ()).map_err(|e| e.kind());
    let mut empty = TlsSettings::default();
    empty.add_root_certificates_pem(b"no certificate here");
    assert_eq!(kind(empty), Err(OAuthErrorKind::Config));
    let mut garbled = TlsSettings::default();
    garbled.add_root_certificates_pem(b"-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n");
    assert_eq!(kind(garbled), Err(OAuthErrorKind::Config));
    let mut not_der = TlsSettings::default();
    not_der.add_root_certificate(CertificateDer::from(vec![1, 2, 3]));
    assert_eq!(kind(not_der), Err(OAuthErrorKind::Config));
}
