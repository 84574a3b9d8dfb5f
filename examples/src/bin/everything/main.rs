//! A fixture server exposing one of everything, for tests and the official conformance
//! suite (tool, prompt and resource names follow its fixture list), in both eras.
//!
//! Run it with `everything stdio` or `everything http 127.0.0.1:3931`.

mod mrtr;
mod prompts;
mod resources;
mod tools;

use mcp::Server;
use mcp::protocol::{ElicitRequestParams, ElicitationSchema, ListPromptsResult, ListToolsResult};
use serde_json::Value;

/// A form elicitation whose schema is given as JSON.
fn form(message: &str, schema: Value) -> ElicitRequestParams {
    let schema: ElicitationSchema = serde_json::from_value(schema).unwrap_or_default();
    ElicitRequestParams::form(message, schema)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let server = Server::builder("everything", env!("CARGO_PKG_VERSION"))
        .instructions("A fixture server with one of everything.")
        .on_list_tools(|_ctx, _params| async { Ok(ListToolsResult::new(tools::list())) })
        .on_call_tool(tools::call)
        .on_list_prompts(|_ctx, _params| async { Ok(ListPromptsResult::new(prompts::list())) })
        .on_get_prompt(prompts::get)
        .on_list_resources(resources::list)
        .on_list_resource_templates(resources::templates)
        .on_read_resource(resources::read)
        .on_complete(prompts::complete)
        .build();
    mcp_examples::cli::run(server).await
}
