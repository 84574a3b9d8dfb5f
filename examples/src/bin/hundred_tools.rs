//! A server with 100 tools (see `mcp_examples::hundred`).
//!
//! Run it with `hundred_tools stdio`.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    mcp_examples::cli::run(mcp_examples::hundred::server()).await
}
