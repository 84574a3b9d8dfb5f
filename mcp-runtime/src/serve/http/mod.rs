//! Streamable HTTP: one endpoint serving both protocol eras.
//!
//! - 2026-07-28: one JSON-RPC message per POST; the request-metadata headers are checked
//!   against the body; the answer is JSON, or an SSE stream scoped to the request when
//!   the handler sends notifications first. Closing the stream cancels the handler.
//! - 2025-11-25 on the same endpoint: `initialize` opens a session (`Mcp-Session-Id`);
//!   GET opens its notification stream; DELETE ends it; the server's own requests travel
//!   on the asking request's SSE stream and the client POSTs their responses back.
//!
//! [`McpHttpService`] is a `tower` service, so it mounts in an axum `Router`:
//!
//! ```
//! # async fn demo(server: mcp::Server) {
//! use mcp::serve::http::{HttpConfig, McpHttpService};
//! let service = McpHttpService::new(server, HttpConfig::default());
//! let app: axum::Router = axum::Router::new().route_service("/mcp", service);
//! # let _ = app;
//! # }
//! ```

mod auth;
mod body;
mod challenge;
mod check;
mod config;
mod connection_slots;
mod exchange;
mod exposure;
mod listener;
mod metadata;
mod names;
mod open_streams;
mod reply;
mod request_body;
mod security;
mod sessions;
mod stream;
mod stream_limits;
mod workers;

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use body::HttpBody;
pub use config::{DEFAULT_SESSION_IDLE_TIMEOUT, DEFAULT_SESSION_MAX_LIFETIME, HttpConfig};
pub use listener::Serve;
pub use metadata::{ProtectedResourceMetadata, ProtectedResourceMetadataService};
pub use security::LOOPBACK_HOSTS;

use crate::Server;
use crate::handler::AuthInfo;
use crate::handler::{Caller, HttpRequest, Session};
use crate::protocol::{Error, ErrorCode, JsonRpcMessage, RequestId, decode_message_with, meta_version, methods, param};
use crate::server::ListenLifetime;
use crate::wire::headers::{self, HeaderParam};
use crate::wire::untrusted::Untrusted;
use body::Event;
use reply::{
    accepts, empty_response, error_response, final_response, json_response, method_not_allowed, reuse_request_headers,
    session_id, session_not_found, sse_response,
};
use sessions::{Owner, Sessions};
use stream_limits::{Client, StreamLimiter};

/// The MCP endpoint as a `tower` service (`Service<http::Request<B>>`). Cheap to clone.
#[derive(Clone)]
pub struct McpHttpService {
    state: Arc<State>,
    /// The TCP peer of the connection, set by the built-in listener on its per-request
    /// clone (a field rather than a request extension, which allocates a map and a box
    /// for every request); `None` when mounted in a router, where a layer in front may put
    /// a `SocketAddr` in the extensions instead.
    peer: Option<SocketAddr>,
}

impl std::fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpService").field("config", &self.state.config).finish_non_exhaustive()
    }
}

struct State {
    server: Server,
    config: HttpConfig,
    sessions: Arc<Sessions>,
    permits: Arc<Semaphore>,
    /// Slots of long-lived streams (listen, GET), apart from the request `permits`.
    streams: StreamLimiter,
    tool_index: Mutex<Option<(u64, ToolIndex)>>,
    /// The session of every request served outside a legacy session (2026-07-28 ones, and
    /// those refused for lacking a `_meta`). Nothing on that path writes to it: `initialize`
    /// opens a session of its own, and only legacy requests register, subscribe or ask
    /// the client. Shared rather than made per request (an 872-byte allocation and three
    /// maps each time).
    stateless: Arc<Session>,
}

/// `Err` (`InvalidInput`) when `config` cannot be served: protected resource metadata
/// without an authorization server.
pub(super) fn check_config(config: &HttpConfig) -> std::io::Result<()> {
    config.protected_resource.as_deref().map_or(Ok(()), ProtectedResourceMetadata::check)
}

