//! Shared helpers for the example binaries.

pub mod cli;
pub mod everything;
pub mod hundred;
pub mod lowlevel;
pub mod provisioner;

/// The environment variable holding shared request-state keys: hex secrets (32 bytes or
/// more each) separated by commas, the first one minting. Every instance behind a load
/// balancer needs the same list.
pub const KEYS_VAR: &str = "MCP_REQUEST_STATE_KEYS";

/// Seal request state with the keys in [`KEYS_VAR`] when it is set (else the server's
/// default applies: a per-process key). A malformed value stops the program with a message.
pub fn with_env_keys(builder: mcp::server::ServerBuilder) -> mcp::server::ServerBuilder {
    match mcp::sealing::RequestStateSecurity::from_env(KEYS_VAR) {
        Ok(Some(security)) => builder.request_state_security(security),
        Ok(None) => builder,
        Err(e) => {
            eprintln!("{KEYS_VAR}: {e}");
            std::process::exit(2);
        }
    }
}

/// Send logs to stderr (stdout carries MCP messages on stdio), filtered by `RUST_LOG`.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
