//! `JwtVerifier` against tokens minted here with jsonwebtoken, and a JWKS (and issuer
//! metadata) served by a small hyper server on a loopback port.
//!
//! The Ed25519 keys are TEST-ONLY: derived from fixed seeds below, never used elsewhere.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response, StatusCode};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::signature::{Ed25519KeyPair, KeyPair as _};
use serde_json::{Value, json};

use super::*;
use crate::auth::tls::tests::TestPki;

const RESOURCE: &str = "http://127.0.0.1:8000/mcp";

/// A TEST-ONLY Ed25519 key: its seed, `kid` and public JWK.
struct TestKey {
    kid: &'static str,
    seed: [u8; 32],
}

const K1: TestKey = TestKey { kid: "k1", seed: [0x11; 32] };
const K2: TestKey = TestKey { kid: "k2", seed: [0x22; 32] };
const K3: TestKey = TestKey { kid: "k3", seed: [0x33; 32] };

impl TestKey {
    fn public(&self) -> Vec<u8> {
        Ed25519KeyPair::from_seed_unchecked(&self.seed).expect("test fixture").public_key().as_ref().to_vec()
    }

    fn jwk(&self) -> Value {
        json!({"kty": "OKP", "crv": "Ed25519", "kid": self.kid, "use": "sig", "x": URL_SAFE_NO_PAD.encode(self.public())})
    }

    /// The seed as an unencrypted PKCS #8 v1 document (RFC 8410): the fixed prefix for an
    /// Ed25519 private key, then the 32 seed bytes.
    fn encoding_key(&self) -> EncodingKey {
        let mut der =
            vec![0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
        der.extend_from_slice(&self.seed);
        EncodingKey::from_ed_der(&der)
    }

    fn sign(&self, claims: &Value) -> String {
        self.sign_as(self.kid, claims)
    }

    /// Signs with this key but names `kid` in the header.
    fn sign_as(&self, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.typ = Some("at+jwt".into());
        header.kid = Some(kid.into());
        jsonwebtoken::encode(&header, claims, &self.encoding_key()).expect("test fixture")
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("test fixture").as_secs()
}

/// The test authorization server: documents by path, and a count of JWKS fetches.
#[derive(Default)]
struct TestAs {
    documents: Mutex<HashMap<String, Value>>,
    jwks_fetches: AtomicUsize,
}

impl TestAs {
    fn set(&self, path: &str, document: Value) {
        self.documents.lock().expect("test fixture").insert(path.to_owned(), document);
    }

    fn set_jwks(&self, keys: &[&TestKey]) {
        self.set("/jwks", json!({"keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>()}));
    }

    fn fetches(&self) -> usize {
        self.jwks_fetches.load(Ordering::SeqCst)
    }
}

async fn serve(test_as: Arc<TestAs>) -> SocketAddr {
    serve_with(test_as, None).await
}

/// As [`serve`], over TLS with `acceptor`'s certificate when given.
async fn serve_with(test_as: Arc<TestAs>, acceptor: Option<tokio_rustls::TlsAcceptor>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("test fixture");
    let addr = listener.local_addr().expect("test fixture");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let test_as = Arc::clone(&test_as);
            let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                let test_as = Arc::clone(&test_as);
                async move {
                    let path = request.uri().path().to_owned();
                    if path == "/jwks" {
                        test_as.jwks_fetches.fetch_add(1, Ordering::SeqCst);
                    }
                    let document = test_as.documents.lock().expect("test fixture").get(&path).cloned();
                    let response = match document {
                        Some(document) => Response::new(Full::new(Bytes::from(document.to_string()))),
                        None => {
                            let mut response = Response::new(Full::new(Bytes::new()));
                            *response.status_mut() = StatusCode::NOT_FOUND;
                            response
                        }
                    };
                    Ok::<_, Infallible>(response)
                }
            });
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let http1 = hyper::server::conn::http1::Builder::new();
                match acceptor {
                    // A client that refuses the certificate ends the handshake: nothing to serve.
                    Some(acceptor) => {
                        if let Ok(tls) = acceptor.accept(stream).await {
                            let _ = http1.serve_connection(hyper_util::rt::TokioIo::new(tls), service).await;
                        }
                    }
                    None => {
                        let _ = http1.serve_connection(hyper_util::rt::TokioIo::new(stream), service).await;
                    }
                }
            });
        }
    });
    addr
}

