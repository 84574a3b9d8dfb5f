//! The HTTP request's parts reach handlers: headers and extensions in both eras, and an
//! `AuthInfo` that axum middleware put in the extensions fills `ctx.auth()` and binds
//! sealed request state to its principal.

use std::net::SocketAddr;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mcp::auth::{AuthInfo, StaticTokenVerifier};
use mcp::client::Client;
use mcp::protocol::{CallToolOutcome, CallToolResult, InputRequest, InputRequiredResult};
use mcp::sealing::RequestStateSecurity;
use mcp::serve::http::{HttpConfig, McpHttpService};
use mcp::{RequestContext, Server};
use mcp_testkit::http::{self, Headers};
use mcp_testkit::stdio::modern_params;
use serde_json::{Value, json};

use crate::support::legacy_http::{initialize_with, legacy_headers};

/// What the middleware adds to every request, besides the caller.
#[derive(Clone)]
struct Trace(&'static str);

fn user(subject: &str) -> AuthInfo {
    AuthInfo {
        client_id: "shared-client".into(),
        issuer: Some("https://gateway.example".into()),
        subject: Some(subject.into()),
        scopes: vec!["mcp".into()],
        expires_at: None,
    }
}

/// Everything the handler saw of its request, as one line of JSON.
fn seen(ctx: &RequestContext) -> Value {
    let header = ctx.http_headers().and_then(|h| h.get("x-tenant")).and_then(|v| v.to_str().ok());
    json!({
        "subject": ctx.auth().and_then(|a| a.subject.clone()),
        "tenant": header,
        "trace": ctx.http_extensions().and_then(|e| e.get::<Trace>()).map(|t| t.0),
        "method": ctx.http_parts().map(|p| p.method.as_str().to_owned()),
        "path": ctx.http_parts().map(|p| p.uri.path().to_owned()),
        "peer": ctx.peer_addr().map(|a| a.to_string()),
    })
}

/// `seen` echoes the request's parts; `confirm` asks once, with sealed state.
fn server() -> Server {
    Server::builder("parts-test", "1.0.0")
        .request_state_security(
            RequestStateSecurity::builder().keys([[7u8; 32]]).build().unwrap_or_else(|e| panic!("{e}")),
        )
        .on_call_tool(|ctx: RequestContext, params| async move {
            let outcome: CallToolOutcome = match params.name.as_str() {
                "seen" => CallToolResult::text(seen(&ctx).to_string()).into(),
                _ if params.request_state.is_some() => CallToolResult::text("confirmed").into(),
                _ => InputRequiredResult::ask("ok", InputRequest::ListRoots(None)).with_state("confirm-1").into(),
            };
            Ok(outcome)
        })
        .build()
}

/// Authenticates `Bearer token-<name>` for alice and bob, refuses other tokens with 401,
/// lets anonymous requests through, and tags every request with a [`Trace`].
async fn gateway(mut request: Request, next: Next) -> Response {
    let token = request.headers().get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
    if let Some(token) = token {
        let auth = match token.as_str() {
            "Bearer token-alice" => user("alice"),
            "Bearer token-bob" => user("bob"),
            _ => return axum::http::StatusCode::UNAUTHORIZED.into_response(),
        };
        request.extensions_mut().insert(auth);
    }
    request.extensions_mut().insert(Trace("trace-1"));
    // The client's address as a proxy in front reported it.
    request.extensions_mut().insert(SocketAddr::from(([203, 0, 113, 7], 443)));
    next.run(request).await
}

/// Serve [`server`] with `config` in axum behind [`gateway`].
async fn start(config: HttpConfig) -> SocketAddr {
    let app = axum::Router::new()
        .route_service("/mcp", McpHttpService::new(server(), config))
        .layer(axum::middleware::from_fn(gateway));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("axum stopped: {e}");
        }
    });
    addr
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

