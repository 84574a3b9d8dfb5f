//! With auth on, a session belongs to the principal that opened it: to anyone else its id
//! answers exactly as an unknown id does.

use mcp::auth::StaticTokenVerifier;

use super::*;
use crate::auth::user;
use crate::support::legacy_http::initialize_with;

async fn start_authenticated() -> SocketAddr {
    let verifier =
        StaticTokenVerifier::new([("token-alice".to_owned(), user("alice")), ("token-bob".to_owned(), user("bob"))]);
    start_with(HttpConfig::default().token_verifier(verifier)).await.0
}

fn as_user(headers: Headers, token: &str) -> Headers {
    headers.set("authorization", &format!("Bearer {token}"))
}

/// `initialize` as the holder of `token`; returns the session id.
async fn initialize_as(addr: SocketAddr, token: &str) -> String {
    initialize_with(addr, json!({"elicitation": {}}), &[("authorization", &format!("Bearer {token}"))]).await
}

/// Status, headers (but `date`, which the clock sets) and body, to compare byte for byte.
fn exact(reply: &Reply) -> (u16, Vec<(String, Vec<u8>)>, String) {
    let headers = reply
        .headers
        .iter()
        .filter(|(name, _)| *name != "date")
        .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
        .collect();
    (reply.status.as_u16(), headers, reply.body.clone())
}

/// Every use of a session: a request, a notification, a response, GET and DELETE.
async fn every_use(addr: SocketAddr, session: &str, token: &str) -> Vec<Reply> {
    let headers = as_user(legacy_headers(Some(session)), token);
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let response = json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "cancel"}});
    vec![
        post(addr, &headers, &list(1)).await,
        post(
            addr,
            &headers,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}}}),
        )
        .await,
        post(addr, &headers, &notification).await,
        post(addr, &headers, &response).await,
        http::send(addr, "GET", PATH, &headers.clone().set("Accept", "text/event-stream"), "").await,
        http::send(addr, "DELETE", PATH, &headers, "").await,
    ]
}

#[tokio::test]
async fn another_principal_gets_the_same_404_as_for_an_unknown_session() {
    let addr = start_authenticated().await;
    let alices = initialize_as(addr, "token-alice").await;
    let unknown: String = alices.chars().rev().map(|c| if c == '0' { '1' } else { '0' }).collect();

    let get = as_user(legacy_headers(Some(&alices)), "token-bob").set("Accept", "text/event-stream");
    let stream = http::open(addr, "GET", PATH, &get, "").await;
    assert_eq!(stream.status.as_u16(), 404, "bob must not read alice's GET stream");
    drop(stream);
    let as_bob = every_use(addr, &alices, "token-bob").await;
    let as_stranger = every_use(addr, &unknown, "token-bob").await;
    for (bob, stranger) in as_bob.iter().zip(&as_stranger) {
        assert_eq!(stranger.status.as_u16(), 404, "{}", stranger.body);
        assert_eq!(exact(bob), exact(stranger), "bob must not learn that alice's session exists");
    }
    // Bob's DELETE did not end it.
    assert_list_ok(&post(addr, &as_user(legacy_headers(Some(&alices)), "token-alice"), &list(3)).await);
}

#[tokio::test]
async fn another_principal_cannot_answer_a_pending_question() {
    let addr = start_authenticated().await;
    let alices = initialize_as(addr, "token-alice").await;
    let headers = as_user(legacy_headers(Some(&alices)), "token-alice");
    let message = json!({"jsonrpc": "2.0", "id": "ask-1", "method": "tools/call",
        "params": {"name": "ask", "arguments": {}}});
    let mut stream = http::open(addr, "POST", PATH, &headers, message.to_string()).await;
    let question = stream.next_message().await.expect("the elicitation request");
    assert_eq!(question["method"], "elicitation/create", "{question}");

    let forged =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Mallory"}}});
    let reply = post(addr, &as_user(legacy_headers(Some(&alices)), "token-bob"), &forged).await;
    assert_error(&reply, 404, -32600, &Value::Null);

    let answer =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    let reply = post(addr, &headers, &answer).await;
    assert_eq!((reply.status.as_u16(), reply.body.as_str()), (202, ""));
    let last = stream.next_message().await.expect("the tool result");
    assert_eq!(last["result"]["content"][0]["text"], "Hello, Ada!", "{last}");
}
