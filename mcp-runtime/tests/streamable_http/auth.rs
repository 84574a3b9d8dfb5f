//! Bearer-token authentication on the HTTP transport, and sealed request state bound to
//! the authenticated principal.

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use mcp::auth::{AuthInfo, StaticTokenVerifier};
use mcp::protocol::{CallToolOutcome, CallToolResult, InputRequest, InputRequiredResult};
use mcp::sealing::RequestStateSecurity;
use mcp::serve::http::{HttpConfig, McpHttpService};
use mcp::{RequestContext, Server};
use mcp_testkit::http::{self, Headers};
use mcp_testkit::stdio::modern_params;
use serde_json::{Value, json};

/// Now, in seconds since the Unix epoch (the unit of `AuthInfo::expires_at`).
fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_else(|e| panic!("{e}"))
}

/// A caller of the shared test client, known by `subject`.
pub(crate) fn user(subject: &str) -> AuthInfo {
    AuthInfo {
        client_id: "shared-client".into(),
        issuer: Some("https://issuer.example".into()),
        subject: Some(subject.into()),
        scopes: vec!["mcp".into()],
        expires_at: None,
    }
}

/// A server whose `whoami` tool echoes the caller and whose `confirm` tool asks once.
async fn start() -> SocketAddr {
    let server = Server::builder("auth-test", "1.0.0")
        .request_state_security(
            RequestStateSecurity::builder().keys([[9u8; 32]]).build().unwrap_or_else(|e| panic!("{e}")),
        )
        .on_call_tool(|ctx: RequestContext, params| async move {
            let outcome: CallToolOutcome = match params.name.as_str() {
                "whoami" => {
                    let subject = ctx.auth().and_then(|a| a.subject.clone()).unwrap_or_else(|| "nobody".into());
                    CallToolResult::text(subject).into()
                }
                _ if params.request_state.is_some() => CallToolResult::text("confirmed").into(),
                _ => InputRequiredResult::ask("ok", InputRequest::ListRoots(None)).with_state("confirm-1").into(),
            };
            Ok(outcome)
        })
        .build();
    let verifier = StaticTokenVerifier::new([
        ("token-alice".to_owned(), user("alice")),
        ("token-bob".to_owned(), user("bob")),
        ("token-expired".to_owned(), AuthInfo { expires_at: Some(unix_now() - 1), ..user("carol") }),
        ("token-fresh".to_owned(), AuthInfo { expires_at: Some(unix_now() + 3600), ..user("dave") }),
    ]);
    let config = HttpConfig::default().token_verifier(verifier);
    http::serve(&server, config).await
}

fn call(id: i64, name: &str, extra: Value) -> Value {
    let mut params = modern_params(json!({"roots": {}}), json!({"name": name, "arguments": {}}));
    if let (Value::Object(p), Value::Object(extra)) = (&mut params, extra) {
        p.extend(extra);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn headers(name: &str, token: Option<&str>) -> Headers {
    let headers = Headers::modern("tools/call", Some(name));
    match token {
        Some(t) => headers.set("authorization", &format!("Bearer {t}")),
        None => headers,
    }
}

#[tokio::test]
async fn requests_without_a_valid_token_get_401_with_a_challenge() {
    let addr = start().await;
    let missing = http::post(addr, &headers("whoami", None), &call(1, "whoami", json!({}))).await;
    assert_eq!(missing.status, 401);
    assert_eq!(missing.header("www-authenticate"), Some("Bearer"));
    let wrong = http::post(addr, &headers("whoami", Some("token-eve")), &call(2, "whoami", json!({}))).await;
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.header("www-authenticate"), Some("Bearer error=\"invalid_token\""));
    assert!(!wrong.body.contains("token-eve"), "the token is not echoed: {}", wrong.body);
    let ok = http::post(addr, &headers("whoami", Some("token-alice")), &call(3, "whoami", json!({}))).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json()["result"]["content"][0]["text"], "alice", "handlers see the caller");
}

