//! The client's OAuth flow end to end against a loopback authorization server (axum) and
//! this crate's server as the protected resource: discovery from the 401, dynamic
//! registration, PKCE checked by the authorization server, the token exchange with the
//! resource indicator, step-up on 403 `insufficient_scope`, and a refresh on 401.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine as _;
use mcp::auth::{AuthInfo, TokenVerifier};
use mcp::client::oauth::{ClientCredentials, FileTokenStore, HeadlessRedirect, OAuth, OAuthErrorKind};
use mcp::client::{Client, ClientError};
use mcp::handler::BoxFuture;
use mcp::protocol::{CallToolOutcome, CallToolResult};
use mcp::serve::http::{HttpConfig, ProtectedResourceMetadata};
use mcp::{Error, RequestContext, Server};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// What the authorization server saw and issued; the resource server reads `tokens`.
#[derive(Default)]
struct Auth {
    issuer: String,
    registrations: usize,
    /// The `scope` of each authorization request (`None`: omitted).
    authorizations: Vec<Option<String>>,
    /// The `resource` of each authorization and token request.
    resources: Vec<String>,
    /// code -> (PKCE challenge, scope, client id).
    codes: HashMap<String, (String, String, String)>,
    /// Live access tokens and their scopes.
    tokens: HashMap<String, Vec<String>>,
    /// refresh token -> scopes.
    refresh_tokens: HashMap<String, Vec<String>>,
    refreshes: usize,
    /// Client credentials grant requests, and their `scope`.
    client_credentials: usize,
    authorizations_cc: Vec<Option<String>>,
    verifier_mismatches: usize,
    next: usize,
}

type Shared = Arc<Mutex<Auth>>;

fn lock(auth: &Shared) -> std::sync::MutexGuard<'_, Auth> {
    auth.lock().expect("test setup")
}

/// Scopes this server never grants (to exercise the step-up limit).
const NEVER_GRANTED: &str = "admin";

async fn metadata(State(auth): State<Shared>) -> Json<Value> {
    let issuer = lock(&auth).issuer.clone();
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "scopes_supported": ["files:read", "files:write", "offline_access"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "authorization_response_iss_parameter_supported": true,
    }))
}

async fn register(State(auth): State<Shared>, Json(body): Json<Value>) -> Response {
    assert_eq!(body["application_type"], "native");
    assert!(body["grant_types"].as_array().expect("test setup").contains(&json!("refresh_token")));
    let mut auth = lock(&auth);
    auth.registrations += 1;
    let id = format!("client-{}", auth.registrations);
    (StatusCode::CREATED, Json(json!({"client_id": id, "token_endpoint_auth_method": "none"}))).into_response()
}

async fn authorize(State(auth): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let mut auth = lock(&auth);
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["code_challenge_method"], "S256");
    auth.authorizations.push(q.get("scope").cloned());
    auth.resources.push(q["resource"].clone());
    auth.next += 1;
    let code = format!("code-{}", auth.next);
    let scope = q.get("scope").cloned().unwrap_or_default();
    auth.codes.insert(code.clone(), (q["code_challenge"].clone(), scope, q["client_id"].clone()));
    let iss: String = form_encode(&auth.issuer);
    let target = format!("{}?code={code}&state={}&iss={iss}", q["redirect_uri"], form_encode(&q["state"]));
    Redirect::to(&target).into_response()
}

fn form_encode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn issue(auth: &mut Auth, scopes: Vec<String>) -> Json<Value> {
    auth.next += 1;
    let access = format!("at-{}", auth.next);
    let refresh = format!("rt-{}", auth.next);
    auth.tokens.insert(access.clone(), scopes.clone());
    auth.refresh_tokens.insert(refresh.clone(), scopes.clone());
    Json(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": refresh,
        "scope": scopes.join(" "),
    }))
}

/// The confidential client of the client credentials grant.
const SERVICE_ID: &str = "svc";
const SERVICE_SECRET: &str = "s3cret";

