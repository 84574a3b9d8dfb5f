//! The HTTP/1.1 client side: connections (optionally from a chosen loopback address, to
//! look like another peer), and requests whose whole answer is read.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpSocket, TcpStream};

/// How long an answer may take.
pub(crate) const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest answer read.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

pub(crate) type Sender = SendRequest<Full<Bytes>>;

/// Where the requests go.
pub(crate) struct Target {
    pub(crate) addr: SocketAddr,
    pub(crate) host: String,
    pub(crate) path: String,
}

/// A TCP connection to `addr`, from `source` (port chosen by the kernel) when given.
pub(crate) async fn tcp(addr: SocketAddr, source: Option<IpAddr>) -> Result<TcpStream, String> {
    let stream = match source {
        None => TcpStream::connect(addr).await,
        Some(source) => {
            let socket = if source.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() }
                .map_err(|e| format!("socket: {e}"))?;
            socket.bind(SocketAddr::new(source, 0)).map_err(|e| format!("bind {source}: {e}"))?;
            socket.connect(addr).await
        }
    }
    .map_err(|e| format!("connect: {e}"))?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// An HTTP/1.1 connection (its driver runs in a task until the sender and any response
/// body are dropped).
pub(crate) async fn connect(addr: SocketAddr, source: Option<IpAddr>) -> Result<Sender, String> {
    let stream = tcp(addr, source).await?;
    let (sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| format!("handshake: {e}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// A request to `target` (at `path`, or the target's path when empty), with `Host` set.
pub(crate) fn request(
    target: &Target,
    method: &Method,
    path: &str,
    headers: &[(String, String)],
    body: &Bytes,
) -> Result<Request<Full<Bytes>>, String> {
    let mut request = Request::new(Full::new(body.clone()));
    *request.method_mut() = method.clone();
    *request.uri_mut() =
        (if path.is_empty() { target.path.as_str() } else { path }).parse().map_err(|e| format!("{e}"))?;
    let h = request.headers_mut();
    h.insert(http::header::HOST, target.host.parse().map_err(|e| format!("{e}"))?);
    for (name, value) in headers {
        let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|e| format!("{e}"))?;
        h.insert(name, value.parse().map_err(|e| format!("{e}"))?);
    }
    Ok(request)
}

/// A whole answer.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

impl Answer {
    /// Whether the body is an SSE stream.
    pub(crate) fn is_sse(&self) -> bool {
        is_sse(&self.headers)
    }
}

/// Whether `headers` announce an SSE body.
pub(crate) fn is_sse(headers: &HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// Send one request on `conn` (reconnecting when it is closed, and retrying once when a
/// kept-alive connection turns out closed) and read the whole answer.
pub(crate) async fn fetch(
    target: &Target,
    conn: &mut Option<Sender>,
    method: &Method,
    path: &str,
    headers: &[(String, String)],
    body: &Bytes,
) -> Result<Answer, String> {
    for attempt in 0..2 {
        let mut reused = false;
        if let Some(sender) = conn.as_mut() {
            reused = sender.ready().await.is_ok();
        }
        if !reused {
            *conn = Some(connect(target.addr, None).await?);
        }
        let Some(sender) = conn.as_mut() else { return Err("no connection".into()) };
        let request = request(target, method, path, headers, body)?;
        let answered = tokio::time::timeout(ANSWER_TIMEOUT, async {
            let response = sender.send_request(request).await.map_err(|e| format!("no answer: {e}"))?;
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, MAX_ANSWER_BYTES)
                .collect()
                .await
                .map_err(|e| format!("answer body: {e}"))?
                .to_bytes();
            Ok::<_, String>(Answer { status: parts.status, headers: parts.headers, body })
        })
        .await;
        match answered {
            Ok(Ok(answer)) => {
                if answer.headers.get(http::header::CONNECTION).is_some_and(|v| v == "close") {
                    *conn = None;
                }
                return Ok(answer);
            }
            Ok(Err(why)) => {
                *conn = None;
                if reused && attempt == 0 {
                    continue;
                }
                return Err(why);
            }
            Err(_) => {
                *conn = None;
                return Err(format!("no answer within {ANSWER_TIMEOUT:?}"));
            }
        }
    }
    Err("no answer".into())
}