#[tokio::test]
async fn sealed_state_is_bound_to_the_principal() {
    let addr = start().await;
    let first = http::post(addr, &headers("confirm", Some("token-alice")), &call(1, "confirm", json!({}))).await;
    let state = first.json()["result"]["requestState"].clone();
    assert!(state.as_str().is_some_and(|s| s.starts_with("v1.")), "{}", first.body);
    let answers = json!({"inputResponses": {"ok": {"roots": []}}, "requestState": state});

    let stolen = http::post(addr, &headers("confirm", Some("token-bob")), &call(2, "confirm", answers.clone())).await;
    assert_eq!(stolen.status, 400, "same OAuth client, another subject");
    assert_eq!(
        stolen.json()["error"],
        json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}})
    );
    let owner = http::post(addr, &headers("confirm", Some("token-alice")), &call(3, "confirm", answers)).await;
    assert_eq!(owner.status, 200);
    assert_eq!(owner.json()["result"]["content"][0]["text"], "confirmed");
}

#[tokio::test]
async fn an_expired_token_gets_401_invalid_token() {
    let addr = start().await;
    let expired = http::post(addr, &headers("whoami", Some("token-expired")), &call(1, "whoami", json!({}))).await;
    assert_eq!(expired.status, 401, "expires_at is in the past: {}", expired.body);
    assert_eq!(expired.header("www-authenticate"), Some("Bearer error=\"invalid_token\""));
    assert!(!expired.body.contains("token-expired"), "the token is not echoed: {}", expired.body);
    let fresh = http::post(addr, &headers("whoami", Some("token-fresh")), &call(2, "whoami", json!({}))).await;
    assert_eq!(fresh.status, 200, "expires_at is an hour away: {}", fresh.body);
    assert_eq!(fresh.json()["result"]["content"][0]["text"], "dave");
}

#[tokio::test]
async fn the_auth_scheme_is_case_insensitive() {
    let addr = start().await;
    for value in
        ["Bearer token-alice", "bearer token-alice", "BEARER token-alice", "bEaReR token-alice", "Bearer   token-alice"]
    {
        let headers = Headers::modern("tools/call", Some("whoami")).set("authorization", value);
        let reply = http::post(addr, &headers, &call(1, "whoami", json!({}))).await;
        assert_eq!(reply.status, 200, "{value:?}: {}", reply.body);
        assert_eq!(reply.json()["result"]["content"][0]["text"], "alice", "{value:?}");
    }
    // No token, or another scheme: a plain challenge, as for a missing header.
    for value in ["Bearer", "Bearer ", "bearer", "Basic dG9rZW4tYWxpY2U6", "Bearertoken-alice", "token-alice"] {
        let headers = Headers::modern("tools/call", Some("whoami")).set("authorization", value);
        let reply = http::post(addr, &headers, &call(1, "whoami", json!({}))).await;
        assert_eq!(reply.status, 401, "{value:?}: {}", reply.body);
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"), "{value:?}");
    }
}

/// A layer in front of the endpoint that authenticates every request as a caller whose
/// token expired a minute ago.
async fn expired_gateway(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    request.extensions_mut().insert(AuthInfo { expires_at: Some(unix_now() - 60), ..user("carol") });
    next.run(request).await
}

#[tokio::test]
async fn an_expired_caller_from_a_layer_gets_401_too() {
    let server = Server::builder("auth-layer-test", "1.0.0").build();
    let app = axum::Router::new()
        .route_service("/mcp", McpHttpService::new(server, HttpConfig::default()))
        .layer(axum::middleware::from_fn(expired_gateway));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("axum stopped: {e}");
        }
    });
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": modern_params(json!({}), json!({}))});
    let reply = http::post(addr, &Headers::modern("tools/list", None), &list).await;
    assert_eq!(reply.status, 401, "the layer's AuthInfo has expired: {}", reply.body);
    assert_eq!(reply.header("www-authenticate"), Some("Bearer error=\"invalid_token\""));
}
