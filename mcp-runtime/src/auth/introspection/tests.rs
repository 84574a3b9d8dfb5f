//! `IntrospectionVerifier` against a small hyper server on a loopback port that plays the
//! authorization server: its metadata, and an introspection endpoint answering per token.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, StatusCode};
use serde_json::{Value, json};

use super::*;

const RESOURCE: &str = "http://127.0.0.1:8000/mcp";

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("test fixture").as_secs()
}

/// How the introspection endpoint answers for a token.
#[derive(Clone)]
enum Answer {
    Json(Value),
    Status(u16),
    Raw(&'static str),
    Big(usize),
}

/// The test authorization server.
#[derive(Default)]
struct TestAs {
    documents: Mutex<HashMap<String, Value>>,
    answers: Mutex<HashMap<String, Answer>>,
    /// Each introspection request's `Authorization` header and form body.
    requests: Mutex<Vec<(Option<String>, String)>>,
    calls: AtomicUsize,
    delay: Mutex<Duration>,
}

impl TestAs {
    fn set_document(&self, path: &str, document: Value) {
        self.documents.lock().expect("test fixture").insert(path.to_owned(), document);
    }

    fn answer(&self, token: &str, answer: Answer) {
        self.answers.lock().expect("test fixture").insert(token.to_owned(), answer);
    }

    fn active(&self, token: &str, claims: Value) {
        let mut answer = json!({"active": true, "aud": RESOURCE, "exp": now() + 3600});
        if let (Some(answer), Some(claims)) = (answer.as_object_mut(), claims.as_object()) {
            answer.extend(claims.clone());
        }
        self.answer(token, Answer::Json(answer));
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    async fn respond(&self, request: Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
        let path = request.uri().path().to_owned();
        if request.method() == hyper::Method::GET {
            let document = self.documents.lock().expect("test fixture").get(&path).cloned();
            return match document {
                Some(document) => Response::new(Full::new(Bytes::from(document.to_string()))),
                None => status(404),
            };
        }
        if path != "/introspect" {
            return status(404);
        }
        self.calls.fetch_add(1, Ordering::SeqCst);
        let authorization =
            request.headers().get(hyper::header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        let form = String::from_utf8_lossy(&body).into_owned();
        let token = form
            .split('&')
            .find_map(|pair| pair.strip_prefix("token="))
            .map(|t| t.replace("%2B", "+").replace("%2F", "/").replace("%3D", "="))
            .unwrap_or_default();
        self.requests.lock().expect("test fixture").push((authorization, form));
        let delay = *self.delay.lock().expect("test fixture");
        tokio::time::sleep(delay).await;
        let answer = self.answers.lock().expect("test fixture").get(&token).cloned();
        match answer.unwrap_or(Answer::Json(json!({"active": false}))) {
            Answer::Json(value) => Response::new(Full::new(Bytes::from(value.to_string()))),
            Answer::Status(code) => status(code),
            Answer::Raw(text) => Response::new(Full::new(Bytes::from(text))),
            Answer::Big(n) => {
                let padding = "x".repeat(n);
                Response::new(Full::new(Bytes::from(json!({"active": true, "padding": padding}).to_string())))
            }
        }
    }
}

fn status(code: u16) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::from_u16(code).expect("test fixture");
    response
}

async fn serve(test_as: Arc<TestAs>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("test fixture");
    let addr = listener.local_addr().expect("test fixture");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let test_as = Arc::clone(&test_as);
            let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                let test_as = Arc::clone(&test_as);
                async move { Ok::<_, Infallible>(test_as.respond(request).await) }
            });
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
            });
        }
    });
    addr
}

/// An authorization server at the returned issuer URL, and a builder for a verifier with
/// its introspection URL, its issuer, client credentials and the resource as audience.
async fn setup() -> (Arc<TestAs>, String, IntrospectionVerifierBuilder) {
    let test_as = Arc::new(TestAs::default());
    let issuer = format!("http://{}", serve(Arc::clone(&test_as)).await);
    let builder = IntrospectionVerifier::builder()
        .issuer(&issuer)
        .introspection_url(format!("{issuer}/introspect"))
        .client_credentials("mcp-server", "s3cret")
        .audience(RESOURCE);
    (test_as, issuer, builder)
}

async fn refusal(verifier: &IntrospectionVerifier, token: &str) -> OAuthErrorKind {
    let error = verifier.verify_token(token, None).await.expect_err("the token must be refused");
    assert!(!error.to_string().contains(token), "the error names the token: {error}");
    error.kind()
}

