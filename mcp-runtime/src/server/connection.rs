//! Serving one byte-stream connection (stdio, in-memory, a socket): read frames,
//! run requests concurrently, write responses as they finish.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use super::Server;
use super::panic::CatchUnwind;
use super::session::Session;
use crate::protocol::{
    ErrorCode, ErrorObject, JsonRpcErrorResponse, JsonRpcMessage, JsonRpcResultResponse, JsonRpcVersion, RequestId,
    decode_message_with,
};
use crate::transport::framing::{DEFAULT_MAX_MESSAGE_BYTES, Frame, LineReader};

/// Limits for one connection.
#[derive(Debug, Clone)]
pub struct ConnectionConfig {
    /// The largest message accepted, in bytes; longer lines get `-32600` and are discarded.
    pub max_message_bytes: usize,
    /// How many requests may run at once on the connection; more get `-32000` (server busy).
    pub max_in_flight: usize,
    /// How long in-flight requests may run after the input closes (or the shutdown signal).
    pub shutdown_grace: Duration,
}

/// Default [`ConnectionConfig::max_in_flight`].
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;

impl Default for ConnectionConfig {
    fn default() -> Self {
        ConnectionConfig {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

/// The error for a request refused because too many are in flight.
pub(crate) fn busy() -> ErrorObject {
    ErrorObject {
        code: ErrorCode::SERVER_BUSY,
        message: "Server busy: too many requests in flight; retry later".into(),
        data: None,
    }
}

/// Encode a success response.
/// Encode a result response from a [`Payload`](super::dispatch::Payload): an encoded
/// result is spliced in as is.
pub(crate) fn payload_frame(id: RequestId, payload: super::dispatch::Payload) -> String {
    match payload {
        super::dispatch::Payload::Value(value) => result_frame(id, value),
        super::dispatch::Payload::Encoded(text) => {
            let id = serde_json::to_string(&id).unwrap_or_else(|_| "null".to_owned());
            let mut frame = String::with_capacity(text.len() + id.len() + 32);
            frame.push_str(r#"{"jsonrpc":"2.0","id":"#);
            frame.push_str(&id);
            frame.push_str(r#","result":"#);
            frame.push_str(&text);
            frame.push('}');
            frame
        }
    }
}

pub(crate) fn result_frame(id: RequestId, result: serde_json::Value) -> String {
    let response = JsonRpcResultResponse { jsonrpc: JsonRpcVersion, id, result };
    serde_json::to_string(&response)
        .unwrap_or_else(|_| r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#.to_owned())
}

/// Encode an error response.
pub(crate) fn error_frame(id: Option<RequestId>, error: ErrorObject) -> String {
    serde_json::to_string(&JsonRpcErrorResponse::new(id, error))
        .unwrap_or_else(|_| r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#.to_owned())
}

impl Server {
    /// Serve a newline-delimited JSON connection until its input closes.
    pub async fn serve_connection<R, W>(&self, reader: R, writer: W) -> std::io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_connection_with(reader, writer, ConnectionConfig::default()).await
    }

    /// [`serve_connection`](Server::serve_connection) with explicit limits.
    pub async fn serve_connection_with<R, W>(
        &self,
        reader: R,
        writer: W,
        config: ConnectionConfig,
    ) -> std::io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_connection_until(reader, writer, config, std::future::pending()).await
    }

    /// [`serve_connection_with`](Server::serve_connection_with) that also stops reading when
    /// `shutdown` resolves; requests in flight then get `config.shutdown_grace` to finish
    /// and their responses are written before it returns.
    pub async fn serve_connection_until<R, W>(
        &self,
        reader: R,
        mut writer: W,
        config: ConnectionConfig,
        shutdown: impl Future<Output = ()> + Send,
    ) -> std::io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let mut shutdown = std::pin::pin!(shutdown);
        let (tx, mut rx) = mpsc::channel::<String>(1024);
        let writer_task = tokio::spawn(async move {
            while let Some(frame) = rx.recv().await {
                writer.write_all(frame.as_bytes()).await?;
                writer.write_all(b"\n").await?;
                if rx.is_empty() {
                    writer.flush().await?;
                }
            }
            writer.flush().await?;
            Ok::<(), std::io::Error>(())
        });
        let session = Arc::new(Session::new());
        let mut tasks = JoinSet::new();
        let slots = Arc::new(Semaphore::new(config.max_in_flight));
        let mut lines = LineReader::new(reader, config.max_message_bytes);
        let read_result = loop {
            while tasks.try_join_next().is_some() {}
            let next = tokio::select! {
                next = lines.next_frame() => next,
                () = &mut shutdown => {
                    tracing::info!(in_flight = tasks.len(), "shutting down: no longer reading requests");
                    break Ok(());
                }
            };
            let frame = match next {
                Ok(frame) => frame,
                Err(e) => break Err(e),
            };
            let line = match frame {
                Frame::Eof => break Ok(()),
                Frame::TooLong => {
                    tracing::warn!(limit = config.max_message_bytes, "rejecting a message over the size limit");
                    let error = ErrorObject {
                        code: ErrorCode::INVALID_REQUEST,
                        message: format!("Invalid Request: message exceeds {} bytes", config.max_message_bytes),
                        data: None,
                    };
                    let _ = tx.send(error_frame(None, error)).await;
                    continue;
                }
                Frame::Line(line) => line,
            };
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let max_depth = self.limits().max_json_depth;
            let decoded = match std::str::from_utf8(line) {
                Ok(text) => decode_message_with(text, max_depth),
                Err(_) => decode_message_with("\u{0}", max_depth),
            };
            match decoded {
                Err(e) => {
                    tracing::debug!(code = e.code, "rejecting a malformed message");
                    let _ = tx.send(error_frame(e.id.clone(), e.to_error_object())).await;
                }
                Ok(JsonRpcMessage::Request(request)) => {
                    // Released before the response is queued, so a client that waits for
                    // it before sending more never sees a stale count.
                    let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
                        tracing::warn!(limit = config.max_in_flight, "refusing a request: too many in flight");
                        let _ = tx.send(error_frame(Some(request.id), busy())).await;
                        continue;
                    };
                    let id = request.id.clone();
                    let server = self.clone();
                    let task_session = Arc::clone(&session);
                    let task_tx = tx.clone();
                    let started = session.start_request(&id, || {
                        tasks.spawn(async move {
                            let id = request.id.clone();
                            let outcome =
                                CatchUnwind::new(server.dispatch(&task_session, request, task_tx.clone(), None)).await;
                            let frame = match outcome {
                                Ok(Ok(result)) => payload_frame(id.clone(), result),
                                Ok(Err(error)) => error_frame(Some(id.clone()), error.into()),
                                Err(()) => {
                                    tracing::error!(%id, "a handler panicked; answering -32603");
                                    error_frame(
                                        Some(id.clone()),
                                        ErrorObject {
                                            code: ErrorCode::INTERNAL_ERROR,
                                            message: "Internal error".into(),
                                            data: None,
                                        },
                                    )
                                }
                            };
                            task_session.finish_request(&id);
                            drop(permit);
                            let _ = task_tx.send(frame).await;
                        })
                    });
                    if !started {
                        let error = ErrorObject {
                            code: ErrorCode::INVALID_REQUEST,
                            message: "Invalid Request: a request with this id is already in progress".into(),
                            data: None,
                        };
                        let _ = tx.send(error_frame(Some(id), error)).await;
                    }
                }
                Ok(JsonRpcMessage::Notification(notification)) => session.handle_notification(notification),
                Ok(JsonRpcMessage::Result(response)) => session.route_response(Some(&response.id), Ok(response.result)),
                Ok(JsonRpcMessage::Error(response)) => {
                    session.route_response(response.id.as_ref(), Err(response.error))
                }
            }
        };
        session.fail_pending();
        let drained =
            tokio::time::timeout(config.shutdown_grace, async { while tasks.join_next().await.is_some() {} }).await;
        if drained.is_err() {
            tracing::warn!("in-flight requests did not finish after the input closed; aborting them");
        }
        session.abort_all();
        tasks.shutdown().await;
        drop(session);
        drop(tx);
        match writer_task.await {
            Ok(Err(e)) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e),
            _ => {}
        }
        read_result
    }
}
