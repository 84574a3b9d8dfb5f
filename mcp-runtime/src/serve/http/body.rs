//! The response body: a whole JSON document, nothing, or a server-sent event stream.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::Frame;
use tokio::sync::mpsc;

/// One item on an SSE stream.
#[derive(Debug)]
pub(crate) enum Event {
    /// A JSON-RPC message (notification, server request, or the final response).
    Message(String),
    /// The final response, with its JSON-RPC error code if it is an error; the stream ends
    /// after it.
    Last(String, Option<i32>),
}

/// The body of every response this transport sends.
pub struct HttpBody {
    kind: Kind,
}

enum Kind {
    Full(Option<Bytes>),
    Sse(SseStream),
}

struct SseStream {
    first: Option<Bytes>,
    events: mpsc::Receiver<Event>,
    keep_alive: tokio::time::Interval,
    done: bool,
}

impl std::fmt::Debug for HttpBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Full(b) => f.debug_tuple("HttpBody::Full").field(&b.as_ref().map(Bytes::len)).finish(),
            Kind::Sse(_) => f.write_str("HttpBody::Sse"),
        }
    }
}

fn sse_frame(data: &str) -> Bytes {
    let mut out = String::with_capacity(data.len() + 24);
    out.push_str("event: message\ndata: ");
    out.push_str(data);
    out.push_str("\n\n");
    Bytes::from(out)
}

impl HttpBody {
    /// A body holding `bytes`.
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        HttpBody { kind: Kind::Full(Some(bytes.into())) }
    }

    /// An empty body.
    pub fn empty() -> Self {
        HttpBody { kind: Kind::Full(None) }
    }

    /// An SSE stream that starts with `first` (if any), then relays `events`, with a
    /// comment every `keep_alive` so proxies keep the connection open.
    pub(crate) fn sse(first: Option<Event>, events: mpsc::Receiver<Event>, keep_alive: Duration) -> Self {
        let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let (first, done) = match first {
            Some(Event::Message(m)) => (Some(sse_frame(&m)), false),
            Some(Event::Last(m, _)) => (Some(sse_frame(&m)), true),
            None => (None, false),
        };
        HttpBody { kind: Kind::Sse(SseStream { first, events, keep_alive: interval, done }) }
    }
}

impl http_body::Body for HttpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().kind {
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Sse(stream) => {
                if let Some(first) = stream.first.take() {
                    return Poll::Ready(Some(Ok(Frame::data(first))));
                }
                if stream.done {
                    return Poll::Ready(None);
                }
                match stream.events.poll_recv(cx) {
                    Poll::Ready(Some(Event::Message(m))) => return Poll::Ready(Some(Ok(Frame::data(sse_frame(&m))))),
                    Poll::Ready(Some(Event::Last(m, _))) => {
                        stream.done = true;
                        return Poll::Ready(Some(Ok(Frame::data(sse_frame(&m)))));
                    }
                    Poll::Ready(None) => return Poll::Ready(None),
                    Poll::Pending => {}
                }
                match stream.keep_alive.poll_tick(cx) {
                    Poll::Ready(_) => Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b":\n\n"))))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.kind, Kind::Full(None))
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match &self.kind {
            Kind::Full(Some(b)) => http_body::SizeHint::with_exact(b.len() as u64),
            Kind::Full(None) => http_body::SizeHint::with_exact(0),
            Kind::Sse(_) => http_body::SizeHint::default(),
        }
    }
}
