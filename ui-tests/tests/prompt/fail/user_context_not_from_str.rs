// A user's own `Context` is a prompt argument, so it must be `FromStr` like any other;
// the error is the prompt argument's, at its type.
struct Context {
    turns: u32,
}

#[mcp::prompt]
fn summarise(context: Context) -> String {
    format!("{} turns", context.turns)
}

fn main() {}
