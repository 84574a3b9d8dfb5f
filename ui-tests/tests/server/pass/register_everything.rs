// Every kind of item registers with one line, and the server lists them all.
use mcp::protocol::{InputRequiredResult, PromptMessage};
use mcp::{Context, Resolve, Server};

/// The caller.
#[mcp::resolver]
fn caller() -> String {
    "ada".to_owned()
}

/// A sum.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    value: i64,
}

/// Add two numbers.
#[mcp::tool(annotations(read_only))]
fn add(a: i64, b: i64) -> Sum {
    Sum { value: a + b }
}

/// Greet the caller.
#[mcp::tool(name = "greet")]
async fn greet_caller(caller: Resolve<caller>, #[mcp(default = false)] loud: bool) -> String {
    if loud { caller.to_uppercase() } else { caller.into_inner() }
}

/// Ask for confirmation.
#[mcp::tool]
fn confirm(ctx: Context) -> InputRequiredResult {
    InputRequiredResult::state_only(ctx.request_state().unwrap_or("0").to_owned())
}

/// Review some code.
#[mcp::prompt]
fn review(code: String, strictness: Option<u8>) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("Review ({strictness:?}): {code}"))]
}

/// A greeting prompt.
#[mcp::prompt(name = "hello")]
fn hello_prompt() -> &'static str {
    "Say hello"
}

/// The readme.
#[mcp::resource("file:///readme.md", mime_type = "text/markdown")]
fn readme() -> String {
    "# Hello".to_owned()
}

/// A row.
#[mcp::resource("db://{table}/rows/{id}")]
async fn row(table: String, id: u32, ctx: Context) -> Result<String, mcp::Error> {
    Ok(format!("{table}/{id} {:?}", ctx.request_state()))
}

fn main() {
    let server = Server::builder("everything", "1.0.0")
        .tool::<add>()
        .tool::<greet_caller>()
        .tool::<confirm>()
        .prompt::<review>()
        .prompt::<hello_prompt>()
        .resource::<readme>()
        .resource::<row>()
        .try_build()
        .unwrap_or_else(|e| panic!("{e}"));
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap_or_else(|e| panic!("{e}"));
    let text = runtime.block_on(server.describe_markdown());
    assert!(text.contains("## Tools (3)") && text.contains("### `greet`"), "{text}");
    assert!(text.contains("## Prompts (2)") && text.contains("### `hello`"), "{text}");
    assert!(text.contains("## Resources (1)") && text.contains("## Resource templates (1)"), "{text}");
}
