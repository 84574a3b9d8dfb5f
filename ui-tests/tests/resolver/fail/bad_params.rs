// What a resolver parameter cannot be: a defaulted argument, a renamed `Context`, a
// generic resolver.
use mcp::Context;

#[mcp::resolver]
fn with_default(#[mcp(default = 3)] size: u32, #[mcp(rename = "c")] ctx: Context) -> u32 {
    let _ = ctx;
    size
}

#[mcp::resolver]
fn generic<T: Default + Send + Sync + 'static>() -> T {
    T::default()
}

fn main() {}
