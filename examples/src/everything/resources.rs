//! The fixture's resources and resource template.

use mcp::Blob;
use serde_json::json;

use super::tools::PNG;

/// The static-text fixture.
#[mcp::resource("test://static-text", name = "static-text", mime_type = "text/plain")]
pub fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// The static-binary fixture.
#[mcp::resource("test://static-binary", name = "static-binary", mime_type = "image/png")]
pub fn static_binary() -> Result<Blob, String> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(PNG).map(Blob).map_err(|e| e.to_string())
}

/// The watched-resource fixture.
#[mcp::resource("test://watched-resource", name = "watched-resource", mime_type = "text/plain")]
pub fn watched_resource() -> &'static str {
    "Watched resource content"
}

/// JSON data for an id.
#[mcp::resource("test://template/{id}/data", name = "template", mime_type = "application/json")]
pub fn template_data(
    /// The record's id.
    id: String,
) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}
