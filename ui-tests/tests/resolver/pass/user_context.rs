// A resolver parameter whose type is a user's own `Context` is the tool's argument of that
// name (by value or by reference), decided by its type, not its name; `mcp::Context`,
// spelled in full or imported, is still the request context. A user's own `Outcome` is
// an ordinary value to return.
use mcp::Resolve;
use mcp::items::ToolDef;

/// Where the search starts.
#[derive(Clone, serde::Deserialize, schemars::JsonSchema)]
struct Context {
    depth: u32,
}

/// How deep to search, from the tool's `context` argument.
#[mcp::resolver]
fn depth(context: Context) -> u32 {
    context.depth
}

/// A verdict of the user's own.
#[derive(Clone)]
struct Outcome {
    deep: bool,
}

/// Whether the search is deep, as a user `Outcome`.
#[mcp::resolver]
fn verdict(context: &Context) -> Outcome {
    Outcome { deep: context.depth > 3 }
}

/// Twice as deep, reading the argument by reference next to the request context.
#[mcp::resolver]
fn doubled(context: &Context, ctx: mcp::Context) -> u32 {
    let _ = ctx.request_state();
    context.depth * 2
}

/// A renamed argument of a user `Context` type is not allowed (see `bad_params`), but the
/// request context imported by name still is.
mod imported {
    use mcp::Context;

    /// Whether the caller is a legacy client.
    #[mcp::resolver]
    pub fn legacy(ctx: Context, lent: &Context) -> bool {
        ctx.is_legacy() && lent.is_legacy()
    }
}

/// Search with a user context, its resolvers reading it by name.
#[mcp::tool]
fn search(
    context: Context,
    depth: Resolve<depth>,
    doubled: Resolve<doubled>,
    legacy: Resolve<imported::legacy>,
    verdict: Resolve<verdict>,
) -> String {
    format!("{} {} {} {} {}", context.depth, *depth, *doubled, *legacy, verdict.deep)
}

fn main() {
    let tool = <search as ToolDef>::definition();
    let properties = tool.input_schema["properties"].as_object().expect("properties");
    assert!(properties.contains_key("context"), "a user `Context` is an argument");
    assert_eq!(properties.len(), 1);
}