#[tokio::test]
async fn an_active_answer_maps_into_auth_info() {
    let (test_as, issuer, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    let exp = now() + 600;
    test_as.active(
        "opaque-1",
        json!({"client_id": "web-app", "sub": "alice", "iss": issuer, "scope": "db:read  db:write", "exp": exp}),
    );
    let auth = verifier.verify_token("opaque-1", None).await.expect("an active token");
    assert_eq!(
        auth,
        AuthInfo {
            client_id: "web-app".into(),
            issuer: Some(issuer.clone()),
            subject: Some("alice".into()),
            scopes: vec!["db:read".into(), "db:write".into()],
            expires_at: Some(exp),
        }
    );
    // Through the trait, too.
    assert_eq!(verifier.verify("opaque-1").await, Some(auth));
}

#[tokio::test]
async fn without_iss_the_configured_issuer_is_the_principal_s() {
    let (test_as, issuer, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    test_as.active("t.9f2c41", json!({"sub": "alice"}));
    let auth = verifier.verify_token("t.9f2c41", None).await.expect("an active token");
    assert_eq!(auth.issuer, Some(issuer));
    assert_eq!(auth.client_id, "");
}

#[tokio::test]
async fn the_client_authenticates_with_basic_and_posts_the_token_as_a_form() {
    let (test_as, issuer, _) = setup().await;
    let verifier = IntrospectionVerifier::builder()
        .introspection_url(format!("{issuer}/introspect"))
        .client_credentials("my client:1", "p@ss word/+")
        .build()
        .expect("a valid configuration");
    test_as.active("abc+/=", json!({}));
    assert!(verifier.verify_token("abc+/=", None).await.is_ok());
    let requests = test_as.requests.lock().expect("test fixture").clone();
    assert_eq!(requests.len(), 1);
    let (authorization, form) = &requests[0];
    let encoded = authorization.as_deref().and_then(|a| a.strip_prefix("Basic ")).expect("Basic authentication");
    let decoded = String::from_utf8(STANDARD.decode(encoded).expect("base64")).expect("UTF-8");
    // RFC 6749 §2.3.1: both form-url-encoded before joining with ':'.
    assert_eq!(decoded, "my+client%3A1:p%40ss+word%2F%2B");
    assert_eq!(form, "token=abc%2B%2F%3D&token_type_hint=access_token");
}

#[tokio::test]
async fn without_credentials_no_authorization_header_is_sent() {
    let (test_as, issuer, _) = setup().await;
    let verifier = IntrospectionVerifier::builder()
        .introspection_url(format!("{issuer}/introspect"))
        .build()
        .expect("a valid configuration");
    test_as.active("t.9f2c41", json!({}));
    assert!(verifier.verify_token("t.9f2c41", None).await.is_ok());
    assert_eq!(test_as.requests.lock().expect("test fixture")[0].0, None);
}

#[tokio::test]
async fn an_inactive_token_is_refused() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    test_as.answer("revoked.9f2c41", Answer::Json(json!({"active": false})));
    assert_eq!(refusal(&verifier, "revoked.9f2c41").await, OAuthErrorKind::Inactive);
    assert_eq!(refusal(&verifier, "never-issued.9f2c41").await, OAuthErrorKind::Inactive);
    assert_eq!(verifier.verify("revoked.9f2c41").await, None);
}

#[tokio::test]
async fn active_must_be_the_boolean_true() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    test_as.answer("string.9f2c41", Answer::Json(json!({"active": "true", "aud": RESOURCE})));
    test_as.answer("missing.9f2c41", Answer::Json(json!({"aud": RESOURCE})));
    test_as.answer("bad-claim.9f2c41", Answer::Json(json!({"active": true, "aud": RESOURCE, "exp": "soon"})));
    assert_eq!(refusal(&verifier, "string.9f2c41").await, OAuthErrorKind::Introspection);
    assert_eq!(refusal(&verifier, "missing.9f2c41").await, OAuthErrorKind::Introspection);
    assert_eq!(refusal(&verifier, "bad-claim.9f2c41").await, OAuthErrorKind::Introspection);
}

