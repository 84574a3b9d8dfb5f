// Any `Deserialize + JsonSchema` type can be a parameter; its schema lands in `$defs`.
use std::collections::BTreeMap;

use mcp::items::ToolDef;

/// A color.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
}

/// A rectangle.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Rect {
    width: u32,
    height: u32,
    color: Option<Color>,
}

/// Draw shapes.
#[mcp::tool]
fn draw(
    shapes: Vec<Rect>,
    labels: BTreeMap<String, String>,
    scale: f32,
    origin: (i32, i32),
    background: Option<Color>,
    raw: mcp::serde_json::Value,
) -> String {
    let area: u32 = shapes.iter().map(|r| r.width * r.height).sum();
    let red = matches!(background, Some(Color::Red)) || shapes.iter().any(|r| matches!(r.color, Some(Color::Green)));
    format!("{area} {} {scale} {origin:?} {red} {raw}", labels.len())
}

fn main() {
    let schema = <draw as ToolDef>::definition().input_schema;
    assert!(schema["$defs"]["Rect"].is_object(), "{schema:?}");
    assert!(schema["$defs"]["Color"].is_object(), "{schema:?}");
    assert_eq!(schema["properties"]["scale"]["type"], "number");
}
