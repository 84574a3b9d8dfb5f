//! The open requests of one HTTP/2 connection, so that the accept loop can close it once it
//! has been idle (no request open) for the header-read timeout. HTTP/1 gets this from
//! hyper's header-read timeout; hyper has none for HTTP/2, and its keep-alive pings keep a
//! silent but responsive peer connected forever.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http_body::{Body, Frame, SizeHint};
use tokio::sync::watch;

use super::HttpBody;

/// What the connection has served so far.
#[derive(Clone, Copy, Default)]
pub(super) struct Streams {
    /// Requests whose response has not finished (or been dropped).
    pub(super) open: usize,
    /// Whether any request arrived (an HTTP/2 client that sent none may not even have
    /// sent its preface).
    pub(super) any: bool,
}

/// Counts one connection's open requests; cloned into each request's service.
#[derive(Clone)]
pub(super) struct OpenStreams(Arc<watch::Sender<Streams>>);

impl OpenStreams {
    #[cfg(feature = "tls")]
    pub(super) fn new() -> Self {
        OpenStreams(Arc::new(watch::Sender::new(Streams::default())))
    }

    /// A request started: it stays open until the returned guard drops (it rides in the
    /// response body, so a streamed response counts until it ends).
    pub(super) fn start(&self) -> OpenStream {
        self.0.send_modify(|s| {
            s.open += 1;
            s.any = true;
        });
        OpenStream(self.0.clone())
    }

    /// Resolves once no request has been open for `idle` in a row; returns what was served.
    #[cfg(feature = "tls")]
    pub(super) async fn idle_for(&self, idle: std::time::Duration) -> Streams {
        let mut streams = self.0.subscribe();
        loop {
            // The sender lives in `self`, so these waits never see it closed.
            let _ = streams.wait_for(|s| s.open == 0).await;
            let busy = tokio::time::timeout(idle, async { drop(streams.wait_for(|s| s.open > 0).await) }).await;
            if busy.is_err() {
                return *streams.borrow();
            }
        }
    }
}

/// One open request; closes it when dropped.
pub(super) struct OpenStream(Arc<watch::Sender<Streams>>);

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.send_modify(|s| s.open = s.open.saturating_sub(1));
    }
}

/// A response body that keeps its request counted as open until it is done or dropped.
pub(super) struct TrackedBody {
    body: HttpBody,
    open: Option<OpenStream>,
}

impl TrackedBody {
    pub(super) fn new(body: HttpBody, open: Option<OpenStream>) -> Self {
        TrackedBody { body, open }
    }
}

impl Body for TrackedBody {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let frame = Pin::new(&mut this.body).poll_frame(cx);
        if let Poll::Ready(None) = frame {
            this.open = None;
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
