//! Hostile messages: batches, ids of odd types, unknown methods, stray responses and
//! notifications with bad params.

use super::*;

#[tokio::test]
async fn batches_are_400_and_nothing_in_them_runs() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let inner = call(json!("in-a-batch"), "tally", json!({}), json!({}));
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for batch in [json!([inner]), json!([inner, inner]), json!([notification]), json!([]), json!([[]])] {
        let reply = post(addr, "tally", &batch).await;
        let error = assert_error(&reply, 400, -32600, &Value::Null);
        assert_eq!(
            error["message"], "Invalid Request: batches are not supported; send one JSON-RPC message at a time",
            "{batch}"
        );
        assert_still_serving(addr).await;
    }
    // The first call that runs is the first one counted.
    let reply = post(addr, "tally", &inner).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!("in-a-batch"))), "tally 1", "a call inside a batch ran");
}

#[tokio::test]
async fn ids_of_odd_types_are_refused_or_echoed_exactly() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    // Not a string or an integer (the schema's RequestId): refused, nothing runs.
    for id in ["null", "true", r#"{"id":1}"#, "[1]", "[]", "1.5", "-0.0", "1e3", "100000000000000000000000000000"] {
        let body = call(json!("@@"), "echo", json!({"text": "x"}), json!({})).to_string().replacen("\"@@\"", id, 1);
        let reply = post_body(addr, "echo", body).await;
        let error = assert_error(&reply, 400, -32600, &Value::Null);
        assert_eq!(error["message"], "Invalid Request: id must be a string or an integer", "{id}");
        assert_still_serving(addr).await;
    }
    let long = format!("\"{}\"", "i".repeat(10_000));
    for id in ["\"\"", "\" \"", "\"\\u00e9\"", "0", "-1", "18446744073709551615", "-9223372036854775808"]
        .into_iter()
        .chain([long.as_str()])
    {
        let body = call(json!("@@"), "echo", json!({"text": "odd"}), json!({})).to_string().replacen("\"@@\"", id, 1);
        let reply = post_body(addr, "echo", body).await;
        assert_eq!(reply.status.as_u16(), 200, "id {}: {}", &id[..id.len().min(20)], reply.body);
        let expected: Value = serde_json::from_str(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let answer = reply.json();
        assert_eq!(answer.get("id"), Some(&expected), "the id must be echoed as sent: {answer}");
        assert_eq!(answer["result"]["content"][0]["text"], "odd", "{answer}");
        assert_still_serving(addr).await;
    }
}

#[tokio::test]
async fn unknown_methods_stray_responses_and_hybrid_messages() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let long_method = "m".repeat(50_000);
    for method in ["tools/destroy", " tools/call", "TOOLS/CALL", "rpc.discover", long_method.as_str()] {
        let message =
            json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": modern_params(json!({}), json!({}))});
        let headers = Headers::modern(&headers::encode_value(method), None);
        let reply = http::post(addr, &headers, &message).await;
        assert_error(&reply, 404, -32601, &json!(5));
        assert_still_serving(addr).await;
    }
    // An unknown notification is accepted and dropped; a response outside a session is refused.
    let message = json!({"jsonrpc": "2.0", "method": "notifications/unknown", "params": {"x": 1}});
    let reply = http::post(addr, &Headers::json().set("MCP-Protocol-Version", MODERN), &message).await;
    assert_eq!((reply.status.as_u16(), reply.body.as_str()), (202, ""));
    for message in [
        json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message": "client failure"}}),
    ] {
        let reply = http::post(addr, &Headers::json().set("MCP-Protocol-Version", MODERN), &message).await;
        assert_error(&reply, 400, -32600, &Value::Null);
        assert_still_serving(addr).await;
    }
    let message = json!({"jsonrpc": "2.0", "id": 7, "error": "boom"});
    let reply = http::post(addr, &Headers::json(), &message).await;
    let error = assert_error(&reply, 400, -32600, &json!(7));
    assert_eq!(error["message"], "Invalid Request: malformed error object");
    // A request that also carries `result` or `error` is served as the request it names.
    for extra in [json!({"result": {}}), json!({"error": {"code": 1, "message": "x"}})] {
        let mut message = call(json!(8), "echo", json!({"text": "hybrid"}), json!({}));
        if let (Value::Object(message), Value::Object(extra)) = (&mut message, extra) {
            message.extend(extra);
        }
        let reply = post(addr, "echo", &message).await;
        assert_eq!(complete_text(&assert_result(&reply, &json!(8))), "hybrid");
        assert_still_serving(addr).await;
    }
}

#[tokio::test]
async fn notifications_with_bad_params_are_202_or_400() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let headers = Headers::json().set("MCP-Protocol-Version", MODERN);
    for (method, params) in [
        ("notifications/cancelled", json!({"requestId": {"nested": true}})),
        ("notifications/cancelled", json!({"requestId": 999_999, "reason": 12})),
        ("notifications/cancelled", json!({})),
        ("notifications/progress", json!({"progressToken": {"a": 1}, "progress": "lots"})),
        ("notifications/initialized", json!({"unexpected": [1, 2, 3]})),
        ("notifications/roots/list_changed", json!({"_meta": 5})),
    ] {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let reply = http::post(addr, &headers, &message).await;
        assert_eq!((reply.status.as_u16(), reply.body.as_str()), (202, ""), "{message}");
        assert_still_serving(addr).await;
    }
    for params in [json!([1]), json!("cancel"), json!(3)] {
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        let reply = http::post(addr, &headers, &message).await;
        let error = assert_error(&reply, 400, -32602, &Value::Null);
        assert_eq!(error["message"], "Invalid params: params must be a JSON object");
        assert_still_serving(addr).await;
    }
}
