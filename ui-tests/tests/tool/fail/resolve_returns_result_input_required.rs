// Wrapping the `InputRequiredResult` in a `Result` does not hide it.
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
async fn greet(user: Resolve<CurrentUser>) -> Result<mcp::protocol::InputRequiredResult, String> {
    Ok(mcp::protocol::InputRequiredResult::state_only(user.into_inner()))
}

fn main() {}
