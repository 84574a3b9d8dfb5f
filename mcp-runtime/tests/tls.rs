//! HTTPS end to end, with real TLS: a private CA and server certificates made at test
//! time (rcgen), `serve::http` terminating TLS with them, and the `Client` connecting over
//! `https://127.0.0.1:PORT/mcp`. It succeeds when the CA is trusted (added in code, or
//! through `SSL_CERT_FILE`), speaks h2 or http/1.1 as ALPN chose, and is refused with a
//! typed certificate error otherwise (unknown issuer, name mismatch, expired).
//!
//! `SSL_CERT_FILE` is process-wide, so the tests of it run this binary again as a child
//! process with the variable set (the ignored `child_*` test), and never set it here.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp::client::{CertificateProblem, Client, ClientError, TransportErrorKind};
use mcp::serve::http::HttpConfig;
use mcp::tls::{CertificateDer, ServerTlsConfig, rustls};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use serde_json::json;
use tokio::io::AsyncReadExt as _;

const TIMEOUT: Duration = Duration::from_secs(20);

/// Echo the text back.
#[mcp::tool]
fn echo(text: String) -> String {
    text
}

/// A TEST-ONLY certificate authority, made fresh for each test.
struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    der: CertificateDer<'static>,
    pem: String,
}

impl TestCa {
    fn new(name: &str) -> Self {
        let key = KeyPair::generate().expect("test fixture");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("test fixture");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        params.distinguished_name.push(DnType::CommonName, name);
        let certificate = params.self_signed(&key).expect("test fixture");
        TestCa { der: certificate.der().clone(), pem: certificate.pem(), issuer: Issuer::new(params, key) }
    }

    /// A server certificate for `names`, signed by this CA: its chain and key as PEM.
    fn server_pem(&self, names: &[&str], expired: bool) -> (String, String) {
        let key = KeyPair::generate().expect("test fixture");
        let mut params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>()).expect("test fixture");
        if expired {
            params.not_before = rcgen::date_time_ymd(2000, 1, 1);
            params.not_after = rcgen::date_time_ymd(2001, 1, 1);
        }
        let certificate = params.signed_by(&key, &self.issuer).expect("test fixture");
        (certificate.pem(), key.serialize_pem())
    }

    /// The server's TLS configuration for `names` (ALPN: h2 and http/1.1).
    fn server_tls(&self, names: &[&str]) -> ServerTlsConfig {
        let (chain, key) = self.server_pem(names, false);
        ServerTlsConfig::from_pem(chain.as_bytes(), key.as_bytes()).expect("test fixture")
    }

    /// Like [`server_tls`](Self::server_tls), offering only the `alpn` protocols (a
    /// rustls server refuses a client that offers none of them).
    fn server_tls_alpn(&self, names: &[&str], alpn: &[&[u8]]) -> ServerTlsConfig {
        let (chain, key) = self.server_pem(names, false);
        let chain = rustls_pki_types_chain(&chain);
        let key = mcp::tls::PrivateKeyDer::try_from(pem_key_der(&key)).expect("test fixture");
        let mut config =
            rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .expect("test fixture")
                .with_no_client_auth()
                .with_single_cert(chain, key)
                .expect("test fixture");
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        ServerTlsConfig::from_rustls(config)
    }
}

fn rustls_pki_types_chain(pem: &str) -> Vec<CertificateDer<'static>> {
    use rustls::pki_types::pem::PemObject as _;
    CertificateDer::pem_slice_iter(pem.as_bytes()).collect::<Result<_, _>>().expect("test fixture")
}

fn pem_key_der(pem: &str) -> Vec<u8> {
    use rustls::pki_types::pem::PemObject as _;
    rustls::pki_types::PrivatePkcs8KeyDer::from_pem_slice(pem.as_bytes())
        .expect("test fixture")
        .secret_pkcs8_der()
        .to_vec()
}

/// Serves a server with the `echo` tool over TLS on 127.0.0.1; its MCP URL.
async fn serve(config: HttpConfig) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("address");
    let server = mcp::Server::builder("tls-test", "1.0.0").tool::<echo>().build();
    tokio::spawn(async move {
        if let Err(e) = mcp::serve::http(listener, server).config(config).await {
            panic!("the TLS server failed: {e}");
        }
    });
    format!("https://{addr}/mcp")
}

