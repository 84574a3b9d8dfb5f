// A tool with a `Resolve` parameter may not ask the client for input itself: the
// resolvers already use the call's one inputResponses/requestState channel.
use mcp::Resolve;

/// Who is calling.
#[mcp::resolver]
fn current_user() -> String {
    "ada".to_owned()
}

#[mcp::tool]
async fn greet(user: Resolve<current_user>) -> mcp::protocol::InputRequiredResult {
    mcp::protocol::InputRequiredResult::state_only(user.into_inner())
}

fn main() {}
