// A parameter spelled `Context` that names no URI variable must be the request context;
// a user's own type of that name here is an error at its type.
use std::str::FromStr;

struct Context {
    project: String,
}

impl FromStr for Context {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Context { project: s.to_owned() })
    }
}

#[mcp::resource("history://{id}")]
fn history(id: u32, context: Context) -> String {
    format!("{id} {}", context.project)
}

fn main() {}
