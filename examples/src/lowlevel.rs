//! The low-level `provision` server: a tool that asks which region to use.
//!
//! Under 2026-07-28 it returns an `InputRequiredResult` and finishes on the retry, taking
//! the answer only if the (sealed) state of the retry asked for it; in a 2025-11-25 session
//! it asks through the back-channel (`elicitation/create`).

use mcp::protocol::{
    CallToolOutcome, CallToolParams, CallToolResult, ElicitRequestParams, ElicitationSchema, InputRequest,
    InputRequiredResult, ListToolsResult, PrimitiveSchema, StringSchema, Tool,
};
use mcp::{Context, Error, RequestContext, Server};
use serde_json::json;

/// The question the tool asks.
pub fn ask_region() -> ElicitRequestParams {
    let schema = ElicitationSchema {
        properties: [("region".to_owned(), PrimitiveSchema::String(StringSchema::default()))].into(),
        required: Some(vec!["region".to_owned()]),
        ..Default::default()
    };
    ElicitRequestParams::form("Which region should the database live in?", schema)
}

/// `tools/call`: provision a database, asking for the region first.
pub async fn call_tool(ctx: RequestContext, params: CallToolParams) -> Result<CallToolOutcome, Error> {
    if params.name != "provision" {
        return Err(Error::unknown_tool(&params.name));
    }
    let Some(name) = params.arguments.as_ref().and_then(|a| a.get("name")).and_then(|n| n.as_str()) else {
        return Ok(CallToolResult::error("`name` must be a string").into());
    };
    let ctx = Context::new(ctx, params.input_responses.clone(), params.request_state.clone());
    let answer = if ctx.is_legacy() {
        Some(ctx.elicit(ask_region()).await?)
    } else {
        // Only an answer to the question the sealed state asked counts.
        ctx.answers().get("region").and_then(|a| a.as_elicit()).cloned()
    };
    let region =
        answer.as_ref().and_then(|a| a.content.as_ref()).and_then(|c| c.get("region")).and_then(|r| r.as_str());
    let Some(region) = region else {
        if ctx.is_legacy() {
            return Ok(CallToolResult::error("No region was chosen.").into());
        }
        let ask = InputRequiredResult::ask("region", InputRequest::Elicit(ask_region()));
        return Ok(ctx.record_questions(ask.with_state("provision-v1")).into());
    };
    Ok(CallToolResult::text(format!("Provisioned '{name}' in {region}.")).into())
}

/// The provisioner, written with the low-level [`Server`].
pub fn server() -> Server {
    Server::builder("Provisioner", env!("CARGO_PKG_VERSION"))
        .on_list_tools(|_ctx, _params| async {
            let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
            Ok(ListToolsResult::new(vec![Tool::new(
                "provision",
                "Provision a database. Asks which region to put it in.",
                schema,
            )]))
        })
        .on_call_tool(call_tool)
        .build()
}
