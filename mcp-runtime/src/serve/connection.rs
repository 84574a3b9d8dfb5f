//! Serving one byte-stream connection (stdio, in-memory, a socket): read frames,
//! run requests concurrently, write responses as they finish.
//!
//! A request first runs in the reading task itself, until its handler waits for the
//! first time: most handlers never wait, and their answer then costs no task of its own,
//! and allocates and frees its JSON on one thread. A handler that waits continues in a
//! task, while the connection reads on. The reading task also writes every answer (the
//! tasks hand theirs over on a channel), before it reads the next message.

use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use super::Shutdown;
use super::output::Output;
use super::woken::Woken;
use crate::Server;
use crate::handler::{CatchUnwind, Session, busy, error_frame, outcome_frame};
use crate::protocol::{Error, ErrorCode, JsonRpcMessage, JsonRpcRequest, Params, decode_message_with, methods};
use crate::wire::framing::{DEFAULT_MAX_MESSAGE_BYTES, Frame, LineReader};

/// Limits of one byte-stream connection, set through the [`Connection`] and
/// [`Stdio`](super::Stdio) builders.
#[derive(Debug, Clone)]
pub(crate) struct ConnectionConfig {
    /// The largest message accepted, in bytes; longer lines get `-32600` and are discarded.
    pub(crate) max_message_bytes: usize,
    /// How many requests may run at once on the connection; more get `-32000` (server busy).
    pub(crate) max_in_flight: usize,
    /// How long in-flight requests may run after the input closes (or the shutdown signal).
    pub(crate) grace: Duration,
    /// How many `subscriptions/listen` streams may be open at once; they do not count
    /// against `max_in_flight`. More get `-32000` (server busy).
    pub(crate) max_listen_streams: usize,
}

/// Default limit on requests in flight on one connection.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;

/// Default limit on `subscriptions/listen` streams open at once on one connection.
pub const DEFAULT_MAX_LISTEN_STREAMS: usize = 32;

/// Default time requests in flight get to finish once the input closes or shutdown starts.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

impl Default for ConnectionConfig {
    fn default() -> Self {
        ConnectionConfig {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            grace: DEFAULT_GRACE,
            max_listen_streams: DEFAULT_MAX_LISTEN_STREAMS,
        }
    }
}

/// The settings shared by [`Connection`] and [`Stdio`](super::Stdio): methods on a type with
/// a `config: ConnectionConfig` field.
macro_rules! connection_settings {
    () => {
        /// The largest message accepted, in bytes (default 4 MiB); a longer line gets
        /// `-32600` and is discarded.
        pub fn max_message_bytes(mut self, bytes: usize) -> Self {
            self.config.max_message_bytes = bytes;
            self
        }

        /// How many requests may run at once (default 256); more get `-32000` (server busy).
        pub fn max_in_flight(mut self, requests: usize) -> Self {
            self.config.max_in_flight = requests;
            self
        }

        /// How long requests in flight may still run once the input closes or the shutdown
        /// signal fires (default 5 s); they are aborted after that.
        pub fn grace_period(mut self, grace: std::time::Duration) -> Self {
            self.config.grace = grace;
            self
        }

        /// How many `subscriptions/listen` streams may be open at once (default 32); more get
        /// `-32000` "Server busy: too many open streams; retry later". Open streams do not
        /// count against [`max_in_flight`](Self::max_in_flight), so a client holding many
        /// subscriptions still gets its calls served.
        pub fn max_listen_streams(mut self, streams: usize) -> Self {
            self.config.max_listen_streams = streams;
            self
        }
    };
}
#[cfg(feature = "stdio")]
pub(crate) use connection_settings;

/// Serves a server on a byte stream of newline-delimited JSON (a socket, a pipe, an
/// in-memory duplex) until its input closes. Made by [`connection`](super::connection);
/// await it (it is [`IntoFuture`](std::future::IntoFuture)).
///
/// Requests run concurrently: each runs as soon as it is read, in the task that reads
/// them, up to its handler's first `.await` that waits; from there it goes on in a task
/// of its own and the next message is read. So a handler that computes for long before
/// it first waits holds up the requests behind it: move such work to
/// `tokio::task::spawn_blocking`. Answers are written before the next message is read,
/// so a client must read them while it writes (as a client of a pipe must anyway).
///
/// ```
/// # async fn run(server: mcp::Server) -> std::io::Result<()> {
/// let (reader, writer) = tokio::io::split(tokio::io::empty());
/// mcp::serve::connection(server, reader, writer).max_in_flight(64).await
/// # }
/// ```
#[must_use = "a connection does nothing until awaited"]
pub struct Connection<R, W, S = std::future::Pending<()>> {
    server: Server,
    reader: R,
    writer: W,
    config: ConnectionConfig,
    shutdown: S,
}