/// An authorization server at `http://{addr}` serving `keys`, and a verifier for it with
/// a configured JWKS URL and the default rate limit.
async fn setup(keys: &[&TestKey]) -> (Arc<TestAs>, String, JwtVerifier) {
    let test_as = Arc::new(TestAs::default());
    test_as.set_jwks(keys);
    let issuer = format!("http://{}", serve(Arc::clone(&test_as)).await);
    let verifier = JwtVerifier::builder()
        .issuer(&issuer)
        .audience(RESOURCE)
        .jwks_url(format!("{issuer}/jwks"))
        .build()
        .expect("a valid configuration");
    (test_as, issuer, verifier)
}

fn claims(issuer: &str) -> Value {
    json!({
        "iss": issuer,
        "aud": RESOURCE,
        "sub": "alice",
        "client_id": "app",
        "scope": "db:read db:write",
        "exp": now() + 300,
        "iat": now(),
    })
}

fn refused(result: Result<AuthInfo, OAuthError>) -> OAuthErrorKind {
    result.expect_err("the token must be refused").kind()
}

#[tokio::test]
async fn a_valid_token_is_accepted_and_mapped() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let auth = verifier.verify_token(&K1.sign(&claims(&issuer)), None).await.expect("a valid token is accepted");
    assert_eq!(auth.client_id, "app");
    assert_eq!(auth.issuer.as_deref(), Some(issuer.as_str()));
    assert_eq!(auth.subject.as_deref(), Some("alice"));
    assert_eq!(auth.scopes, ["db:read", "db:write"]);
    let exp = claims(&issuer)["exp"].as_u64().expect("test fixture");
    assert!(auth.expires_at.is_some_and(|at| at >= exp && at <= exp + 61));
}

#[tokio::test]
async fn the_token_verifier_hook_checks_the_transports_resource() {
    let test_as = Arc::new(TestAs::default());
    test_as.set_jwks(&[&K1]);
    let issuer = format!("http://{}", serve(Arc::clone(&test_as)).await);
    // No audience configured: the resource of the request is the audience.
    let verifier = JwtVerifier::builder()
        .issuer(&issuer)
        .jwks_url(format!("{issuer}/jwks"))
        .build()
        .expect("a valid configuration");
    let token = K1.sign(&claims(&issuer));
    assert!(verifier.verify_request(&VerifyRequest::new(&token).with_resource(RESOURCE)).await.is_some());
    let other = VerifyRequest::new(&token).with_resource("http://127.0.0.1:8000/other");
    assert!(verifier.verify_request(&other).await.is_none());
    assert_eq!(refused(verifier.verify_token(&token, None).await), OAuthErrorKind::Config);
    assert!(verifier.verify(&token).await.is_none());
}

#[tokio::test]
async fn azp_and_scp_are_read_when_client_id_and_scope_are_absent() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let mut c = claims(&issuer);
    let c_obj = c.as_object_mut().expect("test fixture");
    c_obj.remove("client_id");
    c_obj.remove("scope");
    c_obj.insert("azp".into(), json!("spa"));
    c_obj.insert("scp".into(), json!(["a", "b"]));
    c_obj.insert("aud".into(), json!(["http://elsewhere", RESOURCE]));
    let auth = verifier.verify_token(&K1.sign(&c), None).await.expect("azp and scp are read");
    assert_eq!(auth.client_id, "spa");
    assert_eq!(auth.scopes, ["a", "b"]);
}

#[tokio::test]
async fn an_expired_token_is_refused_beyond_the_leeway_only() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let mut c = claims(&issuer);
    c["exp"] = json!(now() - 3600);
    assert_eq!(refused(verifier.verify_token(&K1.sign(&c), None).await), OAuthErrorKind::Expired);
    c["exp"] = json!(now() - 10);
    assert!(verifier.verify_token(&K1.sign(&c), None).await.is_ok(), "10 s past exp is within the 60 s leeway");
    c.as_object_mut().expect("test fixture").remove("exp");
    assert_eq!(refused(verifier.verify_token(&K1.sign(&c), None).await), OAuthErrorKind::Expired);
}

#[tokio::test]
async fn a_token_not_valid_yet_is_refused() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let mut c = claims(&issuer);
    c["nbf"] = json!(now() + 3600);
    assert_eq!(refused(verifier.verify_token(&K1.sign(&c), None).await), OAuthErrorKind::NotYetValid);
}

