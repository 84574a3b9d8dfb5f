//! The `echo` server with the features `scripts/bench-features.sh` measures: the same tool,
//! `echo {text}`, as `bench/ours`'s `echo` (which `scripts/bench.sh` compares with the peers:
//! its package links none of this, so its memory stays comparable).
//!
//! Run it with `echo_features stdio` or `echo_features http 127.0.0.1:8000`. Request-state keys and ttl come
//! from `MCP_REQUEST_STATE_KEYS` / `MCP_REQUEST_STATE_TTL` like the example servers (the tool
//! never asks anything, so they only matter for a uniform setup).
//!
//! The features `scripts/bench-features.sh` measures are off unless the environment turns
//! them on, as in the example servers:
//!
//! - `MCP_AUTH_ISSUER` and `MCP_AUTH_RESOURCE` (optionally `MCP_AUTH_JWKS_URL`; see
//!   `mcp_examples::oauth_env`): every HTTP request needs a JWT access token from that
//!   issuer, checked against its JWKS (fetched once, then cached); `ECHO_AUTH_TOKEN_CACHE=N`
//!   caches at most `N` verified tokens instead of the verifier's default (`0`: none, every
//!   request's token is checked in full);
//! - `OTEL_EXPORTER_OTLP_ENDPOINT` and the other `OTEL_*` variables: spans and metrics
//!   (`mcp_examples::init_telemetry`);
//! - `ECHO_TASKS=1`: `echo` is task-capable (`task = "optional"`): a call declaring the
//!   tasks extension is answered with a task, whose result `tasks/get` returns; a call
//!   without it is an ordinary call.

use std::process::ExitCode;

use mcp::Server;
use mcp::auth::JwtVerifier;
use mcp::serve::http::{HttpConfig, ProtectedResourceMetadata};
use mcp_examples::cli;
use mcp_examples::oauth_env::AuthEnv;

/// The variable that makes `echo` task-capable.
const TASKS_VAR: &str = "ECHO_TASKS";
/// The variable bounding the verifier's cache of verified tokens.
const TOKEN_CACHE_VAR: &str = "ECHO_AUTH_TOKEN_CACHE";

/// Echo the text back unchanged.
#[mcp::tool(annotations(read_only, idempotent))]
fn echo(
    /// The text to return.
    text: String,
) -> String {
    text
}

/// Echo the text back unchanged: as a task when the client supports them.
#[mcp::tool(name = "echo", task = "optional", annotations(read_only, idempotent))]
async fn echo_as_task(
    /// The text to return.
    text: String,
) -> String {
    text
}

#[tokio::main]
async fn main() -> ExitCode {
    let builder = mcp_examples::with_env_keys(Server::builder("Echo", env!("CARGO_PKG_VERSION")));
    let server = match std::env::var(TASKS_VAR).as_deref().map(str::trim) {
        Err(_) | Ok("0") => builder.tool::<echo>().build(),
        Ok("1") => builder.tool::<echo_as_task>().build(),
        Ok(_) => return fail(&format!("{TASKS_VAR}: must be 1 (echo runs as a task when asked) or 0")),
    };
    match AuthEnv::from_env() {
        Ok(None) => cli::run(server).await,
        Ok(Some(auth)) => match http_config(&auth) {
            Ok(config) => cli::run_with_config(server, config).await,
            Err(e) => fail(&e),
        },
        Err(e) => fail(&e),
    }
}

/// JWT access tokens from the issuer, for the resource (as `AuthEnv::http_config`), with
/// the verified-token cache `ECHO_AUTH_TOKEN_CACHE` asks for.
fn http_config(auth: &AuthEnv) -> Result<HttpConfig, String> {
    if auth.introspection.is_some() {
        return Err("echo checks JWT access tokens only: unset MCP_AUTH_INTROSPECTION_CLIENT_*".into());
    }
    let mut verifier = JwtVerifier::builder().issuer(&auth.issuer).audience(&auth.resource);
    if let Some(url) = &auth.jwks_url {
        verifier = verifier.jwks_url(url);
    }
    if let Ok(value) = std::env::var(TOKEN_CACHE_VAR) {
        let entries = value
            .trim()
            .parse::<usize>()
            .map_err(|_| format!("{TOKEN_CACHE_VAR}: must be a whole number of tokens (0: no cache)"))?;
        verifier = verifier.verified_token_cache(entries);
    }
    let verifier = verifier.build().map_err(|e| format!("cannot check tokens of {}: {e}", auth.issuer))?;
    let metadata = ProtectedResourceMetadata::new(&auth.resource).authorization_server(&auth.issuer);
    Ok(HttpConfig::default().protected_resource(metadata).token_verifier(verifier))
}

fn fail(message: &str) -> ExitCode {
    eprintln!("echo_features: {message}");
    ExitCode::from(2)
}
