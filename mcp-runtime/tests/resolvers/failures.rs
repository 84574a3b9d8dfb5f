//! Resolvers that fail

use super::*;

#[mcp::resolver]
fn locked_account() -> Result<Elicit<Step>, String> {
    Err("the account is locked".to_owned())
}

/// Fails before asking anything.
#[mcp::tool]
fn soft(account: Resolve<locked_account>) -> String {
    account.value.clone()
}

#[mcp::resolver]
fn quota_service() -> Result<u64, mcp::Error> {
    Err(mcp::Error::new(-32042, "quota service down").with_data(json!({"retryAfterMs": 500})))
}

/// Fails with a protocol error.
#[mcp::tool]
fn hard(quota: Resolve<quota_service>) -> String {
    quota.to_string()
}

#[mcp::resolver]
fn ask_account() -> Elicit<Step> {
    Elicit::new("Which account?")
}

#[mcp::resolver]
fn check_account(account: Resolve<ask_account>) -> Result<String, String> {
    if account.value == "locked" {
        return Err(format!("account {} is locked", account.value));
    }
    Ok(account.value.to_uppercase())
}

/// Fails once the answer is known.
#[mcp::tool]
fn use_account(account: Resolve<check_account>) -> String {
    format!("using {}", *account)
}

/// A return type that claims it never asks for input, and does.
struct Sneaky;

impl mcp::items::IntoToolOutcome for Sneaky {
    const MAY_REQUIRE_INPUT: bool = false;

    fn into_tool_outcome(self) -> Result<mcp::protocol::CallToolOutcome, mcp::Error> {
        Ok(mcp::protocol::InputRequiredResult::state_only("mine").into())
    }
}

#[mcp::resolver]
fn constant() -> u32 {
    7
}

/// Gets past the compile-time check with a lying return type.
#[mcp::tool]
fn sneaky(_n: Resolve<constant>) -> Sneaky {
    Sneaky
}

fn server() -> Server {
    Server::builder("failures", "1.0.0").tool::<soft>().tool::<hard>().tool::<use_account>().tool::<sneaky>().build()
}

#[tokio::test]
async fn a_body_answering_input_required_next_to_resolvers_is_an_error_result() {
    let client = in_process(&server());
    let result = Leg::new("sneaky", json!({})).result(&client).await;
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(tool_error_text(&result), "Error executing tool sneaky");
}

#[tokio::test]
async fn a_resolver_err_string_is_an_error_result_naming_the_resolver() {
    let client = in_process(&server());
    let result = Leg::new("soft", json!({})).result(&client).await;
    assert_eq!(
        tool_error_text(&result),
        "Resolver 'resolvers::failures::locked_account' failed: the account is locked"
    );

    let run = Driver::new(Script::new().on("Which account?", accept(json!({"value": "locked"}))))
        .run(&client, "use_account", json!({}))
        .await;
    assert_eq!(run.asked(), [["Which account?"]]);
    assert_eq!(
        tool_error_text(run.result()),
        "Resolver 'resolvers::failures::check_account' failed: account locked is locked"
    );
    let run = Driver::new(Script::new().on("Which account?", accept(json!({"value": "ops"}))))
        .run(&client, "use_account", json!({}))
        .await;
    assert_eq!(run.text(), "using OPS");
}

#[tokio::test]
async fn a_resolver_err_mcp_error_is_that_json_rpc_error() {
    let client = in_process(&server());
    let run = Driver::new(Script::new()).run(&client, "hard", json!({})).await;
    assert!(run.rounds.is_empty(), "nothing was asked");
    let error = run.error();
    assert_eq!((error.code, error.message.as_str()), (-32042, "quota service down"));
    assert_eq!(error.data, Some(json!({"retryAfterMs": 500})));
}
