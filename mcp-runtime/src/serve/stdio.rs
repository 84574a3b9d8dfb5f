//! stdio: the client spawns the server and talks newline-delimited JSON on its
//! stdin and stdout. The server exits when stdin closes.
//!
//! When stdin and stdout are pipes (the usual case: a client spawned the server), they are
//! read and written as non-blocking pipes on the runtime's own event loop. Otherwise (a
//! terminal, a file) tokio's standard streams are used, which hand each read and write to a
//! blocking thread: correct, but several times more CPU per message.

use std::io;

use super::Shutdown;
use super::connection::{ConnectionConfig, connection_settings, run};
use crate::Server;

/// Serves a server on this process's stdin and stdout until stdin closes. Made by
/// [`stdio`](super::stdio); await it. Logs must go to stderr: stdout carries only MCP
/// messages.
///
/// ```no_run
/// # async fn run(server: mcp::Server) -> std::io::Result<()> {
/// let sigterm = async { let _ = tokio::signal::ctrl_c().await; };
/// mcp::serve::stdio(server).with_graceful_shutdown(sigterm).await
/// # }
/// ```
#[must_use = "stdio serving does nothing until awaited"]
pub struct Stdio<S = std::future::Pending<()>> {
    server: Server,
    config: ConnectionConfig,
    shutdown: S,
}

impl<S> std::fmt::Debug for Stdio<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stdio").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Stdio {
    pub(crate) fn new(server: Server) -> Self {
        Stdio { server, config: ConnectionConfig::default(), shutdown: std::future::pending() }
    }
}

impl<S> Stdio<S> {
    connection_settings!();

    /// Stop reading when `signal` completes (SIGTERM, say), then let requests in flight
    /// finish within the grace period.
    pub fn with_graceful_shutdown<F>(self, signal: F) -> Stdio<F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        Stdio { server: self.server, config: self.config, shutdown: signal }
    }
}

impl<S> std::future::IntoFuture for Stdio<S>
where
    S: Future<Output = ()> + Send + 'static,
{
    type Output = io::Result<()>;
    type IntoFuture = Shutdown;

    fn into_future(self) -> Shutdown {
        let Stdio { server, config, shutdown } = self;
        Box::pin(async move {
            #[cfg(unix)]
            if let Some((reader, writer)) = pipes() {
                return run(server, reader, writer, config, shutdown).await;
            }
            run(server, tokio::io::stdin(), tokio::io::stdout(), config, shutdown).await
        })
    }
}

/// stdin and stdout as non-blocking pipes, when both are pipes.
#[cfg(unix)]
fn pipes() -> Option<(tokio::net::unix::pipe::Receiver, tokio::net::unix::pipe::Sender)> {
    use std::os::fd::AsFd;
    let input = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let reader = tokio::net::unix::pipe::Receiver::from_file(std::fs::File::from(input)).ok()?;
    match tokio::net::unix::pipe::Sender::from_file(std::fs::File::from(output)) {
        Ok(writer) => Some((reader, writer)),
        Err(_) => {
            // stdin is now non-blocking, and that flag lives on the file description the
            // fallback (and the process that spawned us) reads too: put it back, or the
            // fallback's first read of an empty pipe fails with `WouldBlock`.
            if let Err(e) = reader.into_blocking_fd() {
                tracing::warn!(error = %e, "could not make stdin blocking again");
            }
            None
        }
    }
}
