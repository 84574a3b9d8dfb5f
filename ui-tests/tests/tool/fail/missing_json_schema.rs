// Only one derive is missing: one error, naming it.
#[derive(serde::Deserialize)]
struct Color {
    rgb: u32,
}

#[mcp::tool]
fn paint(color: Option<Color>) -> String {
    format!("{:06x}", color.map_or(0, |c| c.rgb))
}

fn main() {}
