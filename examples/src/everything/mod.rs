//! A fixture server exposing one of everything, for tests and the official conformance
//! suite (tool, prompt and resource names follow its fixture list), in both eras.
//!
//! Written with the macros; two tools whose input schemas must be listed verbatim
//! (`json_schema_2020_12_tool`, `test_x_mcp_header`) implement [`ToolDef`](mcp::items::ToolDef) by hand.

pub mod mrtr;
pub mod prompts;
pub mod raw_tools;
pub mod resources;
pub mod tasks;
pub mod tools;

use std::time::Duration;

use mcp::Server;
use mcp::protocol::{ElicitRequestParams, ElicitationSchema};
use serde_json::Value;

/// A form elicitation whose schema is given as JSON.
pub fn form(message: &str, schema: Value) -> ElicitRequestParams {
    let schema: ElicitationSchema = serde_json::from_value(schema).unwrap_or_default();
    ElicitRequestParams::form(message, schema)
}

/// The fixture server. With `MCP_REDIS_URL` set its tasks live in Redis
/// ([`task_config_from_env`](crate::task_config_from_env)).
pub fn server() -> Server {
    use mrtr::*;
    use prompts::*;
    use resources::*;
    use tasks::*;
    use tools::*;
    let builder = Server::builder("everything", env!("CARGO_PKG_VERSION"));
    let server = crate::with_env_redis("everything", crate::with_env_keys(builder))
        .instructions("A fixture server with one of everything.")
        .tool::<test_simple_text>()
        .tool::<test_image_content>()
        .tool::<test_audio_content>()
        .tool::<test_embedded_resource>()
        .tool::<test_multiple_content_types>()
        .tool::<test_error_handling>()
        .tool::<test_tool_with_progress>()
        .tool::<raw_tools::JsonSchema202012>()
        .tool::<raw_tools::XMcpHeader>()
        .tool::<test_missing_capability>()
        .tool::<test_streaming_elicitation>()
        .tool::<test_logging_tool>()
        .tool::<test_tool_with_logging>()
        .tool::<test_trigger_tool_change>()
        .tool::<test_trigger_prompt_change>()
        .tool::<test_dynamic_tool>()
        .tool::<test_elicitation>()
        .tool::<test_elicitation_sep1034_defaults>()
        .tool::<test_elicitation_sep1330_enums>()
        .tool::<test_sampling>()
        .tool::<test_reconnection>()
        .tool::<test_slow>()
        .tool::<test_slow_stats>()
        .tool::<test_panic>()
        .tool::<test_input_required_result_elicitation>()
        .tool::<test_input_required_result_sampling>()
        .tool::<test_input_required_result_list_roots>()
        .tool::<test_input_required_result_request_state>()
        .tool::<test_input_required_result_tampered_state>()
        .tool::<test_input_required_result_multiple_inputs>()
        .tool::<test_input_required_result_multi_round>()
        .tool::<test_input_required_result_capabilities>()
        .tool::<greet>()
        .tool::<slow_compute>()
        .tool::<failing_job>()
        .tool::<protocol_error_job>()
        .tool::<confirm_delete>()
        .tool::<multi_input>()
        .tool::<test_tool_with_task>()
        .tasks(crate::task_config_from_env(
            "everything",
            mcp::tasks::TaskConfig::builder().ttl(Duration::from_secs(300)).poll_interval(Duration::from_millis(250)),
        ))
        .prompt::<test_simple_prompt>()
        .prompt::<test_prompt_with_arguments>()
        .prompt::<test_prompt_with_embedded_resource>()
        .prompt::<test_prompt_with_image>()
        .prompt::<test_input_required_result_prompt>()
        .prompt::<test_dynamic_prompt>()
        .resource::<static_text>()
        .resource::<static_binary>()
        .resource::<watched_resource>()
        .resource::<template_data>()
        .build();
    // The dynamic items exist only while a list change is being demonstrated.
    server.set_tool_enabled("test_dynamic_tool", false);
    server.set_prompt_enabled("test_dynamic_prompt", false);
    server
}
