//! The ticket-triage example (see `mcp_examples::tickets`): application state through
//! `State<Tickets>`.
//!
//! Run it with `tickets stdio` or `tickets http 127.0.0.1:8000`.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    mcp_examples::cli::run(mcp_examples::tickets::server()).await
}
