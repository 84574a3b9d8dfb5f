//! The command line every example server shares: the library's [`mcp::cli`]
//! (`NAME stdio`, `NAME http HOST:PORT`, `NAME describe`), with logs on stderr.

use mcp::Server;

/// Serve `server` as the command line says; returns the process exit code.
pub async fn run(server: Server) -> std::process::ExitCode {
    crate::init_logging();
    mcp::cli::run(server).await
}

/// Like [`run`], serving `http` with `config` (a token verifier, protected resource
/// metadata) under the command line's http options.
pub async fn run_with_config(server: Server, config: mcp::serve::http::HttpConfig) -> std::process::ExitCode {
    crate::init_logging();
    mcp::cli::run_with_config(server, config).await
}
