//! Hostile messages: batches, ids of odd types, unknown methods, stray responses and
//! notifications with bad params.

use super::*;

#[tokio::test]
async fn batches_are_refused_whole_and_nothing_in_them_runs() {
    let mut h = Hostile::provisioner();
    let inner = request(json!("in-a-batch"), provision_params(json!({"name": "batched"}), json!({})));
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for batch in [json!([inner]), json!([inner, inner]), json!([notification]), json!([[inner]]), json!([1, 2])] {
        h.server.send(batch.clone()).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({
                "code": -32600,
                "message": "Invalid Request: batches are not supported; send one JSON-RPC message at a time",
            }),
            "{batch}"
        );
        h.assert_still_serving().await;
    }
    h.server.send_line("[]").await;
    assert_eq!(h.error_without_id().await["code"], -32600);
    h.server.send_line("  [ ]  ").await;
    assert_eq!(h.error_without_id().await["code"], -32600);
    h.expect_silence("the refused batches").await;
    assert!(
        h.server.transcript.iter().all(|m| m["id"] != "in-a-batch"),
        "a request inside a batch was executed: {:?}",
        h.server.transcript
    );
    h.finish().await;
}

#[tokio::test]
async fn ids_of_odd_types_are_refused_or_echoed_exactly() {
    let mut h = Hostile::provisioner();
    let params = provision_params(json!({"name": "odd-id"}), json!({}));
    // Not a string or an integer (the schema's RequestId): refused without echoing the id,
    // and not executed.
    let refused =
        ["null", "true", "false", r#"{"id":1}"#, "[1]", "[]", "1.5", "-0.0", "1e3", "100000000000000000000000000000"];
    for id in refused {
        let line = request(json!("@@"), params.clone()).to_string().replacen("\"@@\"", id, 1);
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({"code": -32600, "message": "Invalid Request: id must be a string or an integer"}),
            "id {id}"
        );
        h.expect_silence(&format!("refusing id {id}")).await;
        h.assert_still_serving().await;
    }
    // Strings and integers of every size are valid ids: the response echoes them exactly.
    let long = "i".repeat(10_000);
    for id in [
        "\"\"",
        "\"0\"",
        "\" \"",
        "\"\\u00e9\\ud83d\\ude00\"",
        "0",
        "-1",
        "18446744073709551615",
        "-9223372036854775808",
        &format!("\"{long}\""),
    ] {
        let line = request(json!("@@"), params.clone()).to_string().replacen("\"@@\"", id, 1);
        h.server.send_line(&line).await;
        let response = h.server.next().await;
        let expected: Value = serde_json::from_str(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let echoed = response.get("id").unwrap_or_else(|| panic!("no id in {response}"));
        assert_eq!(echoed, &expected, "id {id} must be echoed as sent: {response}");
        assert_eq!(response["result"]["resultType"], "input_required", "{response}");
        asked_key(&response);
        h.assert_still_serving().await;
    }
    h.finish().await;
}

#[tokio::test]
async fn unknown_methods_stray_responses_and_hybrid_messages() {
    let mut h = Hostile::provisioner();
    let meta_only = modern_params(json!({}), json!({}));
    let long_method = "m".repeat(100_000);
    for method in ["tools/destroy", "", " tools/call", "TOOLS/CALL", "rpc.discover", long_method.as_str()] {
        let id = h.id();
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": meta_only});
        h.server.send(message).await;
        let response = h.server.response(&id).await;
        assert_eq!(error_of(&response, &id)["code"], -32601, "method {:?}", &method[..method.len().min(20)]);
        h.assert_still_serving().await;
    }
    // Notifications of unknown methods and responses to nothing are dropped silently.
    for message in [
        json!({"jsonrpc": "2.0", "method": "notifications/unknown", "params": {"x": 1}}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": provision_params(json!({"name": "no-id"}), json!({}))}),
        json!({"jsonrpc": "2.0", "id": 424_242, "result": {}}),
        json!({"jsonrpc": "2.0", "id": "nobody", "result": {"content": []}}),
        json!({"jsonrpc": "2.0", "id": 424_243, "error": {"code": -32603, "message": "client failure"}}),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}),
    ] {
        h.server.send(message.clone()).await;
        h.expect_silence(&message.to_string()).await;
        h.assert_still_serving().await;
    }
    // An error response whose error member is malformed is itself an invalid request.
    h.server.send(json!({"jsonrpc": "2.0", "id": 9, "error": "boom"})).await;
    let response = h.server.response(&json!(9)).await;
    assert_eq!(
        error_of(&response, &json!(9)),
        json!({"code": -32600, "message": "Invalid Request: malformed error object"})
    );
    h.assert_still_serving().await;
    // A request that also carries `result` or `error` is answered as the request it names.
    for extra in [json!({"result": {}}), json!({"error": {"code": 1, "message": "x"}})] {
        let id = h.id();
        let mut message = request(id.clone(), provision_params(json!({"name": "hybrid"}), json!({})));
        if let (Value::Object(message), Value::Object(extra)) = (&mut message, extra.clone()) {
            message.extend(extra);
        }
        h.server.send(message).await;
        let response = h.server.response(&id).await;
        asked_key(&response);
        h.expect_silence(&format!("a request with {extra}")).await;
        h.assert_still_serving().await;
    }
    h.finish().await;
}

#[tokio::test]
async fn notifications_with_bad_params_are_ignored_without_an_answer() {
    let mut h = Hostile::provisioner();
    for params in [
        json!({}),
        json!({"requestId": {"nested": true}}),
        json!({"requestId": [1, 2]}),
        json!({"requestId": null, "reason": 12}),
        json!({"requestId": 999_999_999}),
        json!({"requestId": "x".repeat(50_000)}),
    ] {
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        h.server.send(message.clone()).await;
        h.expect_silence("a malformed notifications/cancelled").await;
        h.assert_still_serving().await;
    }
    for (method, params) in [
        ("notifications/progress", json!({"progressToken": {"a": 1}, "progress": "lots"})),
        ("notifications/initialized", json!({"unexpected": [1, 2, 3]})),
        ("notifications/roots/list_changed", json!({"_meta": 5})),
        ("notifications/message", json!({"level": "emergency-ish", "data": null})),
    ] {
        h.server.send(json!({"jsonrpc": "2.0", "method": method, "params": params})).await;
        h.expect_silence(method).await;
        h.assert_still_serving().await;
    }
    // Params that are not an object make the line an invalid message; its id cannot be
    // read because it has none.
    for params in [json!([1]), json!("cancel"), json!(3)] {
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        h.server.send(message).await;
        let error = h.error_without_id().await;
        assert_eq!(error, json!({"code": -32602, "message": "Invalid params: params must be a JSON object"}));
        h.assert_still_serving().await;
    }
    h.finish().await;
}
