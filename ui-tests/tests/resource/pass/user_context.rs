// A user's own type named `Context` may be a URI template variable (parsed from its
// string), decided by its type, not its name; the request context, spelled
// `mcp::Context` or imported by name, is not a variable.
use std::str::FromStr;

use mcp::items::{ResourceDef, ResourceKind};

/// A project, named in the URI.
struct Context {
    project: String,
}

impl FromStr for Context {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Context { project: s.to_owned() })
    }
}

/// The history of a project.
#[mcp::resource("history://{context}")]
fn history(context: Context, ctx: mcp::Context) -> String {
    format!("{} at {}", context.project, ctx.is_legacy())
}

/// A renamed user `Context`.
#[mcp::resource("board://{project}/cards")]
fn board(#[mcp(rename = "project")] context: Context) -> String {
    context.project
}

mod imported {
    use mcp::Context;

    /// A note, with the request context imported by name.
    #[mcp::resource("notes://{id}")]
    pub fn note(id: u32, ctx: Context) -> String {
        format!("{id} {:?}", ctx.request_state())
    }
}

fn main() {
    let ResourceKind::Template(history) = <history as ResourceDef>::definition() else { panic!("template") };
    assert_eq!(history.uri_template, "history://{context}");
    assert_eq!(<board as ResourceDef>::URI, "board://{project}/cards");
    assert!(matches!(<imported::note as ResourceDef>::definition(), ResourceKind::Template(_)));
}
