// Only "optional" and "required" are task policies.

/// Export everything.
#[mcp::tool(task = "always")]
async fn export() -> String {
    "done".to_owned()
}

fn main() {}
