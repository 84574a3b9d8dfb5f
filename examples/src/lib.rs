//! Shared helpers for the example binaries.

pub mod axum_auth;
pub mod cli;
pub mod everything;
pub mod lowlevel;
pub mod oauth_env;
pub mod provisioner;
pub mod scale_out;
pub mod tickets;

pub use scale_out::{task_config_from_env, with_env_redis};

/// The environment variable holding shared request-state keys: hex secrets (32 bytes or
/// more each) separated by commas, the first one minting. Every instance behind a load
/// balancer needs the same list.
pub const KEYS_VAR: &str = "MCP_REQUEST_STATE_KEYS";

/// The environment variable holding how long a sealed round stays valid, in seconds
/// (default 600).
pub const TTL_VAR: &str = "MCP_REQUEST_STATE_TTL";

/// The environment variable turning single-use request state on (`1`) or off (`0`, the
/// default): each sealed round is then accepted once only.
pub const SINGLE_USE_VAR: &str = "MCP_REQUEST_STATE_SINGLE_USE";

/// The environment variable naming the Redis that instances share (e.g.
/// `redis://127.0.0.1:6379/0`): with it set, `everything` and `provisioner` keep their
/// tasks there ([`task_config_from_env`]), and with [`SINGLE_USE_VAR`] on, the rounds
/// used, so that a round used on one instance is refused on every other.
pub const REDIS_URL_VAR: &str = "MCP_REDIS_URL";

/// Seal request state with the keys in [`KEYS_VAR`] when it is set (else a per-process
/// key), the ttl in [`TTL_VAR`] when it is set, and single use per [`SINGLE_USE_VAR`]
/// (see [`with_env_single_use`]). A malformed value stops the program with a message.
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
    let single_use = single_use_from_env();
    if keys.is_none() && ttl.is_none() && !single_use {
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
    if single_use {
        security = with_env_single_use(security);
    }
    match security.build() {
        Ok(security) => builder.request_state_security(security),
        Err(e) => fail(KEYS_VAR, &e),
    }
}

/// Whether [`SINGLE_USE_VAR`] turns single use on: unset or `0` no, `1` yes; any other
/// value stops the program with a message.
fn single_use_from_env() -> bool {
    match std::env::var(SINGLE_USE_VAR).as_deref().map(str::trim) {
        Err(_) | Ok("0") => false,
        Ok("1") => true,
        Ok(_) => {
            eprintln!("{SINGLE_USE_VAR}: must be 1 (accept each round once) or 0");
            std::process::exit(2);
        }
    }
}

/// Accept each sealed round once: record used rounds in the Redis at [`REDIS_URL_VAR`]
/// when it is set (shared by every instance; it connects on first use, and while it is
/// down retries get JSON-RPC `-32603`), else in this process's memory
/// ([`InMemoryConsumedTokens`](mcp::sealing::InMemoryConsumedTokens), bounded). A
/// malformed URL stops the program with a message.
pub fn with_env_single_use(
    security: mcp::sealing::RequestStateSecurityBuilder,
) -> mcp::sealing::RequestStateSecurityBuilder {
    use mcp::sealing::{InMemoryConsumedTokens, RedisConsumedTokens};
    let url = std::env::var(REDIS_URL_VAR).ok().filter(|url| !url.trim().is_empty());
    let Some(url) = url else { return security.single_use(InMemoryConsumedTokens::default()) };
    match RedisConsumedTokens::new(url.trim()) {
        Ok(store) => security.single_use(store),
        Err(e) => {
            // Only a malformed URL fails here (the store connects on first use).
            let cause = std::error::Error::source(&e).map_or_else(|| e.to_string(), |c| c.to_string());
            eprintln!("{REDIS_URL_VAR}: must be a Redis URL (redis://host:port/db): {cause}");
            std::process::exit(2);
        }
    }
}

/// The variable that turns OpenTelemetry on in the example binaries: the OTLP collector's
/// base URL (e.g. `http://127.0.0.1:4318`). The other `OTEL_*` variables then apply (see
/// [`mcp::telemetry::Telemetry::from_env`]).
pub const OTEL_ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// Send logs to stderr, filtered by `RUST_LOG` (as [`init_logging`]), and with
/// [`OTEL_ENDPOINT_VAR`] set, the MCP spans (target `mcp::telemetry`) and metrics to
/// OpenTelemetry, naming the service `service` unless `OTEL_SERVICE_NAME` does. Keep the
/// returned value until the program ends, then [`shutdown_telemetry`] it. A malformed
/// `OTEL_*` value stops the program with a message.
pub fn init_telemetry(service: &str) -> Option<mcp::telemetry::Telemetry> {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let logs = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_filter(filter);
    let endpoint_set = std::env::var(OTEL_ENDPOINT_VAR).is_ok_and(|v| !v.trim().is_empty());
    if !endpoint_set {
        let _ = tracing_subscriber::registry().with(logs).try_init();
        return None;
    }
    let telemetry = mcp::telemetry::Telemetry::from_env(service).unwrap_or_else(|e| {
        let cause = std::error::Error::source(&e).map(|c| format!(": {c}")).unwrap_or_default();
        eprintln!("OpenTelemetry: {e}{cause}");
        std::process::exit(2);
    });
    let spans = tracing_subscriber::filter::Targets::new().with_target(mcp::telemetry::TARGET, tracing::Level::INFO);
    let otel = telemetry.layer().map(|layer| layer.with_filter(spans));
    let _ = tracing_subscriber::registry().with(logs).with(otel).try_init();
    Some(telemetry)
}

/// Run a program's `main` with logs and, with [`OTEL_ENDPOINT_VAR`] set, OpenTelemetry
/// ([`init_telemetry`]) around it, flushed when it ends: what every example binary does.
pub async fn with_telemetry(
    service: &str,
    main: impl std::future::Future<Output = std::process::ExitCode>,
) -> std::process::ExitCode {
    let telemetry = init_telemetry(service);
    let code = main.await;
    shutdown_telemetry(telemetry).await;
    code
}

/// Flush and stop what [`init_telemetry`] set up (it blocks for the export, so it runs
/// off the async runtime's threads).
pub async fn shutdown_telemetry(telemetry: Option<mcp::telemetry::Telemetry>) {
    let Some(telemetry) = telemetry else { return };
    match tokio::task::spawn_blocking(move || telemetry.shutdown()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!(error = %e, "OpenTelemetry did not shut down cleanly"),
        Err(e) => tracing::warn!(error = %e, "OpenTelemetry's shutdown did not finish"),
    }
}

/// Send logs to stderr (stdout carries MCP messages on stdio), filtered by `RUST_LOG`.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
