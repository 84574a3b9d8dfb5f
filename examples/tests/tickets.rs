//! The ticket-triage example, in process: the shared store (`State<Tickets>`), its
//! structured tool, the two dependent questions of `triage`, the prompt and the template.

use mcp_examples::tickets::{Priority, Team, Ticket, Tickets, server_with};
use serde_json::{Value, json};

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    })
}

async fn request(client: &mcp::client::RawClient, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    client.request(method, params).await.unwrap_or_else(|e| panic!("{method}: {e:?}"))
}

/// The only question of an `input_required` result: its key and message.
fn question(result: &Value) -> (String, String) {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let requests = result["inputRequests"].as_object().cloned().unwrap_or_default();
    assert_eq!(requests.len(), 1, "{result}");
    let (key, request) = requests.into_iter().next().unwrap_or_else(|| panic!("no question: {result}"));
    (key, request["params"]["message"].as_str().unwrap_or_default().to_owned())
}

#[tokio::test]
async fn tickets_are_filed_triaged_and_served_from_one_shared_store() {
    let store = Tickets::default();
    let client = mcp::client::in_process(&server_with(store.clone()));

    let list = request(&client, "tools/list", json!({})).await;
    let open = list["tools"].as_array().and_then(|t| t.iter().find(|t| t["name"] == "open_ticket").cloned());
    let open = open.unwrap_or_else(|| panic!("no open_ticket: {list}"));
    assert_eq!(open["inputSchema"]["required"], json!(["title"]), "the store is no argument: {open}");
    assert_eq!(open["outputSchema"]["properties"]["title"]["type"], "string", "{open}");

    let opened =
        request(&client, "tools/call", json!({"name": "open_ticket", "arguments": {"title": "Login page is slow"}}))
            .await;
    assert_eq!(
        opened["structuredContent"],
        json!({"id": 1, "title": "Login page is slow", "team": null, "priority": null})
    );

    let first = request(&client, "tools/call", json!({"name": "triage", "arguments": {"id": 1}})).await;
    let (team_key, message) = question(&first);
    assert_eq!(message, "Which team should take #1 \"Login page is slow\"?");
    let second = request(
        &client,
        "tools/call",
        json!({"name": "triage", "arguments": {"id": 1}, "requestState": first["requestState"],
               "inputResponses": {team_key: {"action": "accept", "content": {"team": "app"}}}}),
    )
    .await;
    let (priority_key, message) = question(&second);
    assert_eq!(message, "How urgent is #1 for App?");
    let done = request(
        &client,
        "tools/call",
        json!({"name": "triage", "arguments": {"id": 1}, "requestState": second["requestState"],
               "inputResponses": {priority_key: {"action": "accept", "content": {"priority": "normal"}}}}),
    )
    .await;
    assert_eq!(done["structuredContent"]["team"], "app", "{done}");
    assert_eq!(done["structuredContent"]["priority"], "normal", "{done}");
    let expected =
        Ticket { id: 1, title: "Login page is slow".into(), team: Some(Team::App), priority: Some(Priority::Normal) };
    assert_eq!(store.get(1), Some(expected), "the handlers wrote to the store the builder was given");

    let read = request(&client, "resources/read", json!({"uri": "tickets://1"})).await;
    let served: Value =
        serde_json::from_str(read["contents"][0]["text"].as_str().unwrap_or_default()).unwrap_or_default();
    assert_eq!(served["priority"], "normal", "{read}");
    let prompt = request(&client, "prompts/get", json!({"name": "draft_reply", "arguments": {"id": "1"}})).await;
    assert_eq!(
        prompt["messages"][0]["content"]["text"],
        "Draft a short, friendly first reply to ticket #1: \"Login page is slow\"."
    );

    let unknown = request(&client, "tools/call", json!({"name": "triage", "arguments": {"id": 9}})).await;
    assert_eq!(unknown["isError"], true, "{unknown}");
}