#[tokio::test]
async fn the_audience_must_contain_the_resource() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    test_as.active("other.9f2c41", json!({"aud": "http://other.example/mcp"}));
    test_as.active("list.9f2c41", json!({"aud": ["http://other.example/mcp", RESOURCE]}));
    test_as.active("other-list.9f2c41", json!({"aud": ["http://other.example/mcp"]}));
    test_as.answer("no-aud.9f2c41", Answer::Json(json!({"active": true})));
    assert_eq!(refusal(&verifier, "other.9f2c41").await, OAuthErrorKind::Audience);
    assert!(verifier.verify_token("list.9f2c41", None).await.is_ok());
    assert_eq!(refusal(&verifier, "other-list.9f2c41").await, OAuthErrorKind::Audience);
    assert_eq!(refusal(&verifier, "no-aud.9f2c41").await, OAuthErrorKind::Audience);
}

#[tokio::test]
async fn without_a_configured_audience_the_transport_s_resource_is_checked() {
    let (test_as, issuer, _) = setup().await;
    let verifier = IntrospectionVerifier::builder()
        .introspection_url(format!("{issuer}/introspect"))
        .build()
        .expect("a valid configuration");
    test_as.active("ours.9f2c41", json!({}));
    test_as.active("theirs.9f2c41", json!({"aud": "http://other.example/mcp"}));
    let ours = VerifyRequest::new("ours.9f2c41").with_resource(RESOURCE);
    let theirs = VerifyRequest::new("theirs.9f2c41").with_resource(RESOURCE);
    assert!(verifier.verify_request(&ours).await.is_some());
    assert_eq!(verifier.verify_request(&theirs).await, None);
    // No audience known at all: aud is not checked.
    assert!(verifier.verify_token("theirs.9f2c41", None).await.is_ok());
    // The cached answer is checked against each request's resource.
    assert_eq!(test_as.calls(), 2);
    let elsewhere = VerifyRequest::new("ours.9f2c41").with_resource("http://other.example/mcp");
    assert_eq!(verifier.verify_request(&elsewhere).await, None);
    assert_eq!(test_as.calls(), 2);
}

#[tokio::test]
async fn a_token_from_another_issuer_is_refused() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    test_as.active("t.9f2c41", json!({"iss": "http://evil.example"}));
    assert_eq!(refusal(&verifier, "t.9f2c41").await, OAuthErrorKind::Issuer);
}

#[tokio::test]
async fn expired_and_not_yet_valid_tokens_are_refused() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    test_as.active("expired.9f2c41", json!({"exp": now() - 1}));
    test_as.active("future.9f2c41", json!({"nbf": now() + 3600}));
    test_as.active("skewed.9f2c41", json!({"nbf": now() + 5}));
    assert_eq!(refusal(&verifier, "expired.9f2c41").await, OAuthErrorKind::Expired);
    assert_eq!(refusal(&verifier, "future.9f2c41").await, OAuthErrorKind::NotYetValid);
    assert!(verifier.verify_token("skewed.9f2c41", None).await.is_ok());
}

#[tokio::test]
async fn an_active_answer_is_cached_and_a_negative_one_is_not() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    test_as.active("t.9f2c41", json!({}));
    for _ in 0..3 {
        assert!(verifier.verify_token("t.9f2c41", None).await.is_ok());
    }
    assert_eq!(test_as.calls(), 1);
    for _ in 0..2 {
        assert_eq!(refusal(&verifier, "unknown.9f2c41").await, OAuthErrorKind::Inactive);
    }
    assert_eq!(test_as.calls(), 3);
}

#[tokio::test]
async fn the_cache_is_keyed_by_a_digest_not_the_token() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    test_as.active("secret-token", json!({}));
    assert!(verifier.verify_token("secret-token", None).await.is_ok());
    let state = verifier.inner.state.lock().expect("test fixture");
    let keys: Vec<&TokenKey> = state.answers.keys().collect();
    assert_eq!(keys, [&token_key("secret-token")]);
    assert_ne!(&keys[0][..12], b"secret-token");
    assert!(!format!("{verifier:?}").contains("s3cret"));
}

#[tokio::test]
async fn the_cache_ttl_ages_answers_out() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.cache_ttl(Duration::from_millis(200)).build().expect("a valid configuration");
    test_as.active("t.9f2c41", json!({}));
    assert!(verifier.verify_token("t.9f2c41", None).await.is_ok());
    assert!(verifier.verify_token("t.9f2c41", None).await.is_ok());
    assert_eq!(test_as.calls(), 1);
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Revoked meanwhile: the next request asks again and is refused.
    test_as.answer("t.9f2c41", Answer::Json(json!({"active": false})));
    assert_eq!(refusal(&verifier, "t.9f2c41").await, OAuthErrorKind::Inactive);
    assert_eq!(test_as.calls(), 2);
}

