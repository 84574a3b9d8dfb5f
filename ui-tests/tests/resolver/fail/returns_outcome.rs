// A resolver cannot return a `protocol::Outcome` under any spelling: here it is imported
// by name (which syntax cannot tell from a user type called `Outcome`), alone and as the
// `Ok` of a `Result`. The framework builds the outcome from the resolvers' questions.
use mcp::protocol::{CallToolResult, Outcome};

#[mcp::resolver]
fn finish() -> Outcome<CallToolResult> {
    Outcome::Complete(CallToolResult::text("done"))
}

#[mcp::resolver]
fn finish_or_fail() -> Result<Outcome<CallToolResult>, String> {
    Ok(Outcome::Complete(CallToolResult::text("done")))
}

fn main() {}
