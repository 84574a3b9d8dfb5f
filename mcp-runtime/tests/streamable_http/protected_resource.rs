//! The endpoint as an OAuth protected resource: the RFC 9728 metadata document, the 401
//! challenge pointing to it, and the 403 step-up challenge of a scope refusal.

use std::net::SocketAddr;

use mcp::auth::{AuthInfo, StaticTokenVerifier};
use mcp::protocol::{CallToolOutcome, CallToolResult};
use mcp::serve::http::{HttpConfig, McpHttpService, ProtectedResourceMetadata, ProtectedResourceMetadataService};
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
    assert_eq!(reply.header("allow"), Some("GET, OPTIONS"));
    let reply = http::send(addr, "DELETE", DOCUMENT_PATH, &Headers::new(), "").await;
    assert_eq!(reply.status, 405, "{}", reply.body);
    assert_eq!(reply.header("allow"), Some("GET, OPTIONS"));
}

#[tokio::test]
async fn the_metadata_document_answers_a_cors_preflight() {
    let addr = start().await;
    let preflight = Headers::new()
        .set("origin", "https://inspector.example")
        .set("access-control-request-method", "GET")
        .set("access-control-request-headers", "mcp-protocol-version");
    let reply = http::send(addr, "OPTIONS", DOCUMENT_PATH, &preflight, "").await;
    assert_eq!(reply.status, 204, "{}", reply.body);
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    assert_eq!(reply.header("access-control-allow-methods"), Some("GET, OPTIONS"));
    assert_eq!(reply.header("access-control-allow-headers"), Some("*"), "covers mcp-protocol-version");
    assert!(reply.body.is_empty(), "{}", reply.body);
    let get =
        http::send(addr, "GET", DOCUMENT_PATH, &Headers::new().set("origin", "https://inspector.example"), "").await;
    assert_eq!(get.header("access-control-allow-origin"), Some("*"));
}

/// Needs `files:write`, declared on the item.
#[mcp::tool(scopes = ["files:write"])]
fn save() -> String {
    "saved".to_owned()
}

/// Needs `files:read`.
#[mcp::tool(scopes = ["files:read"])]
fn open() -> String {
    "opened".to_owned()
}

/// A server whose items declare their scopes, served with metadata that lists none.
async fn start_declaring() -> SocketAddr {
    let server = Server::builder("prm-declared", "1.0.0").tool::<save>().tool::<open>().build();
    let metadata =
        ProtectedResourceMetadata::new("https://mcp.example.com/mcp").authorization_server("https://auth.example.com");
    let config = HttpConfig::default().protected_resource(metadata).token_verifier(verifier());
    http::serve(&server, config).await
}

