// `#[mcp::resolver]` accepts `key` only.
#[mcp::resolver(name = "quota")]
fn quota() -> u64 {
    10
}

fn main() {}
