// A static resource receives no `Context`, so it could never read the answers.
#[mcp::resource("file:///notes")]
fn notes() -> mcp::protocol::InputRequiredResult {
    mcp::protocol::InputRequiredResult::state_only("again")
}

fn main() {}
