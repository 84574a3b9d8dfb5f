struct Notes(String);

#[mcp::resource("file:///notes")]
fn notes() -> Notes {
    Notes("notes".to_owned())
}

fn main() {}
