//! `completion/complete` served from `#[mcp(complete = ...)]` completers on prompt
//! arguments and resource template variables, in both eras.

use mcp::items::completion::{CompleteFn, CompletionArguments};
use mcp::items::{BuildProblem, PromptDef};
use mcp::protocol::{CompleteResult, Completion, GetPromptOutcome, GetPromptParams, Prompt, PromptArgument};
use mcp::{Context, Error, Server};
use serde_json::{Value, json};

use crate::support::meta;

const LANGUAGES: [&str; 4] = ["python", "perl", "rust", "ruby"];

fn languages(typed: &str) -> Vec<&'static str> {
    LANGUAGES.into_iter().filter(|l| l.starts_with(typed)).collect()
}

/// Frameworks of the language filled in already.
async fn frameworks(typed: String, filled: CompletionArguments) -> Vec<String> {
    let known: &[&str] = match filled.get("language") {
        Some("rust") => &["axum", "actix-web", "rocket"],
        Some("python") => &["django", "flask"],
        _ => &[],
    };
    known.iter().filter(|f| f.starts_with(&typed)).map(|f| (*f).to_owned()).collect()
}

/// Echoes what the completer saw of the request.
async fn seen(typed: String, ctx: Context, filled: CompletionArguments) -> Result<Completion, Error> {
    let filled: Vec<String> = filled.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let values = vec![format!("typed={typed}"), format!("version={}", ctx.protocol_version()), filled.join(",")];
    Ok(Completion { values, total: Some(3), has_more: Some(false) })
}

/// 250 candidates, more than one result may carry.
fn many(typed: String) -> Vec<String> {
    (0..250).map(|i| format!("{typed}{i}")).collect()
}

fn refuses(_typed: &str) -> Result<Vec<String>, Error> {
    Err(Error::invalid_params("no completions for you"))
}

/// Start a project.
#[mcp::prompt]
fn start(
    #[mcp(complete = languages)] language: String,
    #[mcp(complete = frameworks)] framework: String,
    /// Free text: no completer.
    note: Option<String>,
) -> String {
    format!("{language}/{framework}/{}", note.unwrap_or_default())
}

/// Shows what a completer receives.
#[mcp::prompt]
fn echo(#[mcp(complete = seen)] value: String, #[mcp(complete = many, rename = "n")] number: String) -> String {
    format!("{value}{number}")
}

/// Refuses to complete.
#[mcp::prompt]
fn grumpy(#[mcp(complete = refuses)] anything: String) -> String {
    anything
}

/// A prompt without completers.
#[mcp::prompt]
fn plain(text: String) -> String {
    text
}

/// One row of a table.
#[mcp::resource("db://{table}/rows/{id}")]
fn row(#[mcp(complete = tables)] table: String, id: u32) -> String {
    format!("{table}#{id}")
}

fn tables(typed: &str) -> Vec<String> {
    ["orders", "owners", "users"].into_iter().filter(|t| t.starts_with(typed)).map(str::to_owned).collect()
}

/// A static resource.
#[mcp::resource("file:///readme")]
fn readme() -> String {
    "hello".to_owned()
}

fn server() -> Server {
    Server::builder("completions", "1.0.0")
        .prompt::<start>()
        .prompt::<echo>()
        .prompt::<grumpy>()
        .prompt::<plain>()
        .resource::<row>()
        .resource::<readme>()
        .build()
}

fn prompt_ref(name: &str) -> Value {
    json!({"type": "ref/prompt", "name": name})
}

fn template_ref(uri: &str) -> Value {
    json!({"type": "ref/resource", "uri": uri})
}

async fn complete(
    client: &mcp::client::RawClient,
    reference: Value,
    argument: &str,
    value: &str,
    context: Option<Value>,
) -> Result<Value, Error> {
    let mut params =
        json!({"_meta": meta(&json!({})), "ref": reference, "argument": {"name": argument, "value": value}});
    if let Some(arguments) = context {
        params["context"] = json!({ "arguments": arguments });
    }
    client.request("completion/complete", params).await
}

async fn values(client: &mcp::client::RawClient, reference: Value, argument: &str, value: &str) -> Value {
    let result = complete(client, reference, argument, value, None).await.unwrap_or_else(|e| panic!("{e:?}"));
    result["completion"]["values"].clone()
}

