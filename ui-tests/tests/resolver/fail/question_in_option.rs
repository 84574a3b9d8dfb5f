// A question must be the whole return type: `Option<Elicit<_>>` is refused with the fix.
use mcp::resolve::Elicit;

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Region {
    region: String,
}

#[mcp::resolver]
fn maybe_ask(name: String) -> Option<Elicit<Region>> {
    (!name.is_empty()).then(|| Elicit::new("Where?"))
}

fn main() {}
