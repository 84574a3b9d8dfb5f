//! The command line every example server shares: the library's [`mcp::cli`]
//! (`NAME stdio`, `NAME http HOST:PORT`, `NAME describe`), with logs on stderr and, with
//! `OTEL_EXPORTER_OTLP_ENDPOINT` set, spans and metrics over OTLP
//! ([`init_telemetry`](crate::init_telemetry)), flushed when the server stops.

use mcp::Server;

/// Serve `server` as the command line says; returns the process exit code.
pub async fn run(server: Server) -> std::process::ExitCode {
    crate::with_telemetry(&program_name(), mcp::cli::run(server)).await
}

/// Like [`run`], serving `http` with `config` (a token verifier, protected resource
/// metadata) under the command line's http options.
pub async fn run_with_config(server: Server, config: mcp::serve::http::HttpConfig) -> std::process::ExitCode {
    crate::with_telemetry(&program_name(), mcp::cli::run_with_config(server, config)).await
}

/// The service name: the program's file name (`provisioner`, `everything`, ...).
fn program_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|arg0| std::path::Path::new(&arg0).file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "mcp-example".to_owned())
}