#[tokio::test]
async fn a_token_for_another_audience_is_refused() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let mut c = claims(&issuer);
    c["aud"] = json!("http://127.0.0.1:9999/mcp");
    assert_eq!(refused(verifier.verify_token(&K1.sign(&c), None).await), OAuthErrorKind::Audience);
    c.as_object_mut().expect("test fixture").remove("aud");
    assert_eq!(refused(verifier.verify_token(&K1.sign(&c), None).await), OAuthErrorKind::Audience);
}

#[tokio::test]
async fn a_token_from_another_issuer_is_refused() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let mut c = claims(&issuer);
    c["iss"] = json!("http://evil.example");
    assert_eq!(refused(verifier.verify_token(&K1.sign(&c), None).await), OAuthErrorKind::Issuer);
    // Exact comparison: a trailing slash is another issuer.
    c["iss"] = json!(format!("{issuer}/"));
    assert_eq!(refused(verifier.verify_token(&K1.sign(&c), None).await), OAuthErrorKind::Issuer);
}

#[tokio::test]
async fn a_bad_signature_is_refused() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    // Signed by K2's key but claiming to be K1's.
    let forged = K2.sign_as("k1", &claims(&issuer));
    assert_eq!(refused(verifier.verify_token(&forged, None).await), OAuthErrorKind::Signature);
    // A valid token with one payload byte changed.
    let token = K1.sign(&claims(&issuer));
    let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    let mut payload = URL_SAFE_NO_PAD.decode(&parts[1]).expect("test fixture");
    payload[2] ^= 1;
    parts[1] = URL_SAFE_NO_PAD.encode(payload);
    assert!(verifier.verify_token(&parts.join("."), None).await.is_err());
}

#[tokio::test]
async fn alg_none_is_refused() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT","kid":"k1"}"#);
    let payload = URL_SAFE_NO_PAD.encode(claims(&issuer).to_string());
    for token in [format!("{header}.{payload}."), format!("{header}.{payload}")] {
        assert_eq!(refused(verifier.verify_token(&token, None).await), OAuthErrorKind::Malformed);
    }
}

#[tokio::test]
async fn hs256_keyed_with_the_public_key_is_refused() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let public = K1.public();
    let x = URL_SAFE_NO_PAD.encode(&public);
    for secret in [public.as_slice(), x.as_bytes()] {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("k1".into());
        let token =
            jsonwebtoken::encode(&header, &claims(&issuer), &EncodingKey::from_secret(secret).expect("test fixture"))
                .expect("test fixture");
        assert_eq!(refused(verifier.verify_token(&token, None).await), OAuthErrorKind::Algorithm);
    }
}

#[tokio::test]
async fn a_symmetric_key_in_the_jwks_verifies_nothing() {
    let (test_as, issuer, verifier) = setup(&[]).await;
    test_as.set("/jwks", json!({"keys": [{"kty": "oct", "kid": "k1", "k": URL_SAFE_NO_PAD.encode(b"shared")}]}));
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("k1".into());
    let token =
        jsonwebtoken::encode(&header, &claims(&issuer), &EncodingKey::from_secret(b"shared").expect("test fixture"))
            .expect("test fixture");
    assert_eq!(refused(verifier.verify_token(&token, None).await), OAuthErrorKind::UnknownKey);
}

#[tokio::test]
async fn a_foreign_typ_is_refused() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some("k1".into());
    header.typ = Some("dpop+jwt".into());
    let token = jsonwebtoken::encode(&header, &claims(&issuer), &K1.encoding_key()).expect("test fixture");
    assert_eq!(refused(verifier.verify_token(&token, None).await), OAuthErrorKind::Type);
    header.typ = Some("JWT".into());
    let token = jsonwebtoken::encode(&header, &claims(&issuer), &K1.encoding_key()).expect("test fixture");
    assert!(verifier.verify_token(&token, None).await.is_ok());
}

