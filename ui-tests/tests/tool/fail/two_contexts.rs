#[mcp::tool]
async fn whoami(ctx: mcp::Context, again: mcp::Context) -> String {
    format!("{:?} {:?}", ctx.request_state(), again.request_state())
}

fn main() {}
