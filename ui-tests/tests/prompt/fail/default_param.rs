// Prompt arguments are optional through `Option<T>`; `default` is for tools.
#[mcp::prompt]
fn write_letter(to: String, #[mcp(default = 3)] paragraphs: u8) -> String {
    format!("Write {paragraphs} paragraphs to {to}")
}

fn main() {}
