//! An incremental parser for `text/event-stream` bodies (server-sent events).
//!
//! [`Parser`] takes the body in whatever chunks the connection delivers
//! ([`feed`](Parser::feed)) and hands back each complete [`Event`]
//! ([`next_event`](Parser::next_event)). It does no I/O, so the same parser serves an async
//! HTTP client, a test harness and a load generator.
//!
//! It follows the event-stream interpretation rules of the HTML standard:
//!
//! - lines end in CRLF, LF or CR, and a CRLF split across two chunks is still one line end;
//! - a blank line ends an event; an event is dispatched only if it had a `data` field;
//! - `data:` lines are joined with `\n`; one space after the colon is removed;
//! - `event:` names the event (`"message"` when absent); `id:` sets the last event id, which
//!   stays in effect for later events until another `id:` changes it (an id containing NUL
//!   is ignored); `retry:` with only ASCII digits sets the reconnection time;
//! - lines starting with `:` are comments (keep-alives); unknown fields are ignored;
//! - a UTF-8 byte order mark at the very start is skipped, and invalid UTF-8 is replaced
//!   with U+FFFD.
//!
//! One deliberate leniency: the standard drops an event the stream ends in the middle of;
//! [`finish`](Parser::finish) returns it instead, for servers that close the stream right
//! after the last `data:` line.
//!
//! The parser is bounded: the bytes it holds for one event (the unfinished line plus the
//! data gathered so far) may not exceed the limit given to [`Parser::new`]. Going over it
//! is reported as [`EventTooLarge`], and the parser refuses further input.
//!
//! Its work is linear in the input, however the body is split: each byte is scanned for a
//! line end once and copied at most twice (into the held line, then into the event), and
//! an event id is shared by the events it applies to rather than copied for each.
//!
//! ```
//! use mcp::wire::sse::Parser;
//!
//! let mut parser = Parser::new(64 * 1024);
//! parser.feed(b": keep-alive\n\nid: 7\ndata: {\"a\":").unwrap();
//! assert!(parser.next_event().is_none()); // the event is not complete yet
//! parser.feed(b"\ndata: 1}\n\n").unwrap();
//! let event = parser.next_event().unwrap();
//! assert_eq!(event.data, "{\"a\":\n1}");
//! assert_eq!(event.event, "message");
//! assert_eq!(event.id.as_deref(), Some("7"));
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Event {
    /// The event type: the last `event:` field, or `"message"` when there was none.
    pub event: String,
    /// The `data:` lines, joined with `\n` (empty for a lone `data:` line).
    pub data: String,
    /// The last event id in effect when the event was dispatched (set by this event's
    /// `id:` field or an earlier one's). Shared, not copied, by the events it applies to,
    /// so a long id costs its length once, not once per event.
    pub id: Option<Arc<str>>,
}

/// An event (or a single line) grew past the parser's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventTooLarge {
    /// The limit that was exceeded, in bytes.
    pub limit: usize,
}

impl fmt::Display for EventTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an event on the stream is larger than {} bytes", self.limit)
    }
}

