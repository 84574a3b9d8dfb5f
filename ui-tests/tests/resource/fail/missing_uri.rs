#[mcp::resource(mime_type = "text/plain")]
fn notes() -> String {
    "notes".to_owned()
}

fn main() {}
