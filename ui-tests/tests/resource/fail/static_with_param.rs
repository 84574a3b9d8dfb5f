#[mcp::resource("file:///notes")]
fn notes(id: String) -> String {
    format!("note {id}")
}

fn main() {}
