use mcp::resolve::{Interrupt, Resolver};
use mcp::server::BoxFuture;
use mcp::{Context, Resolve};

/// Who is asking.
struct CurrentUser {}

impl Resolver for CurrentUser {
    type Output = String;

    fn resolve(_ctx: &Context) -> BoxFuture<Result<String, Interrupt>> {
        Box::pin(async { Ok("ada".to_owned()) })
    }
}

#[mcp::prompt]
fn greeting(user: Resolve<CurrentUser>) -> String {
    format!("Greet {}", user.into_inner())
}

fn main() {}
