// Wrapping the `InputRequiredResult` in a `Result` does not hide it.
use mcp::Resolve;

/// Who is calling.
#[mcp::resolver]
fn current_user() -> String {
    "ada".to_owned()
}

#[mcp::tool]
async fn greet(user: Resolve<current_user>) -> Result<mcp::protocol::InputRequiredResult, String> {
    Ok(mcp::protocol::InputRequiredResult::state_only(user.into_inner()))
}

fn main() {}
