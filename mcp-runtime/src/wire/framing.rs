//! Newline-delimited JSON framing (stdio and any byte stream), with a size limit.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// Default largest message accepted on a byte stream: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// One frame read from the stream.
#[derive(Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Frame<'a> {
    /// A line, without its newline (or carriage return).
    Line(&'a [u8]),
    /// A line longer than the limit; it was read and discarded.
    TooLong,
    /// The stream ended.
    Eof,
}

/// Reads newline-delimited frames, never buffering more than the limit.
pub struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader that rejects lines longer than `max` bytes.
    pub fn new(reader: R, max: usize) -> Self {
        LineReader { inner: BufReader::with_capacity(64 * 1024, reader), max, buf: Vec::new() }
    }

    /// Read the next frame.
    pub async fn next_frame(&mut self) -> std::io::Result<Frame<'_>> {
        self.buf.clear();
        let mut overflow = false;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                if overflow {
                    return Ok(Frame::TooLong);
                }
                if self.buf.is_empty() {
                    return Ok(Frame::Eof);
                }
                break;
            }
            // memchr: a byte-at-a-time search cost about three instructions a byte.
            let (chunk, found) = match memchr::memchr(b'\n', available) {
                Some(pos) => (&available[..pos], Some(pos + 1)),
                None => (available, None),
            };
            if !overflow {
                if self.buf.len() + chunk.len() > self.max {
                    overflow = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let consumed = found.unwrap_or(available.len());
            self.inner.consume(consumed);
            if found.is_some() {
                if overflow {
                    return Ok(Frame::TooLong);
                }
                break;
            }
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        Ok(Frame::Line(&self.buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn splits_lines_and_enforces_the_limit() {
        let data: &[u8] = b"{\"a\":1}\r\n0123456789ABCDEF\n\nlast";
        let mut reader = LineReader::new(data, 10);
        assert_eq!(reader.next_frame().await.ok(), Some(Frame::Line(b"{\"a\":1}")));
        assert_eq!(reader.next_frame().await.ok(), Some(Frame::TooLong));
        assert_eq!(reader.next_frame().await.ok(), Some(Frame::Line(b"")));
        assert_eq!(reader.next_frame().await.ok(), Some(Frame::Line(b"last")));
        assert_eq!(reader.next_frame().await.ok(), Some(Frame::Eof));
    }

    #[tokio::test]
    async fn a_long_line_split_across_reads_is_discarded_whole() {
        let long = format!("{}\n{{}}\n", "x".repeat(200_000));
        let mut reader = LineReader::new(long.as_bytes(), 1000);
        assert_eq!(reader.next_frame().await.ok(), Some(Frame::TooLong));
        assert_eq!(reader.next_frame().await.ok(), Some(Frame::Line(b"{}")));
    }
}
