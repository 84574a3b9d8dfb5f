// Every kind of return value a tool may have.
use mcp::items::ToolDef;
use mcp::protocol::{CallToolOutcome, CallToolResult, ContentBlock, InputRequiredResult};
use mcp::{Context, Json};

/// A point on the plane.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// Text.
#[mcp::tool]
fn owned_text() -> String {
    "text".to_owned()
}

/// Static text.
#[mcp::tool]
fn static_text() -> &'static str {
    "text"
}

/// Nothing: an empty result.
#[mcp::tool]
fn nothing() {}

/// Explicit unit.
#[mcp::tool]
fn unit() -> () {}

/// A full result.
#[mcp::tool]
fn full() -> CallToolResult {
    CallToolResult::text("full")
}

/// One block.
#[mcp::tool]
fn block() -> ContentBlock {
    ContentBlock::text("one")
}

/// Several blocks.
#[mcp::tool]
fn blocks() -> Vec<ContentBlock> {
    vec![ContentBlock::text("one"), ContentBlock::text("two")]
}

/// Structured output from a `Serialize + JsonSchema` type.
#[mcp::tool]
fn point() -> Point {
    Point { x: 1.0, y: 2.0 }
}

/// A non-object structured value (wrapped as `{"result": ...}`).
#[mcp::tool]
fn numbers() -> Vec<u32> {
    vec![1, 2, 3]
}

/// Explicitly structured.
#[mcp::tool]
fn json() -> Json<Point> {
    Json(Point { x: 0.0, y: 0.0 })
}

/// A fallible tool: `Err` becomes an `isError` result.
#[mcp::tool]
fn fallible(fail: bool) -> Result<Point, String> {
    if fail { Err("failed".to_owned()) } else { Ok(Point { x: 0.0, y: 0.0 }) }
}

/// Fallible text.
#[mcp::tool]
async fn fallible_text(fail: bool) -> Result<String, std::io::Error> {
    if fail { Err(std::io::Error::other("failed")) } else { Ok("ok".to_owned()) }
}

/// Always asks (no `Resolve` parameters, so the tool may ask itself).
#[mcp::tool]
fn ask(ctx: Context) -> InputRequiredResult {
    InputRequiredResult::state_only(ctx.request_state().unwrap_or("first").to_owned())
}

/// Asks, or answers.
#[mcp::tool]
async fn ask_or_answer(ctx: Context) -> CallToolOutcome {
    match ctx.request_state() {
        Some(state) => CallToolResult::text(state).into(),
        None => InputRequiredResult::state_only("asked").into(),
    }
}

/// Asks, answers, or fails.
#[mcp::tool]
fn maybe_ask(ctx: Context) -> Result<InputRequiredResult, String> {
    ctx.request_state().map(InputRequiredResult::state_only).ok_or_else(|| "no state".to_owned())
}

fn output_schema<T: ToolDef>() -> Option<mcp::protocol::JsonObject> {
    T::definition().output_schema
}

fn main() {
    for schema in [
        output_schema::<owned_text>(),
        output_schema::<static_text>(),
        output_schema::<nothing>(),
        output_schema::<unit>(),
        output_schema::<full>(),
        output_schema::<block>(),
        output_schema::<blocks>(),
        output_schema::<ask>(),
        output_schema::<ask_or_answer>(),
        output_schema::<maybe_ask>(),
        output_schema::<fallible_text>(),
    ] {
        assert!(schema.is_none(), "unstructured results have no output schema");
    }
    for schema in [output_schema::<point>(), output_schema::<json>(), output_schema::<fallible>()] {
        let schema = schema.expect("structured results have an output schema");
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["x"]["type"], "number");
    }
    let wrapped = output_schema::<numbers>().expect("structured");
    assert_eq!(wrapped["properties"]["result"]["type"], "array");
    assert_eq!(static_text(), "text");
}
