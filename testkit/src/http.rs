//! A small HTTP/1.1 client for testing the Streamable HTTP transport over a real socket,
//! and a helper that serves a [`mcp::Server`] on `127.0.0.1`.
//!
//! - [`send`]: one request on a fresh connection (hyper's client), the whole body read.
//! - [`open`]: one request whose body is read incrementally, one SSE message at a time;
//!   dropping the [`EventStream`] closes the TCP connection.
//! - [`send_raw`] / [`write_raw`]: a request written byte for byte (header names keep
//!   their case), for tests that need exact wire control or an abrupt disconnect.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use mcp::serve::http::HttpConfig;
use mcp::wire::sse::Parser;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// How long any single exchange may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The endpoint path of a server with the default [`HttpConfig`].
pub const PATH: &str = "/mcp";

/// The modern protocol revision, as sent in `MCP-Protocol-Version`.
pub const MODERN_VERSION: &str = "2026-07-28";

/// Request headers in order, names as written (HTTP/1.1 via hyper lowercases them on the
/// wire; [`send_raw`] keeps them as they are).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers(Vec<(String, String)>);

impl Headers {
    /// No headers.
    pub fn new() -> Self {
        Headers(Vec::new())
    }

    /// `Content-Type: application/json` and `Accept: application/json, text/event-stream`.
    pub fn json() -> Self {
        Headers::new().set("Content-Type", "application/json").set("Accept", "application/json, text/event-stream")
    }

    /// The headers of a 2026-07-28 request: [`json`](Self::json), `MCP-Protocol-Version`,
    /// `Mcp-Method`, and `Mcp-Name` when `name` is given.
    pub fn modern(method: &str, name: Option<&str>) -> Self {
        let headers = Headers::json().set("MCP-Protocol-Version", MODERN_VERSION).set("Mcp-Method", method);
        match name {
            Some(name) => headers.set("Mcp-Name", name),
            None => headers,
        }
    }

    /// Replace every header named `name` (case-insensitively) with one `name: value`.
    #[must_use]
    pub fn set(self, name: &str, value: &str) -> Self {
        self.remove(name).add(name, value)
    }