impl<R, W, S> std::fmt::Debug for Connection<R, W, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("config", &self.config).finish_non_exhaustive()
    }
}

impl<R, W> Connection<R, W> {
    pub(crate) fn new(server: Server, reader: R, writer: W) -> Self {
        Connection { server, reader, writer, config: ConnectionConfig::default(), shutdown: std::future::pending() }
    }
}

impl<R, W, S> Connection<R, W, S> {
    connection_settings!();

    /// Stop reading when `signal` completes (SIGTERM, say), then let requests in flight
    /// finish within the grace period and write their responses.
    pub fn with_graceful_shutdown<F>(self, signal: F) -> Connection<R, W, F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        Connection {
            server: self.server,
            reader: self.reader,
            writer: self.writer,
            config: self.config,
            shutdown: signal,
        }
    }
}

impl<R, W, S> std::future::IntoFuture for Connection<R, W, S>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
    S: Future<Output = ()> + Send + 'static,
{
    type Output = std::io::Result<()>;
    type IntoFuture = Shutdown;

    fn into_future(self) -> Shutdown {
        Box::pin(run(self.server, self.reader, self.writer, self.config, self.shutdown))
    }
}

/// The refusal of a listen stream over the cap.
fn streams_busy() -> Error {
    Error {
        code: ErrorCode::SERVER_BUSY,
        message: "Server busy: too many open streams; retry later".into(),
        data: None,
    }
}

/// The error for a request whose id is already in progress.
fn duplicate_id() -> Error {
    Error {
        code: ErrorCode::INVALID_REQUEST,
        message: "Invalid Request: a request with this id is already in progress".into(),
        data: None,
    }
}

/// Poll `future` once, in the caller's task: its output if it is ready.
async fn poll_once<F: Future + ?Sized>(mut future: Pin<&mut F>) -> Option<F::Output> {
    std::future::poll_fn(|cx| {
        Poll::Ready(match future.as_mut().poll(cx) {
            Poll::Ready(output) => Some(output),
            Poll::Pending => None,
        })
    })
    .await
}

/// Serve one request: its response frame (an error frame if the handler fails or panics).
async fn answer(
    server: Server,
    session: Arc<Session>,
    request: JsonRpcRequest<Params>,
    tx: mpsc::Sender<String>,
) -> String {
    let id = request.id.clone();
    outcome_frame(&id, CatchUnwind::new(server.dispatch(&session, request, tx.into(), None)).await).0
}