fn text(reply: &http::Reply) -> Value {
    let body = reply.json();
    let text = body["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {body}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test]
async fn modern_handlers_see_the_request_headers_extensions_and_middleware_caller() {
    let addr = start(HttpConfig::default()).await;
    let reply =
        http::post(addr, &headers("seen", Some("token-alice")).set("x-tenant", "acme"), &call(1, "seen", json!({})))
            .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        text(&reply),
        json!({"subject": "alice", "tenant": "acme", "trace": "trace-1", "method": "POST", "path": "/mcp", "peer": "203.0.113.7:443"})
    );
    let anonymous = http::post(addr, &headers("seen", None), &call(2, "seen", json!({}))).await;
    assert_eq!(
        text(&anonymous),
        json!({"subject": null, "tenant": null, "trace": "trace-1", "method": "POST", "path": "/mcp", "peer": "203.0.113.7:443"}),
        "no AuthInfo in the extensions: no caller"
    );
}

#[tokio::test]
async fn legacy_handlers_see_the_parts_of_the_post_carrying_each_message() {
    let addr = start(HttpConfig::default()).await;
    let session = initialize_with(addr, json!({}), &[("authorization", "Bearer token-bob")]).await;
    let message =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "seen", "arguments": {}}});
    let as_bob = legacy_headers(Some(&session)).set("authorization", "Bearer token-bob");
    let reply = http::post(addr, &as_bob.clone().set("x-tenant", "globex"), &message).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        text(&reply),
        json!({"subject": "bob", "tenant": "globex", "trace": "trace-1", "method": "POST", "path": "/mcp", "peer": "203.0.113.7:443"})
    );
    // The same session, another POST without the header: the context follows the POST, not
    // the `initialize` that opened the session.
    let reply = http::post(addr, &as_bob, &message).await;
    assert_eq!(text(&reply)["subject"], "bob");
    assert_eq!(text(&reply)["tenant"], Value::Null);
    // Without the caller, the session (bound to bob, who opened it) is not found.
    let reply = http::post(addr, &legacy_headers(Some(&session)), &message).await;
    assert_eq!(reply.status, 404, "{}", reply.body);
    assert_eq!(reply.json()["error"]["message"], "Session not found");
}

#[tokio::test]
async fn middleware_auth_binds_sealed_state_to_its_principal() {
    let addr = start(HttpConfig::default()).await;
    let first = http::post(addr, &headers("confirm", Some("token-alice")), &call(1, "confirm", json!({}))).await;
    let state = first.json()["result"]["requestState"].clone();
    assert!(state.as_str().is_some_and(|s| s.starts_with("v1.")), "{}", first.body);
    let answers = json!({"inputResponses": {"ok": {"roots": []}}, "requestState": state});

    let stolen = http::post(addr, &headers("confirm", Some("token-bob")), &call(2, "confirm", answers.clone())).await;
    assert_eq!(stolen.status, 400, "sealed for alice, replayed by bob: {}", stolen.body);
    assert_eq!(
        stolen.json()["error"],
        json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}})
    );
    let anonymous = http::post(addr, &headers("confirm", None), &call(3, "confirm", answers.clone())).await;
    assert_eq!(anonymous.status, 400, "sealed for alice, replayed by nobody: {}", anonymous.body);
    let owner = http::post(addr, &headers("confirm", Some("token-alice")), &call(4, "confirm", answers)).await;
    assert_eq!(owner.status, 200, "{}", owner.body);
    assert_eq!(owner.json()["result"]["content"][0]["text"], "confirmed");
}

#[tokio::test]
async fn the_transports_own_verifier_wins_over_an_auth_info_in_the_extensions() {
    // The middleware authenticates `token-alice` as alice; the transport's verifier knows
    // the same token as carol. The verifier is the one configured on the endpoint: it wins.
    let verifier = StaticTokenVerifier::new([("token-alice".to_owned(), user("carol"))]);
    let addr = start(HttpConfig::default().token_verifier(verifier)).await;
    let reply = http::post(addr, &headers("seen", Some("token-alice")), &call(1, "seen", json!({}))).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(text(&reply)["subject"], "carol");
    let missing = http::post(addr, &headers("seen", None), &call(2, "seen", json!({}))).await;
    assert_eq!(missing.status, 401, "the verifier still demands a token");
}

#[tokio::test]
async fn in_process_handlers_have_no_http_parts() {
    let server = server();
    let client = Client::builder().connect_in_process(&server).await.unwrap_or_else(|e| panic!("{e}"));
    let result = client.call_tool("seen", json!({})).await.unwrap_or_else(|e| panic!("{e}"));
    let text = match result.content.first() {
        Some(mcp::protocol::ContentBlock::Text(t)) => t.text.clone(),
        other => panic!("not text: {other:?}"),
    };
    let seen: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(
        seen,
        json!({"subject": null, "tenant": null, "trace": null, "method": null, "path": null, "peer": null})
    );
}