#[tokio::test]
async fn a_prompt_argument_is_completed_by_its_completer() {
    let client = mcp::client::in_process(&server());
    let result =
        complete(&client, prompt_ref("start"), "language", "r", None).await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["completion"], json!({"values": ["rust", "ruby"]}));
    assert_eq!(values(&client, prompt_ref("start"), "language", "p").await, json!(["python", "perl"]));
    assert_eq!(values(&client, prompt_ref("start"), "language", "").await, json!(LANGUAGES));
}

#[tokio::test]
async fn a_template_variable_is_completed_by_its_completer() {
    let client = mcp::client::in_process(&server());
    let reference = template_ref("db://{table}/rows/{id}");
    assert_eq!(values(&client, reference.clone(), "table", "o").await, json!(["orders", "owners"]));
    assert_eq!(values(&client, reference, "id", "4").await, json!([]), "`id` has no completer");
    // A static resource has nothing to complete, but is known.
    assert_eq!(values(&client, template_ref("file:///readme"), "x", "").await, json!([]));
}

#[tokio::test]
async fn the_arguments_filled_in_already_reach_the_completer() {
    let client = mcp::client::in_process(&server());
    let rust = Some(json!({"language": "rust"}));
    let result =
        complete(&client, prompt_ref("start"), "framework", "a", rust).await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(result["completion"]["values"], json!(["axum", "actix-web"]));
    let none = values(&client, prompt_ref("start"), "framework", "").await;
    assert_eq!(none, json!([]), "no language chosen yet");

    let context = Some(json!({"language": "rust", "framework": "axum"}));
    let echoed =
        complete(&client, prompt_ref("echo"), "value", "ty", context).await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        echoed["completion"],
        json!({"values": ["typed=ty", "version=2026-07-28", "framework=axum,language=rust"], "total": 3, "hasMore": false}),
        "the value, a Context and the filled-in arguments, and the completer's own total/hasMore"
    );
}

#[tokio::test]
async fn more_than_a_hundred_values_are_cut_and_marked() {
    let client = mcp::client::in_process(&server());
    let result = complete(&client, prompt_ref("echo"), "n", "v", None).await.unwrap_or_else(|e| panic!("{e:?}"));
    let completion = &result["completion"];
    let sent = completion["values"].as_array().map(Vec::len);
    assert_eq!(sent, Some(100));
    assert_eq!(completion["values"][0], "v0");
    assert_eq!(completion["values"][99], "v99");
    assert_eq!((completion["total"].clone(), completion["hasMore"].clone()), (json!(250), json!(true)));
}

#[tokio::test]
async fn an_argument_without_a_completer_gets_no_values() {
    let client = mcp::client::in_process(&server());
    let result = complete(&client, prompt_ref("start"), "note", "x", None).await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(result["completion"], json!({"values": []}));
    assert_eq!(values(&client, prompt_ref("plain"), "text", "x").await, json!([]), "a prompt without completers");
    assert_eq!(values(&client, prompt_ref("start"), "nonexistent", "x").await, json!([]), "an undeclared argument");
}

#[tokio::test]
async fn an_unknown_reference_is_invalid_params() {
    let client = mcp::client::in_process(&server());
    let prompt = complete(&client, prompt_ref("nope"), "a", "", None).await.expect_err("no such prompt");
    assert_eq!((prompt.code, prompt.message.as_str()), (-32602, "Unknown prompt: nope"));
    let template =
        complete(&client, template_ref("db://{nope}"), "nope", "", None).await.expect_err("no such template");
    assert_eq!((template.code, template.message.as_str()), (-32602, "Unknown resource template: db://{nope}"));
    // A concrete URI is not the template it matches.
    let concrete = complete(&client, template_ref("db://orders/rows/1"), "table", "", None).await;
    assert_eq!(concrete.expect_err("not a template").code, -32602);
}

#[tokio::test]
async fn a_completer_error_is_the_requests_error() {
    let client = mcp::client::in_process(&server());
    let error = complete(&client, prompt_ref("grumpy"), "anything", "", None).await.expect_err("refuses");
    assert_eq!((error.code, error.message.as_str()), (-32602, "no completions for you"));
}

