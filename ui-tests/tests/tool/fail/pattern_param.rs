// A parameter's name is the argument's name on the wire, so it must be a plain name.
#[mcp::tool]
fn add((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
