//! The Streamable HTTP link: one POST per message, answered with JSON or an SSE stream.
//!
//! Under 2026-07-28 every POST carries `MCP-Protocol-Version`, `Mcp-Method`, and for
//! named requests `Mcp-Name` and the tool's `Mcp-Param-*` headers. In a 2025-11-25
//! session the POSTs carry `Mcp-Session-Id`, and the server's requests arrive on a POST's
//! SSE stream; the callbacks answer them with POSTs of their own. Dropping a call closes
//! its response stream, which the server treats as cancellation.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::{HeaderValue, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use super::ClientError;
use super::callbacks::{CallbackFuture, Callbacks};
use super::link::{Link, LinkEra, Outgoing};
use crate::protocol::{
    JsonObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcVersion, LATEST_PROTOCOL_VERSION,
    RequestId, decode_message,
};
use crate::wire::headers;

type Hyper = HyperClient<super::connector::Connector, Full<Bytes>>;

/// The largest response body or SSE event the client accepts.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// How often a 2025-11-25 stream that ended early is resumed.
const MAX_RESUMES: usize = 5;

/// How long to wait for the server to answer the standalone GET.
const LISTEN_OPEN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The wait before resuming when the server gave no `retry`.
const DEFAULT_RETRY_MS: u64 = 1000;

#[derive(Debug)]
struct HttpState {
    era: LinkEra,
    session: Option<HeaderValue>,
}

struct Shared {
    uri: Uri,
    client: Hyper,
    state: Mutex<HttpState>,
    bearer: Option<HeaderValue>,
    callbacks: Callbacks,
    next_id: AtomicI64,
    /// The authorization flow, when the client was built with `oauth(..)`.
    #[cfg(feature = "oauth")]
    oauth: Option<super::oauth::OAuthSession>,
}

/// Streamable HTTP to one endpoint URL.
pub(crate) struct HttpLink {
    shared: Arc<Shared>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl HttpLink {
    pub(crate) fn new(
        url: &str,
        bearer: Option<&str>,
        callbacks: Callbacks,
        roots: &super::connector::Roots,
    ) -> Result<Self, ClientError> {
        let uri: Uri = url.parse().map_err(|e| ClientError::transport_source(format!("invalid URL {url:?}"), e))?;
        // http://, or https:// with the `tls` feature (h2 or http/1.1 by ALPN).
        let connector = super::connector::build(&uri, roots)?;
        let client = HyperClient::builder(TokioExecutor::new()).build(connector);
        let bearer = match bearer {
            Some(token) => Some(
                HeaderValue::from_str(&format!("Bearer {token}"))
                    .map_err(|_| ClientError::transport("the bearer token is not a valid header value"))?,
            ),
            None => None,
        };
        let state = HttpState { era: LinkEra::Modern(LATEST_PROTOCOL_VERSION.to_owned()), session: None };
        Ok(HttpLink {
            shared: Arc::new(Shared {
                uri,
                client,
                state: Mutex::new(state),
                bearer,
                callbacks,
                next_id: AtomicI64::new(1),
                #[cfg(feature = "oauth")]
                oauth: None,
            }),
        })
    }

    /// Authorize with `oauth` when the server asks (401, 403 `insufficient_scope`) and
    /// present its token on every request instead of the static bearer token.
    #[cfg(feature = "oauth")]
    pub(crate) fn with_oauth(
        mut self,
        oauth: &super::oauth::OAuth,
        roots: &super::connector::Roots,
    ) -> Result<Self, ClientError> {
        // Attached while building, before the link is cloned; a link already shared would
        // otherwise go on silently without authorization.
        let shared = Arc::get_mut(&mut self.shared)
            .ok_or_else(|| ClientError::transport("OAuth must be attached before the HTTP link is shared"))?;
        shared.oauth = Some(oauth.session(shared.uri.clone(), roots)?);
        Ok(self)
    }
}

fn header(value: &str) -> Result<HeaderValue, ClientError> {
    HeaderValue::from_str(value).map_err(|_| ClientError::transport(format!("cannot send {value:?} as a header")))
}

impl Shared {
    /// Sends the request `make` builds. With OAuth, presents the current token, and when
    /// the server refuses (401, 403) lets the flow authorize and builds and sends the
    /// request again (a bounded number of times).
    async fn send(
        &self,
        make: impl Fn() -> Result<Request<Full<Bytes>>, ClientError>,
    ) -> Result<http::Response<hyper::body::Incoming>, ClientError> {
        self.send_within(None, make).await
    }

