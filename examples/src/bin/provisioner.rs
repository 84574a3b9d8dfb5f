//! The `provision` example written with the macros (see `mcp_examples::provisioner`).
//!
//! Run it with `provisioner stdio` or `provisioner http 127.0.0.1:8000`.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    mcp_examples::cli::run(mcp_examples::provisioner::server()).await
}
