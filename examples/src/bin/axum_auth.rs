//! The MCP server mounted in axum behind an authenticating middleware (see
//! `mcp_examples::axum_auth`).
//!
//! Run it with `axum_auth 127.0.0.1:3940`, then call `whoami` with
//! `Authorization: Bearer token-alice` (or `token-bob`); without a token it answers 401.

use std::net::SocketAddr;

use mcp::serve::http::HttpConfig;
use mcp_examples::axum_auth::{Tokens, app, server};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // Logs, and OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set.
    mcp_examples::with_telemetry("axum_auth", run_main()).await
}

async fn run_main() -> std::process::ExitCode {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:3940".to_owned());
    let Ok(addr) = arg.parse::<SocketAddr>() else {
        eprintln!("usage: axum_auth [HOST:PORT] (default 127.0.0.1:3940; got {arg:?})");
        return std::process::ExitCode::from(2);
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("axum_auth: cannot listen on {addr}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    tracing::info!(%addr, "serving Streamable HTTP at http://{addr}/mcp behind bearer-token middleware");
    let app = app(server(), HttpConfig::for_addr(addr), Tokens::demo());
    match axum::serve(listener, app).with_graceful_shutdown(async { _ = tokio::signal::ctrl_c().await }).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("axum_auth: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
