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

mod body;
mod check;
mod exchange;
mod security;
mod sessions;

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};

pub use body::HttpBody;
pub use security::LOOPBACK_HOSTS;

use crate::Server;
use crate::handler::AuthInfo;
use crate::handler::{Caller, Change, Session};
use crate::protocol::{Error, ErrorCode, JsonRpcMessage, RequestId, decode_message_with, keys, methods};
use crate::wire::headers::{self, HeaderParam};
use body::Event;
use sessions::Sessions;

/// Limits and policies of the HTTP endpoint, set with builder methods:
///
/// ```
/// use std::time::Duration;
/// use mcp::serve::http::HttpConfig;
///
/// let config = HttpConfig::default()
///     .allowed_hosts(["api.example.com"])
///     .max_body_bytes(1 << 20)
///     .sse_keep_alive(Duration::from_secs(30));
/// # let _ = config;
/// ```
#[derive(Clone)]
pub struct HttpConfig {
    pub(crate) path: Option<String>,
    pub(crate) max_body_bytes: usize,
    pub(crate) max_concurrent_requests: usize,
    pub(crate) max_sessions: usize,
    pub(crate) sse_keep_alive: Duration,
    pub(crate) allowed_hosts: Option<Vec<String>>,
    pub(crate) token_verifier: Option<Arc<dyn crate::auth::TokenVerifier>>,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("path", &self.path)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_concurrent_requests", &self.max_concurrent_requests)
            .field("max_sessions", &self.max_sessions)
            .field("sse_keep_alive", &self.sse_keep_alive)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("token_verifier", &self.token_verifier.is_some())
            .finish()
    }
}

impl Default for HttpConfig {
    /// `/mcp`, 4 MiB bodies, 512 concurrent requests, 1024 sessions, 15 s keep-alive, and
    /// only loopback host names accepted.
    fn default() -> Self {
        HttpConfig {
            path: Some("/mcp".to_owned()),
            max_body_bytes: crate::wire::framing::DEFAULT_MAX_MESSAGE_BYTES,
            max_concurrent_requests: 512,
            max_sessions: 1024,
            sse_keep_alive: Duration::from_secs(15),
            allowed_hosts: Some(LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect()),
            token_verifier: None,
        }
    }
}

impl HttpConfig {
    /// The default policy for a server bound to `addr`: DNS-rebinding protection is on for
    /// loopback addresses and off otherwise (set [`allowed_hosts`](Self::allowed_hosts)
    /// to your public host names).
    pub fn for_addr(addr: SocketAddr) -> Self {
        let mut config = HttpConfig::default();
        if !addr.ip().is_loopback() {
            config.allowed_hosts = None;
        }
        config
    }

    /// The endpoint path (default `/mcp`); other paths get 404.
    #[must_use]
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Serve every path (useful when a router already matched the route).
    #[must_use]
    pub fn any_path(mut self) -> Self {
        self.path = None;
        self
    }

    /// The largest request body accepted (default 4 MiB); larger ones get 413.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Requests handled at once (default 512); more get 503 with `Retry-After`.
    #[must_use]
    pub fn max_concurrent_requests(mut self, requests: usize) -> Self {
        self.max_concurrent_requests = requests;
        self
    }

    /// Open 2025-11-25 sessions at once (default 1024); more `initialize` requests get 503.
    #[must_use]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// Interval of SSE keep-alive comments (default 15 s).
    #[must_use]
    pub fn sse_keep_alive(mut self, interval: Duration) -> Self {
        self.sse_keep_alive = interval;
        self
    }

    /// Host names accepted in `Host` and `Origin` (DNS-rebinding protection); others get
    /// 403. The default accepts the loopback names only.
    #[must_use]
    pub fn allowed_hosts<I>(mut self, hosts: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Turn the `Host`/`Origin` check off (behind a proxy that checks them itself).
    #[must_use]
    pub fn allow_any_host(mut self) -> Self {
        self.allowed_hosts = None;
        self
    }

    /// Verify `Authorization: Bearer` tokens with `verifier`; requests without a valid one
    /// get 401. The caller's [`AuthInfo`] reaches handlers through the context and binds
    /// sealed request state to the principal.
    ///
    /// Without a verifier, the endpoint takes the [`AuthInfo`] that a layer in front of it
    /// (an axum middleware, a gateway adapter) inserted into the request's extensions, and
    /// treats it exactly the same way. With a verifier, the verifier wins: an `AuthInfo` in
    /// the extensions is ignored (it stays readable through
    /// [`RequestContext::http_extensions`](crate::RequestContext::http_extensions)).
    #[must_use]
    pub fn token_verifier(mut self, verifier: impl crate::auth::TokenVerifier) -> Self {
        self.token_verifier = Some(Arc::new(verifier));
        self
    }
}

/// The MCP endpoint as a `tower` service (`Service<http::Request<B>>`). Cheap to clone.
#[derive(Clone)]
pub struct McpHttpService {
    state: Arc<State>,
}

impl std::fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpService").field("config", &self.state.config).finish_non_exhaustive()
    }
}

