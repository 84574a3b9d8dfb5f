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
    /// The last `id:` seen (for `Last-Event-ID` on a resume).
    pub(crate) last_id: Option<String>,
    /// The last `retry:` seen, in milliseconds.
    pub(crate) retry_ms: Option<u64>,
}

impl Events {
    /// The events of `body`; one event may hold at most `limit` bytes.
    pub(crate) fn new(body: hyper::body::Incoming, limit: usize) -> Self {
        Events { body, parser: Parser::new(limit), done: false, last_id: None, retry_ms: None }
    }

    /// The next event's data (its `data:` lines joined by newlines); `None` at the end.
    /// Comments, keep-alives and events without data are skipped.
    pub(crate) async fn next(&mut self) -> Result<Option<String>, ClientError> {
        loop {
            let event = if self.done { self.parser.finish() } else { self.parser.next_event() };
            self.last_id = self.parser.last_event_id().map(str::to_owned).or(self.last_id.take());
            self.retry_ms = self.parser.retry_ms().or(self.retry_ms);
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
