//! The fixture's resources and resource template.

use mcp::protocol::{
    BlobResourceContents, ListResourceTemplatesResult, ListResourcesResult, PaginatedParams, ReadResourceOutcome,
    ReadResourceParams, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, TextResourceContents,
};
use mcp::{Error, RequestContext};
use serde_json::json;

use crate::tools::PNG;

pub async fn list(_ctx: RequestContext, _params: PaginatedParams) -> Result<ListResourcesResult, Error> {
    let resource = |uri: &str, name: &str, mime: &str| Resource {
        uri: uri.into(),
        name: name.into(),
        description: Some(format!("The {name} fixture.")),
        mime_type: Some(mime.into()),
        ..Default::default()
    };
    Ok(ListResourcesResult {
        resources: vec![
            resource("test://static-text", "static-text", "text/plain"),
            resource("test://static-binary", "static-binary", "image/png"),
            resource("test://watched-resource", "watched-resource", "text/plain"),
        ],
        ..Default::default()
    })
}

pub async fn templates(_ctx: RequestContext, _params: PaginatedParams) -> Result<ListResourceTemplatesResult, Error> {
    Ok(ListResourceTemplatesResult {
        resource_templates: vec![ResourceTemplate {
            uri_template: "test://template/{id}/data".into(),
            name: "template".into(),
            description: Some("JSON data for an id.".into()),
            mime_type: Some("application/json".into()),
            ..Default::default()
        }],
        ..Default::default()
    })
}

fn text(uri: &str, mime: &str, text: String) -> ResourceContents {
    ResourceContents::Text(TextResourceContents { uri: uri.into(), mime_type: Some(mime.into()), text, meta: None })
}

pub async fn read(_ctx: RequestContext, params: ReadResourceParams) -> Result<ReadResourceOutcome, Error> {
    let uri = params.uri.as_str();
    let contents = match uri {
        "test://static-text" => text(uri, "text/plain", "This is the content of the static text resource.".into()),
        "test://watched-resource" => text(uri, "text/plain", "Watched resource content".into()),
        "test://static-binary" => ResourceContents::Blob(BlobResourceContents {
            uri: uri.into(),
            mime_type: Some("image/png".into()),
            blob: PNG.into(),
            meta: None,
        }),
        _ => match uri.strip_prefix("test://template/").and_then(|rest| rest.strip_suffix("/data")) {
            Some(id) if !id.is_empty() && !id.contains('/') => {
                let data = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                text(uri, "application/json", data.to_string())
            }
            _ => return Err(Error::resource_not_found(uri)),
        },
    };
    Ok(ReadResourceResult::new(vec![contents]).into())
}