struct State {
    server: Server,
    config: HttpConfig,
    sessions: Sessions,
    permits: Arc<Semaphore>,
    tool_index: Mutex<Option<(u64, ToolIndex)>>,
}

/// The header-mirrored arguments of each tool, by tool name.
type ToolIndex = Arc<HashMap<String, Vec<HeaderParam>>>;

impl McpHttpService {
    /// `server` as an HTTP service with `config`.
    pub fn new(server: Server, config: HttpConfig) -> Self {
        McpHttpService {
            state: Arc::new(State {
                server,
                sessions: Sessions::new(config.max_sessions),
                permits: Arc::new(Semaphore::new(config.max_concurrent_requests)),
                config,
                tool_index: Mutex::new(None),
            }),
        }
    }
}

/// Serves Streamable HTTP on a bound listener. Made by [`serve::http`](fn@crate::serve::http);
/// await it. It serves until the shutdown signal completes, then stops gracefully: stops
/// accepting, lets every connection finish the requests it is serving (idle keep-alive
/// connections close at once), and returns when they are done or after the grace period,
/// whichever comes first (requests still running then are dropped, which cancels them).
#[must_use = "an HTTP server does nothing until awaited"]
pub struct Serve<S = std::future::Pending<()>> {
    listener: TcpListener,
    server: Server,
    config: HttpConfig,
    grace: Duration,
    shutdown: S,
}

impl<S> std::fmt::Debug for Serve<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serve").field("config", &self.config).field("grace", &self.grace).finish_non_exhaustive()
    }
}

impl Serve {
    pub(crate) fn new(listener: TcpListener, server: Server) -> Self {
        let config = match listener.local_addr() {
            Ok(addr) => HttpConfig::for_addr(addr),
            Err(_) => HttpConfig::default(),
        };
        Serve { listener, server, config, grace: crate::serve::DEFAULT_GRACE, shutdown: std::future::pending() }
    }
}

impl<S> Serve<S> {
    /// The endpoint's limits and policies (replaces the default for the listener's address).
    pub fn config(mut self, config: HttpConfig) -> Self {
        self.config = config;
        self
    }

    /// How long requests in flight may still run once shutdown starts (default 5 s).
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Stop accepting when `signal` completes, then finish in-flight requests within the
    /// grace period.
    pub fn with_graceful_shutdown<F>(self, signal: F) -> Serve<F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        Serve { listener: self.listener, server: self.server, config: self.config, grace: self.grace, shutdown: signal }
    }
}

impl<S> std::future::IntoFuture for Serve<S>
where
    S: Future<Output = ()> + Send + 'static,
{
    type Output = std::io::Result<()>;
    type IntoFuture = crate::serve::Shutdown;

    fn into_future(self) -> crate::serve::Shutdown {
        let service = McpHttpService::new(self.server, self.config);
        Box::pin(run(self.listener, service, self.shutdown, self.grace))
    }
}

/// Accept connections and serve them until `shutdown`, then drain within `grace`.
async fn run(
    listener: TcpListener,
    service: McpHttpService,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        while connections.try_join_next().is_some() {}
        let (stream, peer) = match accepted {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed; retrying");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let service = service.clone();
        let mut stop = stop_rx.clone();
        connections.spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let hyper_service = hyper::service::service_fn(move |request| {
                let mut service = service.clone();
                tower_service::Service::call(&mut service, request)
            });
            let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, hyper_service);
            tokio::pin!(connection);
            let finished = tokio::select! {
                ended = connection.as_mut() => Some(ended),
                stopping = stop.wait_for(|stop| *stop) => stopping.map(|_| None).unwrap_or(None),
            };
            let ended = match finished {
                Some(ended) => ended,
                None => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(e) = ended {
                tracing::debug!(%peer, error = %e, "HTTP connection ended with an error");
            }
        });
    }
    drop(listener);
    let in_flight = connections.len();
    tracing::info!(connections = in_flight, "shutting down: no new connections; finishing in-flight requests");
    let _ = stop_tx.send(true);
    let drained = tokio::time::timeout(grace, async { while connections.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tracing::warn!(remaining = connections.len(), "shutdown grace period over; dropping the remaining requests");
        connections.shutdown().await;
    }
    Ok(())
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
        Box::pin(async move { Ok(state.handle(request).await) })
    }
}

