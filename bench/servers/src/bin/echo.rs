//! The smallest useful server: one tool, `echo {text}`, that returns its text. It is the
//! plain-mode target of `loadgen` (the same call an rmcp or Python SDK echo server serves),
//! so it does nothing but decode the arguments and answer.
//!
//! Run it with `echo stdio` or `echo http 127.0.0.1:8000`. Request-state keys and ttl come
//! from `MCP_REQUEST_STATE_KEYS` / `MCP_REQUEST_STATE_TTL` like the example servers (the tool
//! never asks anything, so they only matter for a uniform setup).

use mcp::Server;

/// Echo the text back unchanged.
#[mcp::tool(annotations(read_only, idempotent))]
fn echo(
    /// The text to return.
    text: String,
) -> String {
    text
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let server = mcp_examples::with_env_keys(Server::builder("Echo", env!("CARGO_PKG_VERSION"))).tool::<echo>().build();
    mcp_examples::cli::run(server).await
}
