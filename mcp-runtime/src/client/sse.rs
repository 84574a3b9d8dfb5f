//! Reading a `text/event-stream` body one event's `data` at a time.

use bytes::{Buf, BytesMut};
use http_body_util::BodyExt;

use super::ClientError;

/// The events of an SSE body.
pub(crate) struct Events {
    body: hyper::body::Incoming,
    buffer: BytesMut,
    limit: usize,
    done: bool,
    /// The last `id:` seen (for `Last-Event-ID` on a resume).
    pub(crate) last_id: Option<String>,
    /// The last `retry:` seen, in milliseconds.
    pub(crate) retry_ms: Option<u64>,
}

impl Events {
    pub(crate) fn new(body: hyper::body::Incoming, limit: usize) -> Self {
        Events { body, buffer: BytesMut::new(), limit, done: false, last_id: None, retry_ms: None }
    }

    fn fields(&mut self, raw: &[u8]) -> Option<String> {
        let text = String::from_utf8_lossy(raw);
        for line in text.split(['\n', '\r']) {
            if let Some(id) = line.strip_prefix("id:") {
                self.last_id = Some(id.strip_prefix(' ').unwrap_or(id).to_owned());
            } else if let Some(retry) = line.strip_prefix("retry:")
                && let Ok(ms) = retry.trim().parse()
            {
                self.retry_ms = Some(ms);
            }
        }
        event_data(raw)
    }

    /// The next event's data (its `data:` lines joined by newlines); `None` at the end.
    /// Comments, keep-alives and events without data are skipped.
    pub(crate) async fn next(&mut self) -> Result<Option<String>, ClientError> {
        loop {
            if let Some(end) = find_event_end(&self.buffer) {
                let raw = self.buffer.split_to(end.0);
                self.buffer.advance(end.1);
                if let Some(data) = self.fields(&raw) {
                    return Ok(Some(data));
                }
                continue;
            }
            if self.done {
                let rest = std::mem::take(&mut self.buffer);
                return Ok(self.fields(&rest));
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                        if self.buffer.len() > self.limit {
                            return Err(ClientError::Transport("an event on the response stream is too large".into()));
                        }
                    }
                }
                Some(Err(e)) => return Err(ClientError::Transport(e.to_string())),
                None => self.done = true,
            }
        }
    }
}

/// Where the first event ends: (length of the event, length of the blank-line separator).
fn find_event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < buffer.len() {
        for sep in [&b"\r\n\r\n"[..], b"\n\n", b"\r\r"] {
            if buffer[i..].starts_with(sep) {
                return Some((i, sep.len()));
            }
        }
        i += 1;
    }
    None
}

fn event_data(raw: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(raw);
    let mut data: Option<String> = None;
    for line in text.split(['\n', '\r']) {
        let Some(rest) = line.strip_prefix("data") else { continue };
        let value = rest.strip_prefix(':').map(|v| v.strip_prefix(' ').unwrap_or(v));
        if let Some(value) = value.or((rest.is_empty()).then_some("")) {
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    data.filter(|d| !d.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{event_data, find_event_end};

    #[test]
    fn splits_events_and_joins_data_lines() {
        let stream = b": keep-alive\n\nevent: message\ndata: {\"a\":\ndata: 1}\n\ndata: x";
        let (end, sep) = find_event_end(stream).unwrap_or_default();
        assert_eq!(event_data(&stream[..end]), None);
        let rest = &stream[end + sep..];
        let (end, _) = find_event_end(rest).unwrap_or_default();
        assert_eq!(event_data(&rest[..end]).as_deref(), Some("{\"a\":\n1}"));
        assert_eq!(find_event_end(b"data: x"), None);
        assert_eq!(event_data(b"data:x\r\nid: 3").as_deref(), Some("x"));
    }
}