    /// [`send`](Self::send), each HTTP exchange (not an authorization between them)
    /// limited to `exchange_timeout`.
    #[cfg_attr(not(feature = "oauth"), allow(clippy::never_loop, reason = "only the OAuth flow retries"))]
    async fn send_within(
        &self,
        exchange_timeout: Option<std::time::Duration>,
        make: impl Fn() -> Result<Request<Full<Bytes>>, ClientError>,
    ) -> Result<http::Response<hyper::body::Incoming>, ClientError> {
        #[cfg(feature = "oauth")]
        let mut attempt = super::oauth::Attempt::default();
        loop {
            #[cfg_attr(not(feature = "oauth"), allow(unused_mut))]
            let mut request = make()?;
            #[cfg(feature = "oauth")]
            let sent = match &self.oauth {
                Some(oauth) => {
                    let current = oauth.current();
                    let added = oauth.headers(request.method(), request.uri(), current.as_deref())?;
                    let h = request.headers_mut();
                    h.remove(http::header::AUTHORIZATION);
                    for (name, value) in added {
                        h.insert(name, value);
                    }
                    current
                }
                None => None,
            };
            let exchange = self.client.request(request);
            let response = match exchange_timeout {
                Some(limit) => tokio::time::timeout(limit, exchange)
                    .await
                    .map_err(|_| ClientError::transport("the server did not answer in time"))?,
                None => exchange.await,
            }
            .map_err(|e| ClientError::transport_source("the HTTP request failed", e))?;
            #[cfg(feature = "oauth")]
            if let Some(oauth) = &self.oauth
                && matches!(response.status(), StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
                && oauth.refused(response.status(), response.headers(), sent.as_ref(), &mut attempt).await?
            {
                continue;
            }
            #[cfg(feature = "oauth")]
            if let Some(oauth) = &self.oauth {
                oauth.observe(response.headers());
            }
            return Ok(response);
        }
    }

    /// A POST of `body` with the era's headers.
    fn post(&self, body: Vec<u8>, out: Option<&Outgoing>) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut request = Request::post(self.uri.clone())
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json, text/event-stream")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| ClientError::transport_source("building the HTTP request failed", e))?;
        let h = request.headers_mut();
        if let Some(bearer) = &self.bearer {
            h.insert(http::header::AUTHORIZATION, bearer.clone());
        }
        let state = lock(&self.state);
        match &state.era {
            LinkEra::Modern(version) => {
                h.insert(headers::PROTOCOL_VERSION, header(version)?);
                if let Some(out) = out {
                    h.insert(headers::METHOD, header(&out.method)?);
                    if let Some(name) = &out.name {
                        h.insert(headers::NAME, header(&headers::encode_value(name))?);
                    }
                    for (suffix, value) in &out.header_params {
                        let name =
                            http::HeaderName::from_bytes(format!("{}{suffix}", headers::PARAM_PREFIX).as_bytes())
                                .map_err(|_| {
                                    ClientError::transport(format!("invalid header name suffix {suffix:?}"))
                                })?;
                        h.insert(name, header(&headers::encode_value(value))?);
                    }
                }
            }
            LinkEra::Legacy(version) => {
                // `initialize` goes before the version is known; later requests carry it.
                if out.is_none_or(|o| o.method != crate::protocol::methods::INITIALIZE) {
                    h.insert(headers::PROTOCOL_VERSION, header(version)?);
                }
                if let Some(session) = &state.session {
                    h.insert(headers::SESSION_ID, session.clone());
                }
            }
        }
        Ok(request)
    }

    /// A GET for the session's standalone stream, or to resume a stream after
    /// `last_event_id` (2025-11-25 sessions).
    fn get(&self, last_event_id: Option<&str>) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut request = Request::get(self.uri.clone())
            .header(http::header::ACCEPT, "text/event-stream")
            .body(Full::new(Bytes::new()))
            .map_err(|e| ClientError::transport_source("building the HTTP request failed", e))?;
        let h = request.headers_mut();
        if let Some(bearer) = &self.bearer {
            h.insert(http::header::AUTHORIZATION, bearer.clone());
        }
        if let Some(id) = last_event_id {
            h.insert("last-event-id", header(id)?);
        }
        let state = lock(&self.state);
        if let LinkEra::Legacy(version) = &state.era {
            h.insert(headers::PROTOCOL_VERSION, header(version)?);
        }
        if let Some(session) = &state.session {
            h.insert(headers::SESSION_ID, session.clone());
        }
        Ok(request)
    }

