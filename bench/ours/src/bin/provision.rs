//! The multi-round target of `loadgen --mode mrtr`: `provision {name}` asks which region the
//! database should live in (`{region}`) and answers "Provisioned 'NAME' in REGION.". The
//! tool, its question and its answer are the `provisioner` example's (and the rmcp peer's):
//! under 2026-07-28 the question goes back in an `InputRequiredResult` with sealed
//! `requestState` (a per-process random key, the default), under 2025-11-25 as an
//! `elicitation/create` request during the call.
//!
//! Run it with `provision stdio` or `provision http 127.0.0.1:8000` (`mcp::cli`).

use mcp::resolve::Elicit;
use mcp::{Resolve, Server};

/// Where a database lives.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Region {
    /// Cloud region, e.g. eu-west-1.
    region: String,
}

/// Asks where to put the database.
#[mcp::resolver]
fn ask_region() -> Elicit<Region> {
    Elicit::new("Which region should the database live in?")
}

/// Provision a database. Asks which region to put it in.
#[mcp::tool(annotations(destructive = false, idempotent = true))]
fn provision(
    /// The database's name.
    name: String,
    region: Resolve<ask_region>,
) -> String {
    format!("Provisioned '{name}' in {}.", region.region)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    mcp::cli::run(Server::builder("Provision", env!("CARGO_PKG_VERSION")).tool::<provision>().build()).await
}
