// A resolver asks one question; two kinds in one return type are refused.
use mcp::resolve::{Elicit, Sample};

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Region {
    region: String,
}

#[mcp::resolver]
fn ask(name: String) -> Result<Elicit<Region>, Sample> {
    Err(Sample::user(name, 10))
}

fn main() {}
