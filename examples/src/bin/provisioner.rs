//! The `provision` example written with the macros (see `mcp_examples::provisioner`).
//!
//! Run it with `provisioner stdio` or `provisioner http 127.0.0.1:8000`. With
//! `MCP_AUTH_ISSUER` and `MCP_AUTH_RESOURCE` set (and optionally `MCP_AUTH_JWKS_URL`, or
//! the `MCP_AUTH_INTROSPECTION_CLIENT_*` pair for opaque tokens; see
//! `mcp_examples::oauth_env`), HTTP requests need an access token from that issuer and
//! each item its scope (`db:read`, `db:write`).

use std::process::ExitCode;

use mcp_examples::oauth_env::AuthEnv;
use mcp_examples::{cli, provisioner};

#[tokio::main]
async fn main() -> ExitCode {
    match AuthEnv::from_env() {
        Ok(None) => cli::run(provisioner::server()).await,
        Ok(Some(auth)) => {
            let server = provisioner::authenticated_server();
            match auth.http_config(&server) {
                Ok(config) => cli::run_with_config(server, config).await,
                Err(e) => fail(&e),
            }
        }
        Err(e) => fail(&e),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("provisioner: {message}");
    ExitCode::from(2)
}
