// An item the macro rejects is still a registrable type; only the real error shows.
#[mcp::resource("file:///notes")]
fn notes(id: String) -> String {
    format!("note {id}")
}

#[mcp::tool]
async fn whoami(ctx: mcp::Context, again: mcp::Context) -> String {
    format!("{:?} {:?}", ctx.request_state(), again.request_state())
}

fn main() {
    let _server = mcp::Server::builder("notes", "1.0.0").resource::<notes>().tool::<whoami>().build();
}
