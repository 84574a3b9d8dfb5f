// Every completer shape: sync or async, `&str` or `String`, with a `Context` and/or the
// filled-in arguments in either order, returning values, a `Completion` or a `Result`.
use mcp::Context;
use mcp::items::completion::CompletionArguments;
use mcp::protocol::{CompleteResult, Completion};

mod values {
    pub fn languages(typed: &str) -> Vec<&'static str> {
        ["rust", "ruby"].into_iter().filter(|l| l.starts_with(typed)).collect()
    }
}

fn owned(typed: String) -> Vec<String> {
    vec![typed]
}

fn with_context(typed: &str, ctx: Context) -> Completion {
    let _ = ctx;
    Completion { values: vec![typed.to_owned()], total: Some(1), has_more: Some(false) }
}

fn with_filled(typed: &str, filled: CompletionArguments) -> Result<Vec<String>, mcp::Error> {
    Ok(filled.get("language").map(|l| vec![format!("{l}:{typed}")]).unwrap_or_default())
}

async fn async_both(typed: String, filled: CompletionArguments, ctx: Context) -> CompleteResult {
    let _ = (filled, ctx);
    CompleteResult::new(vec![typed])
}

async fn async_plain(typed: String) -> Result<Completion, mcp::Error> {
    Ok(Completion { values: vec![typed], ..Default::default() })
}

/// Every shape.
#[mcp::prompt]
fn shapes(
    #[mcp(complete = values::languages)] language: String,
    #[mcp(complete = owned)] a: String,
    #[mcp(complete = with_context)] b: Option<String>,
    #[mcp(complete = with_filled)] c: String,
    #[mcp(complete = async_both, rename = "d")] d_value: String,
    #[mcp(complete = async_plain)] e: u32,
    ctx: Context,
) -> String {
    let _ = ctx;
    format!("{language}{a}{b:?}{c}{d_value}{e}")
}

/// A template variable.
#[mcp::resource("langs://{language}/{version}")]
fn lang(#[mcp(complete = values::languages)] language: String, version: String, ctx: Context) -> String {
    let _ = ctx;
    format!("{language} {version}")
}

fn main() {
    let server = mcp::Server::builder("s", "1.0.0").prompt::<shapes>().resource::<lang>().build();
    assert!(server.capabilities().completions.is_some());
}