/// A JSON response with a JSON-RPC error.
fn error_response(
    status: StatusCode,
    id: Option<RequestId>,
    code: i32,
    message: impl Into<String>,
) -> Response<HttpBody> {
    let error = Error { code, message: message.into(), data: None };
    json_response(status, crate::handler::error_frame(id, error))
}

fn json_response(status: StatusCode, body: String) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::full(body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn empty_response(status: StatusCode) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::empty());
    *response.status_mut() = status;
    response
}

fn session_not_found(id: Option<RequestId>) -> Response<HttpBody> {
    error_response(StatusCode::NOT_FOUND, id, ErrorCode::INVALID_REQUEST, "Session not found")
}

fn method_not_allowed(allow: &'static str) -> Response<HttpBody> {
    let mut response = empty_response(StatusCode::METHOD_NOT_ALLOWED);
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// The HTTP status of a JSON-RPC error on the modern path.
fn status_for(code: i32) -> StatusCode {
    match code {
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        ErrorCode::PARSE_ERROR
        | ErrorCode::INVALID_REQUEST
        | ErrorCode::INVALID_PARAMS
        | ErrorCode::HEADER_MISMATCH
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
        ErrorCode::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::SERVER_BUSY => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::REQUEST_TIMEOUT => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::OK,
    }
}

fn accepts(headers: &http::HeaderMap, wanted: &[&str]) -> bool {
    let accept: Vec<String> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|part| part.split(';').next().unwrap_or_default().trim().to_ascii_lowercase())
        .collect();
    wanted.iter().all(|want| {
        let family = want.split('/').next().unwrap_or_default();
        accept.iter().any(|a| a == want || a == "*/*" || *a == format!("{family}/*"))
    })
}

fn session_id(headers: &http::HeaderMap) -> Option<&str> {
    headers.get(headers::SESSION_ID).and_then(|v| v.to_str().ok())
}

