// Only the URI template's variables can be completed.
fn anything(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

#[mcp::resource("notes://{id}")]
fn note(id: String, #[mcp(complete = anything)] ctx: mcp::Context) -> String {
    let _ = ctx;
    id
}

fn main() {}
