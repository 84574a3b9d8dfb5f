//! The two benchmarked servers answer the calls `loadgen` makes of them, as the peers do:
//! `echo {text}`, and `provision {name}` over two rounds under 2026-07-28.

use mcp_testkit::spec::{MODERN, assert_valid};
use mcp_testkit::stdio::{StdioServer, modern_params};
use serde_json::json;

#[tokio::test]
async fn echo_returns_its_text() {
    let mut server = StdioServer::spawn(env!("CARGO_BIN_EXE_echo"), &["stdio"]);
    let params = modern_params(json!({}), json!({"name": "echo", "arguments": {"text": "hello"}}));
    let response = server.request(json!(1), "tools/call", params).await;
    assert_valid(MODERN, "CallToolResultResponse", &response);
    assert_eq!(response["result"]["content"][0]["text"], "hello");
    assert_eq!(server.close().await.code(), Some(0));
}

#[tokio::test]
async fn provision_asks_for_the_region_then_answers() {
    let mut server = StdioServer::spawn(env!("CARGO_BIN_EXE_provision"), &["stdio"]);
    let caps = json!({"elicitation": {"form": {}}});
    let call = json!({"name": "provision", "arguments": {"name": "orders"}});
    let first = server.request(json!(1), "tools/call", modern_params(caps.clone(), call)).await;
    assert_valid(MODERN, "CallToolResultResponse", &first);
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{first}");
    let (key, question) = requests.iter().next().expect("one question");
    assert_eq!(question["params"]["message"], "Which region should the database live in?");

    let retry = json!({
        "name": "provision",
        "arguments": {"name": "orders"},
        "inputResponses": {key.clone(): {"action": "accept", "content": {"region": "eu-west-1"}}},
        "requestState": result["requestState"],
    });
    let second = server.request(json!(2), "tools/call", modern_params(caps, retry)).await;
    assert_valid(MODERN, "CallToolResultResponse", &second);
    assert_eq!(second["result"]["content"][0]["text"], "Provisioned 'orders' in eu-west-1.");
    assert_eq!(server.close().await.code(), Some(0));
}
