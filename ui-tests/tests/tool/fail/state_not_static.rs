// Application state is registered once and shared by every request: a `State<T>` whose
// `T` borrows is an error at the borrow, with the owned alternatives.
use mcp::State;

/// Look a name up.
#[mcp::tool]
fn lookup(names: State<&str>, id: u32) -> String {
    format!("{id}: {}", *names)
}

struct Index<'a> {
    names: &'a [String],
}

/// Look a name up in a borrowed index.
#[mcp::prompt]
fn describe(index: mcp::State<Index<'_>>, id: u32) -> String {
    index.names.get(id as usize).cloned().unwrap_or_default()
}

fn main() {}
