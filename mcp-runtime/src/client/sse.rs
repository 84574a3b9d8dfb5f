//! Reading a `text/event-stream` response body one event's `data` at a time, with the
//! shared [`wire::sse`](crate::wire::sse) parser.

use http_body_util::BodyExt;

use super::ClientError;
use crate::wire::sse::Parser;

/// The events of an SSE body.
pub(crate) struct Events {
    body: hyper::body::Incoming,
    parser: Parser,
    done: bool,
}

impl Events {
    /// The events of `body`; one event may hold at most `limit` bytes.
    pub(crate) fn new(body: hyper::body::Incoming, limit: usize) -> Self {
        Events { body, parser: Parser::new(limit), done: false }
    }

    /// The last event id committed on the stream (for `Last-Event-ID` on a resume).
    ///
    /// Read from the parser on demand: copying it after every body frame would cost a
    /// server-chosen id's length per frame.
    pub(crate) fn last_id(&self) -> Option<String> {
        self.parser.last_event_id().map(str::to_owned)
    }

    /// The last `retry:` seen, in milliseconds.
    pub(crate) fn retry_ms(&self) -> Option<u64> {
        self.parser.retry_ms()
    }

    /// The next event's data (its `data:` lines joined by newlines); `None` at the end.
    /// Comments, keep-alives and events without data are skipped.
    pub(crate) async fn next(&mut self) -> Result<Option<String>, ClientError> {
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
                        self.parser
                            .feed(&data)
                            .map_err(|_| ClientError::transport("an event on the response stream is too large"))?;
                    }
                }
                Some(Err(e)) => return Err(ClientError::transport_source("reading the response stream failed", e)),
                None => self.done = true,
            }
        }
    }
}
