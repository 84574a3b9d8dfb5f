struct Letter(String);

#[mcp::prompt]
fn write_letter(to: String) -> Letter {
    Letter(format!("Dear {to}"))
}

fn main() {}
