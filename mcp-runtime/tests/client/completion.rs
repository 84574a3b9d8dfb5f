//! `Client::complete` against a server whose prompt and template complete their
//! arguments, in process and over HTTP, in both eras.

use mcp::items::completion::CompletionArguments;
use mcp::protocol::CompletionReference;

use super::*;

fn colours(typed: &str) -> Vec<&'static str> {
    ["red", "rose", "blue"].into_iter().filter(|c| c.starts_with(typed)).collect()
}

/// Shades of the colour filled in already; the era is reported, to see it arrive.
async fn shades(typed: String, ctx: mcp::Context, filled: CompletionArguments) -> Vec<String> {
    let colour = filled.get("colour").unwrap_or("none");
    vec![format!("{colour}/{typed}"), ctx.protocol_version().to_owned()]
}

/// Paint something.
#[mcp::prompt]
fn paint(#[mcp(complete = colours)] colour: String, #[mcp(complete = shades)] shade: String) -> String {
    format!("{colour} {shade}")
}

/// A pot of paint.
#[mcp::resource("paint://{colour}")]
fn pot(#[mcp(complete = colours)] colour: String) -> String {
    colour
}

#[tokio::test]
async fn complete_asks_for_values_in_both_eras_and_both_ways() {
    let server = Server::builder("paints", "1.0.0").prompt::<paint>().resource::<pot>().build();
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let client = connect(via, Client::builder().mode(mode.clone()), &server).await;
            let version = client.protocol_version().to_owned();
            assert!(client.server_capabilities().completions.is_some(), "{via:?} {mode:?}");

            let prompt = CompletionReference::prompt("paint");
            let result = within("complete", client.complete(prompt.clone(), "colour", "r")).await;
            let result = result.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"));
            assert_eq!(result.completion.values, ["red", "rose"], "{via:?} {mode:?}");
            assert_eq!((result.completion.total, result.completion.has_more), (None, None));

            let filled = BTreeMap::from([("colour".to_owned(), "blue".to_owned())]);
            let result = within("complete_with", client.complete_with(prompt, "shade", "na", filled)).await;
            let values = result.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}")).completion.values;
            assert_eq!(values, ["blue/na".to_owned(), version], "{via:?} {mode:?}");

            let template = CompletionReference::resource("paint://{colour}");
            let result = within("template", client.complete(template, "colour", "b")).await;
            assert_eq!(result.unwrap_or_else(|e| panic!("{e}")).completion.values, ["blue"], "{via:?} {mode:?}");

            let unknown = within("unknown", client.complete(CompletionReference::prompt("nope"), "x", "")).await;
            match unknown {
                Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32602, "{via:?} {mode:?}"),
                other => panic!("{via:?} {mode:?}: expected -32602, got {other:?}"),
            }
        }
    }
}

#[tokio::test]
async fn complete_on_a_server_without_completions_is_method_not_found() {
    let plain = macro_server();
    for mode in BOTH_ERAS {
        let client = connect(Via::InProcess, Client::builder().mode(mode.clone()), &plain).await;
        assert!(client.server_capabilities().completions.is_none());
        let result = within("complete", client.complete(CompletionReference::prompt("provision"), "name", "")).await;
        match result {
            Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32601, "{mode:?}"),
            other => panic!("{mode:?}: expected -32601, got {other:?}"),
        }
    }
}
