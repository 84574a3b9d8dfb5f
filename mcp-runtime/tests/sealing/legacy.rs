//! The legacy era.

use super::*;

async fn legacy_session(h: &Harness) {
    let init =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}});
    let result = h.send("initialize", init, None).await.expect("initialize");
    assert_eq!(result["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn a_legacy_session_gets_the_invalid_result_error_as_before() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    legacy_session(&h).await;
    let error = h
        .send("tools/call", json!({"name": "deploy", "arguments": {}}), None)
        .await
        .expect_err("an InputRequiredResult has no legacy form");
    assert_eq!(error_json(error), json!({"code": -32603, "message": "Handler returned an invalid result"}));
    assert_eq!(h.seen.len(), 1, "the handler ran");
    assert_eq!(h.seen.last_state(), None);
    // The same Session still serves modern requests statelessly, sealed.
    let token = h.mint("deploy", json!({}), None).await;
    assert!(token.starts_with("v1."));
}

#[tokio::test]
async fn a_legacy_session_cannot_smuggle_unsealed_state_to_a_handler() {
    // Handlers only ever see state this server sealed, whatever the era: otherwise a
    // client would `initialize` first and hand any plaintext to a handler that trusts it.
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    legacy_session(&h).await;
    for forged in [json!("plain-state-deploy-r1"), json!(7)] {
        h.expect_rejected("tools/call", json!({"name": "deploy", "arguments": {}, "requestState": forged}), None).await;
    }
    h.expect_rejected("prompts/get", json!({"name": "deploy", "requestState": "plain-state-deploy-r1"}), None).await;
    h.expect_rejected("resources/read", json!({"uri": "file:///a", "requestState": "plain-state-file:///a-r1"}), None)
        .await;
    // A genuine token reaches the handler as plaintext; the handler completes.
    let token = h.mint("deploy", json!({}), None).await;
    let done = h.send("tools/call", json!({"name": "deploy", "arguments": {}, "requestState": token}), None).await;
    assert_eq!(done.expect("completes")["content"][0]["text"], "done: plain-state-deploy-r1");
}

#[tokio::test]
async fn without_security_state_passes_through_verbatim() {
    let seen = Seen::default();
    let record = seen.clone();
    let server = Server::builder("plain", "1.0.0")
        .on_call_tool(move |_ctx, params| {
            let seen = record.clone();
            async move {
                seen.record("tools/call", &params.name, params.request_state.as_deref());
                Ok(match params.request_state {
                    None => CallToolOutcome::from(question().with_state("plain-state-x")),
                    Some(_) => CallToolResult::text("done").into(),
                })
            }
        })
        .without_request_state_security()
        .build();
    let (tx, _rx) = mpsc::channel(8);
    let session = Arc::new(Session::new());
    let call = |state: Option<&str>| {
        let mut params = modern(json!({"name": "x"}));
        if let Some(state) = state {
            params["requestState"] = json!(state);
        }
        decode_request(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}))
    };
    let first = server.handle_request_as(&session, call(None), tx.clone(), None).await;
    assert_eq!(token_of(&first), "plain-state-x");
    let done = server.handle_request_as(&session, call(Some("anything")), tx.clone(), None).await;
    assert_eq!(done.expect("completes")["resultType"], "complete");
    assert_eq!(seen.last_state().as_deref(), Some("anything"));
}
