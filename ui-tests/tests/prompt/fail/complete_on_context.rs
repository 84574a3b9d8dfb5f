// A `Context` is filled in by the framework: there is nothing for the client to complete.
fn anything(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

#[mcp::prompt]
fn greet(name: String, #[mcp(complete = anything)] ctx: mcp::Context) -> String {
    let _ = ctx;
    format!("Hello {name}")
}

fn main() {}