impl std::error::Error for EventTooLarge {}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The incremental event-stream parser (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct Parser {
    limit: usize,
    /// The unfinished line carried over from the previous chunk.
    line: Vec<u8>,
    /// The last byte fed was a CR: an LF right after it belongs to the same line end.
    after_cr: bool,
    /// Bytes at the very start still being checked for a byte order mark.
    at_start: bool,
    /// The current event's `data` lines, joined.
    data: String,
    /// Whether the current event has had a `data` field.
    has_data: bool,
    /// The current event's `event` field.
    event: Option<String>,
    /// The id set by the latest `id:` line.
    id_buffer: Option<Arc<str>>,
    /// The id as of the last event boundary.
    last_id: Option<Arc<str>>,
    retry_ms: Option<u64>,
    ready: VecDeque<Event>,
    failed: bool,
    /// Bytes examined or copied so far: the tests check that it grows linearly with input.
    #[cfg(test)]
    work: usize,
}

impl Parser {
    /// A parser that holds at most `max_event_bytes` bytes for one event.
    pub fn new(max_event_bytes: usize) -> Parser {
        Parser {
            limit: max_event_bytes,
            line: Vec::new(),
            after_cr: false,
            at_start: true,
            data: String::new(),
            has_data: false,
            event: None,
            id_buffer: None,
            last_id: None,
            retry_ms: None,
            ready: VecDeque::new(),
            failed: false,
            #[cfg(test)]
            work: 0,
        }
    }

    /// Parse the next chunk of the body. Complete events are queued for
    /// [`next_event`](Self::next_event). Once an error has been returned, every later call
    /// returns it again.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<(), EventTooLarge> {
        if self.failed {
            return Err(self.too_large());
        }
        if self.at_start {
            chunk = self.skip_bom(chunk);
        }
        while !chunk.is_empty() {
            if std::mem::take(&mut self.after_cr) && chunk[0] == b'\n' {
                chunk = &chunk[1..];
                continue;
            }
            let Some(at) = memchr::memchr2(b'\n', b'\r', chunk) else {
                self.cost(2 * chunk.len()); // scanned, then copied
                self.line.extend_from_slice(chunk);
                return self.check(0);
            };
            self.cost(at + 1);
            self.after_cr = chunk[at] == b'\r';
            if self.line.is_empty() {
                self.check(at)?;
                self.take_line(&chunk[..at])?;
            } else {
                self.cost(at);
                self.line.extend_from_slice(&chunk[..at]);
                self.check(0)?;
                let line = std::mem::take(&mut self.line);
                let taken = self.take_line(&line);
                self.line = line;
                self.line.clear();
                taken?;
            }
            chunk = &chunk[at + 1..];
        }
        Ok(())
    }

    /// The next complete event, in stream order.
    pub fn next_event(&mut self) -> Option<Event> {
        self.ready.pop_front()
    }

    /// The end of the body: an unfinished last line is taken as complete, and an event
    /// without its closing blank line is dispatched (see the [module docs](self)). Returns
    /// the next queued event, like [`next_event`](Self::next_event).
    pub fn finish(&mut self) -> Option<Event> {
        if !self.failed {
            let line = std::mem::take(&mut self.line);
            if line.is_empty() || self.take_line(&line).is_ok() {
                self.dispatch();
            }
            self.after_cr = false;
            self.at_start = false;
        }
        self.next_event()
    }

    /// The last event id as of the latest event boundary (what a client sends as
    /// `Last-Event-ID` when it reconnects), whether or not that event had data.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The reconnection time the server asked for with `retry:`, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Count `bytes` examined or copied (in tests only).
    #[inline]
    fn cost(&mut self, _bytes: usize) {
        #[cfg(test)]
        {
            self.work += _bytes;
        }
    }

    fn too_large(&self) -> EventTooLarge {
        EventTooLarge { limit: self.limit }
    }

    /// Fail when the held bytes plus `more` exceed the limit.
    fn check(&mut self, more: usize) -> Result<(), EventTooLarge> {
        if self.line.len() + self.data.len() + more > self.limit {
            self.failed = true;
            self.line = Vec::new();
            self.data = String::new();
            return Err(self.too_large());
        }
        Ok(())
    }

    /// Drop a byte order mark at the start of the stream, however it is split.
    fn skip_bom<'a>(&mut self, chunk: &'a [u8]) -> &'a [u8] {
        let seen = self.line.len();
        let wanted = &BOM[seen..];
        let n = wanted.len().min(chunk.len());
        if chunk[..n] != wanted[..n] {
            // Not a BOM: whatever was held back is ordinary text.
            self.at_start = false;
            return chunk;
        }
        if n == wanted.len() {
            self.at_start = false;
            self.line.clear();
        } else {
            self.line.extend_from_slice(&chunk[..n]);
        }
        &chunk[n..]
    }

    /// Interpret one complete line (without its line end).
    fn take_line(&mut self, line: &[u8]) -> Result<(), EventTooLarge> {
        if line.is_empty() {
            self.dispatch();
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        self.cost(line.len()); // the search for the colon, then at most one copy of the value
        self.cost(line.len());
        let (field, value) = match memchr::memchr(b':', line) {
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&String::from_utf8_lossy(value));
                self.has_data = true;
                self.check(0)?;
            }
            b"event" => self.event = Some(String::from_utf8_lossy(value).into_owned()),
            b"id" if !value.contains(&0) => self.id_buffer = Some(String::from_utf8_lossy(value).into()),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Ok(ms) = std::str::from_utf8(value).unwrap_or_default().parse() {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The blank line: commit the id, and queue the event when it had data.
    fn dispatch(&mut self) {
        self.last_id.clone_from(&self.id_buffer);
        let event = self.event.take();
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        self.ready.push_back(Event {
            event: event.unwrap_or_else(|| "message".to_owned()),
            data: std::mem::take(&mut self.data),
            id: self.last_id.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{Event, EventTooLarge, Parser};

    /// Every event of `chunks` fed one after the other, then finished.
    fn parse(chunks: &[&[u8]]) -> Vec<Event> {
        let mut parser = Parser::new(1024);
        let mut events = Vec::new();
        for chunk in chunks {
            assert_eq!(parser.feed(chunk), Ok(()));
            events.extend(std::iter::from_fn(|| parser.next_event()));
        }
        events.extend(std::iter::from_fn(|| parser.finish()));
        events
    }

    fn data(events: &[Event]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    #[test]
    fn joins_multi_line_data_and_strips_one_space() {
        let events = parse(&[b"data: {\"a\":\ndata:1}\ndata:  two spaces\n\n"]);
        assert_eq!(data(&events), ["{\"a\":\n1}\n two spaces"]);
        assert_eq!(events[0].event, "message");
        assert_eq!(events[0].id, None);
    }

    #[test]
    fn splits_events_and_joins_data_lines() {
        let stream = b": keep-alive\n\nevent: message\ndata: {\"a\":\ndata: 1}\n\ndata: x";
        let mut parser = Parser::new(1024);
        assert_eq!(parser.feed(stream), Ok(()));
        assert_eq!(parser.next_event().map(|e| e.data).as_deref(), Some("{\"a\":\n1}"));
        assert_eq!(parser.next_event(), None, "`data: x` has no blank line after it yet");
        assert_eq!(parser.finish().map(|e| e.data).as_deref(), Some("x"));
        assert_eq!(data(&parse(&[b"data:x\r\nid: 3"])), ["x"]);
    }

    #[test]
    fn accepts_crlf_cr_and_lf_line_ends() {
        for stream in [
            &b"data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"[..],
            b"data: a\rdata: b\r\rdata: c\r\r",
            b"data: a\ndata: b\n\ndata: c\n\n",
        ] {
            assert_eq!(data(&parse(&[stream])), ["a\nb", "c"], "{:?}", String::from_utf8_lossy(stream));
        }
        // Mixed in one stream.
        assert_eq!(data(&parse(&[b"data: a\r\n\ndata: b\r\r\ndata: c\n\r"])), ["a", "b", "c"]);
    }

    #[test]
    fn a_crlf_split_between_chunks_is_one_line_end() {
        let events = parse(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
        assert_eq!(data(&events), ["a\nb"]);
    }

    #[test]
    fn skips_comments_keep_alives_and_events_without_data() {
        let events = parse(&[b":\n\n: keep-alive\n\nevent: ping\n\nid: 4\n\nretry: 250\n\ndata: x\n\n"]);
        assert_eq!(data(&events), ["x"]);
        assert_eq!(events[0].id.as_deref(), Some("4"));
    }

    #[test]
    fn chunk_boundaries_anywhere_give_the_same_events() {
        let stream: &[u8] = b"\xEF\xBB\xBFevent: note\r\ndata: h\xC3\xA9llo\r\nid: 9\r\n\r\n: c\ndata\n\ndata: last";
        let whole = parse(&[stream]);
        assert_eq!(data(&whole), ["h\u{e9}llo", "", "last"]);
        assert_eq!(whole[0].event, "note");
        assert_eq!(whole[1].event, "message");
        assert_eq!(whole[2].id.as_deref(), Some("9"));
        for at in 0..=stream.len() {
            assert_eq!(parse(&[&stream[..at], &stream[at..]]), whole, "split at {at}");
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(parse(&bytes), whole);
    }

    #[test]
    fn ids_persist_and_commit_at_the_event_boundary() {
        let mut parser = Parser::new(1024);
        assert_eq!(parser.feed(b"id: 1\ndata: a\n\ndata: b\n\nid: 2\n"), Ok(()));
        let ids: Vec<_> =
            std::iter::from_fn(|| parser.next_event()).map(|e| e.id.as_deref().map(str::to_owned)).collect();
        assert_eq!(ids, [Some("1".to_owned()), Some("1".to_owned())]);
        assert_eq!(parser.last_event_id(), Some("1"), "id 2 is not committed before its blank line");
        assert_eq!(parser.feed(b"\n"), Ok(()));
        assert_eq!(parser.last_event_id(), Some("2"), "an event without data still commits its id");
        assert_eq!(parser.feed(b"id: n\0ul\n\n"), Ok(()));
        assert_eq!(parser.last_event_id(), Some("2"), "an id with NUL is ignored");
    }

    #[test]
    fn retry_takes_digits_only() {
        let mut parser = Parser::new(1024);
        assert_eq!(parser.feed(b"retry: 1500\n\nretry: soon\n\nretry: 12x\n\n"), Ok(()));
        assert_eq!(parser.retry_ms(), Some(1500));
    }

    #[test]
    fn finish_takes_an_unterminated_last_event() {
        assert_eq!(data(&parse(&[b"data: x\n\ndata: y"])), ["x", "y"]);
        assert_eq!(data(&parse(&[b"data: x\n\ndata: y\n"])), ["x", "y"]);
        assert_eq!(data(&parse(&[b"data: x\n\n: only a comment"])), ["x"]);
    }

    #[test]
    fn an_event_over_the_limit_is_an_error_and_stays_one() {
        let mut parser = Parser::new(16);
        assert_eq!(parser.feed(b"data: 0123456789\n\n"), Ok(()));
        assert_eq!(parser.next_event().map(|e| e.data), Some("0123456789".to_owned()));
        // Many data lines, each small.
        assert_eq!(parser.feed(b"data: 01234567\n"), Ok(()));
        assert_eq!(parser.feed(b"data: 01234567\n"), Err(EventTooLarge { limit: 16 }));
        assert_eq!(parser.feed(b"\n"), Err(EventTooLarge { limit: 16 }));
        assert_eq!(parser.finish(), None);

        // One line that never ends, fed a byte at a time: refused once it passes the limit.
        let mut parser = Parser::new(16);
        let fed = (0..100).take_while(|_| parser.feed(b"x").is_ok()).count();
        assert_eq!(fed, 16);
        assert_eq!(EventTooLarge { limit: 16 }.to_string(), "an event on the stream is larger than 16 bytes");
    }

    /// Feed `stream` in `chunk`-byte pieces, and return the events and the parser's work.
    fn work(stream: &[u8], chunk: usize, limit: usize) -> (Vec<Event>, usize) {
        let mut parser = Parser::new(limit);
        let mut events = Vec::new();
        for piece in stream.chunks(chunk) {
            assert_eq!(parser.feed(piece), Ok(()));
            events.extend(std::iter::from_fn(|| parser.next_event()));
        }
        (events, parser.work)
    }

    #[test]
    fn one_large_event_in_small_chunks_costs_linear_work() {
        let payload = "x".repeat(16 << 20);
        // One data line, and the same bytes as many short data lines.
        let single = format!("data: {payload}\n\n");
        let lines = format!(
            "{}\n",
            payload
                .as_bytes()
                .chunks(100)
                .map(|l| format!("data:{}\n", String::from_utf8_lossy(l)))
                .collect::<String>()
        );
        for stream in [single, lines] {
            let (events, work) = work(stream.as_bytes(), 61, 32 << 20);
            assert_eq!(events.len(), 1);
            assert_eq!(events[0].data.replace('\n', "").len(), payload.len());
            assert!(work <= 4 * stream.len(), "{work} bytes of work for {} bytes of stream", stream.len());
        }
    }

    #[test]
    fn a_long_id_is_not_copied_again_for_every_event() {
        let mut stream = format!("id: {}\n\n", "i".repeat(64 << 10));
        for _ in 0..10_000 {
            stream.push_str("data:x\n\n\n");
        }
        let (events, work) = work(stream.as_bytes(), 61, 1 << 20);
        assert_eq!(events.len(), 10_000);
        assert!(events.iter().all(|e| e.id.as_deref().map(str::len) == Some(64 << 10)));
        assert!(work <= 4 * stream.len(), "{work} bytes of work for {} bytes of stream", stream.len());
    }

    #[test]
    fn many_small_events_in_one_chunk_are_not_over_the_limit() {
        let mut parser = Parser::new(16);
        let chunk = b"data: 0123456789\n\n".repeat(100);
        assert_eq!(parser.feed(&chunk), Ok(()));
        assert_eq!(std::iter::from_fn(|| parser.next_event()).count(), 100);
    }
}
