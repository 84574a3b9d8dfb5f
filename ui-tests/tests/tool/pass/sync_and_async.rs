// Both sync and async functions become tools, and stay ordinary functions.
use mcp::items::ToolDef;

/// Add two numbers.
#[mcp::tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Echo the text back.
#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

/// No arguments at all.
#[mcp::tool]
fn ping() -> &'static str {
    "pong"
}

fn main() {
    assert_eq!(add(2, 3), 5);
    let _future = echo("hi".to_owned());
    assert_eq!(ping(), "pong");

    assert_eq!(<add as ToolDef>::NAME, "add");
    let def = <echo as ToolDef>::definition();
    assert_eq!(def.name, "echo");
    assert_eq!(def.description.as_deref(), Some("Echo the text back."));
    assert_eq!(def.input_schema["required"], mcp::serde_json::json!(["text"]));
    let ping_schema = <ping as ToolDef>::definition().input_schema;
    assert_eq!(
        mcp::serde_json::Value::Object(ping_schema),
        mcp::serde_json::json!({"type": "object", "properties": {}})
    );
}
