//! The conformance fixture server (see `mcp_examples::everything`).
//!
//! Run it with `everything stdio` or `everything http 127.0.0.1:3931`.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    mcp_examples::cli::run(mcp_examples::everything::server()).await
}
