//! Hostile retry fields: `requestState` of the wrong type, origin or size, and
//! `inputResponses` of the wrong shape, number, size or kind.

use super::*;

#[tokio::test]
async fn request_state_of_the_wrong_type_or_origin_is_the_fixed_error_and_leaks_nothing() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "db").await;
    let answers = json!({REGION_KEY: accept_region("eu")});
    let fixed = json!({"code": -32602, "message": INVALID_STATE, "data": {"reason": "invalid_request_state"}});
    for wrong in [json!(12), json!(-1.5), json!(true), json!({"s": state}), json!([state]), json!([])] {
        let reply = retry(addr, &json!(1), "db", json!({"inputResponses": answers, "requestState": wrong})).await;
        assert_eq!(assert_error(&reply, 400, -32602, &json!(1)), fixed, "requestState {wrong}");
        assert_still_serving(addr).await;
    }
    // A null state is no state: the answer is not trusted and the question comes again.
    let reply = retry(addr, &json!(1), "db", json!({"inputResponses": answers, "requestState": null})).await;
    asked_region(&assert_result(&reply, &json!(1)));

    let marker = "FORGED-MARKER-http-e41c";
    let mut tampered: Vec<char> = state.chars().collect();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    let truncated = state[..state.len() - 4].to_owned();
    let forged = [
        marker.to_owned(),
        format!("v1.{marker}"),
        format!("v1.{marker}.{marker}"),
        format!("v2.{}", &state[3..]),
        format!("{state}{marker}"),
        tampered.clone(),
        truncated.clone(),
        String::new(),
        "\u{0}".to_owned(),
        format!("v1.{marker}{}", "A".repeat(MAX_STATE - 3 - marker.len())),
    ];
    for token in forged {
        let from = logs.len();
        let reply = retry(addr, &json!(2), "db", json!({"inputResponses": answers, "requestState": token})).await;
        assert_eq!(assert_error(&reply, 400, -32602, &json!(2)), fixed);
        assert!(!reply.body.contains(marker), "the error echoes the forged state: {}", reply.body);
        let warn = logs.assert_warned(from, "a rejected requestState");
        assert!(warn.contains("requestState rejected"), "{warn}");
        assert_still_serving(addr).await;
    }
    // A genuine token bound to other arguments, or to another tool, is refused too.
    let extra = json!({"inputResponses": answers, "requestState": state});
    let reply = retry(addr, &json!(3), "other", extra.clone()).await;
    assert_eq!(assert_error(&reply, 400, -32602, &json!(3)), fixed);
    let reply = post(addr, "echo", &call(json!(3), "echo", json!({"text": "db"}), extra.clone())).await;
    assert_eq!(assert_error(&reply, 400, -32602, &json!(3)), fixed);
    // The genuine one still completes its own call.
    let reply = retry(addr, &json!(4), "db", extra).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(4))), "Provisioned 'db' in eu.");
    logs.assert_clean(&[marker, &state, &tampered, &truncated]);
}

#[tokio::test]
async fn gigantic_request_state_is_400_by_its_size() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "giant").await;
    let marker = "GIANT-STATE-MARKER-http-90fd";
    for size in [MAX_STATE + 1, 1024 * 1024, 3 * 1024 * 1024] {
        let token = format!("v1.{marker}{}", "A".repeat(size - 3 - marker.len()));
        let from = logs.len();
        let extra = json!({"inputResponses": {REGION_KEY: accept_region("eu")}, "requestState": token});
        let reply = retry(addr, &json!(1), "giant", extra).await;
        let error = assert_error(&reply, 400, -32602, &json!(1));
        assert_eq!(
            error,
            json!({"code": -32602, "message": format!("Invalid params: requestState exceeds {MAX_STATE} bytes")})
        );
        assert!(!reply.body.contains(marker), "the error echoes the state");
        logs.assert_warned(from, "an oversized requestState");
        assert_still_serving(addr).await;
    }
    // The genuine state still works after all that.
    let extra = json!({"inputResponses": {REGION_KEY: accept_region("eu")}, "requestState": state});
    let reply = retry(addr, &json!(2), "giant", extra).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(2))), "Provisioned 'giant' in eu.");
    logs.assert_clean(&[marker, &state]);
}

