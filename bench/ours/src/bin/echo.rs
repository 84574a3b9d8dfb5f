//! The smallest useful server: one tool, `echo {text}`, that returns its text. It is the
//! plain-mode target of `loadgen` (the same call an rmcp, Python SDK or TypeScript SDK echo
//! server serves), so it does nothing but decode the arguments and answer.
//!
//! Run it with `echo stdio` or `echo http 127.0.0.1:8000` (`mcp::cli`).

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
    mcp::cli::run(Server::builder("Echo", env!("CARGO_PKG_VERSION")).tool::<echo>().build()).await
}
