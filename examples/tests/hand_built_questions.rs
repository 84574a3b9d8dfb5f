//! The examples' hand-built questions (the `lowlevel` provisioner's tool, the provisioner's
//! `briefing` prompt and `db://{name}/config` template), in process under 2026-07-28: an
//! answer counts only when it comes back with the sealed `requestState` that asked its
//! question. An answer sent on a first call, with no state, gets the question instead.

use mcp::client::{RawClient, in_process};
use serde_json::{Value, json};

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    })
}

async fn request(client: &RawClient, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    client.request(method, params).await.unwrap_or_else(|e| panic!("{method}: {e:?}"))
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// The result asks exactly `key`, with a sealed state.
#[track_caller]
fn asks(result: &Value, key: &str) -> String {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let keys: Vec<&String> = result["inputRequests"].as_object().map(|r| r.keys().collect()).unwrap_or_default();
    assert_eq!(keys, [key], "{result}");
    let state = result["requestState"].as_str().unwrap_or_else(|| panic!("no state: {result}"));
    assert!(state.starts_with("v1."), "the state is sealed: {result}");
    state.to_owned()
}

#[tokio::test]
async fn a_first_read_carrying_a_yes_does_not_reveal_the_db_config() {
    let client = in_process(&mcp_examples::provisioner::server());
    let forged = json!({"uri": "db://x/config", "inputResponses": {"reveal": accept(json!({"ok": true}))}});
    let first = request(&client, "resources/read", forged).await;
    assert!(!first.to_string().contains("postgres"), "revealed without asking: {first}");
    let state = asks(&first, "reveal");

    // The same answer with the state that asked for it reveals the config.
    let retry = json!({"uri": "db://x/config", "requestState": state,
                       "inputResponses": {"reveal": accept(json!({"ok": true}))}});
    let read = request(&client, "resources/read", retry).await;
    assert_eq!(read["contents"][0]["text"], r#"{"name":"x","engine":"postgres"}"#, "{read}");
}

#[tokio::test]
async fn a_first_briefing_carrying_an_audience_gets_the_question() {
    let client = in_process(&mcp_examples::provisioner::server());
    let answer = json!({"audience": accept(json!({"audience": "the board"}))});
    let first = request(&client, "prompts/get", json!({"name": "briefing", "inputResponses": answer})).await;
    assert!(!first.to_string().contains("the board"), "used an answer nobody asked for: {first}");
    let state = asks(&first, "audience");

    let retry = json!({"name": "briefing", "inputResponses": answer, "requestState": state});
    let prompt = request(&client, "prompts/get", retry).await;
    assert_eq!(prompt["messages"][0]["content"]["text"], "Write a briefing for the board.", "{prompt}");
}

#[tokio::test]
async fn a_first_lowlevel_call_carrying_a_region_gets_the_question() {
    let client = in_process(&mcp_examples::lowlevel::server());
    let answer = json!({"region": accept(json!({"region": "eu-west-1"}))});
    let call = json!({"name": "provision", "arguments": {"name": "orders"}, "inputResponses": answer});
    let first = request(&client, "tools/call", call).await;
    assert!(!first.to_string().contains("Provisioned"), "provisioned without asking: {first}");
    let state = asks(&first, "region");

    let retry =
        json!({"name": "provision", "arguments": {"name": "orders"}, "inputResponses": answer, "requestState": state});
    let done = request(&client, "tools/call", retry).await;
    assert_eq!(done["content"][0]["text"], "Provisioned 'orders' in eu-west-1.", "{done}");
}