    /// Read an SSE stream until the answer to `id` (`Ok(None)` if it ends first).
    async fn read_stream(
        self: &Arc<Self>,
        id: &RequestId,
        events: &mut super::sse::Events,
    ) -> Result<Option<Result<Value, ClientError>>, ClientError> {
        while let Some(data) = events.next().await? {
            let Ok(message) = decode_message(&data) else {
                tracing::warn!("the server sent a malformed message on the stream");
                continue;
            };
            if let Some(answer) = self.route(id, message) {
                return Ok(Some(answer));
            }
        }
        Ok(None)
    }

    /// A 2025-11-25 stream ended before the answer: wait the server's `retry` time, then
    /// resume with `Last-Event-ID` (a few times at most).
    async fn resume(
        self: &Arc<Self>,
        id: &RequestId,
        mut last_id: Option<String>,
        mut retry_ms: Option<u64>,
    ) -> Result<Value, ClientError> {
        for _ in 0..MAX_RESUMES {
            tokio::time::sleep(std::time::Duration::from_millis(retry_ms.unwrap_or(DEFAULT_RETRY_MS))).await;
            let response = self.send(|| self.get(last_id.as_deref())).await?;
            if !response.status().is_success() || !is_event_stream(&response) {
                let status = response.status();
                let body = read_body(response.into_body()).await.unwrap_or_default();
                return Err(http_error(status, &body));
            }
            let mut events = super::sse::Events::new(response.into_body(), MAX_RESPONSE_BYTES);
            if let Some(answer) = self.read_stream(id, &mut events).await? {
                return answer;
            }
            last_id = events.last_id().or(last_id);
            retry_ms = events.retry_ms().or(retry_ms);
        }
        Err(ClientError::transport("the response stream ended without an answer"))
    }

    /// Open the session's standalone GET stream, where the server may send requests not
    /// tied to a call (2025-11-25), and return once the server has answered it (so that
    /// requests it sends there right after are not lost). A server without one (400, 404,
    /// 405) is fine.
    async fn listen(self: &Arc<Self>) {
        // The timeout bounds each HTTP exchange, not an OAuth authorization the GET may
        // need (which can wait for the user).
        let response = match self.send_within(Some(LISTEN_OPEN_TIMEOUT), || self.get(None)).await {
            Ok(response) if response.status().is_success() && is_event_stream(&response) => response,
            Ok(response) => {
                tracing::debug!(status = %response.status(), "no standalone stream");
                return;
            }
            Err(e) => {
                tracing::debug!(error = %e, "no standalone stream");
                return;
            }
        };
        let shared = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut events = super::sse::Events::new(response.into_body(), MAX_RESPONSE_BYTES);
            let nobody = RequestId::from("standalone-stream");
            while let Ok(Some(data)) = events.next().await {
                let Some(this) = shared.upgrade() else { return };
                if let Ok(message) = decode_message(&data) {
                    let _ = this.route(&nobody, message);
                }
            }
        });
    }

    /// Send a response or notification that expects `202 Accepted`.
    async fn send_one_way(self: &Arc<Self>, body: Vec<u8>) -> Result<(), ClientError> {
        let response = self.send(|| self.post(body.clone(), None)).await?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let body = read_body(response.into_body()).await.unwrap_or_default();
        Err(http_error(status, &body))
    }

    /// Answer a server-to-client request that arrived on a stream (2025-11-25).
    fn answer_server_request(self: &Arc<Self>, request: JsonRpcRequest<crate::protocol::Params>) {
        let shared = Arc::clone(self);
        tokio::spawn(async move {
            let id = request.id.clone();
            let outcome = shared
                .callbacks
                .serve_request(id.clone(), &request.method, request.params.map(|p| Value::Object(p.into())))
                .await;
            let body = match outcome {
                Ok(result) => serde_json::to_vec(&serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})),
                Err(error) => serde_json::to_vec(&serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error})),
            };
            match body {
                Ok(body) => {
                    if let Err(e) = shared.send_one_way(body).await {
                        tracing::warn!(error = %e, "could not answer the server's request");
                    }
                }
                Err(e) => tracing::warn!(error = %e, "could not encode an answer"),
            }
        });
    }

    /// Handle a message that is not the awaited response; `Some` if it is that response.
    fn route(self: &Arc<Self>, id: &RequestId, message: JsonRpcMessage) -> Option<Result<Value, ClientError>> {
        match message {
            JsonRpcMessage::Result(r) if &r.id == id => Some(Ok(r.result)),
            JsonRpcMessage::Error(e) if e.id.as_ref().is_none_or(|i| i == id) => Some(Err(ClientError::Rpc(e.error))),
            JsonRpcMessage::Request(request) => {
                self.answer_server_request(request);
                None
            }
            JsonRpcMessage::Notification(n) => {
                self.callbacks.notify(&n.method, n.params.map(Value::Object));
                None
            }
            _ => {
                tracing::debug!("an unrelated response on the stream was ignored");
                None
            }
        }
    }
}

