//! HTTP: one keep-alive HTTP/1.1 connection per slot, answered with JSON or an SSE stream
//! (read with the runtime's shared `mcp::wire::sse` parser).

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use mcp::protocol::{LATEST_PROTOCOL_VERSION, methods};
use mcp::wire::sse::Parser;
use serde_json::{Value, json};

use mcp::protocol::tasks::methods::TASKS_GET;

use crate::args::{Bearer, Config, Era};
use crate::reply::Reply;
use crate::state::{Ctx, Fail, clip, rejected};
use crate::stdio::{fail_text, initialize_params};

/// The largest response (JSON body or one SSE event) accepted.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// How long an SSE response may stay open after the response event before the
/// connection is given up.
const STREAM_END_TIMEOUT: Duration = Duration::from_secs(1);

/// Where and how to POST: the endpoint and the era's fixed headers.
pub(crate) struct Endpoint {
    pub(crate) addr: std::net::SocketAddr,
    pub(crate) path: http::Uri,
    pub(crate) host: HeaderValue,
    /// `MCP-Protocol-Version` (absent only on `initialize`).
    pub(crate) version: Option<HeaderValue>,
    /// `Mcp-Name` (modern era).
    pub(crate) name: HeaderValue,
    /// `Mcp-Session-Id` (legacy era).
    pub(crate) session: Option<HeaderValue>,
    /// `Authorization: Bearer ...` (marked sensitive), on every request.
    pub(crate) authorization: Option<HeaderValue>,
}

/// What a request is, for the modern era's `Mcp-Method` and `Mcp-Name`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Route<'a> {
    /// The `tools/call` of the configured tool.
    ToolsCall,
    /// A `tasks/get` of this task.
    TasksGet(&'a str),
}

pub(crate) type Sender = SendRequest<Full<Bytes>>;

pub(crate) async fn connect(addr: std::net::SocketAddr) -> Result<Sender, String> {
    let stream = tokio::net::TcpStream::connect(addr).await.map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| format!("cannot set TCP_NODELAY: {e}"))?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake with {addr} failed: {e}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// The events of an SSE body, one `data` payload at a time.
pub(crate) struct Sse {
    body: Incoming,
    parser: Parser,
    done: bool,
}

impl Sse {
    pub(crate) fn new(body: Incoming) -> Sse {
        Sse { body, parser: Parser::new(MAX_RESPONSE_BYTES), done: false }
    }

    /// Read the rest of the stream, ignoring it.
    pub(crate) async fn drain(&mut self) -> Result<(), String> {
        while !self.done {
            match self.body.frame().await {
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(format!("the response stream broke: {e}")),
                None => self.done = true,
            }
        }
        Ok(())
    }

    /// The next event's data; `None` at the end. Events without data are skipped.
    pub(crate) async fn next(&mut self) -> Result<Option<String>, String> {
        loop {
            let event = if self.done { self.parser.finish() } else { self.parser.next_event() };
            match event {
                Some(event) if event.data.is_empty() => continue,
                Some(event) => return Ok(Some(event.data)),
                None if self.done => return Ok(None),
                None => {}
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.parser.feed(&data).map_err(|e| e.to_string())?;
                    }
                }
                Some(Err(e)) => return Err(format!("the response stream broke: {e}")),
                None => self.done = true,
            }
        }
    }
}

