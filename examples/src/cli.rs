//! The command line every example server shares: the library's [`mcp::cli`]
//! (`NAME stdio`, `NAME http HOST:PORT`, `NAME describe`), with logs on stderr.

use mcp::Server;

/// Serve `server` as the command line says; returns the process exit code.
pub async fn run(server: Server) -> std::process::ExitCode {
    crate::init_logging();
    mcp::cli::run(server).await
}
