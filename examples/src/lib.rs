//! Shared helpers for the example binaries.

pub mod axum_auth;
pub mod cli;
pub mod everything;
pub mod lowlevel;
pub mod oauth_env;
pub mod provisioner;
pub mod tickets;

/// The environment variable holding shared request-state keys: hex secrets (32 bytes or
/// more each) separated by commas, the first one minting. Every instance behind a load
/// balancer needs the same list.
pub const KEYS_VAR: &str = "MCP_REQUEST_STATE_KEYS";

/// The environment variable holding how long a sealed round stays valid, in seconds
/// (default 600).
pub const TTL_VAR: &str = "MCP_REQUEST_STATE_TTL";

/// Seal request state with the keys in [`KEYS_VAR`] when it is set (else a per-process
/// key) and the ttl in [`TTL_VAR`] when it is set. A malformed value stops the program
/// with a message.
pub fn with_env_keys(builder: mcp::server::ServerBuilder) -> mcp::server::ServerBuilder {
    use mcp::sealing::{AesGcmCodec, RequestStateSecurity};
    let fail = |var: &str, e: &dyn std::fmt::Display| -> ! {
        eprintln!("{var}: {e}");
        std::process::exit(2);
    };
    let ttl = std::env::var(TTL_VAR).ok().map(|v| match v.trim().parse::<u64>() {
        Ok(secs) if secs > 0 => std::time::Duration::from_secs(secs),
        _ => fail(TTL_VAR, &"must be a whole number of seconds, at least 1"),
    });
    let keys = RequestStateSecurity::keys_from_env(KEYS_VAR).unwrap_or_else(|e| fail(KEYS_VAR, &e));
    if keys.is_none() && ttl.is_none() {
        return builder;
    }
    let mut security = RequestStateSecurity::builder();
    security = match keys {
        Some(keys) => security.keys(keys),
        None => security.codec(AesGcmCodec::ephemeral().unwrap_or_else(|e| fail(KEYS_VAR, &e))),
    };
    if let Some(ttl) = ttl {
        security = security.ttl(ttl);
    }
    match security.build() {
        Ok(security) => builder.request_state_security(security),
        Err(e) => fail(KEYS_VAR, &e),
    }
}

/// Send logs to stderr (stdout carries MCP messages on stdio), filtered by `RUST_LOG`.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
