//! The `provision` example written with `#[mcp::tool]`: a tool that asks which region to
//! put the database in.
//!
//! Under 2026-07-28 it returns an `InputRequiredResult` and finishes on the retry; in a
//! 2025-11-25 session it asks through the back-channel. (With resolvers, the question
//! becomes a `Resolve<ask_region>` parameter instead.)

use mcp::protocol::{
    CallToolOutcome, CallToolResult, ElicitRequestParams, ElicitationSchema, InputRequest, InputRequiredResult,
    PrimitiveSchema, StringSchema,
};
use mcp::{Context, Error, Server};

/// The question the tool asks.
pub fn ask_region() -> ElicitRequestParams {
    let region = StringSchema { description: Some("Cloud region, e.g. eu-west-1".into()), ..Default::default() };
    let schema = ElicitationSchema {
        properties: [("region".to_owned(), PrimitiveSchema::String(region))].into(),
        required: Some(vec!["region".to_owned()]),
        ..Default::default()
    };
    ElicitRequestParams::form("Which region should the database live in?", schema)
}

/// Provision a database. Asks which region to put it in.
#[mcp::tool(annotations(destructive = false, idempotent = true))]
pub async fn provision(
    ctx: Context,
    /// The database's name.
    name: String,
) -> Result<CallToolOutcome, Error> {
    let answer = if ctx.is_legacy() {
        Some(ctx.elicit(ask_region()).await?)
    } else {
        ctx.input_response("region").and_then(|a| a.as_elicit()).cloned()
    };
    let region =
        answer.as_ref().and_then(|a| a.content.as_ref()).and_then(|c| c.get("region")).and_then(|r| r.as_str());
    match region {
        Some(region) => Ok(CallToolResult::text(format!("Provisioned '{name}' in {region}.")).into()),
        None if ctx.is_legacy() => Ok(CallToolResult::error("No region was chosen.").into()),
        None => {
            Ok(InputRequiredResult::ask("region", InputRequest::Elicit(ask_region())).with_state("provision-v1").into())
        }
    }
}

/// The provisioner server (shared keys from `MCP_REQUEST_STATE_KEYS` when set).
pub fn server() -> Server {
    crate::with_env_keys(Server::builder("Provisioner", env!("CARGO_PKG_VERSION"))).tool::<provision>().build()
}