pub(crate) fn is_event_stream(response: &Response<Incoming>) -> bool {
    response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

pub(crate) async fn read_body(body: Incoming) -> Result<Bytes, String> {
    Limited::new(body, MAX_RESPONSE_BYTES)
        .collect()
        .await
        .map(|collected| collected.to_bytes())
        .map_err(|e| format!("cannot read the response body: {e}"))
}

/// A slot's connection (and, for legacy back-channel answers, a second one).
pub(crate) struct HttpConn {
    pub(crate) endpoint: Arc<Endpoint>,
    pub(crate) era: Era,
    pub(crate) main: Option<Sender>,
    pub(crate) side: Option<Sender>,
    /// When the last request's response event arrived on its SSE stream (the stream is
    /// read to its end afterwards, before the connection is used again).
    pub(crate) answered_at: Option<Instant>,
}

impl HttpConn {
    pub(crate) fn new(endpoint: Arc<Endpoint>, era: Era, main: Sender) -> HttpConn {
        HttpConn { endpoint, era, main: Some(main), side: None, answered_at: None }
    }

    /// A POST of `body`; a `route` adds the modern `Mcp-Method`/`Mcp-Name` (a task id that
    /// cannot be a header value is left out, for the server to refuse).
    pub(crate) fn post(&self, body: Vec<u8>, route: Option<Route<'_>>) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(Bytes::from(body)));
        *request.method_mut() = http::Method::POST;
        *request.uri_mut() = self.endpoint.path.clone();
        let h = request.headers_mut();
        h.insert(http::header::HOST, self.endpoint.host.clone());
        h.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(http::header::ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        if let Some(version) = &self.endpoint.version {
            h.insert("mcp-protocol-version", version.clone());
        }
        if let Some(session) = &self.endpoint.session {
            h.insert("mcp-session-id", session.clone());
        }
        if let Some(authorization) = &self.endpoint.authorization {
            h.insert(http::header::AUTHORIZATION, authorization.clone());
        }
        if self.era == Era::Modern {
            match route {
                Some(Route::ToolsCall) => {
                    h.insert("mcp-method", HeaderValue::from_static(methods::TOOLS_CALL));
                    h.insert("mcp-name", self.endpoint.name.clone());
                }
                Some(Route::TasksGet(task_id)) => {
                    h.insert("mcp-method", HeaderValue::from_static(TASKS_GET));
                    if let Ok(name) = HeaderValue::from_str(task_id) {
                        h.insert("mcp-name", name);
                    }
                }
                None => {}
            }
        }
        request
    }

    /// A ready sender on `side` or `main`, reconnecting a closed connection.
    pub(crate) async fn ready(endpoint: &Endpoint, slot: &mut Option<Sender>) -> Result<(), Fail> {
        if let Some(sender) = slot {
            if sender.ready().await.is_ok() {
                return Ok(());
            }
            *slot = None;
        }
        let mut sender = connect(endpoint.addr).await.map_err(Fail::Fatal)?;
        sender.ready().await.map_err(|e| Fail::Fatal(format!("a new connection is not usable: {e}")))?;
        *slot = Some(sender);
        Ok(())
    }

    pub(crate) async fn send(
        endpoint: &Endpoint,
        slot: &mut Option<Sender>,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, Fail> {
        Self::ready(endpoint, slot).await?;
        let Some(sender) = slot.as_mut() else { return Err(Fail::Fatal("no connection".into())) };
        match sender.send_request(request).await {
            Ok(response) => Ok(response),
            Err(e) => {
                *slot = None;
                Err(rejected(format!("the request failed: {e}")))
            }
        }
    }

    /// POST request `id` and return its JSON-RPC response; back-channel requests on its
    /// SSE stream are answered on the side connection.
    pub(crate) async fn request(&mut self, ctx: &Ctx, id: u64, body: Vec<u8>, route: Route<'_>) -> Result<Reply, Fail> {
        self.answered_at = None;
        let request = self.post(body, Some(route));
        let response = Self::send(&self.endpoint, &mut self.main, request).await?;
        self.response(ctx, id, response).await
    }

    pub(crate) async fn response(&mut self, ctx: &Ctx, id: u64, response: Response<Incoming>) -> Result<Reply, Fail> {
        let status = response.status();
        if !status.is_success() {
            let body = read_body(response.into_body()).await.unwrap_or_default();
            return Err(rejected(format!("HTTP {status}: {}", clip(&String::from_utf8_lossy(&body), 400))));
        }
        if !is_event_stream(&response) {
            let body = read_body(response.into_body()).await.map_err(Fail::Rejected)?;
            if status == StatusCode::ACCEPTED || body.is_empty() {
                return Err(rejected(format!("HTTP {status} without a response to request {id}")));
            }
            let text = || clip(&String::from_utf8_lossy(&body), 400);
            let reply = Reply::parse(body.clone())
                .ok_or_else(|| rejected(format!("a response that is not a JSON object: {}", text())))?;
            return Ok(reply);
        }
        let mut events = Sse::new(response.into_body());
        while let Some(data) = events.next().await.map_err(Fail::Rejected)? {
            let Some(message) = Reply::parse(Bytes::from(data.into_bytes())) else {
                return Err(rejected("an event that is not a JSON object"));
            };
            if let Some(method) = &message.message.method {
                if let Some(server_id) = &message.message.id {
                    let reply = ctx.server_request_reply(method, server_id);
                    self.answer_server(reply).await?;
                }
                continue;
            }
            if message.id() == Some(id) || message.message.id.is_none() {
                self.answered_at = Some(Instant::now());
                // The stream should end right after the response; read it to its end so
                // the connection can carry the next request, or give the connection up.
                match tokio::time::timeout(STREAM_END_TIMEOUT, events.drain()).await {
                    Ok(Ok(())) => {}
                    Ok(Err(_)) => self.main = None,
                    Err(_) => {
                        self.main = None;
                        ctx.note(format!(
                            "a response stream stayed open {} ms after its response; reconnecting",
                            STREAM_END_TIMEOUT.as_millis()
                        ));
                    }
                }
                return Ok(message);
            }
        }
        Err(rejected(format!("the response stream ended without a response to request {id}")))
    }

    /// Send the reply to a server request on the side connection (expects 2xx).
    pub(crate) async fn answer_server(&mut self, reply: Vec<u8>) -> Result<(), Fail> {
        let request = self.post(reply, None);
        let response = Self::send(&self.endpoint, &mut self.side, request).await?;
        let status = response.status();
        let body = read_body(response.into_body()).await.map_err(Fail::Rejected)?;
        if !status.is_success() {
            return Err(rejected(format!(
                "answering the server's request: HTTP {status}: {}",
                clip(&String::from_utf8_lossy(&body), 400)
            )));
        }
        Ok(())
    }
}

/// The endpoint for `url`; in the legacy era, after the handshake on a setup connection.
pub(crate) async fn http_endpoint(
    url: &http::Uri,
    bearer: Option<&Bearer>,
    ctx: &Ctx,
    config: &Config,
    capabilities: Value,
) -> Result<Endpoint, String> {
    let authority = url.authority().ok_or("the URL has no host")?;
    let port = authority.port_u16().unwrap_or(80);
    let host = authority.host().trim_start_matches('[').trim_end_matches(']');
    let addr = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| format!("cannot resolve {authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority} resolves to no address"))?;
    let path: http::Uri =
        url.path_and_query().map_or("/", |p| p.as_str()).parse().map_err(|e| format!("bad URL path: {e}"))?;
    let mut endpoint = Endpoint {
        addr,
        path,
        host: HeaderValue::from_str(authority.as_str()).map_err(|e| format!("bad host: {e}"))?,
        version: None,
        name: HeaderValue::from_str(&config.tool)
            .map_err(|_| format!("the tool name {:?} cannot be sent as Mcp-Name as is", config.tool))?,
        session: None,
        authorization: bearer.map(authorization).transpose()?,
    };
    if config.era == Era::Modern {
        endpoint.version = Some(HeaderValue::from_static(LATEST_PROTOCOL_VERSION));
        return Ok(endpoint);
    }
    // Legacy: initialize (no version header yet), then notifications/initialized.
    let sender = connect(addr).await?;
    let mut setup = HttpConn::new(Arc::new(endpoint), Era::Legacy, sender);
    let id = ctx.next_id();
    let body =
        json!({"jsonrpc": "2.0", "id": id, "method": methods::INITIALIZE, "params": initialize_params(capabilities)});
    let request = setup.post(body.to_string().into_bytes(), None);
    let response = HttpConn::send(&setup.endpoint, &mut setup.main, request).await.map_err(fail_text)?;
    let session = response.headers().get("mcp-session-id").cloned();
    let reply = setup.response(ctx, id, response).await.map_err(fail_text)?;
    let result = reply.result().map_err(fail_text)?;
    let version = result.protocol_version.clone().ok_or("the initialize result has no protocolVersion")?;
    let Ok(mut endpoint) = Arc::try_unwrap(setup.endpoint) else {
        return Err("internal: the endpoint is still shared".into());
    };
    endpoint.version = Some(HeaderValue::from_str(&version).map_err(|_| format!("bad protocolVersion {version:?}"))?);
    endpoint.session = session;
    let notification = json!({"jsonrpc": "2.0", "method": methods::NOTIFICATION_INITIALIZED}).to_string().into_bytes();
    let mut setup = HttpConn::new(Arc::new(endpoint), Era::Legacy, connect(addr).await?);
    let request = setup.post(notification, None);
    let response = HttpConn::send(&setup.endpoint, &mut setup.main, request).await.map_err(fail_text)?;
    let status = response.status();
    let body = read_body(response.into_body()).await?;
    if !status.is_success() {
        return Err(format!(
            "notifications/initialized: HTTP {status}: {}",
            clip(&String::from_utf8_lossy(&body), 400)
        ));
    }
    drop(setup.main.take());
    Arc::try_unwrap(setup.endpoint).map_err(|_| "internal: the endpoint is still shared".to_owned())
}

/// `Bearer TOKEN`, marked sensitive (left out of hyper's and our `Debug` output).
fn authorization(bearer: &Bearer) -> Result<HeaderValue, String> {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", bearer.0))
        .map_err(|_| "the bearer token cannot be sent as a header".to_owned())?;
    value.set_sensitive(true);
    Ok(value)
}

/// End a legacy session (best effort).
pub(crate) async fn delete_session(endpoint: &Endpoint) {
    let Some(session) = &endpoint.session else { return };
    let Ok(mut sender) = connect(endpoint.addr).await else { return };
    let mut request = Request::new(Full::new(Bytes::new()));
    *request.method_mut() = http::Method::DELETE;
    *request.uri_mut() = endpoint.path.clone();
    let h = request.headers_mut();
    h.insert(http::header::HOST, endpoint.host.clone());
    h.insert("mcp-session-id", session.clone());
    if let Some(authorization) = &endpoint.authorization {
        h.insert(http::header::AUTHORIZATION, authorization.clone());
    }
    if let Some(version) = &endpoint.version {
        h.insert("mcp-protocol-version", version.clone());
    }
    if let Ok(Ok(response)) = tokio::time::timeout(Duration::from_secs(2), sender.send_request(request)).await {
        let _ = read_body(response.into_body()).await;
    }
}
