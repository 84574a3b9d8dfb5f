// A choice is a unit-only enum; variants with data cannot be offered in a form.
#[derive(serde::Deserialize, mcp::ElicitForm)]
enum Tier {
    Small,
    Custom(u32),
}

fn main() {}
