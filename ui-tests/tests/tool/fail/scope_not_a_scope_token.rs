// Scope strings must be RFC 6749 scope-tokens: each bad one is reported at its literal.
#[mcp::tool(scopes = ["db:read", "db write", "", "é"])]
fn provision(name: String) -> String {
    name
}

fn main() {}