#[tokio::test]
async fn an_unknown_kid_refetches_once_within_the_rate_limit() {
    let test_as = Arc::new(TestAs::default());
    test_as.set_jwks(&[&K1]);
    let issuer = format!("http://{}", serve(Arc::clone(&test_as)).await);
    let verifier = JwtVerifier::builder()
        .issuer(&issuer)
        .audience(RESOURCE)
        .jwks_url(format!("{issuer}/jwks"))
        .refresh_interval(Duration::from_millis(300))
        .build()
        .expect("test fixture");
    assert!(verifier.verify_token(&K1.sign(&claims(&issuer)), None).await.is_ok());
    assert!(verifier.verify_token(&K1.sign(&claims(&issuer)), None).await.is_ok());
    assert_eq!(test_as.fetches(), 1, "known keys are cached");

    // Later, the authorization server rotates in K2: the unknown kid refetches and picks
    // it up, without a restart.
    tokio::time::sleep(Duration::from_millis(400)).await;
    test_as.set_jwks(&[&K1, &K2]);
    let token = K2.sign(&claims(&issuer));
    assert!(verifier.verify_token(&token, None).await.is_ok());
    assert_eq!(test_as.fetches(), 2);

    // K3 appears too, but the last fetch was just now: no refetch, the token is refused.
    test_as.set_jwks(&[&K1, &K2, &K3]);
    let token = K3.sign(&claims(&issuer));
    assert_eq!(refused(verifier.verify_token(&token, None).await), OAuthErrorKind::UnknownKey);
    assert_eq!(test_as.fetches(), 2);
}

#[tokio::test]
async fn a_refetch_is_allowed_again_after_the_interval() {
    let test_as = Arc::new(TestAs::default());
    test_as.set_jwks(&[&K1]);
    let issuer = format!("http://{}", serve(Arc::clone(&test_as)).await);
    let verifier = JwtVerifier::builder()
        .issuer(&issuer)
        .audience(RESOURCE)
        .jwks_url(format!("{issuer}/jwks"))
        .refresh_interval(Duration::from_millis(200))
        .build()
        .expect("test fixture");
    assert_eq!(refused(verifier.verify_token(&K2.sign(&claims(&issuer)), None).await), OAuthErrorKind::UnknownKey);
    test_as.set_jwks(&[&K2]);
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(verifier.verify_token(&K2.sign(&claims(&issuer)), None).await.is_ok());
    assert_eq!(test_as.fetches(), 2);
}

#[tokio::test]
async fn the_jwks_is_discovered_from_rfc8414_metadata() {
    let test_as = Arc::new(TestAs::default());
    test_as.set_jwks(&[&K1]);
    let origin = format!("http://{}", serve(Arc::clone(&test_as)).await);
    let issuer = format!("{origin}/tenant1");
    test_as.set(
        "/.well-known/oauth-authorization-server/tenant1",
        json!({"issuer": issuer, "jwks_uri": format!("{origin}/jwks")}),
    );
    let verifier = JwtVerifier::builder().issuer(&issuer).audience(RESOURCE).build().expect("a valid configuration");
    assert!(verifier.verify_token(&K1.sign(&claims(&issuer)), None).await.is_ok());
}

#[tokio::test]
async fn the_jwks_is_discovered_from_oidc_metadata_as_a_fallback() {
    let test_as = Arc::new(TestAs::default());
    test_as.set_jwks(&[&K1]);
    let origin = format!("http://{}", serve(Arc::clone(&test_as)).await);
    let issuer = format!("{origin}/tenant1");
    test_as.set(
        "/tenant1/.well-known/openid-configuration",
        json!({"issuer": issuer, "jwks_uri": format!("{origin}/jwks")}),
    );
    let verifier = JwtVerifier::builder().issuer(&issuer).audience(RESOURCE).build().expect("a valid configuration");
    assert!(verifier.verify_token(&K1.sign(&claims(&issuer)), None).await.is_ok());
}

#[tokio::test]
async fn metadata_for_another_issuer_is_not_used() {
    let test_as = Arc::new(TestAs::default());
    test_as.set_jwks(&[&K1]);
    let issuer = format!("http://{}", serve(Arc::clone(&test_as)).await);
    test_as.set(
        "/.well-known/oauth-authorization-server",
        json!({"issuer": "http://evil.example", "jwks_uri": format!("{issuer}/jwks")}),
    );
    let verifier = JwtVerifier::builder().issuer(&issuer).audience(RESOURCE).build().expect("a valid configuration");
    assert_eq!(refused(verifier.verify_token(&K1.sign(&claims(&issuer)), None).await), OAuthErrorKind::Metadata);
    assert_eq!(test_as.fetches(), 0);
}