impl State {
    async fn handle<B>(self: Arc<Self>, request: Request<B>) -> Response<HttpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
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
        // The transport's own verifier wins; without one, trust what a layer in front of
        // this service (axum middleware, a gateway adapter) put in the extensions.
        let auth = match &self.config.token_verifier {
            Some(verifier) => match authenticate(verifier.as_ref(), request.headers()).await {
                Ok(auth) => Some(Arc::new(auth)),
                Err(response) => return *response,
            },
            None => request.extensions().get::<AuthInfo>().cloned().map(Arc::new),
        };
        match *request.method() {
            Method::POST => self.post(request, auth).await,
            Method::GET => self.get(request.headers()),
            Method::DELETE => self.delete(request.headers()),
            _ => method_not_allowed("GET, POST, DELETE"),
        }
    }

    fn get(self: Arc<Self>, headers: &http::HeaderMap) -> Response<HttpBody> {
        let Some(id) = session_id(headers) else {
            return method_not_allowed("POST");
        };
        let Some((session, mut ended)) = self.sessions.get_with_end(id) else {
            return session_not_found(None);
        };
        if !accepts(headers, &["text/event-stream"]) {
            return empty_response(StatusCode::NOT_ACCEPTABLE);
        }
        let (tx, rx) = mpsc::channel(64);
        let mut changes = self.server.subscribe_changes();
        tokio::spawn(async move {
            loop {
                let change = tokio::select! {
                    _ = tx.closed() => return,
                    // The session ended (DELETE): end its stream too.
                    _ = ended.changed() => return,
                    change = changes.recv() => change,
                };
                let frame = match change {
                    Ok(change) => legacy_change_frame(&change, &session),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                };
                if let Some(frame) = frame
                    && tx.send(Event::Message(frame)).await.is_err()
                {
                    return;
                }
            }
        });
        sse_response(HttpBody::sse(None, rx, self.config.sse_keep_alive), None)
    }

    fn delete(&self, headers: &http::HeaderMap) -> Response<HttpBody> {
        let Some(id) = session_id(headers) else {
            return method_not_allowed("POST");
        };
        if self.sessions.remove(id) { empty_response(StatusCode::OK) } else { session_not_found(None) }
    }

    async fn post<B>(self: Arc<Self>, request: Request<B>, auth: Option<Arc<AuthInfo>>) -> Response<HttpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = request.into_parts();
        let json =
            parts.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| {
                v.split(';').next().unwrap_or_default().trim().eq_ignore_ascii_case("application/json")
            });
        if !json {
            return error_response(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                ErrorCode::INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
            );
        }
        if !accepts(&parts.headers, &["application/json", "text/event-stream"]) {
            return error_response(
                StatusCode::NOT_ACCEPTABLE,
                None,
                ErrorCode::INVALID_REQUEST,
                "Not Acceptable: Accept must list application/json and text/event-stream",
            );
        }
        let limit = self.config.max_body_bytes;
        let too_large = || {
            tracing::warn!(limit, "rejecting a request body over the size limit");
            error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                ErrorCode::INVALID_REQUEST,
                format!("Request body exceeds {limit} bytes"),
            )
        };
        // A Content-Length over the limit is refused before reading a byte of the body.
        if usize::try_from(http_body::Body::size_hint(&body).lower()).map_or(true, |declared| declared > limit) {
            return too_large();
        }
        let bytes: Bytes = match http_body_util::Limited::new(body, limit).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) => {
                if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
                    return too_large();
                }
                return error_response(
                    StatusCode::BAD_REQUEST,
                    None,
                    ErrorCode::INVALID_REQUEST,
                    "Could not read the request body",
                );
            }
        };
        let decoded = match std::str::from_utf8(&bytes) {
            Ok(text) => decode_message_with(text, self.server.limits().max_json_depth),
            Err(_) => decode_message_with("\u{0}", self.server.limits().max_json_depth),
        };
        let message = match decoded {
            Ok(message) => message,
            Err(e) => {
                return json_response(
                    StatusCode::BAD_REQUEST,
                    crate::handler::error_frame(e.id.clone(), e.to_error_object()),
                );
            }
        };
        let parts = Arc::new(parts);
        let headers = &parts.headers;
        match message {
            JsonRpcMessage::Request(request) => {
                let caller = Caller { auth, http: Some(Arc::clone(&parts)) };
                self.request(headers, request, caller).await
            }
            JsonRpcMessage::Notification(notification) => match session_id(headers) {
                None => empty_response(StatusCode::ACCEPTED),
                Some(sid) => match self.sessions.get(sid) {
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
                self.client_response(headers, Some(&response.id.clone()), Ok(response.result))
            }
            JsonRpcMessage::Error(response) => {
                let id = response.id.clone();
                self.client_response(headers, id.as_ref(), Err(response.error))
            }
        }
    }

    fn client_response(
        &self,
        headers: &http::HeaderMap,
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
        match self.sessions.get(sid) {
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
        request: crate::protocol::JsonRpcRequest,
        caller: Caller,
    ) -> Response<HttpBody> {
        let modern = request
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key(keys::PROTOCOL_VERSION));
        if !modern && request.method == methods::INITIALIZE {
            let Some((id, session)) = self.sessions.create() else {
                tracing::warn!(limit = self.config.max_sessions, "refusing initialize: too many sessions");
                return error_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    Some(request.id),
                    ErrorCode::SERVER_BUSY,
                    "Server busy: too many sessions; retry later",
                );
            };
            // Legacy errors are answered with 200 too, so the status cannot tell whether
            // the handshake succeeded; only a successful one keeps its session.
            let (mut response, answered) = self.run_reporting(session, request, true, caller).await;
            if answered {
                if let Ok(value) = HeaderValue::from_str(&id) {
                    response.headers_mut().insert(headers::SESSION_ID, value);
                }
            } else {
                self.sessions.remove(&id);
            }
            return response;
        }
        if !modern && let Some(sid) = session_id(headers) {
            let Some(session) = self.sessions.get(sid) else {
                return session_not_found(Some(request.id));
            };
            return self.run(session, request, true, caller).await;
        }
        if modern {
            let tool_params = if request.method == methods::TOOLS_CALL {
                let name =
                    request.params.as_ref().and_then(|p| p.get("name")).and_then(Value::as_str).unwrap_or_default();
                self.tool_params(name).await
            } else {
                Vec::new()
            };
            if let Err(e) = check::validate(headers, &request.method, request.params.as_ref(), &tool_params) {
                // Not the message: it quotes header and argument values, which may be secrets.
                tracing::debug!(method = %request.method, "header validation failed");
                return json_response(StatusCode::BAD_REQUEST, crate::handler::error_frame(Some(request.id), e));
            }
        }
        self.run(Arc::new(Session::new()), request, false, caller).await
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

    async fn run(
        &self,
        session: Arc<Session>,
        request: crate::protocol::JsonRpcRequest,
        legacy: bool,
        caller: Caller,
    ) -> Response<HttpBody> {
        self.run_reporting(session, request, legacy, caller).await.0
    }

    /// [`run`](Self::run), also telling whether the request got a result (not an error).
    /// An SSE answer counts as a result: its outcome is not known yet.
    async fn run_reporting(
        &self,
        session: Arc<Session>,
        request: crate::protocol::JsonRpcRequest,
        legacy: bool,
        caller: Caller,
    ) -> (Response<HttpBody>, bool) {
        let Ok(permit) = Arc::clone(&self.permits).try_acquire_owned() else {
            tracing::warn!(
                limit = self.config.max_concurrent_requests,
                "refusing a request: the concurrent request limit is reached"
            );
            let busy = crate::handler::busy();
            let mut response =
                error_response(StatusCode::SERVICE_UNAVAILABLE, Some(request.id), busy.code, &busy.message);
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return (response, false);
        };
        let id = request.id.clone();
        let mut events = if legacy {
            exchange::start(self.server.clone(), session, request, legacy, permit, caller)
        } else {
            match exchange::serve_inline(self.server.clone(), session, request, permit, caller).await {
                exchange::Served::Done(frame, error_code) => {
                    let status = error_code.map_or(StatusCode::OK, status_for);
                    return (json_response(status, frame), error_code.is_none());
                }
                exchange::Served::Streaming(first, rest) => {
                    return (sse_response(HttpBody::sse(Some(first), rest, self.config.sse_keep_alive), None), true);
                }
            }
        };
        match events.recv().await {
            Some(Event::Last(frame, error_code)) => {
                let status = match error_code {
                    Some(code) if !legacy => status_for(code),
                    _ => StatusCode::OK,
                };
                (json_response(status, frame), error_code.is_none())
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

/// Verify the request's bearer token, or answer 401 with a `WWW-Authenticate` challenge.
async fn authenticate(
    verifier: &dyn crate::auth::TokenVerifier,
    headers: &http::HeaderMap,
) -> Result<AuthInfo, Box<Response<HttpBody>>> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let challenge = |error: Option<&'static str>| {
        let mut response = error_response(
            StatusCode::UNAUTHORIZED,
            None,
            ErrorCode::INVALID_REQUEST,
            "Unauthorized: a valid bearer token is required",
        );
        let value = match error {
            Some(_) => HeaderValue::from_static("Bearer error=\"invalid_token\""),
            None => HeaderValue::from_static("Bearer"),
        };
        response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
        Box::new(response)
    };
    let Some(token) = token else {
        return Err(challenge(None));
    };
    match verifier.verify(token).await {
        Some(auth) => Ok(auth),
        None => {
            tracing::warn!("refusing a request with an invalid bearer token");
            Err(challenge(Some("invalid_token")))
        }
    }
}

fn sse_response(body: HttpBody, status: Option<StatusCode>) -> Response<HttpBody> {
    let mut response = Response::new(body);
    *response.status_mut() = status.unwrap_or(StatusCode::OK);
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// A change as a 2025-11-25 notification for this session's GET stream.
fn legacy_change_frame(change: &Change, session: &Session) -> Option<String> {
    let (method, params) = match change {
        Change::Tools => (methods::NOTIFICATION_TOOLS_LIST_CHANGED, None),
        Change::Prompts => (methods::NOTIFICATION_PROMPTS_LIST_CHANGED, None),
        Change::Resources => (methods::NOTIFICATION_RESOURCES_LIST_CHANGED, None),
        Change::ResourceUpdated(uri) if session.is_subscribed(uri) => {
            (methods::NOTIFICATION_RESOURCES_UPDATED, Some(serde_json::json!({ "uri": uri })))
        }
        Change::ResourceUpdated(_) => return None,
    };
    let mut message = serde_json::json!({"jsonrpc": "2.0", "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    Some(message.to_string())
}
