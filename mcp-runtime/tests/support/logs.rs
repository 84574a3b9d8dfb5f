//! Capturing what the code under test logs through `tracing`.

use std::sync::{Arc, Mutex};

/// A log sink: everything written to it, as bytes. Clones share the buffer.
#[derive(Clone, Default)]
pub struct Logs(pub Arc<Mutex<Vec<u8>>>);

/// The writer [`Logs`] hands to `tracing_subscriber`.
pub struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Logs {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> LogWriter {
        LogWriter(Arc::clone(&self.0))
    }
}

impl Logs {
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn since(&self, from: usize) -> String {
        let bytes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(bytes.get(from..).unwrap_or_default()).into_owned()
    }

    /// A WARN line logged after byte `from` (the server logs before it answers).
    #[track_caller]
    pub fn assert_warned(&self, from: usize, what: &str) -> String {
        let tail = self.since(from);
        let line = tail.lines().find(|line| line.contains("WARN"));
        line.unwrap_or_else(|| panic!("{what}: no WARN was logged; the logs say:\n{tail}")).to_owned()
    }

    /// None of `secrets` was logged, and no panic.
    #[track_caller]
    pub fn assert_clean(&self, secrets: &[&str]) {
        let all = self.since(0);
        for secret in secrets {
            let shown: String = secret.chars().take(80).collect();
            assert!(!all.contains(secret), "the logs show the secret {shown:?}:\n{all}");
        }
        assert!(!all.contains("panicked"), "a panic was logged:\n{all}");
    }
}

/// Send every event of this thread (so: of a test's single-threaded server) at DEBUG and
/// above to the returned [`Logs`] while the guard lives.
pub fn capture_logs() -> (Logs, tracing::subscriber::DefaultGuard) {
    let logs = Logs::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(logs.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    (logs, tracing::subscriber::set_default(subscriber))
}