async fn token(State(auth): State<Shared>, headers: HeaderMap, Form(f): Form<HashMap<String, String>>) -> Response {
    let mut auth = lock(&auth);
    if f["grant_type"] == "client_credentials" {
        auth.client_credentials += 1;
        auth.resources.push(f["resource"].clone());
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{SERVICE_ID}:{SERVICE_SECRET}"))
        );
        if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
            return (StatusCode::BAD_REQUEST, Json(json!({"error": "unauthorized_client"}))).into_response();
        }
        assert!(!f.contains_key("client_secret"), "client_secret_basic: the secret is in the header only");
        let scopes = f.get("scope").map(|s| s.split(' ').map(str::to_owned).collect()).unwrap_or_default();
        auth.authorizations_cc.push(f.get("scope").cloned());
        return issue(&mut auth, scopes).into_response();
    }
    assert!(headers.get("authorization").is_none(), "a public client sends no Authorization header");
    auth.resources.push(f["resource"].clone());
    match f["grant_type"].as_str() {
        "authorization_code" => {
            let Some((challenge, scope, client_id)) = auth.codes.remove(&f["code"]) else {
                return (StatusCode::BAD_REQUEST, Json(json!({"error": "invalid_grant"}))).into_response();
            };
            let digest = ring_sha256(f["code_verifier"].as_bytes());
            if digest != challenge || f["client_id"] != client_id {
                auth.verifier_mismatches += 1;
                return (StatusCode::BAD_REQUEST, Json(json!({"error": "invalid_grant"}))).into_response();
            }
            let granted =
                scope.split(' ').filter(|s| !s.is_empty() && *s != NEVER_GRANTED).map(str::to_owned).collect();
            issue(&mut auth, granted).into_response()
        }
        "refresh_token" => {
            let Some(scopes) = auth.refresh_tokens.remove(&f["refresh_token"]) else {
                return (StatusCode::BAD_REQUEST, Json(json!({"error": "invalid_grant"}))).into_response();
            };
            auth.refreshes += 1;
            issue(&mut auth, scopes).into_response()
        }
        _ => (StatusCode::BAD_REQUEST, Json(json!({"error": "unsupported_grant_type"}))).into_response(),
    }
}

/// Unpadded base64url SHA-256, as the PKCE `S256` method computes it.
fn ring_sha256(input: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, input))
}

/// The resource server's verifier: a token is valid while the authorization server lists it.
struct TableVerifier(Shared);

impl TokenVerifier for TableVerifier {
    fn verify(&self, token: &str) -> BoxFuture<Option<AuthInfo>> {
        let scopes = lock(&self.0).tokens.get(token).cloned();
        Box::pin(
            async move { scopes.map(|scopes| AuthInfo { client_id: "app".into(), scopes, ..AuthInfo::default() }) },
        )
    }
}

fn mcp_server() -> Server {
    Server::builder("oauth-client-test", "1.0.0")
        .on_call_tool(|ctx: RequestContext, params| async move {
            let has = |s: &str| ctx.auth().is_some_and(|a| a.scopes.iter().any(|x| x == s));
            let needed = match params.name.as_str() {
                "write" => Some("files:write"),
                "admin" => Some(NEVER_GRANTED),
                _ => None,
            };
            if let Some(scope) = needed.filter(|s| !has(s)) {
                return Err(Error::insufficient_scope([scope]));
            }
            let outcome: CallToolOutcome = CallToolResult::text(format!("{} done", params.name)).into();
            Ok(outcome)
        })
        .build()
}

/// Starts both servers; the MCP URL and the shared state.
async fn start() -> (String, Shared) {
    let auth: Shared = Arc::default();
    let as_listener = TcpListener::bind("127.0.0.1:0").await.expect("test setup");
    let issuer = format!("http://{}", as_listener.local_addr().expect("test setup"));
    lock(&auth).issuer = issuer.clone();
    let router = Router::new()
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(Arc::clone(&auth));
    tokio::spawn(async move { axum::serve(as_listener, router).await.expect("test setup") });

    let listener = TcpListener::bind("127.0.0.1:0").await.expect("test setup");
    let addr: SocketAddr = listener.local_addr().expect("test setup");
    let resource = format!("http://{addr}/mcp");
    let config = HttpConfig::default()
        .protected_resource(
            ProtectedResourceMetadata::new(resource.clone())
                .authorization_server(issuer)
                .scopes_supported(["files:read"]),
        )
        .token_verifier(TableVerifier(Arc::clone(&auth)));
    tokio::spawn(async move { mcp::serve::http(listener, mcp_server()).config(config).await.expect("test setup") });
    (resource, auth)
}

fn oauth() -> OAuth {
    OAuth::builder()
        .authorization_handler(HeadlessRedirect::new("http://127.0.0.1:9/callback"))
        .build()
        .expect("test setup")
}

