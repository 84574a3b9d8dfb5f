//! The server's own requests to the client carry unguessable ids.

use super::*;

#[tokio::test]
async fn server_to_client_request_ids_are_long_random_strings() {
    let (addr, _) = start().await;
    let session = initialize(addr, json!({"elicitation": {}})).await;
    let mut ids = Vec::new();
    for round in 0..2 {
        let message = json!({"jsonrpc": "2.0", "id": format!("ask-{round}"), "method": "tools/call",
            "params": {"name": "ask", "arguments": {}}});
        let mut stream = http::open(addr, "POST", PATH, &legacy_headers(Some(&session)), message.to_string()).await;
        let question = stream.next_message().await.expect("the elicitation request");
        assert_eq!(question["method"], "elicitation/create", "{question}");
        let id = question["id"].clone();
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept", "content": {"name": "Ada"}}});
        let reply = post(addr, &legacy_headers(Some(&session)), &answer).await;
        assert_eq!(reply.status.as_u16(), 202, "{}", reply.body);
        let last = stream.next_message().await.expect("the tool result");
        assert_eq!(last["result"]["content"][0]["text"], "Hello, Ada!", "{last}");
        ids.push(id);
    }
    for id in &ids {
        let text = id.as_str().unwrap_or_else(|| panic!("a string id, not {id}"));
        assert!(text.len() >= 32, "at least 128 random bits: {text:?}");
        assert!(text.bytes().all(|b| b.is_ascii_hexdigit()), "{text:?}");
    }
    assert_ne!(ids[0], ids[1]);
    // Not a counter: the two ids share no long common prefix.
    let common = ids[0].as_str().unwrap_or_default().chars().zip(ids[1].as_str().unwrap_or_default().chars());
    assert!(common.take_while(|(a, b)| a == b).count() < 16, "{ids:?}");
}