#[tokio::test]
async fn a_zero_ttl_turns_the_cache_off() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.cache_ttl(Duration::ZERO).build().expect("a valid configuration");
    test_as.active("t.9f2c41", json!({}));
    assert!(verifier.verify_token("t.9f2c41", None).await.is_ok());
    assert!(verifier.verify_token("t.9f2c41", None).await.is_ok());
    assert_eq!(test_as.calls(), 2);
}

#[tokio::test]
async fn a_cached_answer_never_outlives_the_token_s_exp() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.cache_ttl(Duration::from_secs(3600)).build().expect("a valid configuration");
    let exp = now() + 1;
    test_as.active("t.9f2c41", json!({"exp": exp}));
    assert_eq!(verifier.verify_token("t.9f2c41", None).await.expect("active").expires_at, Some(exp));
    assert_eq!(test_as.calls(), 1);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    while now() < exp {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Past exp the cached answer is gone: the server is asked again (here it has renewed
    // the token's lifetime, so the new answer is used).
    let renewed = now() + 600;
    test_as.active("t.9f2c41", json!({"exp": renewed}));
    assert_eq!(verifier.verify_token("t.9f2c41", None).await.expect("active").expires_at, Some(renewed));
    assert_eq!(test_as.calls(), 2);
}

#[tokio::test]
async fn the_cache_is_bounded() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.max_cache_entries(2).build().expect("a valid configuration");
    for (i, token) in ["a.9f2c41", "b.9f2c41", "c.9f2c41"].into_iter().enumerate() {
        // "a" expires soonest, so it is the one evicted when "c" comes.
        test_as.active(token, json!({"exp": now() + 600 + 60 * i as u64}));
        assert!(verifier.verify_token(token, None).await.is_ok());
    }
    assert_eq!(verifier.inner.state.lock().expect("test fixture").answers.len(), 2);
    assert_eq!(test_as.calls(), 3);
    assert!(verifier.verify_token("b.9f2c41", None).await.is_ok());
    assert!(verifier.verify_token("c.9f2c41", None).await.is_ok());
    assert_eq!(test_as.calls(), 3);
    assert!(verifier.verify_token("a.9f2c41", None).await.is_ok());
    assert_eq!(test_as.calls(), 4);
    assert_eq!(verifier.inner.state.lock().expect("test fixture").answers.len(), 2);
}

#[tokio::test]
async fn concurrent_requests_for_one_token_share_one_call() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    *test_as.delay.lock().expect("test fixture") = Duration::from_millis(200);
    test_as.active("t.9f2c41", json!({}));
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let verifier = verifier.clone();
            tokio::spawn(async move { verifier.verify_token("t.9f2c41", None).await.is_ok() })
        })
        .collect();
    for task in tasks {
        assert!(task.await.expect("no panic"));
    }
    assert_eq!(test_as.calls(), 1);
    assert!(verifier.inner.state.lock().expect("test fixture").in_flight.is_empty());
}

#[tokio::test]
async fn endpoint_failures_refuse_the_token_and_are_not_cached() {
    let (test_as, _, builder) = setup().await;
    let verifier = builder
        .fetch_timeout(Duration::from_millis(300))
        .max_document_bytes(1024)
        .build()
        .expect("a valid configuration");
    test_as.answer("500.9f2c41", Answer::Status(500));
    test_as.answer("401.9f2c41", Answer::Status(401));
    test_as.answer("garbage.9f2c41", Answer::Raw("{not json"));
    test_as.answer("big.9f2c41", Answer::Big(4096));
    for token in ["500.9f2c41", "401.9f2c41", "garbage.9f2c41", "big.9f2c41"] {
        assert_eq!(refusal(&verifier, token).await, OAuthErrorKind::Fetch, "{token}");
        assert_eq!(verifier.verify(token).await, None);
    }
    // Too slow.
    test_as.active("slow.9f2c41", json!({}));
    *test_as.delay.lock().expect("test fixture") = Duration::from_secs(2);
    assert_eq!(refusal(&verifier, "slow.9f2c41").await, OAuthErrorKind::Fetch);
    // Once the server recovers, the token is asked about again and accepted.
    *test_as.delay.lock().expect("test fixture") = Duration::ZERO;
    assert!(verifier.verify_token("slow.9f2c41", None).await.is_ok());
    assert!(verifier.inner.state.lock().expect("test fixture").in_flight.is_empty());
}