#[tokio::test]
async fn a_disabled_prompt_is_unknown_to_completion() {
    let server = server();
    assert!(server.set_prompt_enabled("start", false));
    let client = mcp::client::in_process(&server);
    let error = complete(&client, prompt_ref("start"), "language", "r", None).await.expect_err("disabled");
    assert_eq!(error.code, -32602);
}

#[tokio::test]
async fn completions_are_declared_only_when_an_item_has_a_completer() {
    let with = server();
    assert_eq!(with.capabilities().completions, Some(mcp::protocol::JsonObject::new()));
    let without = Server::builder("plain", "1.0.0").prompt::<plain>().resource::<readme>().build();
    assert_eq!(without.capabilities().completions, None);
    let client = mcp::client::in_process(&without);
    let error = complete(&client, prompt_ref("plain"), "text", "", None).await.expect_err("not served");
    assert_eq!(error.code, -32601);
    let discover = mcp::client::in_process(&with)
        .request("server/discover", json!({"_meta": meta(&json!({}))}))
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(discover["capabilities"]["completions"], json!({}));
}

#[tokio::test]
async fn completers_and_a_hand_written_on_complete_do_not_mix() {
    let hand_written = |_ctx, _params| async { Ok(CompleteResult::new(vec!["by hand".into()])) };
    let both = Server::builder("both", "1.0.0").prompt::<start>().on_complete(hand_written).try_build();
    let problems = both.expect_err("two sources of completions").problems().to_vec();
    assert_eq!(problems, [BuildProblem::MixedRegistration { what: "completions", handlers: "on_complete" }]);
    assert_eq!(
        problems[0].to_string(),
        "completions were registered with macros and with on_complete; use one or the other"
    );

    // Items without completers leave `completion/complete` to the hand-written handler.
    let by_hand = Server::builder("by-hand", "1.0.0").prompt::<plain>().on_complete(hand_written).build();
    let client = mcp::client::in_process(&by_hand);
    assert_eq!(values(&client, prompt_ref("plain"), "text", "").await, json!(["by hand"]));
}

#[tokio::test]
async fn a_legacy_session_gets_completions_too() {
    let client = mcp::client::in_process(&server());
    let init = client
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await
        .unwrap_or_else(|e| panic!("initialize: {e:?}"));
    assert_eq!(init["capabilities"]["completions"], json!({}));
    client.notify("notifications/initialized", json!({})).await;
    let params = json!({"ref": prompt_ref("echo"), "argument": {"name": "value", "value": "x"}});
    let result = client.request("completion/complete", params).await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(result["completion"]["values"][1], "version=2025-11-25");
    assert!(result.get("resultType").is_none(), "legacy results carry no resultType: {result}");
    let params = json!({"ref": template_ref("db://{table}/rows/{id}"), "argument": {"name": "table", "value": "u"}});
    let result = client.request("completion/complete", params).await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(result["completion"]["values"], json!(["users"]));
}

/// A prompt written by hand, with a completer for its one argument.
struct HandWritten;

impl PromptDef for HandWritten {
    const NAME: &'static str = "hand_written";

    fn definition() -> Prompt {
        Prompt::new("hand_written").with_arguments(vec![PromptArgument::new("colour")])
    }

    fn get(_ctx: Context, _params: GetPromptParams) -> mcp::handler::BoxFuture<Result<GetPromptOutcome, Error>> {
        Box::pin(async { Err(Error::internal("not rendered in this test")) })
    }

    fn completer(argument: &str) -> Option<CompleteFn> {
        let colours: CompleteFn = |_ctx, typed, _filled| {
            Box::pin(async move { Ok(Completion { values: vec![format!("{typed}-red")], ..Default::default() }) })
        };
        (argument == "colour").then_some(colours)
    }
}

#[tokio::test]
async fn a_hand_written_prompt_can_complete_its_arguments() {
    let server = Server::builder("hand", "1.0.0").prompt::<HandWritten>().build();
    assert!(server.capabilities().completions.is_some());
    let client = mcp::client::in_process(&server);
    assert_eq!(values(&client, prompt_ref("hand_written"), "colour", "dark").await, json!(["dark-red"]));
}
