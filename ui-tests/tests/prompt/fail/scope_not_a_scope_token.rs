// A double quote is not a scope-token character.
#[mcp::prompt(scopes = ["say\"hi"])]
fn briefing() -> String {
    String::new()
}

fn main() {}
