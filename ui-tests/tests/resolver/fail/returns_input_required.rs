// A resolver returns a value or a question; the framework builds the InputRequiredResult.
#[mcp::resolver]
fn ask() -> mcp::protocol::InputRequiredResult {
    mcp::protocol::InputRequiredResult::state_only("x")
}

fn main() {}
