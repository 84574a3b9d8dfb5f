// An alias hides the question from the macro; a compile-time check still catches it.
use mcp::resolve::Elicit;

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Region {
    region: String,
}

type AskRegion = Elicit<Region>;

#[mcp::resolver]
fn ask_region() -> AskRegion {
    Elicit::new("Where?")
}

fn main() {}
