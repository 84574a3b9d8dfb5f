//! A raw JSON-RPC peer over a newline-delimited byte stream.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use crate::protocol::{
    Error, JsonObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResultResponse, JsonRpcVersion,
    RequestId, decode_message,
};
use crate::wire::framing::{DEFAULT_MAX_MESSAGE_BYTES, Frame, LineReader};

type PendingMap = Arc<Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, Error>>>>>;

/// A JSON-RPC peer: requests with ids matched to responses, plus a stream of
/// everything else the server sends (notifications and, in legacy sessions, requests).
pub struct RawClient {
    out: mpsc::Sender<String>,
    pending: PendingMap,
    incoming: tokio::sync::Mutex<mpsc::Receiver<JsonRpcMessage>>,
    /// How many messages were queued for [`next_message`](Self::next_message) so far.
    queued: Arc<AtomicU64>,
    /// How many of them [`next_message`](Self::next_message) has returned.
    taken: AtomicU64,
    next_id: AtomicI64,
}

impl std::fmt::Debug for RawClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawClient").finish_non_exhaustive()
    }
}

fn to_params(params: Value) -> Option<JsonObject> {
    match params {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl RawClient {
    /// A client reading the server's output from `reader` and writing to `writer`.
    pub fn new<R, W>(reader: R, mut writer: W) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, mut out_rx) = mpsc::channel::<String>(1024);
        tokio::spawn(async move {
            while let Some(line) = out_rx.recv().await {
                if writer.write_all(line.as_bytes()).await.is_err()
                    || writer.write_all(b"\n").await.is_err()
                    || writer.flush().await.is_err()
                {
                    break;
                }
            }
            let _ = writer.shutdown().await;
        });
        let pending: PendingMap = Arc::default();
        let (in_tx, in_rx) = mpsc::channel(1024);
        let reader_pending = Arc::clone(&pending);
        let queued = Arc::new(AtomicU64::new(0));
        let reader_queued = Arc::clone(&queued);
        tokio::spawn(async move {
            let mut lines = LineReader::new(reader, DEFAULT_MAX_MESSAGE_BYTES);
            while let Ok(Frame::Line(line)) = lines.next_frame().await {
                let Ok(text) = std::str::from_utf8(line) else {
                    continue;
                };
                let Ok(message) = decode_message(text) else {
                    tracing::warn!("server sent a malformed message");
                    continue;
                };
                let routed = match &message {
                    JsonRpcMessage::Result(r) => {
                        lock(&reader_pending).remove(&r.id).map(|tx| (tx, Ok(r.result.clone())))
                    }
                    JsonRpcMessage::Error(e) => {
                        e.id.as_ref()
                            .and_then(|id| lock(&reader_pending).remove(id))
                            .map(|tx| (tx, Err(e.error.clone())))
                    }
                    _ => None,
                };
                match routed {
                    Some((tx, outcome)) => {
                        let _ = tx.send(outcome);
                    }
                    None => {
                        // Counted before a later response is routed, so a caller can wait
                        // until everything that came before its response was handled.
                        reader_queued.fetch_add(1, Ordering::SeqCst);
                        if in_tx.send(message).await.is_err() {
                            break;
                        }
                    }
                }
            }
            lock(&reader_pending).clear();
        });
        RawClient {
            out,
            pending,
            incoming: tokio::sync::Mutex::new(in_rx),
            queued,
            taken: AtomicU64::new(0),
            next_id: AtomicI64::new(1),
        }
    }

    /// Spawn `command` and talk to it over its stdin and stdout.
    pub fn spawn(command: &mut tokio::process::Command) -> std::io::Result<(Self, tokio::process::Child)> {
        let mut child = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("child has no stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("child has no stdout"))?;
        Ok((RawClient::new(stdout, stdin), child))
    }

    /// A fresh request id.
    pub fn next_id(&self) -> RequestId {
        RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Send a request with a fresh id and wait for its result or error.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        self.request_with_id(self.next_id(), method, params).await
    }

    /// Send a request with the given id and wait for its result or error.
    pub async fn request_with_id(&self, id: RequestId, method: &str, params: Value) -> Result<Value, Error> {
        let rx = self.start_request(id, method, params).await;
        rx.await.unwrap_or_else(|_| Err(closed()))
    }

    /// Send a request and return a receiver for its response, without waiting.
    pub async fn start_request(
        &self,
        id: RequestId,
        method: &str,
        params: Value,
    ) -> oneshot::Receiver<Result<Value, Error>> {
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let request = JsonRpcRequest {
            jsonrpc: JsonRpcVersion,
            id: id.clone(),
            method: method.to_owned(),
            params: to_params(params),
        };
        match serde_json::to_string(&request) {
            Ok(line) => self.send_raw(line).await,
            Err(_) => {
                lock(&self.pending).remove(&id);
            }
        }
        rx
    }

    /// Send a notification.
    pub async fn notify(&self, method: &str, params: Value) {
        if let Ok(line) = serde_json::to_string(&JsonRpcNotification::<JsonObject>::new(method, to_params(params))) {
            self.send_raw(line).await;
        }
    }

    /// Answer a request the server sent (legacy sessions).
    pub async fn respond(&self, id: RequestId, result: Value) {
        if let Ok(line) = serde_json::to_string(&JsonRpcResultResponse { jsonrpc: JsonRpcVersion, id, result }) {
            self.send_raw(line).await;
        }
    }

    /// Answer a request the server sent with an error (legacy sessions).
    pub async fn respond_error(&self, id: RequestId, error: Error) {
        let response = crate::protocol::JsonRpcErrorResponse { jsonrpc: JsonRpcVersion, id: Some(id), error };
        if let Ok(line) = serde_json::to_string(&response) {
            self.send_raw(line).await;
        }
    }

    /// Give up on a request: forget it and tell the server (`notifications/cancelled`),
    /// without waiting (usable from `Drop`).
    pub fn cancel(&self, id: &RequestId, reason: &str) {
        lock(&self.pending).remove(id);
        let params = serde_json::json!({"requestId": id, "reason": reason});
        let notification =
            JsonRpcNotification::<JsonObject>::new(crate::protocol::methods::NOTIFICATION_CANCELLED, to_params(params));
        if let Ok(line) = serde_json::to_string(&notification)
            && self.out.try_send(line).is_err()
        {
            tracing::debug!("could not send notifications/cancelled: connection closed or busy");
        }
    }

    /// How many messages have been queued for [`next_message`](Self::next_message).
    pub(crate) fn queued(&self) -> u64 {
        self.queued.load(Ordering::SeqCst)
    }

    /// How many messages [`next_message`](Self::next_message) has returned.
    pub(crate) fn taken(&self) -> u64 {
        self.taken.load(Ordering::SeqCst)
    }

    /// Send one line exactly as given (a newline is appended).
    pub async fn send_raw(&self, line: String) {
        if self.out.send(line).await.is_err() {
            tracing::debug!("client connection closed");
        }
    }

    /// The next message from the server that is not a response to one of our
    /// requests: a notification, a server-to-client request, or an unmatched response.
    pub async fn next_message(&self) -> Option<JsonRpcMessage> {
        let message = self.incoming.lock().await.recv().await;
        if message.is_some() {
            self.taken.fetch_add(1, Ordering::SeqCst);
        }
        message
    }
}

fn closed() -> Error {
    Error { code: crate::protocol::ErrorCode::INTERNAL_ERROR, message: "Connection closed".into(), data: None }
}
