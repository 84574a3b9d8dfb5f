//! A server and a client in one process over the in-memory pairing, exercising the
//! dispatcher's rules on results: the capability gate, malformed interim results,
//! empty resource contents, legacy back-channel requests and cancellation.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp::Server;
use mcp::protocol::{
    CallToolOutcome, CallToolResult, CreateMessageParams, ElicitRequestParams, ElicitUrlParams, InputRequest,
    InputRequiredResult, JsonRpcMessage, ReadResourceOutcome, ReadResourceResult, UrlMode,
};
use serde_json::json;

use crate::support::meta;

fn url_elicitation() -> InputRequest {
    InputRequest::Elicit(ElicitRequestParams::Url(ElicitUrlParams {
        mode: UrlMode,
        message: "Sign in".into(),
        url: "https://example.com/login".into(),
        elicitation_id: None,
        meta: None,
    }))
}

/// A server whose `tools/call` returns whatever interim result the tool name selects.
fn interim_server() -> Server {
    Server::builder("interim", "1.0.0")
        .on_call_tool(|_ctx, params| async move {
            let sampling = InputRequest::Sample(CreateMessageParams::user_text("hi", 10));
            let mut with_tools = CreateMessageParams::user_text("hi", 10);
            with_tools.tool_choice = Some(Default::default());
            let outcome: CallToolOutcome = match params.name.as_str() {
                "url" => InputRequiredResult::ask("login", url_elicitation()).into(),
                "sample" => InputRequiredResult::ask("s", sampling).into(),
                "sample_tools" => InputRequiredResult::ask("s", InputRequest::Sample(with_tools)).into(),
                "roots" => InputRequiredResult::ask("r", InputRequest::ListRoots(None)).into(),
                "empty" => InputRequiredResult::default().into(),
                "state_only" => InputRequiredResult::state_only("later").into(),
                _ => CallToolResult::text("done").into(),
            };
            Ok(outcome)
        })
        .on_read_resource(|_ctx, _params| async { Ok(ReadResourceOutcome::from(ReadResourceResult::new(vec![]))) })
        .build()
}

#[tokio::test]
async fn input_requests_are_gated_on_the_capabilities_of_this_request() {
    let client = mcp::client::in_process(&interim_server());
    let cases = [
        ("url", json!({"elicitation": {}}), Some(json!({"elicitation": {"url": {}}}))),
        ("url", json!({"elicitation": {"url": {}}}), None),
        ("sample", json!({}), Some(json!({"sampling": {}}))),
        ("sample", json!({"sampling": {}}), None),
        ("sample_tools", json!({"sampling": {}}), Some(json!({"sampling": {"tools": {}}}))),
        ("sample_tools", json!({"sampling": {"tools": {}}}), None),
        ("roots", json!({}), Some(json!({"roots": {}}))),
        ("roots", json!({"roots": {}}), None),
        ("state_only", json!({}), None),
    ];
    for (tool, caps, required) in cases {
        let outcome = client.request("tools/call", json!({"_meta": meta(&caps), "name": tool})).await;
        match required {
            Some(required) => {
                let error = outcome.expect_err(&format!("{tool} with {caps} must be refused"));
                assert_eq!(error.code, -32021, "{tool} {caps}");
                assert_eq!(error.data, Some(json!({"requiredCapabilities": required})), "{tool} {caps}");
            }
            None => {
                let result = outcome.unwrap_or_else(|e| panic!("{tool} with {caps}: {e:?}"));
                assert_eq!(result["resultType"], "input_required", "{tool}");
            }
        }
    }
}

#[tokio::test]
async fn malformed_interim_results_and_empty_contents_are_internal_errors() {
    let client = mcp::client::in_process(&interim_server());
    let empty = client.request("tools/call", json!({"_meta": meta(&json!({})), "name": "empty"})).await;
    let error = empty.expect_err("an InputRequiredResult needs inputRequests or requestState");
    assert_eq!((error.code, error.message.as_str()), (-32603, "Handler returned an invalid result"));

    let read = client.request("resources/read", json!({"_meta": meta(&json!({})), "uri": "x://y"})).await;
    assert_eq!(read.expect_err("empty contents are never a valid read").code, -32603);
}

