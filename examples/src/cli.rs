//! The command line every example server shares: `NAME stdio`, `NAME http HOST:PORT`, or
//! `NAME describe` (print every tool, prompt and resource as Markdown).

use std::time::Duration;

use mcp::Server;

/// How long in-flight requests may take to finish after SIGTERM or Ctrl-C.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Resolves on SIGTERM (or Ctrl-C): the signal to stop gracefully.
async fn terminated() {
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only Ctrl-C stops gracefully");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    tracing::info!("stopping: finishing in-flight requests");
}

/// Serve `server` as the command line says; returns the process exit code.
pub async fn run(server: Server) -> std::process::ExitCode {
    crate::init_logging();
    let args: Vec<String> = std::env::args().collect();
    let program = args.first().map(String::as_str).unwrap_or("server");
    match args.get(1).map(String::as_str) {
        Some("stdio") | None => {
            match mcp::serve::stdio(server).grace_period(SHUTDOWN_GRACE).with_graceful_shutdown(terminated()).await {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!(error = %e, "stdio transport failed");
                    std::process::ExitCode::FAILURE
                }
            }
        }
        Some("describe") => {
            print!("{}", server.describe_markdown().await);
            std::process::ExitCode::SUCCESS
        }
        Some("http") => {
            let Some(addr) = args.get(2).and_then(|a| a.parse::<std::net::SocketAddr>().ok()) else {
                eprintln!("usage: {program} http HOST:PORT (for example {program} http 127.0.0.1:3931)");
                return std::process::ExitCode::from(2);
            };
            tracing::info!(%addr, "serving Streamable HTTP at http://{addr}/mcp");
            let served = match tokio::net::TcpListener::bind(addr).await {
                Ok(listener) => {
                    mcp::serve::http(listener, server)
                        .grace_period(SHUTDOWN_GRACE)
                        .with_graceful_shutdown(terminated())
                        .await
                }
                Err(e) => Err(e),
            };
            match served {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("{program}: cannot serve http://{addr}/mcp: {e}");
                    std::process::ExitCode::FAILURE
                }
            }
        }
        Some(other) => {
            eprintln!(
                "usage: {program} stdio | {program} http HOST:PORT | {program} describe (unknown mode {other:?})"
            );
            std::process::ExitCode::from(2)
        }
    }
}
