//! How the client reaches a server: a byte stream (stdio, in-memory) or Streamable HTTP.
//! Both deliver the server's own messages (notifications, and in 2025-11-25 sessions its
//! requests) to the callbacks while a call is in flight.

use std::sync::Arc;

use serde_json::Value;

use super::ClientError;
use super::callbacks::{CallbackFuture, Callbacks};
use crate::client::RawClient;
use crate::protocol::{JsonObject, JsonRpcMessage};

/// One request to send.
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    pub(crate) method: String,
    pub(crate) params: JsonObject,
    /// `Mcp-Name`: the tool or prompt name, or the resource URI (HTTP, 2026-07-28).
    pub(crate) name: Option<String>,
    /// `Mcp-Param-*` headers: suffix and value (HTTP, 2026-07-28).
    pub(crate) header_params: Vec<(String, String)>,
    /// Which round of its call this request is (1 for the first; 0 when it is not part
    /// of a call with rounds), for its span.
    pub(crate) round: u32,
}

impl Outgoing {
    pub(crate) fn new(method: &str, params: JsonObject) -> Self {
        Outgoing { method: method.to_owned(), params, name: None, header_params: Vec::new(), round: 0 }
    }
}

/// The era a link speaks, which HTTP needs for its headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinkEra {
    /// 2026-07-28 (stateless, headers on every POST).
    Modern(String),
    /// A negotiated `initialize` version.
    Legacy(String),
}

/// A way to reach the server.
pub(crate) trait Link: Send + Sync + 'static {
    /// Send a request and wait for its result (or JSON-RPC error).
    fn request(&self, out: Outgoing) -> CallbackFuture<Result<Value, ClientError>>;
    /// Send a notification.
    fn notify(&self, method: &str, params: JsonObject) -> CallbackFuture<Result<(), ClientError>>;
    /// Switch to the negotiated era.
    fn set_era(&self, era: LinkEra);
    /// After a 2025-11-25 handshake: open the stream where the server sends requests that
    /// belong to no call (HTTP only).
    fn open_listen_stream(&self) -> CallbackFuture<()> {
        Box::pin(async {})
    }
    /// Whether this is Streamable HTTP (where `x-mcp-header` rules apply).
    fn is_http(&self) -> bool;
}

/// A newline-delimited JSON-RPC stream: the server's requests are answered by the
/// callbacks, its notifications routed to them.
pub(crate) struct StreamLink {
    raw: Arc<RawClient>,
    /// How many of the server's own messages have been handled (counted as
    /// [`RawClient::taken`] counts them, which includes any taken before the link existed).
    handled: tokio::sync::watch::Receiver<u64>,
    /// The pump holds the connection while it waits; it stops with the link.
    pump: tokio::task::AbortHandle,
    _child: Option<tokio::process::Child>,
}

impl Drop for StreamLink {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

impl StreamLink {
    pub(crate) fn new(raw: RawClient, child: Option<tokio::process::Child>, callbacks: Callbacks) -> Self {
        let raw = Arc::new(raw);
        let pump = Arc::downgrade(&raw);
        let (handled_tx, handled) = tokio::sync::watch::channel(raw.taken());
        let task = tokio::spawn(async move {
            loop {
                let Some(raw) = pump.upgrade() else { break };
                let Some(message) = raw.next_message().await else { break };
                match message {
                    JsonRpcMessage::Request(request) => {
                        let callbacks = callbacks.clone();
                        tokio::spawn(async move {
                            let params = request.params.map(|p| Value::Object(p.into()));
                            let id = request.id;
                            match callbacks.serve_request(id.clone(), &request.method, params).await {
                                Ok(result) => raw.respond(id, result).await,
                                Err(error) => raw.respond_error(id, error).await,
                            }
                        });
                    }
                    JsonRpcMessage::Notification(n) => callbacks.notify(&n.method, n.params.map(Value::Object)),
                    _ => tracing::debug!("unmatched response from the server ignored"),
                }
                handled_tx.send_modify(|n| *n += 1);
            }
        });
        StreamLink { raw, handled, pump: task.abort_handle(), _child: child }
    }
}

/// Cancels the request if its future is dropped before the answer arrives.
struct CancelOnDrop {
    raw: Arc<RawClient>,
    id: Option<crate::protocol::RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            self.raw.cancel(&id, "the client stopped waiting");
        }
    }
}

impl Link for StreamLink {
    fn request(&self, out: Outgoing) -> CallbackFuture<Result<Value, ClientError>> {
        let raw = Arc::clone(&self.raw);
        let mut handled = self.handled.clone();
        Box::pin(async move {
            let id = raw.next_id();
            super::spans::record_request_id(&id);
            let rx = raw.start_request(id.clone(), &out.method, Value::Object(out.params)).await;
            let mut guard = CancelOnDrop { raw: Arc::clone(&raw), id: Some(id) };
            let answer = rx.await;
            guard.id = None;
            // What the server sent before the answer (progress, logs) reaches the
            // callbacks before the caller sees the answer. Err: the pump has stopped.
            let before = raw.queued();
            let _ = handled.wait_for(|n| *n >= before).await;
            match answer {
                Ok(result) => result.map_err(ClientError::Rpc),
                Err(_) => Err(ClientError::transport("the connection closed")),
            }
        })
    }

    fn notify(&self, method: &str, params: JsonObject) -> CallbackFuture<Result<(), ClientError>> {
        let raw = Arc::clone(&self.raw);
        let method = method.to_owned();
        Box::pin(async move {
            raw.notify(&method, Value::Object(params)).await;
            Ok(())
        })
    }

    fn set_era(&self, _era: LinkEra) {}

    fn is_http(&self) -> bool {
        false
    }
}
