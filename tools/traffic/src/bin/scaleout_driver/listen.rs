//! A tool-list change on one instance must reach a `subscriptions/listen` stream held by
//! the other. Our client has no `subscriptions/listen`, so the stream is a plain HTTP/1.1
//! POST read as SSE; the change is `everything`'s `test_trigger_tool_change` (which adds
//! and removes `test_dynamic_tool`), called through the other instance.

use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use mcp::protocol::{LATEST_PROTOCOL_VERSION, keys, methods};
use mcp::wire::sse::{Event, Parser};
use serde_json::{Value, json};

use crate::{CALL_TIMEOUT, Report, bounded, connect, text_of};

/// The largest event read.
const MAX_EVENT_BYTES: usize = 256 * 1024;

#[derive(Debug, clap::Args)]
pub(crate) struct ListenAcross {
    /// The instance holding the listen stream, `http://HOST:PORT/mcp`.
    #[arg(long)]
    listen: String,
    /// The instance whose tool list changes.
    #[arg(long)]
    change: String,
    /// How long the notification may take to arrive, in ms.
    #[arg(long = "timeout-ms", default_value_t = 5000)]
    timeout_ms: u64,
}

pub(crate) async fn run(args: ListenAcross) -> Report {
    let mut report = Report::new("listen-across");
    if let Err(why) = listen_across(&args, &mut report).await {
        report.fail(why);
    }
    report
}

/// An open SSE answer: its body and the events parsed so far (and the connection's
/// sender, which keeps the connection open).
struct Stream {
    body: Incoming,
    parser: Parser,
    _sender: SendRequest<Full<Bytes>>,
}

impl Stream {
    /// The next event, or `None` when the stream ended.
    async fn next(&mut self) -> Result<Option<Event>, String> {
        loop {
            if let Some(event) = self.parser.next_event() {
                return Ok(Some(event));
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Some(data) = frame.data_ref() {
                        self.parser.feed(data).map_err(|e| format!("listen stream: {e}"))?;
                    }
                }
                Some(Err(e)) => return Err(format!("listen stream: {e}")),
                None => return Ok(self.parser.finish()),
            }
        }
    }

    /// The next JSON-RPC message's method (`""` for a response), or `None` at the end.
    async fn next_method(&mut self) -> Result<Option<String>, String> {
        loop {
            let Some(event) = self.next().await? else { return Ok(None) };
            if event.data.is_empty() {
                continue;
            }
            let message: Value =
                serde_json::from_str(&event.data).map_err(|e| format!("listen stream: not JSON ({e})"))?;
            if let Some(error) = message.get("error") {
                return Err(format!("listen stream: an error {error}"));
            }
            return Ok(Some(message.get("method").and_then(Value::as_str).unwrap_or_default().to_owned()));
        }
    }
}

/// Open `subscriptions/listen` for tool-list changes on `url`, up to its acknowledgement.
async fn open(url: &str) -> Result<Stream, String> {
    let uri: Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let host = uri.host().ok_or_else(|| format!("{url}: no host"))?;
    let port = uri.port_u16().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((host, port)).await.map_err(|e| format!("connect {url}: {e}"))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| format!("handshake: {e}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let meta = json!({
        keys::PROTOCOL_VERSION: LATEST_PROTOCOL_VERSION,
        keys::CLIENT_CAPABILITIES: {},
        keys::CLIENT_INFO: {"name": "scaleout_driver", "version": env!("CARGO_PKG_VERSION")},
    });
    let params = json!({"_meta": meta, "notifications": {"toolsListChanged": true}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": methods::SUBSCRIPTIONS_LISTEN, "params": params});
    let request = Request::builder()
        .method(Method::POST)
        .uri(uri.path())
        .header(http::header::HOST, uri.authority().map_or(host, |a| a.as_str()))
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json, text/event-stream")
        .header("mcp-protocol-version", LATEST_PROTOCOL_VERSION)
        .header("mcp-method", methods::SUBSCRIPTIONS_LISTEN)
        .body(Full::new(Bytes::from(body.to_string())))
        .map_err(|e| format!("listen request: {e}"))?;
    let response = sender.send_request(request).await.map_err(|e| format!("listen: no answer ({e})"))?;
    let (parts, body) = response.into_parts();
    let sse = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if parts.status != StatusCode::OK || !sse {
        let bytes = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        return Err(format!("listen: {} {}", parts.status, String::from_utf8_lossy(&bytes)));
    }
    let mut stream = Stream { body, parser: Parser::new(MAX_EVENT_BYTES), _sender: sender };
    match stream.next_method().await? {
        Some(method) if method == methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED => Ok(stream),
        Some(method) => Err(format!("listen: the first message was {method:?}, not the acknowledgement")),
        None => Err("listen: the stream ended before its acknowledgement".into()),
    }
}

async fn listen_across(args: &ListenAcross, report: &mut Report) -> Result<(), String> {
    let mut stream = tokio::time::timeout(CALL_TIMEOUT, open(&args.listen))
        .await
        .map_err(|_| format!("listen: no acknowledgement within {CALL_TIMEOUT:?}"))??;
    let changer = connect(&args.change, false).await?;
    let changed = Instant::now();
    let result = bounded(changer.call_tool("test_trigger_tool_change", json!({})), "test_trigger_tool_change").await?;
    report.set("change", text_of(&result));
    let timeout = Duration::from_millis(args.timeout_ms);
    let waited = tokio::time::timeout(timeout, async {
        let mut others = Vec::new();
        loop {
            match stream.next_method().await? {
                Some(method) if method == methods::NOTIFICATION_TOOLS_LIST_CHANGED => return Ok(others),
                Some(method) => others.push(method),
                None => return Err::<_, String>("the listen stream ended".into()),
            }
        }
    })
    .await;
    match waited {
        Ok(Ok(others)) => {
            report.set("arrived_after_ms", u64::try_from(changed.elapsed().as_millis()).unwrap_or(u64::MAX));
            report.set("other_messages", others);
            Ok(())
        }
        Ok(Err(why)) => Err(why),
        Err(_) => Err(format!(
            "no notifications/tools/list_changed on the listening instance within {} ms of the change",
            args.timeout_ms
        )),
    }
}
