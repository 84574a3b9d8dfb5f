//! stdio: the client spawns the server and talks newline-delimited JSON on its
//! stdin and stdout. The server exits when stdin closes.
//!
//! When stdin and stdout are pipes (the usual case: a client spawned the server), they are
//! read and written as non-blocking pipes on the runtime's own event loop. Otherwise (a
//! terminal, a file) tokio's standard streams are used, which hand each read and write to a
//! blocking thread: correct, but several times more CPU per message.

use std::io;

use crate::Server;
use crate::server::ConnectionConfig;

impl Server {
    /// Serve this process's stdin and stdout until stdin closes.
    ///
    /// Logs must go to stderr: stdout carries only MCP messages.
    pub async fn serve_stdio(&self) -> io::Result<()> {
        self.serve_stdio_until(std::future::pending(), ConnectionConfig::default()).await
    }

    /// Serve stdin and stdout until stdin closes or `shutdown` resolves (SIGTERM, say); then
    /// stop reading and give requests in flight `config.shutdown_grace` to finish.
    pub async fn serve_stdio_until(
        &self,
        shutdown: impl Future<Output = ()> + Send,
        config: ConnectionConfig,
    ) -> io::Result<()> {
        #[cfg(unix)]
        if let Some((reader, writer)) = pipes() {
            return self.serve_connection_until(reader, writer, config, shutdown).await;
        }
        self.serve_connection_until(tokio::io::stdin(), tokio::io::stdout(), config, shutdown).await
    }
}

/// stdin and stdout as non-blocking pipes, when both are pipes.
#[cfg(unix)]
fn pipes() -> Option<(tokio::net::unix::pipe::Receiver, tokio::net::unix::pipe::Sender)> {
    use std::os::fd::AsFd;
    let input = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let reader = tokio::net::unix::pipe::Receiver::from_file(std::fs::File::from(input)).ok()?;
    let writer = tokio::net::unix::pipe::Sender::from_file(std::fs::File::from(output)).ok()?;
    Some((reader, writer))
}