    /// Append `name: value`, keeping any existing header of that name.
    #[must_use]
    pub fn add(mut self, name: &str, value: &str) -> Self {
        self.0.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Drop every header named `name` (case-insensitively).
    #[must_use]
    pub fn remove(mut self, name: &str) -> Self {
        self.0.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// The first value of `name` (case-insensitively).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The headers in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

/// The standard headers of a 2026-07-28 POST (see [`Headers::modern`]).
pub fn modern_headers(method: &str, name: Option<&str>) -> Headers {
    Headers::modern(method, name)
}

/// A whole response.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: StatusCode,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body, as text.
    pub body: String,
}

impl Reply {
    /// The body parsed as JSON; panics (showing the response) when it is not JSON.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("response body is not JSON ({e}); status {}: {:?}", self.status, self.body))
    }

    /// The JSON messages in the `data:` lines of an SSE body, in order.
    #[track_caller]
    pub fn sse_messages(&self) -> Vec<Value> {
        parse_sse(&self.body)
    }

    /// The value of a response header, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The media type of the body (`Content-Type` without parameters), lowercased.
    pub fn content_type(&self) -> Option<String> {
        self.header("content-type").map(media_type)
    }
}

fn media_type(value: &str) -> String {
    value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// The largest SSE event the test client accepts.
const MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// The data of each event in an SSE text (events without data, like keep-alive comments,
/// are skipped), each parsed as JSON. Panics on data that is not JSON.
#[track_caller]
pub fn parse_sse(text: &str) -> Vec<Value> {
    let mut parser = Parser::new(MAX_EVENT_BYTES);
    if let Err(e) = parser.feed(text.as_bytes()) {
        panic!("{e}");
    }
    let mut messages: Vec<Value> = std::iter::from_fn(|| parser.next_event()).map(|e| parse_data(&e.data)).collect();
    messages.extend(std::iter::from_fn(|| parser.finish()).map(|e| parse_data(&e.data)));
    messages
}

#[track_caller]
fn parse_data(data: &str) -> Value {
    serde_json::from_str(data).unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {data:?}"))
}

fn build_request(addr: SocketAddr, method: &str, path: &str, headers: &Headers, body: Bytes) -> Request<Full<Bytes>> {
    let mut builder = Request::builder().method(method).uri(path);
    if headers.get("host").is_none() {
        builder = builder.header("host", addr.to_string());
    }
    for (name, value) in headers.iter() {
        builder = builder.header(name, value);
    }
    builder.body(Full::new(body)).unwrap_or_else(|e| panic!("cannot build the request {method} {path}: {e}"))
}

/// Connect, send one request with hyper's HTTP/1.1 client and return the response head,
/// its body, and the task driving the connection.
async fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &Headers,
    body: Bytes,
) -> Result<(http::response::Parts, Incoming, JoinHandle<()>), String> {
    let request = build_request(addr, method, path, headers, body);
    let stream = TcpStream::connect(addr).await.map_err(|e| format!("connecting to {addr}: {e}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake with {addr}: {e}"))?;
    let driver = tokio::spawn(async move {
        // The connection ends with an error when the server closes it early; the request
        // future reports that.
        let _ = connection.await;
    });
    match sender.send_request(request).await {
        Ok(response) => {
            let (parts, body) = response.into_parts();
            Ok((parts, body, driver))
        }
        Err(e) => {
            driver.abort();
            Err(format!("{method} {path}: {e}"))
        }
    }
}

/// Send one request on a fresh connection and read the whole response, or say why not.
pub async fn try_send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &Headers,
    body: impl Into<Bytes>,
) -> Result<Reply, String> {
    let body = body.into();
    let work = async {
        let (parts, incoming, driver) = exchange(addr, method, path, headers, body).await?;
        let collected = incoming.collect().await.map_err(|e| format!("reading the body of {method} {path}: {e}"));
        driver.abort();
        let bytes = collected?.to_bytes();
        let body = String::from_utf8(bytes.to_vec()).map_err(|e| format!("the body is not UTF-8: {e}"))?;
        Ok(Reply { status: parts.status, headers: parts.headers, body })
    };
    tokio::time::timeout(TIMEOUT, work)
        .await
        .unwrap_or_else(|_| Err(format!("{method} {path}: no answer within {TIMEOUT:?}")))
}

/// Send one request on a fresh connection and read the whole response (within [`TIMEOUT`]).
#[track_caller]
pub fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &Headers,
    body: impl Into<Bytes>,
) -> impl std::future::Future<Output = Reply> {
    let caller = std::panic::Location::caller();
    let method = method.to_owned();
    let path = path.to_owned();
    let headers = headers.clone();
    let body = body.into();
    async move {
        try_send(addr, &method, &path, &headers, body)
            .await
            .unwrap_or_else(|e| panic!("{e} (request sent at {caller})"))
    }
}

/// POST a JSON message to [`PATH`].
pub async fn post(addr: SocketAddr, headers: &Headers, message: &Value) -> Reply {
    send(addr, "POST", PATH, headers, message.to_string()).await
}

/// A response whose body is read as it arrives. Dropping it closes the connection.
#[derive(Debug)]
pub struct EventStream {
    /// The status code.
    pub status: StatusCode,
    /// The response headers.
    pub headers: HeaderMap,
    body: Incoming,
    parser: Parser,
    driver: JoinHandle<()>,
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

impl EventStream {
    /// The value of a response header, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The media type of the body, lowercased.
    pub fn content_type(&self) -> Option<String> {
        self.header("content-type").map(media_type)
    }

    /// The next SSE message (keep-alive comments are skipped), or `None` when the body
    /// ends; panics when nothing arrives within `timeout`.
    #[track_caller]
    pub fn next_message_within(&mut self, timeout: Duration) -> impl std::future::Future<Output = Option<Value>> + '_ {
        let caller = std::panic::Location::caller();
        async move {
            let deadline = tokio::time::Instant::now() + timeout;
            loop {
                if let Some(event) = self.parser.next_event() {
                    return Some(parse_data(&event.data));
                }
                let frame = tokio::time::timeout_at(deadline, self.body.frame())
                    .await
                    .unwrap_or_else(|_| panic!("no SSE message within {timeout:?} (awaited at {caller})"));
                match frame {
                    None => return self.parser.finish().map(|event| parse_data(&event.data)),
                    Some(Err(e)) => panic!("reading the event stream: {e} (awaited at {caller})"),
                    Some(Ok(frame)) => {
                        if let Ok(data) = frame.into_data()
                            && let Err(e) = self.parser.feed(&data)
                        {
                            panic!("reading the event stream: {e} (awaited at {caller})");
                        }
                    }
                }
            }
        }
    }