/// The header-mirrored arguments of each tool, by tool name.
type ToolIndex = Arc<HashMap<String, Vec<HeaderParam>>>;

impl McpHttpService {
    /// `server` as an HTTP service with `config`.
    ///
    /// With [`HttpConfig::protected_resource`] metadata that sets no
    /// [`scopes_supported`](ProtectedResourceMetadata::scopes_supported), the document and
    /// the 401 challenge's `scope` list [`server.declared_scopes()`](Server::declared_scopes),
    /// read now. The service answers the document's
    /// [well-known path](ProtectedResourceMetadata::well_known_path) too, so in a router
    /// mount it there as well as at the endpoint's path:
    ///
    /// ```
    /// # async fn demo(server: mcp::Server, verifier: mcp::auth::StaticTokenVerifier) {
    /// use mcp::serve::http::{HttpConfig, McpHttpService, ProtectedResourceMetadata};
    ///
    /// let metadata = ProtectedResourceMetadata::new("https://api.example.com/mcp")
    ///     .authorization_server("https://auth.example.com");
    /// let document_path = metadata.well_known_path();
    /// let config = HttpConfig::default()
    ///     .allowed_hosts(["api.example.com"])
    ///     .protected_resource(metadata)
    ///     .token_verifier(verifier);
    /// let service = McpHttpService::new(server, config);
    /// let app: axum::Router =
    ///     axum::Router::new().route_service(&document_path, service.clone()).route_service("/mcp", service);
    /// # let _ = app;
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// When the protected resource metadata names no
    /// [authorization server](ProtectedResourceMetadata::authorization_server): MCP
    /// requires one ([`serve::http`](fn@crate::serve::http) returns an `InvalidInput`
    /// error instead).
    pub fn new(server: Server, mut config: HttpConfig) -> Self {
        if let Some(metadata) = config.protected_resource.take() {
            if let Err(e) = metadata.check() {
                panic!("{e}");
            }
            config.protected_resource = Some(metadata.or_scopes(server.declared_scopes()));
        }
        McpHttpService {
            state: Arc::new(State {
                server,
                sessions: Arc::new(Sessions::new(sessions::Policy {
                    max: config.max_sessions,
                    idle_timeout: config.session_idle_timeout,
                    max_lifetime: config.session_max_lifetime,
                })),
                permits: Arc::new(Semaphore::new(config.max_concurrent_requests)),
                streams: StreamLimiter::new(&config),
                config,
                tool_index: Mutex::new(None),
                stateless: Arc::new(Session::new()),
            }),
            peer: None,
        }
    }

    /// This service for the requests of one connection from `peer`.
    pub(super) fn with_peer(mut self, peer: SocketAddr) -> Self {
        self.peer = Some(peer);
        self
    }
}

impl<B> tower_service::Service<Request<B>> for McpHttpService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<HttpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let state = Arc::clone(&self.state);
        let peer = self.peer;
        Box::pin(async move { Ok(state.handle(request, peer).await) })
    }
}