#[tokio::test]
async fn input_responses_of_the_wrong_shape_are_400_invalid_params() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "shape").await;
    let secret = "SECRET-ANSWER-http-77e3";
    for responses in [json!([accept_region("eu")]), json!(secret), json!(12), json!(false), json!([])] {
        let reply = retry(addr, &json!(1), "shape", json!({"inputResponses": responses, "requestState": state})).await;
        let error = assert_error(&reply, 400, -32602, &json!(1));
        assert_eq!(error["message"], "Invalid params: inputResponses must be an object", "{responses}");
        assert_still_serving(addr).await;
    }
    for entry in [json!(secret), json!(5), json!([1]), json!(null), json!(true), json!({"action": "maybe"})] {
        let extra = json!({"inputResponses": {REGION_KEY: entry}, "requestState": state});
        let reply = retry(addr, &json!(2), "shape", extra).await;
        let error = assert_error(&reply, 400, -32602, &json!(2));
        assert!(error["message"].as_str().unwrap_or_default().starts_with("Invalid params"), "{entry}: {error}");
        assert_still_serving(addr).await;
    }
    logs.assert_clean(&[secret, &state]);
}

#[tokio::test]
async fn too_many_or_too_large_input_responses_are_400() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "many").await;
    let filler = |n: usize| -> serde_json::Map<String, Value> {
        (0..n).map(|i| (format!("unknown-{i}"), json!({"action": "decline"}))).collect()
    };
    let mut at_limit = filler(MAX_RESPONSES - 1);
    at_limit.insert(REGION_KEY.to_owned(), accept_region("eu"));
    let reply = retry(addr, &json!(1), "many", json!({"inputResponses": at_limit, "requestState": state})).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(1))), "Provisioned 'many' in eu.");

    let mut over = filler(MAX_RESPONSES);
    over.insert(REGION_KEY.to_owned(), accept_region("eu"));
    let from = logs.len();
    let reply = retry(addr, &json!(2), "many", json!({"inputResponses": over, "requestState": state})).await;
    let error = assert_error(&reply, 400, -32602, &json!(2));
    assert_eq!(error["message"], format!("Invalid params: more than {MAX_RESPONSES} inputResponses"));
    logs.assert_warned(from, "too many inputResponses");
    assert_still_serving(addr).await;

    let secret = "SECRET-BIG-ANSWER-http-1f4b";
    let envelope = accept_region("").to_string().len();
    for (size, too_large) in [(MAX_RESPONSE_BYTES, false), (MAX_RESPONSE_BYTES + 1, true), (3 * 1024 * 1024, true)] {
        let region = format!("{secret}{}", "r".repeat(size - envelope - secret.len()));
        let entry = accept_region(&region);
        assert_eq!(entry.to_string().len(), size);
        let from = logs.len();
        let extra = json!({"inputResponses": {REGION_KEY: entry}, "requestState": state});
        let reply = retry(addr, &json!(3), "many", extra).await;
        if too_large {
            let error = assert_error(&reply, 400, -32602, &json!(3));
            let expected = format!("Invalid params: an inputResponses entry exceeds {MAX_RESPONSE_BYTES} bytes");
            assert_eq!(error["message"], expected);
            logs.assert_warned(from, "an oversized inputResponses entry");
        } else {
            assert_eq!(complete_text(&assert_result(&reply, &json!(3))), format!("Provisioned 'many' in {region}."));
        }
        assert_still_serving(addr).await;
    }
    logs.assert_clean(&[secret, &state]);
}

#[tokio::test]
async fn input_responses_of_the_wrong_kind_fail_the_call_or_ask_again() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let state = first_round(addr, "kind").await;
    let sampled = json!({"role": "assistant", "content": {"type": "text", "text": "eu"}, "model": "m"});
    for (answer, why) in [
        (sampled, "a non-elicitation response"),
        (json!({"roots": [{"uri": "file:///eu"}]}), "a non-elicitation response"),
        (json!({"action": "accept"}), "an accepted elicitation with no content"),
        (
            json!({"action": "accept", "content": {"region": 7}}),
            "an elicitation whose content does not match the requested schema",
        ),
    ] {
        let extra = json!({"inputResponses": {REGION_KEY: answer}, "requestState": state});
        let reply = retry(addr, &json!(1), "kind", extra).await;
        let text = tool_error_text(&assert_result(&reply, &json!(1)));
        assert_eq!(text, format!("Resolver '{REGION_KEY}' received {why}"), "{answer}");
        assert_still_serving(addr).await;
    }
    for responses in [
        json!({"unknown": accept_region("eu")}),
        json!({"streamable_http::hostile::ASK_REGION": accept_region("eu")}),
        json!({}),
    ] {
        let reply = retry(addr, &json!(2), "kind", json!({"inputResponses": responses, "requestState": state})).await;
        asked_region(&assert_result(&reply, &json!(2)));
        assert_still_serving(addr).await;
    }
    // Answers sent with a call that asked nothing are ignored.
    let extra = json!({"inputResponses": {REGION_KEY: accept_region("eu")}});
    let reply = post(addr, "echo", &call(json!(3), "echo", json!({"text": "plain"}), extra)).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(3))), "plain");
}