#[tokio::test]
async fn an_oversized_jwks_is_refused() {
    let test_as = Arc::new(TestAs::default());
    test_as.set("/jwks", json!({"keys": [K1.jwk()], "padding": "x".repeat(4096)}));
    let issuer = format!("http://{}", serve(Arc::clone(&test_as)).await);
    let verifier = JwtVerifier::builder()
        .issuer(&issuer)
        .audience(RESOURCE)
        .jwks_url(format!("{issuer}/jwks"))
        .max_document_bytes(1024)
        .build()
        .expect("test fixture");
    assert_eq!(refused(verifier.verify_token(&K1.sign(&claims(&issuer)), None).await), OAuthErrorKind::Fetch);
}

#[test]
fn https_urls_build_and_a_missing_issuer_is_a_configuration_error() {
    // No fetch happens at build(): hosted providers' https URLs are accepted as they are.
    assert!(JwtVerifier::builder().issuer("https://as.example").build().is_ok());
    assert!(JwtVerifier::builder().issuer("https://as.example").jwks_url("https://as.example/jwks").build().is_ok());
    // An https issuer is fine with a loopback JWKS URL: the issuer is only compared.
    assert!(JwtVerifier::builder().issuer("https://as.example").jwks_url("http://127.0.0.1:1/jwks").build().is_ok());
    assert_eq!(JwtVerifier::builder().build().expect_err("a configuration error").kind(), OAuthErrorKind::Config);
    let ftp = JwtVerifier::builder().issuer("ftp://as.example").build().expect_err("a configuration error");
    assert_eq!(ftp.kind(), OAuthErrorKind::UnsupportedScheme);
}

#[test]
fn plain_http_to_a_host_other_than_loopback_is_refused_at_build() {
    let issuer = JwtVerifier::builder().issuer("http://as.example").build().expect_err("insecure");
    assert_eq!(issuer.kind(), OAuthErrorKind::InsecureUrl);
    let jwks = JwtVerifier::builder()
        .issuer("https://as.example")
        .jwks_url("http://as.example/jwks")
        .build()
        .expect_err("insecure");
    assert_eq!(jwks.kind(), OAuthErrorKind::InsecureUrl);
    // Loopback needs no opt-in; the opt-in allows any host.
    assert!(JwtVerifier::builder().issuer("http://localhost:9000").build().is_ok());
    assert!(JwtVerifier::builder().issuer("http://[::1]:9000").build().is_ok());
    assert!(JwtVerifier::builder().issuer("http://as.example").allow_insecure_http(true).build().is_ok());
    assert!(
        JwtVerifier::builder()
            .issuer("https://as.example")
            .jwks_url("http://as.example/jwks")
            .allow_insecure_http(true)
            .build()
            .is_ok()
    );
}

/// An authorization server at `https://localhost:{port}` with metadata and `keys`, its
/// certificate signed by a fresh test CA.
async fn serve_https(keys: &[&TestKey]) -> (Arc<TestAs>, String, TestPki) {
    let pki = TestPki::new();
    let test_as = Arc::new(TestAs::default());
    test_as.set_jwks(keys);
    let addr = serve_with(Arc::clone(&test_as), Some(pki.acceptor.clone())).await;
    let issuer = format!("https://localhost:{}", addr.port());
    test_as.set(
        "/.well-known/oauth-authorization-server",
        json!({"issuer": issuer, "jwks_uri": format!("https://127.0.0.1:{}/jwks", addr.port())}),
    );
    (test_as, issuer, pki)
}

#[tokio::test]
async fn keys_discovered_over_https_verify_with_the_test_ca_added() {
    let (test_as, issuer, pki) = serve_https(&[&K1]).await;
    let der = JwtVerifier::builder()
        .issuer(&issuer)
        .audience(RESOURCE)
        .add_root_certificate(pki.ca_der.clone())
        .build()
        .expect("a valid configuration");
    let auth = der.verify_token(&K1.sign(&claims(&issuer)), None).await.expect("accepted");
    assert_eq!(auth.issuer.as_deref(), Some(issuer.as_str()));
    assert_eq!(test_as.fetches(), 1);
    let pem = JwtVerifier::builder()
        .issuer(&issuer)
        .audience(RESOURCE)
        .add_root_certificates_pem(&pki.ca_pem)
        .build()
        .expect("a valid configuration");
    assert!(pem.verify_token(&K1.sign(&claims(&issuer)), None).await.is_ok());
    assert_eq!(test_as.fetches(), 2);
}

