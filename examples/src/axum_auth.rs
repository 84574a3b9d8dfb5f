//! A server mounted in an axum app whose own middleware authenticates callers.
//!
//! Authentication often lives outside the MCP endpoint: in axum middleware, or in a
//! gateway in front of the service. The middleware here checks the bearer token against
//! a small in-memory table (a stand-in for an identity provider) and inserts the caller's
//! [`AuthInfo`] into the request's extensions; requests without a known token get 401
//! before they reach the endpoint. The endpoint has no verifier of its own, so it takes
//! that `AuthInfo` as the caller: tools read it with `ctx.auth()`, and sealed request
//! state is bound to it.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mcp::auth::AuthInfo;
use mcp::serve::http::{HttpConfig, McpHttpService};
use mcp::{Context, Server};

/// The header a tool reads besides the caller: the id a proxy gave the request.
pub const REQUEST_ID: &str = "x-request-id";

/// The bearer tokens the middleware accepts, and who each stands for.
#[derive(Clone, Debug)]
pub struct Tokens(Arc<HashMap<String, AuthInfo>>);

impl Tokens {
    /// `token-alice` (alice, reads and writes tickets) and `token-bob` (bob, reads them).
    pub fn demo() -> Self {
        let user = |subject: &str, scopes: &[&str]| AuthInfo {
            client_id: "axum-auth-example".into(),
            issuer: Some("https://login.example.com".into()),
            subject: Some(subject.into()),
            scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
            expires_at: None,
        };
        Tokens(Arc::new(HashMap::from([
            ("token-alice".to_owned(), user("alice", &["tickets:read", "tickets:write"])),
            ("token-bob".to_owned(), user("bob", &["tickets:read"])),
        ])))
    }

    /// The caller behind an `Authorization: Bearer <token>` value, if the token is known.
    pub fn verify(&self, authorization: Option<&HeaderValue>) -> Option<AuthInfo> {
        let token = authorization?.to_str().ok()?.strip_prefix("Bearer ")?.trim();
        self.0.get(token).cloned()
    }
}

/// Tells the caller who the server thinks they are, and the request id their proxy set.
#[mcp::tool(annotations(read_only = true))]
pub fn whoami(ctx: Context) -> String {
    let who = match ctx.auth() {
        Some(auth) => format!(
            "{} (client {}, scopes: {})",
            auth.subject.as_deref().unwrap_or("?"),
            auth.client_id,
            auth.scopes.join(" ")
        ),
        None => "nobody".to_owned(),
    };
    let request_id = ctx.http_headers().and_then(|h| h.get(REQUEST_ID)).and_then(|v| v.to_str().ok());
    format!("You are {who}; request id: {}.", request_id.unwrap_or("none"))
}

/// The MCP server: one tool.
pub fn server() -> Server {
    crate::with_env_keys(Server::builder("axum-auth", env!("CARGO_PKG_VERSION"))).tool::<whoami>().build()
}

/// Refuse requests without a known bearer token (401); tag the others with their caller.
async fn authenticate(tokens: Tokens, mut request: Request, next: Next) -> Response {
    match tokens.verify(request.headers().get(header::AUTHORIZATION)) {
        Some(auth) => {
            request.extensions_mut().insert(auth);
            next.run(request).await
        }
        None => {
            tracing::warn!(path = %request.uri().path(), "refusing a request without a known bearer token");
            let challenge = [(header::WWW_AUTHENTICATE, "Bearer realm=\"axum-auth\"")];
            (StatusCode::UNAUTHORIZED, challenge, "missing or unknown bearer token\n").into_response()
        }
    }
}

/// The app: `server` at `/mcp` with `config`, behind the authenticating middleware.
pub fn app(server: Server, config: HttpConfig, tokens: Tokens) -> axum::Router {
    axum::Router::new().route_service("/mcp", McpHttpService::new(server, config)).layer(axum::middleware::from_fn(
        move |request: Request, next: Next| authenticate(tokens.clone(), request, next),
    ))
}