    /// The next SSE message within [`TIMEOUT`] (see [`next_message_within`](Self::next_message_within)).
    #[track_caller]
    pub fn next_message(&mut self) -> impl std::future::Future<Output = Option<Value>> + '_ {
        self.next_message_within(TIMEOUT)
    }

    /// Every remaining message until the body ends.
    pub async fn rest(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(message) = self.next_message().await {
            out.push(message);
        }
        out
    }
}

/// Send one request and return as soon as the response head arrives; read its body with
/// [`EventStream::next_message`].
#[track_caller]
pub fn open(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &Headers,
    body: impl Into<Bytes>,
) -> impl std::future::Future<Output = EventStream> {
    let caller = std::panic::Location::caller();
    let method = method.to_owned();
    let path = path.to_owned();
    let headers = headers.clone();
    let body = body.into();
    async move {
        let (parts, body, driver) = tokio::time::timeout(TIMEOUT, exchange(addr, &method, &path, &headers, body))
            .await
            .unwrap_or_else(|_| Err(format!("{method} {path}: no response head within {TIMEOUT:?}")))
            .unwrap_or_else(|e| panic!("{e} (opened at {caller})"));
        EventStream { status: parts.status, headers: parts.headers, body, parser: Parser::new(MAX_EVENT_BYTES), driver }
    }
}

