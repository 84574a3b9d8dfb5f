//! Shared helpers for the example binaries.

pub mod cli;
pub mod everything;
pub mod hundred;
pub mod lowlevel;
pub mod provisioner;

/// Send logs to stderr (stdout carries MCP messages on stdio), filtered by `RUST_LOG`.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
