// A task tool's work finishes as the task's result: it cannot ask for input by returning
// an `InputRequiredResult` (the client polls tasks/get, it no longer retries the call).
use mcp::protocol::{CallToolOutcome, CallToolResult};

/// Export everything.
#[mcp::tool(task = "optional")]
async fn export() -> CallToolOutcome {
    CallToolResult::text("done").into()
}

fn main() {}
