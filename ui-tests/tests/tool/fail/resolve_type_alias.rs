// A type alias hides the name from the macro; the compile-time assertion still sees
// that the return type may ask for input.
use mcp::Resolve;

/// Who is calling.
#[mcp::resolver]
fn current_user() -> String {
    "ada".to_owned()
}

type Ask = mcp::protocol::InputRequiredResult;

#[mcp::tool]
async fn greet(user: Resolve<current_user>) -> Ask {
    Ask::state_only(user.into_inner())
}

fn main() {}
