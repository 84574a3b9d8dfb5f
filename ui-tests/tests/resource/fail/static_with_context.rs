#[mcp::resource("file:///notes")]
fn notes(ctx: mcp::Context) -> String {
    format!("{:?}", ctx.request_state())
}

fn main() {}
