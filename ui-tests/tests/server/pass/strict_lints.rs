//! Generated code is warning-clean under strict lints: every user item is documented,
//! and nothing the macros add trips `missing_docs`, `unused` or the style lints.
#![deny(warnings, missing_docs, unused, nonstandard_style, rust_2018_idioms, future_incompatible)]
#![deny(unreachable_pub, unused_qualifications, trivial_casts, unused_results, clippy::all, clippy::pedantic)]
#![forbid(unsafe_code)]

use mcp::protocol::{CallToolOutcome, CallToolResult, InputRequiredResult, PromptMessage};
use mcp::{Context, Json, Resolve, Server};

/// The caller's name.
#[mcp::resolver]
pub fn caller(ctx: &Context) -> Result<String, String> {
    ctx.request_state().map(str::to_owned).ok_or_else(|| "who are you?".to_owned())
}

/// A point.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Point {
    /// Horizontal.
    pub x: f64,
    /// Vertical.
    pub y: f64,
}

/// Add two numbers.
#[mcp::tool(annotations(read_only, idempotent))]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Mirror a point.
#[mcp::tool(title = "Mirror")]
pub async fn mirror(point: Point, #[mcp(default = 1.0)] scale: f64) -> Json<Point> {
    Json(Point { x: -point.x * scale, y: -point.y * scale })
}

/// Greet the caller.
#[mcp::tool]
pub fn greet(caller: Resolve<caller>, suffix: Option<String>) -> Result<String, String> {
    Ok(format!("Hello, {}{}", caller.into_inner(), suffix.unwrap_or_default()))
}

/// Ask first.
#[mcp::tool(output_schema = false)]
pub async fn ask(ctx: Context) -> CallToolOutcome {
    match ctx.request_state() {
        Some(state) => CallToolResult::text(state).into(),
        None => InputRequiredResult::state_only("asked").into(),
    }
}

/// Nothing in, nothing out.
#[mcp::tool]
pub fn noop() {}

/// Unused parameters, named `_x` as usual.
#[mcp::tool]
pub fn ignore(_caller: Resolve<caller>, _ctx: Context, _note: Option<String>) -> &'static str {
    "ignored"
}

/// A review prompt.
#[mcp::prompt(title = "Review")]
pub fn review(
    /// The code.
    code: String,
    /// How strict.
    strictness: Option<u8>,
) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("{code} {}", strictness.unwrap_or(3)))]
}

/// A prompt that asks.
#[mcp::prompt]
pub async fn interview(ctx: Context) -> Result<InputRequiredResult, mcp::Error> {
    Ok(InputRequiredResult::state_only(ctx.request_state().unwrap_or("start").to_owned()))
}

/// The readme.
#[mcp::resource("file:///readme.md", mime_type = "text/markdown")]
#[must_use]
pub fn readme() -> &'static str {
    "# Hello"
}

/// A row.
#[mcp::resource("db://{table}/rows/{id}")]
pub async fn row(table: String, id: u32) -> Result<Vec<u8>, String> {
    Ok(format!("{table}/{id}").into_bytes())
}

/// A secret.
#[mcp::resource("vault://{name}")]
pub fn secret(name: String, ctx: Context) -> InputRequiredResult {
    InputRequiredResult::state_only(format!("{name} {:?}", ctx.request_state()))
}

/// The server.
#[must_use]
pub fn server() -> Server {
    Server::builder("strict", "1.0.0")
        .tool::<add>()
        .tool::<mirror>()
        .tool::<greet>()
        .tool::<ask>()
        .tool::<noop>()
        .tool::<ignore>()
        .prompt::<review>()
        .prompt::<interview>()
        .resource::<readme>()
        .resource::<row>()
        .resource::<secret>()
        .build()
}

fn main() {
    let _server = server();
    assert_eq!(add(1, 2), 3);
    assert_eq!(readme(), "# Hello");
}
