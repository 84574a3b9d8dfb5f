// `annotations` and `output_schema` are tool keys.
#[mcp::prompt(nmae = "letter", output_schema = false)]
fn write_letter(to: String) -> String {
    format!("Dear {to}")
}

fn main() {}
