// A user type implementing `IntoToolOutcome` keeps the default `MAY_REQUIRE_INPUT = true`,
// so the compile-time assertion refuses it next to `Resolve`.
use mcp::Resolve;

/// Who is calling.
#[mcp::resolver]
fn current_user() -> String {
    "ada".to_owned()
}

enum Reply {
    Text(String),
    Ask(mcp::protocol::InputRequiredResult),
}

impl mcp::items::IntoToolOutcome for Reply {
    fn into_tool_outcome(self) -> Result<mcp::protocol::CallToolOutcome, mcp::Error> {
        match self {
            Reply::Text(text) => Ok(mcp::protocol::CallToolResult::text(text).into()),
            Reply::Ask(ask) => Ok(ask.into()),
        }
    }
}

#[mcp::tool]
async fn greet(user: Resolve<current_user>) -> Reply {
    if user.is_empty() {
        Reply::Ask(mcp::protocol::InputRequiredResult::state_only("who"))
    } else {
        Reply::Text(user.into_inner())
    }
}

fn main() {}
