//! The verifier hook that sees more than the token: the resource the endpoint is
//! configured as (the audience a token must be meant for) and the request's headers.

use std::sync::{Arc, Mutex};

use mcp::auth::{AuthInfo, TokenVerifier, VerifyRequest};
use mcp::handler::BoxFuture;
use mcp::protocol::CallToolResult;
use mcp::serve::http::HttpConfig;
use mcp::{RequestContext, Server};
use mcp_testkit::http::{self, Headers};
use mcp_testkit::stdio::modern_params;
use serde_json::json;

/// What the verifier was shown, per request: (token, resource, `x-tenant` header).
type Seen = Arc<Mutex<Vec<(String, Option<String>, Option<String>)>>>;

/// Accepts `good` only when the endpoint is configured as the resource it knows, and
/// records everything it is shown.
struct AudienceVerifier {
    seen: Seen,
}

impl TokenVerifier for AudienceVerifier {
    fn verify(&self, _token: &str) -> BoxFuture<Option<AuthInfo>> {
        panic!("the transport calls verify_request, which this verifier overrides")
    }

    fn verify_request(&self, request: &VerifyRequest<'_>) -> BoxFuture<Option<AuthInfo>> {
        let tenant = request.headers().and_then(|h| h.get("x-tenant")).and_then(|v| v.to_str().ok());
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).push((
            request.token().to_owned(),
            request.resource().map(str::to_owned),
            tenant.map(str::to_owned),
        ));
        let accepted = request.token() == "good" && request.resource() == Some("https://api.example.com/mcp");
        let auth =
            accepted.then(|| AuthInfo { client_id: "app".into(), subject: Some("ann".into()), ..AuthInfo::default() });
        Box::pin(async move { auth })
    }
}

async fn start(config: HttpConfig) -> (std::net::SocketAddr, Seen) {
    let server = Server::builder("hook-test", "1.0.0")
        .on_call_tool(|ctx: RequestContext, _params| async move {
            let subject = ctx.auth().and_then(|a| a.subject.clone()).unwrap_or_default();
            Ok(CallToolResult::text(subject).into())
        })
        .build();
    let seen = Seen::default();
    let verifier = AudienceVerifier { seen: Arc::clone(&seen) };
    (http::serve(&server, config.token_verifier(verifier)).await, seen)
}

fn whoami(token: &str) -> (Headers, serde_json::Value) {
    let params = modern_params(json!({}), json!({"name": "whoami", "arguments": {}}));
    let headers = Headers::modern("tools/call", Some("whoami"))
        .set("authorization", &format!("Bearer {token}"))
        .set("x-tenant", "acme");
    (headers, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}))
}

#[tokio::test]
async fn a_verifier_sees_the_configured_resource_and_the_headers() {
    let (addr, seen) = start(HttpConfig::default().resource("https://api.example.com/mcp")).await;
    let (headers, message) = whoami("good");
    let reply = http::post(addr, &headers, &message).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["result"]["content"][0]["text"], "ann");
    let (headers, message) = whoami("other");
    let refused = http::post(addr, &headers, &message).await;
    assert_eq!(refused.status, 401);
    assert_eq!(refused.header("www-authenticate"), Some("Bearer error=\"invalid_token\""));
    let resource = Some("https://api.example.com/mcp".to_owned());
    let tenant = Some("acme".to_owned());
    assert_eq!(
        *seen.lock().unwrap_or_else(|e| e.into_inner()),
        [("good".to_owned(), resource.clone(), tenant.clone()), ("other".to_owned(), resource, tenant)]
    );
}

#[tokio::test]
async fn without_a_configured_resource_the_verifier_sees_none() {
    let (addr, seen) = start(HttpConfig::default()).await;
    let (headers, message) = whoami("good");
    let reply = http::post(addr, &headers, &message).await;
    assert_eq!(reply.status, 401, "this verifier insists on its resource: {}", reply.body);
    assert_eq!(*seen.lock().unwrap_or_else(|e| e.into_inner()), [("good".to_owned(), None, Some("acme".to_owned()))]);
}
