// `scopes = [...]` on each item kind: the companion carries them, the server collects them.
use mcp::items::{PromptDef, ResourceDef, ToolDef};

#[mcp::tool(scopes = ["db:write", "https://api.example.com/db.admin", "!#[]~"])]
fn provision(name: String) -> String {
    name
}

#[mcp::tool]
fn open() -> String {
    String::new()
}

#[mcp::prompt(scopes = ["db:read"])]
fn briefing() -> String {
    String::new()
}

#[mcp::resource("db://{name}/config", scopes = ["db:read"])]
fn config(name: String) -> String {
    name
}

fn main() {
    assert_eq!(<provision as ToolDef>::SCOPES, ["db:write", "https://api.example.com/db.admin", "!#[]~"]);
    assert!(<open as ToolDef>::SCOPES.is_empty());
    assert_eq!(<briefing as PromptDef>::SCOPES, ["db:read"]);
    assert_eq!(<config as ResourceDef>::SCOPES, ["db:read"]);
    let server = mcp::Server::builder("s", "1.0.0")
        .tool::<provision>()
        .tool::<open>()
        .prompt::<briefing>()
        .resource::<config>()
        .build();
    assert_eq!(server.declared_scopes(), ["!#[]~", "db:read", "db:write", "https://api.example.com/db.admin"]);
}
