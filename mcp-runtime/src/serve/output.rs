//! A connection's output: answer frames, each with its newline, gathered in a buffer and
//! written out by the task that reads the connection before it reads the next message.

use std::io;

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};

/// Newline-delimited frames on their way out. After a failed write the rest are dropped
/// (the peer is gone, or the stream broken), and the error is reported when serving ends.
pub(crate) struct Output<W> {
    writer: BufWriter<W>,
    failed: Option<io::Error>,
}

impl<W: AsyncWrite + Unpin> Output<W> {
    pub(crate) fn new(writer: W) -> Self {
        Output { writer: BufWriter::new(writer), failed: None }
    }

    /// Add a frame and its newline; they are written when the buffer fills or on
    /// [`flush`](Self::flush), in one write with whatever else is gathered.
    pub(crate) async fn push(&mut self, frame: &str) {
        if self.failed.is_some() {
            return;
        }
        let written = match self.writer.write_all(frame.as_bytes()).await {
            Ok(()) => self.writer.write_all(b"\n").await,
            Err(e) => Err(e),
        };
        self.failed = written.err();
    }

    /// Write out everything gathered.
    pub(crate) async fn flush(&mut self) {
        if self.failed.is_none() {
            self.failed = self.writer.flush().await.err();
        }
    }

    /// How writing went: a peer that stopped reading (a broken pipe) is no error.
    pub(crate) fn finish(self) -> io::Result<()> {
        match self.failed {
            Some(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e),
            _ => Ok(()),
        }
    }
}
