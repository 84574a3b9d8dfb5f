// Prompt arguments are strings on the wire; each parameter is parsed with `FromStr`.
struct Tone {
    formal: bool,
}

#[mcp::prompt]
fn write_letter(to: String, tone: Tone) -> String {
    format!("Write to {to}, formal: {}", tone.formal)
}

fn main() {}