async fn read_body(body: hyper::body::Incoming) -> Result<Vec<u8>, ClientError> {
    let limited = http_body_util::Limited::new(body, MAX_RESPONSE_BYTES);
    limited
        .collect()
        .await
        .map(|c| c.to_bytes().to_vec())
        .map_err(|e| ClientError::transport_source("reading the response body failed", e))
}

/// A non-2xx answer: its JSON-RPC error when the body holds one.
fn http_error(status: StatusCode, body: &[u8]) -> ClientError {
    if let Ok(text) = std::str::from_utf8(body)
        && let Ok(JsonRpcMessage::Error(e)) = decode_message(text)
    {
        return ClientError::Rpc(e.error);
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
    ClientError::Http { status: status.as_u16(), body: text }
}

fn is_event_stream(response: &http::Response<hyper::body::Incoming>) -> bool {
    response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

impl Link for HttpLink {
    fn request(&self, out: Outgoing) -> CallbackFuture<Result<Value, ClientError>> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let id = RequestId::from(shared.next_id.fetch_add(1, Ordering::Relaxed));
            super::spans::record_request_id(&id);
            let message = JsonRpcRequest {
                jsonrpc: JsonRpcVersion,
                id: id.clone(),
                method: out.method.clone(),
                params: Some(out.params.clone()),
            };
            let body = serde_json::to_vec(&message).map_err(|e| ClientError::Protocol(e.to_string()))?;
            let response = shared.send(|| shared.post(body.clone(), Some(&out))).await?;
            let status = response.status();
            if let Some(session) = response.headers().get(headers::SESSION_ID)
                && out.method == crate::protocol::methods::INITIALIZE
            {
                lock(&shared.state).session = Some(session.clone());
            }
            if !status.is_success() {
                let body = read_body(response.into_body()).await.unwrap_or_default();
                return Err(http_error(status, &body));
            }
            if is_event_stream(&response) {
                let mut events = super::sse::Events::new(response.into_body(), MAX_RESPONSE_BYTES);
                if let Some(answer) = shared.read_stream(&id, &mut events).await? {
                    return answer;
                }
                let legacy = matches!(lock(&shared.state).era, LinkEra::Legacy(_));
                if legacy {
                    return shared.resume(&id, events.last_id(), events.retry_ms()).await;
                }
                return Err(ClientError::transport("the response stream ended without an answer"));
            }
            let body = read_body(response.into_body()).await?;
            let text =
                std::str::from_utf8(&body).map_err(|_| ClientError::Protocol("the response is not UTF-8".into()))?;
            let message = decode_message(text)
                .map_err(|_| ClientError::Protocol("the response is not a JSON-RPC message".into()))?;
            shared
                .route(&id, message)
                .unwrap_or_else(|| Err(ClientError::Protocol("the response answers another request".into())))
        })
    }

    fn notify(&self, method: &str, params: JsonObject) -> CallbackFuture<Result<(), ClientError>> {
        let shared = Arc::clone(&self.shared);
        let notification = JsonRpcNotification::new(method, Some(params));
        Box::pin(async move {
            let body = serde_json::to_vec(&notification).map_err(|e| ClientError::Protocol(e.to_string()))?;
            shared.send_one_way(body).await
        })
    }

    fn set_era(&self, era: LinkEra) {
        lock(&self.shared.state).era = era;
    }

    fn open_listen_stream(&self) -> CallbackFuture<()> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move { shared.listen().await })
    }

    fn is_http(&self) -> bool {
        true
    }
}