/// The bytes of an HTTP/1.1 request written exactly as given (header names keep their
/// case); `Host` and `Content-Length` are added unless present.
pub fn raw_request(addr: SocketAddr, method: &str, path: &str, headers: &Headers, body: &[u8]) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if headers.get("host").is_none() {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers.iter() {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if headers.get("content-length").is_none() {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// Connect and write a request by hand; returns the open socket (drop it to disconnect).
pub async fn write_raw(addr: SocketAddr, method: &str, path: &str, headers: &Headers, body: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap_or_else(|e| panic!("connecting to {addr}: {e}"));
    let bytes = raw_request(addr, method, path, headers, body);
    stream.write_all(&bytes).await.unwrap_or_else(|e| panic!("writing the request: {e}"));
    stream.flush().await.unwrap_or_else(|e| panic!("flushing the request: {e}"));
    stream
}

/// Send a hand-written request (with `Connection: close`) and parse the response.
///
/// Understands `Content-Length` and chunked bodies; enough for this transport's answers.
pub async fn send_raw(addr: SocketAddr, method: &str, path: &str, headers: &Headers, body: &[u8]) -> Reply {
    let headers = headers.clone().set("Connection", "close");
    let mut stream = write_raw(addr, method, path, &headers, body).await;
    let mut bytes = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut bytes))
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: the server did not finish within {TIMEOUT:?}"))
        .unwrap_or_else(|e| panic!("{method} {path}: reading the response: {e}"));
    parse_response(&bytes).unwrap_or_else(|e| panic!("{method} {path}: {e}: {:?}", String::from_utf8_lossy(&bytes)))
}

/// Connect, write `bytes` exactly as given (any request, whole or cut short, valid or
/// not), then, when `half_close`, shut down the writing half; read until the server
/// closes the connection (within [`TIMEOUT`]) and parse the first response. Without
/// `half_close`, the request should say `Connection: close`, or the read waits for the
/// server's idle timeout.
///
/// Writing goes on while the response is read, so a server that answers before reading
/// the whole request (a 413) is seen answering. `Err` says the server closed the
/// connection without a (parseable) response, with what was read.
pub async fn send_bytes(addr: SocketAddr, bytes: &[u8], half_close: bool) -> Result<Reply, String> {
    let stream = TcpStream::connect(addr).await.unwrap_or_else(|e| panic!("connecting to {addr}: {e}"));
    let (mut reader, mut writer) = stream.into_split();
    let request = bytes.to_vec();
    let writing = tokio::spawn(async move {
        writer.write_all(&request).await?;
        writer.flush().await?;
        if half_close {
            writer.shutdown().await?;
        }
        // Keep the writing half open until the server closes the connection.
        std::future::pending::<()>().await;
        Ok::<(), std::io::Error>(())
    });
    let mut received = Vec::new();
    let read = tokio::time::timeout(TIMEOUT, reader.read_to_end(&mut received)).await;
    writing.abort();
    let read_error = match read {
        Err(_) => panic!("the server at {addr} neither answered nor closed the connection within {TIMEOUT:?}"),
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(e),
    };
    if received.is_empty() {
        return Err(match read_error {
            Some(e) => format!("the connection failed without a response: {e}"),
            None => "the server closed the connection without a response".to_owned(),
        });
    }
    parse_response(&received).map_err(|e| format!("{e}: {:?}", String::from_utf8_lossy(&received)))
}

fn parse_response(bytes: &[u8]) -> Result<Reply, String> {
    let split = bytes.windows(4).position(|w| w == b"\r\n\r\n").ok_or("no end of the response head")?;
    let head = std::str::from_utf8(&bytes[..split]).map_err(|_| "the response head is not UTF-8")?;
    let rest = &bytes[split + 4..];
    let mut lines = head.split("\r\n");
    let status_line = lines.next().ok_or("no status line")?;
    let code = status_line.split(' ').nth(1).ok_or("no status code")?;
    let status = code.parse::<u16>().ok().and_then(|c| StatusCode::from_u16(c).ok()).ok_or("bad status code")?;
    let mut headers = HeaderMap::new();
    for line in lines {
        let (name, value) = line.split_once(':').ok_or("a header line without ':'")?;
        let name = http::HeaderName::from_bytes(name.trim().as_bytes()).map_err(|e| e.to_string())?;
        let value = http::HeaderValue::from_str(value.trim()).map_err(|e| e.to_string())?;
        headers.append(name, value);
    }
    let chunked = headers
        .get(http::header::TRANSFER_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let body = if chunked { dechunk(rest)? } else { rest.to_vec() };
    let body = String::from_utf8(body).map_err(|_| "the body is not UTF-8")?;
    Ok(Reply { status, headers, body })
}

fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n").ok_or("a chunk without a size line")?;
        let size_text = std::str::from_utf8(&rest[..line_end]).map_err(|_| "a chunk size is not text")?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| format!("bad chunk size {size_text:?}"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let chunk = rest.get(..size).ok_or("a chunk shorter than its size")?;
        out.extend_from_slice(chunk);
        rest = rest.get(size + 2..).ok_or("a chunk without its CRLF")?;
    }
}

/// Serve `server` over Streamable HTTP on `127.0.0.1` (a free port) with `config`, in a
/// task of the current runtime; returns the address.
pub async fn serve(server: &mcp::Server, config: HttpConfig) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("binding 127.0.0.1:0: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("reading the bound address: {e}"));
    let server = server.clone();
    tokio::spawn(async move {
        if let Err(e) = mcp::serve::http(listener, server).config(config).await {
            eprintln!("the test HTTP server stopped: {e}");
        }
    });
    addr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sse_events_and_skips_comments() {
        let text = ":\n\nevent: message\ndata: {\"a\":1}\n\n: keep-alive\n\ndata: {\"b\":\r\ndata: 2}\r\n\r\n";
        assert_eq!(parse_sse(text), vec![serde_json::json!({"a": 1}), serde_json::json!({"b": 2})]);
    }

    #[test]
    fn parses_a_chunked_response() {
        let raw = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n\
                    5\r\ndata:\r\n9\r\n {\"a\":1}\n\r\n1\r\n\n\r\n0\r\n\r\n";
        let reply = parse_response(raw).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.content_type().as_deref(), Some("text/event-stream"));
        assert_eq!(reply.sse_messages(), vec![serde_json::json!({"a": 1})]);
    }
}