#[tokio::test]
async fn without_the_test_ca_the_https_fetch_fails() {
    let (test_as, issuer, _pki) = serve_https(&[&K1]).await;
    let verifier = JwtVerifier::builder().issuer(&issuer).audience(RESOURCE).build().expect("a valid configuration");
    assert_eq!(refused(verifier.verify_token(&K1.sign(&claims(&issuer)), None).await), OAuthErrorKind::Fetch);
    // A configured JWKS URL likewise, and even the insecure opt-in does not skip the check.
    let verifier = JwtVerifier::builder()
        .issuer(&issuer)
        .audience(RESOURCE)
        .jwks_url(format!("{issuer}/jwks"))
        .allow_insecure_http(true)
        .build()
        .expect("a valid configuration");
    assert_eq!(refused(verifier.verify_token(&K1.sign(&claims(&issuer)), None).await), OAuthErrorKind::Fetch);
    assert_eq!(test_as.fetches(), 0);
}

#[tokio::test]
async fn https_metadata_naming_a_plain_http_jwks_elsewhere_is_refused() {
    let (test_as, issuer, pki) = serve_https(&[&K1]).await;
    test_as.set(
        "/.well-known/oauth-authorization-server",
        json!({"issuer": issuer, "jwks_uri": "http://as.example/jwks"}),
    );
    let verifier = JwtVerifier::builder()
        .issuer(&issuer)
        .audience(RESOURCE)
        .add_root_certificate(pki.ca_der)
        .build()
        .expect("a valid configuration");
    assert_eq!(refused(verifier.verify_token(&K1.sign(&claims(&issuer)), None).await), OAuthErrorKind::InsecureUrl);
}

#[tokio::test]
async fn errors_never_carry_the_token_or_claims() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let mut c = claims(&issuer);
    c["aud"] = json!("http://secret-audience.example");
    c["sub"] = json!("secret-subject");
    let token = K1.sign(&c);
    let error = verifier.verify_token(&token, None).await.expect_err("refused").to_string();
    assert!(
        !error.contains(&token) && !error.contains("secret-subject") && !error.contains("secret-audience"),
        "{error}"
    );
}

/// A verifier for `issuer`'s JWKS with no leeway and this cache bound.
fn cached_verifier(issuer: &str, audience: Option<&str>, max_entries: usize) -> JwtVerifier {
    let mut builder = JwtVerifier::builder()
        .issuer(issuer)
        .jwks_url(format!("{issuer}/jwks"))
        .leeway(Duration::ZERO)
        .verified_token_cache(max_entries);
    if let Some(audience) = audience {
        builder = builder.audience(audience);
    }
    builder.build().expect("a valid configuration")
}