/// Serve `server` on one connection until its input closes or `shutdown` completes.
pub(crate) async fn run<R, W>(
    server: Server,
    reader: R,
    writer: W,
    config: ConnectionConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // Checked before each message, but polled only once its waker fired.
    let mut shutdown = std::pin::pin!(Woken::new(shutdown));
    // Answers of requests that continue in tasks, and what handlers send on their own
    // (notifications, requests to the client), in the order they were sent.
    let (tx, mut rx) = mpsc::channel::<String>(1024);
    let mut out = Output::new(writer);
    let session = Arc::new(Session::new());
    // A stream connection (stdio, in process) is one session, from the server's view.
    if let Some(on_end) = crate::telemetry::server::session_end("pipe") {
        session.measure(on_end);
    }
    let mut tasks = JoinSet::new();
    let slots = Arc::new(Semaphore::new(config.max_in_flight));
    let listen_slots = Arc::new(Semaphore::new(config.max_listen_streams));
    let mut lines = LineReader::new(reader, config.max_message_bytes);
    let read_result = loop {
        while tasks.try_join_next().is_some() {}
        while let Ok(frame) = rx.try_recv() {
            out.push(&frame).await;
        }
        if poll_once(shutdown.as_mut()).await.is_some() {
            tracing::info!(in_flight = tasks.len(), "shutting down: no longer reading requests");
            break Ok(());
        }
        // Answers leave before the next message is read: one write each (with its
        // newline), from this task, with no other task to wake.
        out.flush().await;
        let next = {
            let mut read = std::pin::pin!(lines.next_frame());
            match poll_once(read.as_mut()).await {
                Some(next) => next,
                // Nothing to read yet: wait for a message, an answer from a task, or the end.
                None => tokio::select! {
                    next = read => next,
                    Some(frame) = rx.recv() => {
                        out.push(&frame).await;
                        continue;
                    }
                    () = &mut shutdown => {
                        tracing::info!(in_flight = tasks.len(), "shutting down: no longer reading requests");
                        break Ok(());
                    }
                },
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
                let error = Error {
                    code: ErrorCode::INVALID_REQUEST,
                    message: format!("Invalid Request: message exceeds {} bytes", config.max_message_bytes),
                    data: None,
                };
                out.push(&error_frame(None, error)).await;
                continue;
            }
            Frame::Line(line) => line,
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let max_depth = server.limits().max_json_depth;
        let decoded = match std::str::from_utf8(line) {
            Ok(text) => decode_message_with(text, max_depth),
            Err(_) => decode_message_with("\u{0}", max_depth),
        };
        match decoded {
            Err(e) => {
                tracing::debug!(code = e.code, "rejecting a malformed message");
                out.push(&error_frame(e.id.clone(), e.to_error_object())).await;
            }
            Ok(JsonRpcMessage::Request(request)) => {
                // Released before the response is queued, so a client that waits for
                // it before sending more never sees a stale count. A listen stream lasts
                // as long as the client listens: it takes a stream slot, never a request slot.
                let permit = if request.method == methods::SUBSCRIPTIONS_LISTEN {
                    let Ok(permit) = Arc::clone(&listen_slots).try_acquire_owned() else {
                        tracing::warn!(limit = config.max_listen_streams, "refusing a listen: too many open streams");
                        out.push(&error_frame(Some(request.id), streams_busy())).await;
                        continue;
                    };
                    permit
                } else {
                    let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
                        tracing::warn!(limit = config.max_in_flight, "refusing a request: too many in flight");
                        out.push(&error_frame(Some(request.id), busy())).await;
                        continue;
                    };
                    permit
                };
                let id = request.id.clone();
                if session.is_in_flight(&id) {
                    out.push(&error_frame(Some(id), duplicate_id())).await;
                    continue;
                }
                let mut work = Box::pin(answer(server.clone(), Arc::clone(&session), request, tx.clone()));
                if let Some(frame) = poll_once(work.as_mut()).await {
                    drop(permit);
                    // What the handler sent before its answer goes first.
                    while let Ok(sent) = rx.try_recv() {
                        out.push(&sent).await;
                    }
                    out.push(&frame).await;
                    continue;
                }
                let task_session = Arc::clone(&session);
                let task_tx = tx.clone();
                let task_id = id.clone();
                let started = session.start_request(&id, || {
                    tasks.spawn(async move {
                        let frame = work.await;
                        task_session.finish_request(&task_id);
                        drop(permit);
                        let _ = task_tx.send(frame).await;
                    })
                });
                if !started {
                    out.push(&error_frame(Some(id), duplicate_id())).await;
                }
            }
            Ok(JsonRpcMessage::Notification(notification)) => session.handle_notification(notification),
            Ok(JsonRpcMessage::Result(response)) => session.route_response(Some(&response.id), Ok(response.result)),
            Ok(JsonRpcMessage::Error(response)) => session.route_response(response.id.as_ref(), Err(response.error)),
        }
    };
    session.fail_pending();
    let drained = tokio::time::timeout(config.grace, async {
        loop {
            tokio::select! {
                joined = tasks.join_next() => if joined.is_none() { break },
                Some(frame) = rx.recv() => out.push(&frame).await,
            }
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!("in-flight requests did not finish after the input closed; aborting them");
    }
    session.abort_all();
    tasks.shutdown().await;
    drop(session);
    drop(tx);
    while let Some(frame) = rx.recv().await {
        out.push(&frame).await;
    }
    out.flush().await;
    out.finish()?;
    read_result
}
