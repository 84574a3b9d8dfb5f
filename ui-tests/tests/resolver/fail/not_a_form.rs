// `Elicit<T>` needs a flat form: `T` must derive `ElicitForm`.
use mcp::resolve::Elicit;

#[derive(serde::Deserialize)]
struct Region {
    region: String,
}

#[mcp::resolver]
fn ask_region() -> Elicit<Region> {
    Elicit::new("Where?")
}

fn main() {}
