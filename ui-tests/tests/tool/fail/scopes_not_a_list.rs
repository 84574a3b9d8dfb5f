// `scopes` takes a list of strings.
#[mcp::tool(scopes = "db:write")]
fn provision(name: String) -> String {
    name
}

fn main() {}
