// Three resolvers in a ring: the message names each of them, in order.
use mcp::Resolve;

#[mcp::resolver]
fn a(c: Resolve<c>) -> u32 {
    *c + 1
}

#[mcp::resolver]
fn b(a: Resolve<a>) -> u32 {
    *a + 1
}

#[mcp::resolver]
fn c(b: Resolve<b>) -> u32 {
    *b + 1
}

fn main() {}
