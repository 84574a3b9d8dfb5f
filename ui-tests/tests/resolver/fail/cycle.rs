// Two resolvers that depend on each other cannot be resolved: a compile error.
use mcp::Resolve;

#[mcp::resolver]
fn first(second: Resolve<second>) -> u32 {
    *second + 1
}

#[mcp::resolver]
fn second(first: Resolve<first>) -> u32 {
    *first + 1
}

fn main() {}
