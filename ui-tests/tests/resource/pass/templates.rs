// Resource templates: variables are parameters (any `FromStr` type), `{+var}` spans
// slashes, and a template may take a `Context` and ask the client for input.
use mcp::Context;
use mcp::items::{ResourceDef, ResourceKind};
use mcp::protocol::{InputRequiredResult, ReadResourceOutcome, ReadResourceResult, ResourceContents};

/// A row of a table.
#[mcp::resource("db://{table}/rows/{id}", mime_type = "application/json")]
async fn row(table: String, id: u32) -> Result<String, String> {
    if id == 0 { Err("no row 0".to_owned()) } else { Ok(format!("{{\"table\": \"{table}\", \"id\": {id}}}")) }
}

/// A file under the root.
#[mcp::resource("files:///{+path}")]
fn file(path: String) -> Vec<u8> {
    path.into_bytes()
}

/// A renamed variable.
#[mcp::resource("users://{userId}")]
fn user(#[mcp(rename = "userId")] user_id: u64) -> mcp::Blob {
    mcp::Blob(user_id.to_be_bytes().to_vec())
}

/// A secret: asks for a password first.
#[mcp::resource("vault://{name}")]
async fn secret(name: String, ctx: Context) -> InputRequiredResult {
    InputRequiredResult::state_only(format!("{name}:{}", ctx.request_state().unwrap_or("")))
}

/// Asks or answers.
#[mcp::resource("vault2://{name}")]
fn secret_or_contents(ctx: Context, name: String) -> ReadResourceOutcome {
    match ctx.request_state() {
        Some(_) => ReadResourceResult::new(vec![ResourceContents::text(format!("vault2://{name}"), "s3cret")]).into(),
        None => InputRequiredResult::state_only("password?").into(),
    }
}

/// Fails, or asks.
#[mcp::resource("vault3://{name}")]
fn maybe_secret(ctx: Context, name: String) -> Result<InputRequiredResult, mcp::Error> {
    ctx.request_state().map(|_| InputRequiredResult::state_only(name)).ok_or_else(|| mcp::Error::invalid_params("no"))
}

fn main() {
    let ResourceKind::Template(row) = <row as ResourceDef>::definition() else { panic!("template") };
    assert_eq!(row.uri_template, "db://{table}/rows/{id}");
    assert_eq!(row.mime_type.as_deref(), Some("application/json"));
    assert_eq!(<file as ResourceDef>::URI, "files:///{+path}");
    for kind in [
        <user as ResourceDef>::definition(),
        <secret as ResourceDef>::definition(),
        <secret_or_contents as ResourceDef>::definition(),
        <maybe_secret as ResourceDef>::definition(),
    ] {
        assert!(matches!(kind, ResourceKind::Template(_)));
    }
    assert_eq!(file("a/b".to_owned()), b"a/b");
}
