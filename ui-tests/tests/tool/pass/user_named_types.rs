// A user's own types named `Context` and `Outcome` are ordinary arguments (and a user
// `Outcome` may be returned next to `Resolve` parameters): roles come from the type, not
// from its name. `mcp::Context` in the same tool is still the request context.
use mcp::Resolve;
use mcp::items::ToolDef;

/// Where the search starts.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Context {
    depth: u32,
}

/// What the caller expects.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Outcome {
    ok: bool,
}

/// The caller's name.
#[mcp::resolver]
fn caller() -> String {
    "ada".to_owned()
}

/// Search with a user context.
#[mcp::tool]
fn search(context: Context, expected: Outcome, ctx: mcp::Context) -> String {
    let _ = ctx;
    format!("{} {}", context.depth, expected.ok)
}

/// Return a user outcome while resolving a dependency.
#[mcp::tool]
fn judge(expected: Outcome, who: Resolve<caller>) -> Outcome {
    Outcome { ok: expected.ok && !who.is_empty() }
}

fn main() {
    let tool = <search as ToolDef>::definition();
    let properties = tool.input_schema["properties"].as_object().expect("properties");
    assert!(properties.contains_key("context"), "a user `Context` is an argument");
    assert!(properties.contains_key("expected"), "a user `Outcome` is an argument");
    assert!(!properties.contains_key("ctx"), "`mcp::Context` is not an argument");
    assert_eq!(tool.input_schema["required"], mcp::serde_json::json!(["context", "expected"]));

    let judge = <judge as ToolDef>::definition();
    assert!(judge.input_schema["properties"].as_object().expect("properties").contains_key("expected"));
    assert!(judge.output_schema.is_some());
}