#[tokio::test]
async fn carrier_results_only_come_from_carrier_methods() {
    // prompts/list has no handler here; the dispatcher cannot return an interim result
    // for it, and says the method is not served.
    let client = mcp::client::in_process(&interim_server());
    let list = client.request("prompts/list", json!({"_meta": meta(&json!({}))})).await;
    assert_eq!(list.expect_err("no prompts").code, -32601);
}

#[tokio::test]
async fn a_legacy_handler_can_ask_the_client_and_await_the_answer() {
    let server = Server::builder("legacy", "1.0.0")
        .on_call_tool(|ctx, _params| async move {
            let roots = ctx.list_roots().await?;
            Ok(CallToolOutcome::from(CallToolResult::text(format!("{} roots", roots.roots.len()))))
        })
        .build();
    let client = Arc::new(mcp::client::in_process(&server));
    let init = client
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await
        .unwrap_or_else(|e| panic!("initialize: {e:?}"));
    assert_eq!(init["protocolVersion"], "2025-11-25");

    let caller = Arc::clone(&client);
    let call = tokio::spawn(async move { caller.request("tools/call", json!({"name": "count_roots"})).await });
    let Some(JsonRpcMessage::Request(ask)) = client.next_message().await else { panic!("expected a server request") };
    assert_eq!(ask.method, "roots/list");
    client.respond(ask.id, json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]})).await;
    let result = call.await.unwrap_or_else(|e| panic!("join: {e}")).unwrap_or_else(|e| panic!("call: {e:?}"));
    assert_eq!(result["content"][0]["text"], "2 roots");
    assert!(result.get("resultType").is_none());
}

#[tokio::test]
async fn cancelled_notifications_abort_the_handler() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&dropped);
    let server = Server::builder("cancel", "1.0.0")
        .on_call_tool(move |_ctx, _params| {
            let flag = Arc::clone(&flag);
            async move {
                struct SetOnDrop(Arc<AtomicBool>);
                impl Drop for SetOnDrop {
                    fn drop(&mut self) {
                        self.0.store(true, Ordering::SeqCst);
                    }
                }
                let _guard = SetOnDrop(flag);
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(CallToolOutcome::from(CallToolResult::text("finished")))
            }
        })
        .build();
    let client = mcp::client::in_process(&server);
    let id = client.next_id();
    let pending =
        client.start_request(id.clone(), "tools/call", json!({"_meta": meta(&json!({})), "name": "sleep"})).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.notify("notifications/cancelled", json!({"requestId": id, "reason": "changed my mind"})).await;
    for _ in 0..100 {
        if dropped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(dropped.load(Ordering::SeqCst), "the handler future was dropped");
    let answered = tokio::time::timeout(Duration::from_millis(200), pending).await;
    assert!(answered.is_err(), "a cancelled request gets no response");
}

#[tokio::test]
async fn a_duplicate_in_flight_id_is_rejected() {
    let server = Server::builder("dup", "1.0.0")
        .on_call_tool(|_ctx, _params| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(CallToolOutcome::from(CallToolResult::text("ok")))
        })
        .build();
    let client = mcp::client::in_process(&server);
    let params = json!({"_meta": meta(&json!({})), "name": "slow"});
    let first = client.start_request(mcp::protocol::RequestId::from(7), "tools/call", params.clone()).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    client.send_raw(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).to_string()).await;
    // Both answers carry id 7: the refusal comes first and is matched to the pending
    // request; the original call still completes afterwards.
    let refusal = first.await.unwrap_or_else(|e| panic!("{e}")).expect_err("the duplicate is refused");
    assert_eq!(refusal.code, -32600);
    let Some(JsonRpcMessage::Result(original)) = client.next_message().await else { panic!("expected the result") };
    assert_eq!(original.id, mcp::protocol::RequestId::from(7));
    assert_eq!(original.result["content"][0]["text"], "ok");
}