#[tokio::test]
async fn a_cached_token_is_refused_once_expired() {
    let (_as, issuer, _) = setup(&[&K1]).await;
    let verifier = cached_verifier(&issuer, Some(RESOURCE), 16);
    let mut c = claims(&issuer);
    let exp = now() + 2;
    c["exp"] = json!(exp);
    let token = K1.sign(&c);
    assert!(verifier.verify_token(&token, None).await.is_ok());
    assert!(verifier.verify_token(&token, None).await.is_ok(), "served from the cache");
    assert_eq!(verifier.cached_tokens(), 1);
    while now() <= exp {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(refused(verifier.verify_token(&token, None).await), OAuthErrorKind::Expired);
    assert!(verifier.verify_request(&VerifyRequest::new(&token)).await.is_none());
    assert_eq!(verifier.cached_tokens(), 0, "the expired entry is gone");
}

/// The transport's call shares the cache's caller: a hit copies none of its strings, and
/// the caller is the one `verify_request` reads.
#[tokio::test]
async fn a_cache_hit_is_shared_not_copied() {
    let (_as, issuer, _) = setup(&[&K1]).await;
    let verifier = cached_verifier(&issuer, Some(RESOURCE), 16);
    let token = K1.sign(&claims(&issuer));
    let request = VerifyRequest::new(&token);
    let first = verifier.verify_shared(&request).await.expect("verified");
    let again = verifier.verify_shared(&request).await.expect("served from the cache");
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(verifier.verify_request(&request).await.as_ref(), Some(&*first));
    let uncached = cached_verifier(&issuer, Some(RESOURCE), 0);
    let a = uncached.verify_shared(&request).await.expect("verified");
    let b = uncached.verify_shared(&request).await.expect("verified again");
    assert!(!Arc::ptr_eq(&a, &b) && a == b);
}

#[tokio::test]
async fn another_token_or_audience_is_not_served_from_the_cache() {
    let (_as, issuer, _) = setup(&[&K1]).await;
    // No configured audience: each request's resource is the audience.
    let verifier = cached_verifier(&issuer, None, 16);
    let token = K1.sign(&claims(&issuer));
    assert!(verifier.verify_token(&token, Some(RESOURCE)).await.is_ok());
    assert_eq!(verifier.cached_tokens(), 1);
    // The same claims signed by another key under the cached key's kid, and the cached
    // token with one payload byte changed: each is checked, and refused.
    assert_eq!(refused(verifier.verify_token(&K2.sign_as("k1", &claims(&issuer)), Some(RESOURCE)).await), {
        OAuthErrorKind::Signature
    });
    let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    let mut payload = URL_SAFE_NO_PAD.decode(&parts[1]).expect("test fixture");
    payload[2] ^= 1;
    parts[1] = URL_SAFE_NO_PAD.encode(payload);
    assert!(verifier.verify_token(&parts.join("."), Some(RESOURCE)).await.is_err());
    // The cached token, for another resource: checked for that audience, and refused.
    let other = "http://127.0.0.1:8000/other";
    assert_eq!(refused(verifier.verify_token(&token, Some(other)).await), OAuthErrorKind::Audience);
    // Through the transport's hook: answered from the cache for the resource, refused for another.
    let hit = verifier.verify_request(&VerifyRequest::new(&token).with_resource(RESOURCE)).await;
    assert_eq!(hit.and_then(|auth| auth.subject).as_deref(), Some("alice"));
    assert!(verifier.verify_request(&VerifyRequest::new(&token).with_resource(other)).await.is_none());
    // Another subject's token is its own entry, with its own principal.
    let mut c = claims(&issuer);
    c["sub"] = json!("bob");
    let bob = verifier.verify_token(&K1.sign(&c), Some(RESOURCE)).await.expect("bob's token");
    assert_eq!(bob.subject.as_deref(), Some("bob"));
    let alice = verifier.verify_token(&token, Some(RESOURCE)).await.expect("alice's token, cached");
    assert_eq!((alice.subject.as_deref(), alice.scopes.len()), (Some("alice"), 2));
    assert_eq!(verifier.cached_tokens(), 2);
}

#[tokio::test]
async fn the_cache_holds_at_most_its_bound() {
    let (_as, issuer, _) = setup(&[&K1]).await;
    let verifier = cached_verifier(&issuer, Some(RESOURCE), 3);
    for n in 0..10u64 {
        let mut c = claims(&issuer);
        c["sub"] = json!(format!("user-{n}"));
        c["exp"] = json!(now() + 300 + n);
        assert!(verifier.verify_token(&K1.sign(&c), None).await.is_ok());
        assert!(verifier.cached_tokens() <= 3, "{} entries after {} tokens", verifier.cached_tokens(), n + 1);
    }
    assert_eq!(verifier.cached_tokens(), 3);

    // Turned off: nothing is kept, and tokens are still checked.
    let uncached = cached_verifier(&issuer, Some(RESOURCE), 0);
    let token = K1.sign(&claims(&issuer));
    assert!(uncached.verify_token(&token, None).await.is_ok());
    assert!(uncached.verify_token(&token, None).await.is_ok());
    assert_eq!(uncached.cached_tokens(), 0);
}

#[tokio::test]
async fn the_cache_shows_no_token_or_principal() {
    let (_as, issuer, verifier) = setup(&[&K1]).await;
    let mut c = claims(&issuer);
    c["sub"] = json!("secret-subject");
    let token = K1.sign(&c);
    assert!(verifier.verify_token(&token, None).await.is_ok());
    assert_eq!(verifier.cached_tokens(), 1, "the cache is on by default");
    let shown = format!("{verifier:?}");
    assert!(!shown.contains(&token) && !shown.contains("secret-subject"), "{shown}");
}
