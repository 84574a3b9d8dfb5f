// Only tools run as tasks.

/// Summarise.
#[mcp::prompt(task = "optional")]
fn summary() -> String {
    "Summarise.".to_owned()
}

fn main() {}
