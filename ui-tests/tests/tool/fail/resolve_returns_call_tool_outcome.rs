// `CallToolOutcome` may be an `InputRequiredResult`, so it is refused next to `Resolve`.
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
async fn greet(user: Resolve<CurrentUser>) -> mcp::protocol::CallToolOutcome {
    mcp::protocol::CallToolResult::text(user.into_inner()).into()
}

fn main() {}
