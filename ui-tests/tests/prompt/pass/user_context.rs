// A user's own type named `Context` is a prompt argument (parsed from its string), decided
// by its type, not its name; the request context, spelled `mcp::Context` or imported by
// name, is not an argument.
use std::str::FromStr;

use mcp::items::PromptDef;

/// How much of the conversation to include.
struct Context {
    turns: u32,
}

impl FromStr for Context {
    type Err = std::num::ParseIntError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Context { turns: s.parse()? })
    }
}

/// Summarise the last turns.
#[mcp::prompt]
fn summarise(
    /// How many turns to include.
    context: Context,
    ctx: mcp::Context,
) -> String {
    format!("summarise {} turns of {}", context.turns, ctx.is_legacy())
}

/// A renamed user `Context`.
#[mcp::prompt]
fn renamed(#[mcp(rename = "window")] context: Context) -> String {
    format!("{} turns", context.turns)
}

mod imported {
    use mcp::Context;

    /// Greet someone, with the request context imported by name.
    #[mcp::prompt]
    pub fn greet(name: String, ctx: Context) -> String {
        format!("hello {name} ({})", ctx.is_legacy())
    }
}

fn main() {
    let summarise = <summarise as PromptDef>::definition();
    let arguments = summarise.arguments.expect("arguments");
    assert_eq!(arguments.len(), 1, "`mcp::Context` is not an argument");
    assert_eq!(arguments[0].name, "context");
    assert_eq!(arguments[0].description.as_deref(), Some("How many turns to include."));
    assert_eq!(arguments[0].required, Some(true));

    let renamed = <renamed as PromptDef>::definition();
    assert_eq!(renamed.arguments.expect("arguments")[0].name, "window");

    let greet = <imported::greet as PromptDef>::definition();
    let names: Vec<_> = greet.arguments.expect("arguments").into_iter().map(|a| a.name).collect();
    assert_eq!(names, ["name"], "an imported `mcp::Context` is not an argument");
}
