// A type alias hides the name from the macro; the compile-time assertion still sees that
// a task tool's return type may ask for input.
type Out = Result<mcp::protocol::InputRequiredResult, mcp::Error>;

/// Export everything.
#[mcp::tool(task = "required")]
async fn export() -> Out {
    Ok(mcp::protocol::InputRequiredResult::state_only("again"))
}

fn main() {}
