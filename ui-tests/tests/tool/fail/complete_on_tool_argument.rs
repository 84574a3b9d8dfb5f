// MCP completes prompt arguments and resource template variables, not tool arguments.
fn regions(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

#[mcp::tool]
fn provision(#[mcp(complete = regions)] region: String) -> String {
    region
}

fn main() {}
