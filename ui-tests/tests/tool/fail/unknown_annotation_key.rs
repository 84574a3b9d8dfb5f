#[mcp::tool(annotations(read_only, destructve = false))]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
