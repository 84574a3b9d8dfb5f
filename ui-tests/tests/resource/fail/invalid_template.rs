// Two variables in a row cannot be told apart when matching a URI.
#[mcp::resource("x://{a}{b}")]
fn pair(a: String, b: String) -> String {
    format!("{a}{b}")
}

fn main() {}
