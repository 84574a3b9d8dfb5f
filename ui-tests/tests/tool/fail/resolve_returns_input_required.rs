// A tool with a `Resolve` parameter may not ask the client for input itself: the
// resolvers already use the call's one inputResponses/requestState channel.
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

#[mcp::tool]
async fn greet(user: Resolve<CurrentUser>) -> mcp::protocol::InputRequiredResult {
    mcp::protocol::InputRequiredResult::state_only(user.into_inner())
}

fn main() {}
