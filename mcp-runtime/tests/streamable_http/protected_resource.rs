//! The endpoint as an OAuth protected resource: the RFC 9728 metadata document, the 401
//! challenge pointing to it, and the 403 step-up challenge of a scope refusal.

use std::net::SocketAddr;

use mcp::auth::{AuthInfo, StaticTokenVerifier};
use mcp::protocol::{CallToolOutcome, CallToolResult};
use mcp::serve::http::{HttpConfig, ProtectedResourceMetadata};
use mcp::{Error, RequestContext, Server};
use mcp_testkit::http::{self, Headers};
use mcp_testkit::stdio::modern_params;
use serde_json::{Value, json};

const DOCUMENT_PATH: &str = "/.well-known/oauth-protected-resource/mcp";
const DOCUMENT_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

/// A server whose `write` tool refuses callers without `files:write`, and whose `read`
/// tool answers anyone authenticated.
fn server() -> Server {
    Server::builder("prm-test", "1.0.0")
        .on_call_tool(|ctx: RequestContext, params| async move {
            let granted = ctx.auth().is_some_and(|a| a.scopes.iter().any(|s| s == "files:write"));
            if params.name == "write" && !granted {
                return Err(Error::insufficient_scope(["files:write"]));
            }
            let outcome: CallToolOutcome = CallToolResult::text("done").into();
            Ok(outcome)
        })
        .build()
}

fn verifier() -> StaticTokenVerifier {
    let reader = AuthInfo {
        client_id: "app".into(),
        subject: Some("alice".into()),
        scopes: vec!["files:read".into()],
        ..AuthInfo::default()
    };
    StaticTokenVerifier::new([("token-reader".to_owned(), reader)])
}

fn metadata() -> ProtectedResourceMetadata {
    ProtectedResourceMetadata::new("https://mcp.example.com/mcp")
        .authorization_server("https://auth.example.com")
        .scopes_supported(["files:read", "files:write"])
}

async fn start() -> SocketAddr {
    let config = HttpConfig::default().protected_resource(metadata()).token_verifier(verifier());
    http::serve(&server(), config).await
}

fn call(id: i64, name: &str) -> Value {
    let params = modern_params(json!({}), json!({"name": name, "arguments": {}}));
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
async fn the_metadata_document_is_served_at_the_path_suffixed_well_known_uri_without_a_token() {
    let addr = start().await;
    let reply = http::send(addr, "GET", DOCUMENT_PATH, &Headers::new(), "").await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("application/json"));
    assert_eq!(reply.header("cache-control"), Some("public, max-age=300"));
    assert_eq!(
        reply.body,
        r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["files:read","files:write"],"bearer_methods_supported":["header"]}"#
    );
}

#[tokio::test]
async fn the_metadata_document_answers_get_only() {
    let addr = start().await;
    let reply = http::send(addr, "POST", DOCUMENT_PATH, &Headers::json(), "{}").await;
    assert_eq!(reply.status, 405, "{}", reply.body);
    assert_eq!(reply.header("allow"), Some("GET"));
}

#[tokio::test]
async fn a_request_without_a_token_gets_401_pointing_to_the_metadata() {
    let addr = start().await;
    let reply = http::post(addr, &headers("read", None), &call(1, "read")).await;
    assert_eq!(reply.status, 401, "{}", reply.body);
    assert_eq!(
        reply.header("www-authenticate"),
        Some(
            r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write""#
        )
    );
}

#[tokio::test]
async fn a_bad_token_gets_401_invalid_token_pointing_to_the_metadata() {
    let addr = start().await;
    let reply = http::post(addr, &headers("read", Some("token-forged")), &call(1, "read")).await;
    assert_eq!(reply.status, 401, "{}", reply.body);
    let expected =
        format!(r#"Bearer error="invalid_token", resource_metadata="{DOCUMENT_URL}", scope="files:read files:write""#);
    assert_eq!(reply.header("www-authenticate"), Some(expected.as_str()));
    assert!(!reply.body.contains("token-forged"), "the token is not echoed: {}", reply.body);
    let ok = http::post(addr, &headers("read", Some("token-reader")), &call(2, "read")).await;
    assert_eq!(ok.status, 200, "{}", ok.body);
}

#[tokio::test]
async fn a_tool_refusing_for_scope_gets_403_with_a_step_up_challenge() {
    let addr = start().await;
    let reply = http::post(addr, &headers("write", Some("token-reader")), &call(7, "write")).await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    let expected =
        format!(r#"Bearer error="insufficient_scope", resource_metadata="{DOCUMENT_URL}", scope="files:write""#);
    assert_eq!(reply.header("www-authenticate"), Some(expected.as_str()));
    assert_eq!(
        reply.json(),
        json!({
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32003, "message": "Insufficient scope: requires files:write", "data": {"requiredScopes": ["files:write"]}}
        })
    );
}

#[tokio::test]
async fn offline_access_is_advertised_but_never_challenged_for() {
    let metadata = metadata().scopes_supported(["files:read", "offline_access"]);
    let config = HttpConfig::default().protected_resource(metadata).token_verifier(verifier());
    let addr = http::serve(&server(), config).await;
    let reply = http::post(addr, &headers("read", None), &call(1, "read")).await;
    let expected = format!(r#"Bearer resource_metadata="{DOCUMENT_URL}", scope="files:read""#);
    assert_eq!(reply.header("www-authenticate"), Some(expected.as_str()));
}

#[tokio::test]
async fn without_protected_resource_metadata_there_is_no_document() {
    let addr = http::serve(&server(), HttpConfig::default().token_verifier(verifier())).await;
    let reply = http::send(addr, "GET", DOCUMENT_PATH, &Headers::new(), "").await;
    assert_eq!(reply.status, 404, "{}", reply.body);
    let unauthenticated = http::post(addr, &headers("read", None), &call(1, "read")).await;
    assert_eq!(unauthenticated.header("www-authenticate"), Some("Bearer"), "nothing to point to");
}

#[tokio::test]
async fn a_scope_refusal_in_a_2025_11_25_session_is_403_too() {
    use crate::support::legacy_http::{initialize_with, legacy_headers};
    let addr = start().await;
    let auth = [("authorization", "Bearer token-reader")];
    let session = initialize_with(addr, json!({}), &auth).await;
    let message =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "write", "arguments": {}}});
    let headers = legacy_headers(Some(&session)).set("authorization", "Bearer token-reader");
    let reply = http::post(addr, &headers, &message).await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    let expected =
        format!(r#"Bearer error="insufficient_scope", resource_metadata="{DOCUMENT_URL}", scope="files:write""#);
    assert_eq!(reply.header("www-authenticate"), Some(expected.as_str()));
    assert_eq!(reply.json()["error"]["code"], -32003, "{}", reply.body);
}
