// Parameter doc comments and `#[mcp(rename = "...", description = "...")]`.
use mcp::items::ToolDef;
use mcp::serde_json::json;

/// Find a user.
///
/// Looks the user up by name.
#[mcp::tool]
fn find_user(
    /// The user's login name.
    login: String,
    /// Ignored: the attribute's description wins.
    #[mcp(description = "Include disabled accounts.")]
    include_disabled: Option<bool>,
    #[mcp(rename = "maxResults", description = "At most this many.")] max_results: Option<u32>,
    /// A raw identifier's name has no `r#`.
    r#type: Option<String>,
) -> String {
    format!("{login} {include_disabled:?} {max_results:?} {type:?}", type = r#type)
}

fn main() {
    let def = <find_user as ToolDef>::definition();
    assert_eq!(def.description.as_deref(), Some("Find a user.\n\nLooks the user up by name."));
    let props = &def.input_schema["properties"];
    assert_eq!(props["login"]["description"], "The user's login name.");
    assert_eq!(props["include_disabled"]["description"], "Include disabled accounts.");
    assert_eq!(props["maxResults"]["description"], "At most this many.");
    assert!(props.get("max_results").is_none());
    assert!(props["type"].is_object());
    assert_eq!(def.input_schema["required"], json!(["login"]));
}
