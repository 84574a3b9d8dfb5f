//! The low-level `provision` example (see `mcp_examples::lowlevel`).
//!
//! Run it with `lowlevel_provisioner stdio`.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    mcp_examples::cli::run(mcp_examples::lowlevel::server()).await
}