#[tokio::test]
async fn an_endpoint_that_is_down_refuses_the_token() {
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("test fixture");
    let addr = closed.local_addr().expect("test fixture");
    drop(closed);
    let verifier = IntrospectionVerifier::builder()
        .introspection_url(format!("http://{addr}/introspect"))
        .fetch_timeout(Duration::from_secs(2))
        .build()
        .expect("a valid configuration");
    assert_eq!(refusal(&verifier, "t.9f2c41").await, OAuthErrorKind::Fetch);
    assert_eq!(verifier.verify("t.9f2c41").await, None);
}

#[tokio::test]
async fn the_endpoint_is_discovered_from_the_issuer_s_metadata() {
    let (test_as, issuer, _) = setup().await;
    test_as.set_document(
        "/.well-known/openid-configuration",
        json!({"issuer": issuer, "introspection_endpoint": format!("{issuer}/introspect")}),
    );
    let verifier =
        IntrospectionVerifier::builder().issuer(&issuer).audience(RESOURCE).build().expect("a valid configuration");
    test_as.active("t.9f2c41", json!({}));
    assert!(verifier.verify_token("t.9f2c41", None).await.is_ok());
    assert!(verifier.verify_token("t2.9f2c41", None).await.is_err());
    assert_eq!(test_as.calls(), 2);
}

#[tokio::test]
async fn metadata_without_an_endpoint_or_for_another_issuer_is_refused() {
    let (test_as, issuer, _) = setup().await;
    let verifier = IntrospectionVerifier::builder().issuer(&issuer).build().expect("a valid configuration");
    test_as.set_document("/.well-known/oauth-authorization-server", json!({"issuer": issuer}));
    assert_eq!(refusal(&verifier, "t.9f2c41").await, OAuthErrorKind::Metadata);
    test_as.set_document(
        "/.well-known/oauth-authorization-server",
        json!({"issuer": "http://evil.example", "introspection_endpoint": format!("{issuer}/introspect")}),
    );
    assert_eq!(refusal(&verifier, "t.9f2c41").await, OAuthErrorKind::Metadata);
    assert_eq!(test_as.calls(), 0);
}

#[test]
fn the_builder_needs_somewhere_to_ask() {
    let error = IntrospectionVerifier::builder().audience(RESOURCE).build().expect_err("nothing to ask");
    assert_eq!(error.kind(), OAuthErrorKind::Config);
    assert!(IntrospectionVerifier::builder().introspection_url("https://as.example/introspect").build().is_ok());
    let error = IntrospectionVerifier::builder()
        .introspection_url("http://as.example/introspect")
        .build()
        .expect_err("plain http to another host");
    assert_eq!(error.kind(), OAuthErrorKind::InsecureUrl);
    let error = IntrospectionVerifier::builder().issuer("http://as.example").build().expect_err("plain http");
    assert_eq!(error.kind(), OAuthErrorKind::InsecureUrl);
    assert!(
        IntrospectionVerifier::builder()
            .introspection_url("http://as.example/introspect")
            .allow_insecure_http(true)
            .build()
            .is_ok()
    );
    let error = IntrospectionVerifier::builder().issuer("as.example").build().expect_err("not a URL");
    assert_eq!(error.kind(), OAuthErrorKind::Config);
}

#[test]
fn form_urlencoding_keeps_unreserved_bytes_only() {
    assert_eq!(form_urlencode("aZ09-._*"), "aZ09-._*");
    assert_eq!(form_urlencode("a b:c/é"), "a+b%3Ac%2F%C3%A9");
}

/// A `tracing` sink for this thread's events.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logs {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)).into_owned()
    }
}

#[tokio::test]
async fn a_failing_endpoint_is_warned_about_without_the_token() {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let (test_as, _, builder) = setup().await;
    let verifier = builder.build().expect("a valid configuration");
    test_as.answer("down-token.9f2c41", Answer::Status(503));
    assert_eq!(verifier.verify("down-token.9f2c41").await, None);
    let warned = logs.text();
    let line = warned.lines().find(|line| line.contains("WARN")).expect("a warning");
    assert!(line.contains("Fetch"), "{line}");
    // An inactive token is the caller's problem, not the operator's: no warning.
    assert_eq!(verifier.verify("inactive-token.9f2c41").await, None);
    let all = logs.text();
    assert_eq!(all.matches("WARN").count(), 1, "{all}");
    for token in ["down-token", "inactive-token", "s3cret"] {
        assert!(!all.contains(token), "the logs show {token}:\n{all}");
    }
}
