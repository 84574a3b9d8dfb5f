// Every key `#[mcp::tool]` accepts.
use mcp::items::ToolDef;

/// This doc comment is replaced by `description`.
#[mcp::tool(
    name = "files.delete",
    title = "Delete a file",
    description = "Delete one file.",
    annotations(title = "Delete", read_only = false, destructive, idempotent = true, open_world = false),
    icons = ["https://example.com/delete.png", "https://example.com/delete.svg"],
    meta = r#"{"team": "storage", "cost": 2}"#,
    output_schema = false,
)]
fn delete_file(path: String) -> Result<mcp::Json<u64>, String> {
    Ok(mcp::Json(path.len() as u64))
}

/// Only some annotations.
#[mcp::tool(annotations(read_only))]
fn look() -> String {
    String::new()
}

fn main() {
    let def = <delete_file as ToolDef>::definition();
    assert_eq!(<delete_file as ToolDef>::NAME, "files.delete");
    assert_eq!(def.name, "files.delete");
    assert_eq!(def.title.as_deref(), Some("Delete a file"));
    assert_eq!(def.description.as_deref(), Some("Delete one file."));
    let annotations = def.annotations.expect("annotations");
    assert_eq!(annotations.title.as_deref(), Some("Delete"));
    assert_eq!(annotations.read_only_hint, Some(false));
    assert_eq!(annotations.destructive_hint, Some(true));
    assert_eq!(annotations.idempotent_hint, Some(true));
    assert_eq!(annotations.open_world_hint, Some(false));
    let icons = def.icons.expect("icons");
    assert_eq!(icons.len(), 2);
    assert_eq!(icons[0].src, "https://example.com/delete.png");
    let meta = def.meta.expect("meta");
    assert_eq!(meta["team"], "storage");
    assert!(def.output_schema.is_none(), "output_schema = false");

    let look = <look as ToolDef>::definition().annotations.expect("annotations");
    assert_eq!((look.read_only_hint, look.destructive_hint), (Some(true), None));
}
