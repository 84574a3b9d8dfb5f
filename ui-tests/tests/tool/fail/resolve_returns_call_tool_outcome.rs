// `CallToolOutcome` may be an `InputRequiredResult`, so it is refused next to `Resolve`.
use mcp::Resolve;

/// Who is calling.
#[mcp::resolver]
fn current_user() -> String {
    "ada".to_owned()
}

#[mcp::tool]
async fn greet(user: Resolve<current_user>) -> mcp::protocol::CallToolOutcome {
    mcp::protocol::CallToolResult::text(user.into_inner()).into()
}

fn main() {}