async fn echo_over(client: &Client) -> String {
    let result = tokio::time::timeout(TIMEOUT, client.call_tool("echo", json!({"text": "over TLS"})))
        .await
        .expect("in time")
        .expect("the call succeeds");
    serde_json::to_value(&result).expect("JSON")["content"][0]["text"].as_str().expect("text").to_owned()
}

async fn connect_err(builder: mcp::client::ClientBuilder, url: &str) -> ClientError {
    match tokio::time::timeout(TIMEOUT, builder.connect_http(url)).await.expect("in time") {
        Ok(_) => panic!("{url} was reached, but its certificate should have been refused"),
        Err(e) => e,
    }
}

fn transport_kind(error: &ClientError) -> TransportErrorKind {
    match error {
        ClientError::Transport(t) => t.kind(),
        other => panic!("expected a transport error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_ca_added_in_code_is_trusted_over_h2() {
    let ca = TestCa::new("tls test CA");
    // Only h2 offered: the call succeeds only if the client speaks HTTP/2.
    let url = serve(HttpConfig::default().tls(ca.server_tls_alpn(&["127.0.0.1", "localhost"], &[b"h2"]))).await;
    let client = Client::builder().add_root_certificate(ca.der.clone()).connect_http(&url).await.expect("connected");
    assert_eq!(echo_over(&client).await, "over TLS");
}

#[tokio::test]
async fn a_ca_added_as_pem_is_trusted_over_http1() {
    let ca = TestCa::new("tls test CA");
    // Only http/1.1 offered: the client falls back to it.
    let url = serve(HttpConfig::default().tls(ca.server_tls_alpn(&["127.0.0.1", "localhost"], &[b"http/1.1"]))).await;
    let client =
        Client::builder().add_root_certificates_pem(ca.pem.as_bytes()).connect_http(&url).await.expect("connected");
    assert_eq!(echo_over(&client).await, "over TLS");
}

#[tokio::test]
async fn the_server_prefers_h2_and_the_host_check_sees_the_h2_authority() {
    let ca = TestCa::new("tls test CA");
    let url = serve(HttpConfig::default().tls(ca.server_tls(&["127.0.0.1", "localhost"]))).await;
    let addr: SocketAddr = url.trim_start_matches("https://").trim_end_matches("/mcp").parse().expect("address");
    // A bare TLS client offering both: the server picks h2.
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.der.clone()).expect("test fixture");
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("test fixture")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").expect("name");
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config)).connect(name, tcp).await.expect("handshake");
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(b"h2".as_slice()));
    // And the MCP client, which also offers both, works (over h2: `:authority`, no `Host`).
    let client = Client::builder().add_root_certificate(ca.der.clone()).connect_http(&url).await.expect("connected");
    assert_eq!(echo_over(&client).await, "over TLS");
}

#[tokio::test]
async fn an_untrusted_ca_is_refused_with_a_typed_unknown_issuer_error() {
    let ca = TestCa::new("tls test CA");
    let stranger = TestCa::new("another CA");
    let url = serve(HttpConfig::default().tls(ca.server_tls(&["127.0.0.1"]))).await;
    let error = connect_err(Client::builder().add_root_certificate(stranger.der.clone()), &url).await;
    assert_eq!(transport_kind(&error), TransportErrorKind::Certificate(CertificateProblem::UnknownIssuer));
    let ClientError::Transport(transport) = &error else { unreachable!() };
    assert!(transport.is_certificate());
    let message = error.to_string();
    assert!(message.contains("127.0.0.1") && message.contains("unknown issuer"), "{message}");
    assert!(message.contains("SSL_CERT_FILE"), "the message says how to trust the CA: {message}");
    assert!(!message.contains("client error (Connect)"), "hyper's wording is replaced: {message}");
}

#[tokio::test]
async fn a_certificate_for_another_name_is_a_typed_name_mismatch() {
    let ca = TestCa::new("tls test CA");
    let url = serve(HttpConfig::default().tls(ca.server_tls(&["mcp.example.com"]))).await;
    let error = connect_err(Client::builder().add_root_certificate(ca.der.clone()), &url).await;
    assert_eq!(transport_kind(&error), TransportErrorKind::Certificate(CertificateProblem::NameMismatch));
    let message = error.to_string();
    assert!(message.contains("127.0.0.1") && message.contains("not valid for this host name"), "{message}");
    assert!(message.contains("mcp.example.com"), "rustls names what the certificate is for: {message}");
}

