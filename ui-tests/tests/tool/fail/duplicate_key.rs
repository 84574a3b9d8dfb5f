#[mcp::tool(name = "add", title = "Adder", name = "sum")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
