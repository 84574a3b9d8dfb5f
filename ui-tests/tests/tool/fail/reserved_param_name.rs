#[mcp::tool]
fn echo(__mcp_args: String) -> String {
    __mcp_args
}

fn main() {}