#[tokio::test]
async fn an_expired_certificate_is_a_typed_error() {
    let ca = TestCa::new("tls test CA");
    let (chain, key) = ca.server_pem(&["127.0.0.1"], true);
    let tls = ServerTlsConfig::from_pem(chain.as_bytes(), key.as_bytes()).expect("test fixture");
    let url = serve(HttpConfig::default().tls(tls)).await;
    let error = connect_err(Client::builder().add_root_certificate(ca.der.clone()), &url).await;
    assert_eq!(transport_kind(&error), TransportErrorKind::Certificate(CertificateProblem::Expired));
    assert!(error.to_string().contains("expired"), "{error}");
}

#[tokio::test]
async fn a_client_that_stalls_the_handshake_is_dropped() {
    let ca = TestCa::new("tls test CA");
    let config = HttpConfig::default()
        .tls(ca.server_tls(&["127.0.0.1"]))
        .tls_handshake_timeout(Duration::from_millis(200))
        .max_connections(1);
    let url = serve(config).await;
    let addr = url.trim_start_matches("https://").trim_end_matches("/mcp").to_owned();
    // Connect and say nothing: the server closes the connection once the timeout passes.
    let mut idle = tokio::net::TcpStream::connect(&addr).await.expect("connect");
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(5), idle.read(&mut buf)).await.expect("closed in time");
    assert!(matches!(read, Ok(0) | Err(_)), "the stalled connection is closed: {read:?}");
    // Its slot (the only one) is free again.
    let client = Client::builder().add_root_certificate(ca.der.clone()).connect_http(&url).await.expect("connected");
    assert_eq!(echo_over(&client).await, "over TLS");
}

#[tokio::test]
async fn an_h2_client_that_never_sends_its_preface_is_dropped_and_its_streams_are_capped() {
    let ca = TestCa::new("tls test CA");
    let config = HttpConfig::default()
        .tls(ca.server_tls(&["127.0.0.1"]))
        .header_read_timeout(Duration::from_millis(300))
        .max_streams_per_client(5)
        .max_connections(1);
    let url = serve(config).await;
    let addr = url.trim_start_matches("https://").trim_end_matches("/mcp").to_owned();
    // Finish the TLS handshake with ALPN h2, then say nothing (no HTTP/2 preface).
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.der.clone()).expect("test fixture");
    let mut client_tls =
        rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("test fixture")
            .with_root_certificates(roots)
            .with_no_client_auth();
    client_tls.alpn_protocols = vec![b"h2".to_vec()];
    let tcp = tokio::net::TcpStream::connect(&addr).await.expect("connect");
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").expect("test fixture");
    let mut idle =
        tokio_rustls::TlsConnector::from(Arc::new(client_tls)).connect(name, tcp).await.expect("TLS handshake");
    assert_eq!(idle.get_ref().1.alpn_protocol(), Some(b"h2".as_slice()));
    // The server sends its SETTINGS, then closes the connection once the timeout passes.
    let mut received = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        let mut buf = [0u8; 1024];
        loop {
            match idle.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the silent h2 connection is closed in time");
    // Its first frame is SETTINGS, with MAX_CONCURRENT_STREAMS (0x3) at the per-client cap.
    assert!(received.len() >= 9 && received[3] == 0x4, "a SETTINGS frame first: {received:?}");
    let length = usize::from(received[0]) << 16 | usize::from(received[1]) << 8 | usize::from(received[2]);
    let settings = received.get(9..9 + length).expect("the whole SETTINGS frame");
    let max_streams =
        settings.chunks_exact(6).find(|s| s[..2] == [0, 3]).map(|s| u32::from_be_bytes([s[2], s[3], s[4], s[5]]));
    assert_eq!(max_streams, Some(5), "{settings:?}");
    // Its slot (the only one) is free again.
    let client = Client::builder().add_root_certificate(ca.der.clone()).connect_http(&url).await.expect("connected");
    assert_eq!(echo_over(&client).await, "over TLS");
}