impl State {
    async fn handle<B>(self: Arc<Self>, request: Request<B>, peer: Option<SocketAddr>) -> Response<HttpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        // The checks borrow the request inside a block: a local once borrowed keeps its room
        // in the future's state until its scope ends, and the request moves into `post`.
        let (request, auth, post) = {
            let request = request;
            // The metadata document is public: no host check, no token (RFC 9728).
            if let Some(metadata) = &self.config.protected_resource
                && request.uri().path() == metadata.well_known_path()
            {
                return metadata.respond(request.method());
            }
            if let Some(path) = &self.config.path
                && request.uri().path() != path
            {
                return empty_response(StatusCode::NOT_FOUND);
            }
            if let Some(allowed) = &self.config.allowed_hosts
                && let Err(refusal) = security::check(request.headers(), allowed)
            {
                tracing::warn!(?refusal, "refusing a request from an unexpected host or origin");
                return error_response(
                    StatusCode::FORBIDDEN,
                    None,
                    ErrorCode::INVALID_REQUEST,
                    "Forbidden: host or origin not allowed",
                );
            }
            let auth = match auth::caller(&self.config, request.headers(), request.extensions()).await {
                Ok(auth) => auth,
                Err(response) => return *response,
            };
            let post = request.method() == Method::POST;
            (request, auth, post)
        };
        if post {
            return self.post(request, auth, peer).await;
        }
        match *request.method() {
            Method::GET => {
                let client = Client::of(auth.as_deref(), request.extensions(), peer);
                self.get(request.headers(), auth, client)
            }
            Method::DELETE => self.delete(request.headers(), auth),
            _ => method_not_allowed("GET, POST, DELETE"),
        }
    }

    fn delete(&self, headers: &http::HeaderMap, auth: Option<Arc<AuthInfo>>) -> Response<HttpBody> {
        let Some(id) = session_id(headers) else {
            return method_not_allowed("POST");
        };
        // Another principal's session answers as an unknown one.
        if self.sessions.remove(id, Owner::of(auth.as_deref())) {
            empty_response(StatusCode::OK)
        } else {
            session_not_found(None)
        }
    }

    /// The JSON-RPC message of a POST body, or the 400 that answers one that is not.
    fn decode(&self, bytes: &[u8]) -> Result<JsonRpcMessage, Response<HttpBody>> {
        let depth = self.server.limits().max_json_depth;
        let decoded = match std::str::from_utf8(bytes) {
            Ok(text) => decode_message_with(text, depth),
            Err(_) => decode_message_with("\u{0}", depth),
        };
        decoded.map_err(|e| {
            json_response(StatusCode::BAD_REQUEST, crate::handler::error_frame(e.id.clone(), e.to_error_object()))
        })
    }

    /// Serve a POST from `peer`, by the caller `auth`.
    async fn post<B>(
        self: Arc<Self>,
        request: Request<B>,
        auth: Option<Arc<AuthInfo>>,
        peer: Option<SocketAddr>,
    ) -> Response<HttpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = request.into_parts();
        // Shared from the start (the handler's context gets a handle): the parts themselves
        // are never a local that the future keeps room for while the request is served.
        let mut http = Arc::new(HttpRequest { parts, peer });
        let json = http
            .parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| reply::before_parameters(v.as_bytes()).eq_ignore_ascii_case(b"application/json"));
        if !json {
            return error_response(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                ErrorCode::INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
            );
        }
        if !accepts(&http.parts.headers, &["application/json", "text/event-stream"]) {
            return error_response(
                StatusCode::NOT_ACCEPTABLE,
                None,
                ErrorCode::INVALID_REQUEST,
                "Not Acceptable: Accept must list application/json and text/event-stream",
            );
        }
        let limit = self.config.max_body_bytes;
        // A Content-Length over the limit is refused before reading a byte of the body.
        if usize::try_from(http_body::Body::size_hint(&body).lower()).map_or(true, |declared| declared > limit) {
            return request_body::too_large(limit);
        }
        // The request slot before the body: a full pool answers 503 without reading it.
        let permit = match request_body::request_slot(&self.permits, self.config.max_concurrent_requests) {
            Ok(permit) => permit,
            Err(busy) => return busy,
        };
        // The body's bytes are dropped once decoded, not kept while the request is served.
        let read = request_body::read(body, limit, self.config.body_read_timeout).await;
        let message = match read.and_then(|bytes| self.decode(&bytes)) {
            Ok(message) => message,
            Err(refusal) => return refusal,
        };
        if let JsonRpcMessage::Request(request) = &message
            && request.method == methods::SUBSCRIPTIONS_LISTEN
            && let Some(http) = Arc::get_mut(&mut http)
        {
            http.parts.extensions.insert(ListenLifetime(self.streams.lifetime()));
        }
        let headers = &http.parts.headers;
        let owner = || Owner::of(auth.as_deref());
        match message {
            JsonRpcMessage::Request(request) => {
                let caller = Caller { auth, http: Some(Arc::clone(&http)) };
                let response = self.request(headers, request, caller, permit).await;
                reuse_request_headers(response, http)
            }
            JsonRpcMessage::Notification(notification) => match session_id(headers) {
                None => empty_response(StatusCode::ACCEPTED),
                Some(sid) => match self.sessions.get(sid, owner()) {
                    Some(session) => {
                        session.handle_notification(notification);
                        empty_response(StatusCode::ACCEPTED)
                    }
                    // 2025-11-25: anything naming an ended session gets 404, so the client
                    // knows to initialize again.
                    None => session_not_found(None),
                },
            },
            JsonRpcMessage::Result(response) => {
                self.client_response(headers, owner(), Some(&response.id.clone()), Ok(response.result))
            }
            JsonRpcMessage::Error(response) => {
                let id = response.id.clone();
                self.client_response(headers, owner(), id.as_ref(), Err(response.error))
            }
        }
    }

    fn client_response(
        &self,
        headers: &http::HeaderMap,
        owner: Owner,
        id: Option<&RequestId>,
        outcome: Result<Value, Error>,
    ) -> Response<HttpBody> {
        let Some(sid) = session_id(headers) else {
            return error_response(
                StatusCode::BAD_REQUEST,
                None,
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: clients send responses only within a 2025-11-25 session",
            );
        };
        // Only the principal that opened the session may answer its questions.
        match self.sessions.get(sid, owner) {
            Some(session) => {
                session.route_response(id, outcome);
                empty_response(StatusCode::ACCEPTED)
            }
            None => session_not_found(None),
        }
    }

    async fn request(
        self: Arc<Self>,
        headers: &http::HeaderMap,
        request: crate::protocol::JsonRpcRequest<crate::protocol::Params>,
        caller: Caller,
        permit: OwnedSemaphorePermit,
    ) -> Response<HttpBody> {
        let modern = meta_version(request.params.as_ref()).is_some();
        if !modern && request.method == methods::INITIALIZE {
            let owner = Owner::of(caller.auth.as_deref());
            let Some((id, session)) = self.sessions.create(owner) else {
                tracing::warn!(limit = self.config.max_sessions, "refusing initialize: every session is busy");
                return error_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    Some(request.id),
                    ErrorCode::SERVER_BUSY,
                    "Server busy: too many sessions; retry later",
                );
            };
            // Legacy errors are answered with 200 too, so the status cannot tell whether
            // the handshake succeeded; only a successful one keeps its session.
            let (mut response, answered) = self.run_reporting(session, request, true, caller, permit).await;
            if answered {
                if let Ok(value) = HeaderValue::from_str(&id) {
                    response.headers_mut().insert(&names::SESSION_ID, value);
                }
            } else {
                self.sessions.remove(&id, owner);
            }
            return response;
        }
        if !modern && let Some(sid) = session_id(headers) {
            let Some(session) = self.sessions.get(sid, Owner::of(caller.auth.as_deref())) else {
                return session_not_found(Some(request.id));
            };
            // Busy from here: not evicted or expired before the request is registered as running.
            let _hold = session.hold();
            return self.run_reporting(session, request, true, caller, permit).await.0;
        }
        if modern {
            let tool_params = if request.method == methods::TOOLS_CALL {
                let name = param(request.params.as_ref(), "name").and_then(Value::as_str).unwrap_or_default();
                self.tool_params(name).await
            } else {
                Vec::new()
            };
            if let Err(e) = check::validate(headers, &request.method, request.params.as_ref(), &tool_params) {
                // Not the message: it quotes header and argument values, which may be secrets.
                tracing::debug!(method = ?Untrusted(&request.method), "header validation failed");
                return json_response(StatusCode::BAD_REQUEST, crate::handler::error_frame(Some(request.id), e));
            }
        }
        debug_assert!(!self.stateless.is_legacy(), "the stateless session never becomes a legacy one");
        self.run_reporting(Arc::clone(&self.stateless), request, false, caller, permit).await.0
    }

    /// The header-mirrored arguments of tool `name`, from a cache rebuilt when the tool list changes.
    async fn tool_params(&self, name: &str) -> Vec<HeaderParam> {
        let generation = self.server.tools_generation();
        let cached = self
            .tool_index
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .filter(|(g, _)| *g == generation)
            .map(|(_, index)| Arc::clone(index));
        let index = match cached {
            Some(index) => index,
            None => {
                let tools = match self.server.list_all_tools().await {
                    Ok(tools) => tools,
                    Err(e) => {
                        tracing::warn!(error = %e, "could not list tools to read their x-mcp-header annotations");
                        Vec::new()
                    }
                };
                let index = Arc::new(headers::index_tools(&tools));
                *self.tool_index.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
                    Some((generation, Arc::clone(&index)));
                index
            }
        };
        index.get(name).cloned().unwrap_or_default()
    }

    /// Serve `request` in `session`, telling also whether it got a result (not an error).
    /// An SSE answer counts as a result: its outcome is not known yet. `permit` is the
    /// request's slot, taken before its body was read.
    async fn run_reporting(
        &self,
        session: Arc<Session>,
        request: crate::protocol::JsonRpcRequest<crate::protocol::Params>,
        legacy: bool,
        caller: Caller,
        permit: OwnedSemaphorePermit,
    ) -> (Response<HttpBody>, bool) {
        // A listen stream lives as long as the client listens: it takes a stream slot, never
        // one of the request slots, which it would hold indefinitely.
        if request.method == methods::SUBSCRIPTIONS_LISTEN && !legacy {
            let none = http::Extensions::new();
            let extensions = caller.http.as_ref().map_or(&none, |http| &http.parts.extensions);
            let peer = caller.http.as_ref().and_then(|http| http.peer);
            let client = Client::of(caller.auth.as_deref(), extensions, peer);
            // Hand back the request slot taken before the body was read.
            drop(permit);
            return match self.streams.acquire(client, None) {
                Ok(slot) => self.serve(session, request, legacy, slot, caller).await,
                Err(refused) => (refused.response(Some(request.id)), false),
            };
        }
        self.serve(session, request, legacy, permit, caller).await
    }

    /// Serve `request` holding `permit` (a request permit or a stream slot) until it is done.
    async fn serve(
        &self,
        session: Arc<Session>,
        request: crate::protocol::JsonRpcRequest<crate::protocol::Params>,
        legacy: bool,
        permit: impl Send + 'static,
        caller: Caller,
    ) -> (Response<HttpBody>, bool) {
        let id = request.id.clone();
        let mut events = if legacy {
            exchange::start(self.server.clone(), session, request, legacy, permit, caller)
        } else {
            match exchange::serve_inline(self.server.clone(), session, request, permit, caller).await {
                exchange::Served::Done(frame, error_code) => {
                    return (final_response(&self.config, frame, error_code, false), error_code.is_none());
                }
                exchange::Served::Streaming(first, rest) => {
                    return (sse_response(HttpBody::sse(Some(first), rest, self.config.sse_keep_alive), None), true);
                }
            }
        };
        match events.recv().await {
            Some(Event::Last(frame, error_code)) => {
                (final_response(&self.config, frame, error_code, legacy), error_code.is_none())
            }
            Some(first @ Event::Message(_)) => {
                (sse_response(HttpBody::sse(Some(first), events, self.config.sse_keep_alive), None), true)
            }
            None => (
                error_response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Some(id),
                    ErrorCode::INTERNAL_ERROR,
                    "Internal error",
                ),
                false,
            ),
        }
    }
}
