// Tool parameters are decoded from JSON and described by a JSON Schema.
struct Color {
    rgb: u32,
}

#[mcp::tool]
fn paint(wall: String, color: Color) -> String {
    format!("{wall}: {:06x}", color.rgb)
}

fn main() {}
