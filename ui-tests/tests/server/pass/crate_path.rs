// `crate = "path"` on every macro: generated code reaches the runtime through a
// re-export, here `crate::reexport::m`. (That no `::mcp` path remains in the expansion
// is checked by mcp-macros' unit tests: trybuild always has `mcp` in the extern prelude.)
pub mod reexport {
    pub use ::mcp as m;
}

mod user {
    use crate::reexport::m;

    /// A form.
    #[derive(serde::Deserialize, m::ElicitForm)]
    #[mcp(crate = "crate::reexport::m")]
    pub struct Answer {
        pub ok: bool,
    }

    /// Ask.
    #[m::resolver(crate = "crate::reexport::m")]
    pub fn ask() -> m::resolve::Elicit<Answer> {
        m::resolve::Elicit::new("Sure?")
    }

    /// Add two numbers.
    #[m::tool(crate = "crate::reexport::m", annotations(read_only), icons = ["https://example.com/i.png"])]
    pub fn add(a: i64, b: i64, _ctx: m::Context, sure: m::Resolve<ask>) -> String {
        format!("{} {}", a + b, sure.ok)
    }

    /// Greet.
    #[m::prompt(crate = "crate::reexport::m")]
    pub fn greet(name: String) -> String {
        format!("Hello, {name}")
    }

    /// A note.
    #[m::resource("notes://{id}", crate = "crate::reexport::m", mime_type = "text/plain")]
    pub fn note(id: u32) -> String {
        format!("note {id}")
    }
}

fn main() {
    use reexport::m::items::ToolDef;
    let tool = <user::add as ToolDef>::definition();
    assert_eq!(tool.annotations.and_then(|a| a.read_only_hint), Some(true));
    assert_eq!(tool.icons.map(|i| i.len()), Some(1));
    let _server = reexport::m::Server::builder("s", "1")
        .tool::<user::add>()
        .prompt::<user::greet>()
        .resource::<user::note>()
        .build();
}