fn text(result: &CallToolResult) -> String {
    serde_json::to_value(result).expect("test setup")["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn discovery_pkce_step_up_and_refresh_run_for_real() {
    let (url, auth) = start().await;
    let client = Client::builder().oauth(oauth()).connect_http(&url).await.expect("test setup");
    let read = client.call_tool("read", json!({})).await.expect("test setup");
    assert_eq!(text(&read), "read done");
    {
        let auth = lock(&auth);
        assert_eq!(auth.registrations, 1);
        // The PRM's scopes_supported (no scope in the first challenge), plus
        // offline_access because the authorization server lists it.
        assert_eq!(auth.authorizations, [Some("files:read offline_access".to_owned())]);
        assert_eq!(auth.verifier_mismatches, 0);
        assert!(auth.resources.iter().all(|r| *r == url), "{:?}", auth.resources);
    }

    // 403 insufficient_scope: one more authorization, with the union of the scopes.
    let write = client.call_tool("write", json!({})).await.expect("test setup");
    assert_eq!(text(&write), "write done");
    {
        let auth = lock(&auth);
        assert_eq!(auth.authorizations.len(), 2);
        let second: Vec<&str> = auth.authorizations[1].as_deref().expect("test setup").split(' ').collect();
        for scope in ["files:read", "files:write", "offline_access"] {
            assert!(second.contains(&scope), "{second:?}");
        }
        assert_eq!(auth.registrations, 1, "the registration at the same issuer is reused");
    }

    // The access token is revoked: 401, one refresh, no new authorization.
    lock(&auth).tokens.clear();
    let again = client.call_tool("read", json!({})).await.expect("test setup");
    assert_eq!(text(&again), "read done");
    {
        let auth = lock(&auth);
        assert_eq!(auth.refreshes, 1);
        assert_eq!(auth.authorizations.len(), 2);
    }

    // Both tokens revoked: the refresh fails and the client authorizes again.
    {
        let mut auth = lock(&auth);
        auth.tokens.clear();
        auth.refresh_tokens.clear();
    }
    client.call_tool("read", json!({})).await.expect("test setup");
    assert_eq!(lock(&auth).authorizations.len(), 3);
    assert_eq!(lock(&auth).verifier_mismatches, 0);
}

#[tokio::test]
async fn step_up_stops_when_the_server_keeps_refusing() {
    let (url, auth) = start().await;
    let client = Client::builder().oauth(oauth()).connect_http(&url).await.expect("test setup");
    let error = client.call_tool("admin", json!({})).await.expect_err("must fail");
    match &error {
        ClientError::OAuth(e) => assert_eq!(e.kind(), OAuthErrorKind::InsufficientScope, "{e}"),
        other => panic!("expected an OAuth error, got {other:?}"),
    }
    // The first authorization (from the 401) and one step-up asking for `admin`; the
    // same refusal again asks for nothing new and ends the call.
    let auth = lock(&auth);
    assert_eq!(auth.authorizations.len(), 2, "{:?}", auth.authorizations);
    assert!(auth.authorizations[1].as_deref().expect("test setup").split(' ').any(|s| s == NEVER_GRANTED));
}

#[tokio::test]
async fn a_file_store_spares_the_next_run_an_authorization() {
    let (url, auth) = start().await;
    let dir = std::env::temp_dir().join(format!("mcp-oauth-client-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("test setup");
    let path = dir.join("tokens.json");
    let with_store = || {
        OAuth::builder()
            .authorization_handler(HeadlessRedirect::new("http://127.0.0.1:9/callback"))
            .token_store(FileTokenStore::new(&path))
            .build()
            .expect("test setup")
    };
    let first = Client::builder().oauth(with_store()).connect_http(&url).await.expect("test setup");
    first.call_tool("read", json!({})).await.expect("test setup");
    drop(first);
    let second = Client::builder().oauth(with_store()).connect_http(&url).await.expect("test setup");
    second.call_tool("read", json!({})).await.expect("test setup");
    {
        let auth = lock(&auth);
        assert_eq!(auth.authorizations.len(), 1, "the stored token was used");
        assert_eq!(auth.registrations, 1);
    }
    let stored = std::fs::read_to_string(&path).expect("test setup");
    assert!(stored.contains("client-1"));
    std::fs::remove_dir_all(&dir).expect("test setup");
}

fn service(secret: &str) -> OAuth {
    OAuth::builder()
        .client_credentials(ClientCredentials::confidential(SERVICE_ID, secret))
        .client_credentials_grant()
        .build()
        .expect("test setup")
}

#[tokio::test]
async fn the_client_credentials_grant_needs_no_user() {
    let (url, auth) = start().await;
    let client = Client::builder().oauth(service(SERVICE_SECRET)).connect_http(&url).await.expect("test setup");
    assert_eq!(text(&client.call_tool("read", json!({})).await.expect("authorized")), "read done");
    let auth = lock(&auth);
    assert_eq!(auth.client_credentials, 1);
    assert!(auth.authorizations.is_empty(), "no redirect");
    assert_eq!(auth.registrations, 0, "the pre-registered client");
    assert_eq!(auth.resources, [url], "the resource indicator");
    assert_eq!(auth.authorizations_cc, [Some("files:read".to_owned())], "the resource's scopes_supported");
}

#[tokio::test]
async fn a_refused_grant_is_neither_retried_nor_replaced() {
    let (url, auth) = start().await;
    let error = match Client::builder().oauth(service("wrong")).connect_http(&url).await {
        Ok(client) => client.call_tool("read", json!({})).await.expect_err("must be refused"),
        Err(e) => e,
    };
    match &error {
        ClientError::OAuth(e) => {
            assert_eq!(e.kind(), OAuthErrorKind::Token, "{e}");
            assert_eq!(e.error_code(), Some("unauthorized_client"));
            assert!(!e.to_string().contains("wrong"), "{e}");
        }
        other => panic!("expected an OAuth error, got {other:?}"),
    }
    let auth = lock(&auth);
    assert_eq!(auth.client_credentials, 1, "one token request");
    assert!(auth.authorizations.is_empty() && auth.registrations == 0, "no other grant");
}
