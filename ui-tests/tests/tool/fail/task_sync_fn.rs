// A task's work runs on the async runtime: a synchronous body could hold a worker thread
// for minutes, out of reach of cancellation.

/// Export everything.
#[mcp::tool(task = "optional")]
fn export() -> String {
    "done".to_owned()
}

fn main() {}
