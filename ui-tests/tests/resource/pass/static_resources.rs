// Static resources (no parameters) with every kind of return value.
use mcp::Blob;
use mcp::items::{ResourceDef, ResourceKind};
use mcp::protocol::{ReadResourceResult, ResourceContents};

/// The readme.
#[mcp::resource("file:///readme.md", mime_type = "text/markdown")]
fn readme() -> String {
    "# Hello".to_owned()
}

/// Static text.
#[mcp::resource("file:///version")]
fn version() -> &'static str {
    "1.0.0"
}

/// Raw bytes.
#[mcp::resource("file:///logo.png", mime_type = "image/png")]
async fn logo() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G']
}

/// Bytes, explicitly binary.
#[mcp::resource("file:///data.bin")]
fn data() -> Blob {
    Blob(vec![1, 2, 3])
}

/// May fail.
#[mcp::resource("file:///config.toml")]
fn config() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("not found"))
}

/// Fails with a JSON-RPC error.
#[mcp::resource("file:///secret")]
fn secret() -> Result<Blob, mcp::Error> {
    Err(mcp::Error::invalid_params("no access"))
}

/// Full contents.
#[mcp::resource("file:///both")]
fn both() -> ReadResourceResult {
    ReadResourceResult::new(vec![
        ResourceContents::text("file:///both", "a"),
        ResourceContents::text("file:///both#2", "b"),
    ])
}

/// Every key.
#[mcp::resource(
    "file:///about",
    name = "about",
    title = "About",
    description = "What this server is.",
    mime_type = "text/plain",
    icons = ["https://example.com/about.png"],
    meta = r#"{"audience": "humans"}"#,
)]
fn about_page() -> String {
    "about".to_owned()
}

fn main() {
    let ResourceKind::Static(readme) = <readme as ResourceDef>::definition() else { panic!("static") };
    assert_eq!(readme.uri, "file:///readme.md");
    assert_eq!(readme.mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(readme.description.as_deref(), Some("The readme."));
    let ResourceKind::Static(about) = <about_page as ResourceDef>::definition() else { panic!("static") };
    assert_eq!((about.name.as_str(), about.title.as_deref()), ("about", Some("About")));
    assert_eq!(about.meta.expect("meta")["audience"], "humans");
    for kind in [
        <version as ResourceDef>::definition(),
        <logo as ResourceDef>::definition(),
        <data as ResourceDef>::definition(),
        <config as ResourceDef>::definition(),
        <secret as ResourceDef>::definition(),
        <both as ResourceDef>::definition(),
    ] {
        assert!(matches!(kind, ResourceKind::Static(_)));
    }
}
