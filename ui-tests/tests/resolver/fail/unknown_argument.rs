// A resolver takes `name` by name, but the tool that uses it has no argument `name`.
use mcp::Resolve;
use mcp::resolve::Elicit;

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Region {
    region: String,
}

#[mcp::resolver]
fn ask_region(name: &str) -> Elicit<Region> {
    Elicit::new(format!("Where should {name} live?"))
}

/// Provision a database.
#[mcp::tool]
fn provision(title: String, region: Resolve<ask_region>) -> String {
    format!("{title} in {}", region.region)
}

fn main() {}
