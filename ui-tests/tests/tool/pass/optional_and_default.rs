// `Option<T>` parameters and `#[mcp(default = ...)]` ones are not required.
use mcp::items::ToolDef;
use mcp::serde_json::json;

/// Search.
#[mcp::tool]
fn search(
    query: String,
    language: Option<String>,
    #[mcp(default = 10)] limit: u32,
    #[mcp(default = String::from("relevance"))] order: String,
    #[mcp(default = vec![1, 2])] pages: Vec<u8>,
) -> String {
    format!("{query} {language:?} {limit} {order} {pages:?}")
}

fn main() {
    let schema = <search as ToolDef>::definition().input_schema;
    assert_eq!(schema["required"], json!(["query"]));
    assert_eq!(schema["properties"]["limit"]["default"], json!(10));
    assert_eq!(schema["properties"]["order"]["default"], json!("relevance"));
    assert_eq!(schema["properties"]["pages"]["default"], json!([1, 2]));
    assert!(schema["properties"]["language"].is_object());
    assert_eq!(search("q".into(), None, 1, "new".into(), vec![]), "q None 1 new []");
}
