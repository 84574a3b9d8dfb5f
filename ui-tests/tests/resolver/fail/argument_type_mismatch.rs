// The resolver takes `size` as a `u32`, but the tool's `size` is a `String`.
use mcp::Resolve;

#[mcp::resolver]
fn doubled(size: u32) -> u32 {
    size * 2
}

/// Resize.
#[mcp::tool]
fn resize(size: String, doubled: Resolve<doubled>) -> String {
    format!("{size} {}", *doubled)
}

fn main() {}
