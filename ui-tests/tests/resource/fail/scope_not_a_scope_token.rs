// Nor is a backslash, nor a space-separated list in one string.
#[mcp::resource("db://{name}/config", scopes = [r"db\read", "db:read db:write"])]
fn config(name: String) -> String {
    name
}

fn main() {}
