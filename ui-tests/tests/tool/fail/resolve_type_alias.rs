// A type alias hides the name from the macro; the compile-time assertion still sees
// that the return type may ask for input.
use mcp::resolve::{Interrupt, Resolver};
use mcp::server::BoxFuture;
use mcp::{Context, Resolve};

/// Who is calling.
struct CurrentUser {}

impl Resolver for CurrentUser {
    type Output = String;

    fn resolve(_ctx: &Context) -> BoxFuture<Result<String, Interrupt>> {
        Box::pin(async { Ok("ada".to_owned()) })
    }
}

type Ask = mcp::protocol::InputRequiredResult;

#[mcp::tool]
async fn greet(user: Resolve<CurrentUser>) -> Ask {
    Ask::state_only(user.into_inner())
}

fn main() {}
