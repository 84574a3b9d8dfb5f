// A tool that uses resolvers in a cycle: the cycle is named.
use mcp::Resolve;

#[mcp::resolver]
fn first(second: Resolve<second>) -> u32 {
    *second + 1
}

#[mcp::resolver]
fn second(first: Resolve<first>) -> u32 {
    *first + 1
}

/// Count.
#[mcp::tool]
fn count(n: Resolve<first>) -> u32 {
    *n
}

fn main() {}
