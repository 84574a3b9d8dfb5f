// The return value must become a tool result: neither `IntoToolOutcome` nor
// `Serialize + JsonSchema` here.
struct Sum(i64);

#[mcp::tool]
fn add(a: i64, b: i64) -> Sum {
    Sum(a + b)
}

fn main() {}