#[test]
fn unusable_server_certificates_and_keys_are_clear_errors() {
    let ca = TestCa::new("tls test CA");
    let (chain, key) = ca.server_pem(&["127.0.0.1"], false);
    let error = ServerTlsConfig::from_pem(b"not a certificate", key.as_bytes()).expect_err("no certificate");
    assert!(error.to_string().contains("certificate chain"), "{error}");
    let error = ServerTlsConfig::from_pem(chain.as_bytes(), b"no key here").expect_err("no key");
    assert!(error.to_string().contains("PRIVATE KEY"), "{error}");
    let other_key = KeyPair::generate().expect("test fixture").serialize_pem();
    let error = ServerTlsConfig::from_pem(chain.as_bytes(), other_key.as_bytes()).expect_err("a mismatched key");
    assert!(error.to_string().contains("cannot be used together"), "{error}");
    let error = ServerTlsConfig::from_pem_files("/nonexistent/cert.pem", "/nonexistent/key.pem").expect_err("no file");
    assert!(error.to_string().contains("/nonexistent/cert.pem"), "{error}");
}

// --- SSL_CERT_FILE, in a child process ---------------------------------------------

/// Runs [`child_connects_with_the_environments_roots`] in a child process against `url`,
/// with `SSL_CERT_FILE` set to `cert_file` (or unset), expecting `expect`.
fn run_child(url: &str, cert_file: Option<&std::path::Path>, expect: &str) {
    let exe = std::env::current_exe().expect("the test binary");
    let mut command = std::process::Command::new(exe);
    command
        .args(["--ignored", "--exact", "child_connects_with_the_environments_roots", "--nocapture"])
        .env("MCP_TLS_TEST_URL", url)
        .env("MCP_TLS_TEST_EXPECT", expect)
        .env_remove("SSL_CERT_DIR");
    match cert_file {
        Some(path) => command.env("SSL_CERT_FILE", path),
        None => command.env_remove("SSL_CERT_FILE"),
    };
    let output = command.output().expect("the child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the child failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "the child test ran:\n{stdout}");
}

/// A file in the temporary directory, removed on drop.
struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn ssl_cert_file_trusts_a_private_ca_and_without_it_the_server_is_refused() {
    let ca = TestCa::new("tls test CA");
    let url = serve(HttpConfig::default().tls(ca.server_tls(&["127.0.0.1"]))).await;
    let path = std::env::temp_dir().join(format!("mcp-tls-test-ca-{}.pem", std::process::id()));
    std::fs::write(&path, &ca.pem).expect("write the CA");
    let file = TempFile(path);
    let url_for_child = url.clone();
    let path = file.0.clone();
    tokio::task::spawn_blocking(move || {
        // Trusted through SSL_CERT_FILE: the call works.
        run_child(&url_for_child, Some(&path), "ok");
        // Without it, the platform's roots do not know the private CA.
        run_child(&url_for_child, None, "unknown-issuer");
    })
    .await
    .expect("the children ran");
    drop(file);
}

/// The child side of the test above: ignored unless run by it (with the URL set).
#[tokio::test]
#[ignore = "run by ssl_cert_file_trusts_a_private_ca_and_without_it_the_server_is_refused in a child process"]
async fn child_connects_with_the_environments_roots() {
    let Ok(url) = std::env::var("MCP_TLS_TEST_URL") else {
        eprintln!("MCP_TLS_TEST_URL is not set: nothing to do");
        return;
    };
    let expect = std::env::var("MCP_TLS_TEST_EXPECT").expect("MCP_TLS_TEST_EXPECT");
    let connected = tokio::time::timeout(TIMEOUT, Client::builder().connect_http(&url)).await.expect("in time");
    match (expect.as_str(), connected) {
        ("ok", Ok(client)) => assert_eq!(echo_over(&client).await, "over TLS"),
        ("unknown-issuer", Err(error)) => {
            assert_eq!(transport_kind(&error), TransportErrorKind::Certificate(CertificateProblem::UnknownIssuer));
            println!("refused as expected: {error}");
        }
        (expect, Ok(_)) => panic!("expected {expect}, but the server was reached"),
        (expect, Err(error)) => panic!("expected {expect}, got {error}"),
    }
}