#[tokio::test]
async fn without_scopes_supported_the_document_and_the_401_list_the_items_declared_scopes() {
    let addr = start_declaring().await;
    let document = http::send(addr, "GET", DOCUMENT_PATH, &Headers::new(), "").await;
    assert_eq!(document.status, 200, "{}", document.body);
    assert_eq!(document.json()["scopes_supported"], json!(["files:read", "files:write"]));
    let reply = http::post(addr, &headers("save", None), &call(1, "save")).await;
    assert_eq!(reply.status, 401, "{}", reply.body);
    let expected = format!(r#"Bearer resource_metadata="{DOCUMENT_URL}", scope="files:read files:write""#);
    assert_eq!(reply.header("www-authenticate"), Some(expected.as_str()));
}

#[tokio::test]
async fn a_scoped_item_refused_over_http_gets_403_naming_its_own_scopes() {
    let addr = start_declaring().await;
    let opened = http::post(addr, &headers("open", Some("token-reader")), &call(1, "open")).await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    let reply = http::post(addr, &headers("save", Some("token-reader")), &call(2, "save")).await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    let expected =
        format!(r#"Bearer error="insufficient_scope", resource_metadata="{DOCUMENT_URL}", scope="files:write""#);
    assert_eq!(reply.header("www-authenticate"), Some(expected.as_str()));
    assert_eq!(reply.json()["error"]["data"], json!({"requiredScopes": ["files:write"]}), "{}", reply.body);
}

#[tokio::test]
async fn another_authorization_scheme_is_no_token_and_gets_no_error_code() {
    // RFC 6750 §3.1: a request without (bearer) credentials gets no error code.
    let addr = start().await;
    let basic = headers("read", None).set("authorization", "Basic YWxpY2U6c2VjcmV0");
    let reply = http::post(addr, &basic, &call(1, "read")).await;
    assert_eq!(reply.status, 401, "{}", reply.body);
    let expected = format!(r#"Bearer resource_metadata="{DOCUMENT_URL}", scope="files:read files:write""#);
    assert_eq!(reply.header("www-authenticate"), Some(expected.as_str()));
    let empty = headers("read", None).set("authorization", "Bearer ");
    let reply = http::post(addr, &empty, &call(2, "read")).await;
    assert_eq!(reply.header("www-authenticate"), Some(expected.as_str()));
    // The scheme is case-insensitive, and a known token passes.
    let lower = headers("read", None).set("authorization", "bearer token-reader");
    assert_eq!(http::post(addr, &lower, &call(3, "read")).await.status, 200);
}

#[tokio::test]
async fn serving_metadata_without_an_authorization_server_is_refused_at_startup() {
    let metadata = ProtectedResourceMetadata::new("https://mcp.example.com/mcp").scopes_supported(["files:read"]);
    let config = HttpConfig::default().protected_resource(metadata).token_verifier(verifier());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let served =
        tokio::time::timeout(std::time::Duration::from_secs(5), mcp::serve::http(listener, server()).config(config))
            .await
            .expect("refused at once, not served");
    let error = served.expect_err("no authorization server");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains("without an authorization server"), "{error}");
    assert!(error.to_string().contains("authorization_server("), "names the way out: {error}");
}

#[test]
#[should_panic(expected = "without an authorization server")]
fn a_service_with_metadata_without_an_authorization_server_panics_when_built() {
    let metadata = ProtectedResourceMetadata::new("https://mcp.example.com/mcp");
    let _ = McpHttpService::new(server(), HttpConfig::default().protected_resource(metadata));
}

/// `app` served by axum on a loopback port.
async fn serve_axum(app: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("axum stopped: {e}");
        }
    });
    addr
}

#[tokio::test]
async fn in_axum_the_endpoint_serves_its_document_with_the_declared_scopes() {
    let server = Server::builder("prm-axum", "1.0.0").tool::<save>().tool::<open>().build();
    let metadata =
        ProtectedResourceMetadata::new("https://mcp.example.com/mcp").authorization_server("https://auth.example.com");
    let path = metadata.well_known_path();
    let service =
        McpHttpService::new(server, HttpConfig::default().protected_resource(metadata).token_verifier(verifier()));
    let app = axum::Router::new().route_service(&path, service.clone()).route_service("/mcp", service);
    let addr = serve_axum(app).await;

    let document = http::send(addr, "GET", DOCUMENT_PATH, &Headers::new(), "").await;
    assert_eq!(document.status, 200, "{}", document.body);
    assert_eq!(document.json()["scopes_supported"], json!(["files:read", "files:write"]));
    let preflight = http::send(addr, "OPTIONS", DOCUMENT_PATH, &Headers::new(), "").await;
    assert_eq!(preflight.status, 204);
    let reply = http::post(addr, &headers("save", Some("token-reader")), &call(1, "save")).await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    let expected =
        format!(r#"Bearer error="insufficient_scope", resource_metadata="{DOCUMENT_URL}", scope="files:write""#);
    assert_eq!(reply.header("www-authenticate"), Some(expected.as_str()));
}

#[tokio::test]
async fn in_axum_the_metadata_service_mounts_on_its_own() {
    let service = ProtectedResourceMetadataService::new(metadata());
    let app = axum::Router::new().route_service(&metadata().well_known_path(), service);
    let addr = serve_axum(app).await;
    let document = http::send(addr, "GET", DOCUMENT_PATH, &Headers::new(), "").await;
    assert_eq!(document.status, 200, "{}", document.body);
    assert_eq!(document.json(), metadata().to_json());
    let refused = http::send(addr, "PUT", DOCUMENT_PATH, &Headers::json(), "{}").await;
    assert_eq!(refused.status, 405);
    assert_eq!(refused.header("allow"), Some("GET, OPTIONS"));
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
