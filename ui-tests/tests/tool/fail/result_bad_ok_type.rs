// The `Ok` type of a `Result` must itself be returnable.
struct Sum(i64);

#[mcp::tool]
fn add(a: i64, b: i64) -> Result<Sum, String> {
    Ok(Sum(a + b))
}

fn main() {}
