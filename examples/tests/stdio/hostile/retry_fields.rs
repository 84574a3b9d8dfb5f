//! Hostile retry fields: forged, tampered, misbound or gigantic `requestState`, and
//! `inputResponses` of the wrong shape, number, size or kind.

use super::*;

#[tokio::test]
async fn request_state_of_the_wrong_type_is_the_fixed_error() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("typed").await;
    let answers = json!({round.key.clone(): accept_region("eu")});
    for state in [json!(12), json!(-1.5), json!(true), json!({"s": round.state}), json!([round.state]), json!({})] {
        let id = h.id();
        let extra = json!({"inputResponses": answers, "requestState": state});
        let response = h.call(id.clone(), provision_params(json!({"name": "typed"}), extra)).await;
        assert_eq!(
            error_of(&response, &id),
            json!({"code": -32602, "message": INVALID_STATE, "data": {"reason": "invalid_request_state"}}),
            "requestState {state}"
        );
        h.assert_still_serving().await;
    }
    // A null state is no state: the answer without it is not trusted, the question comes again.
    let id = h.id();
    let extra = json!({"inputResponses": answers, "requestState": null});
    let response = h.call(id, provision_params(json!({"name": "typed"}), extra)).await;
    asked_key(&response);
    h.finish().await;
}

#[tokio::test]
async fn forged_tampered_and_misbound_request_state_get_the_fixed_error_and_leak_nothing() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("forged").await;
    h.secrets.push(round.state.clone());
    let marker = h.secret("FORGED-MARKER-5d1e0c");
    let mut tampered: Vec<char> = round.state.chars().collect();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    h.secrets.push(tampered.clone());
    let truncated = h.secret(&round.state[..round.state.len() - 4]);
    let forged = [
        marker.clone(),
        format!("v1.{marker}"),
        format!("v1.{marker}.{marker}"),
        format!("v2.{}", &round.state[3..]),
        format!("{}{marker}", round.state),
        tampered,
        truncated,
        String::new(),
        "v1.".to_owned(),
        "\u{0}".to_owned(),
        "é".repeat(1000),
        // Just under the size limit: read, and rejected as forged.
        format!("v1.{marker}{}", "A".repeat(MAX_STATE - 3 - marker.len())),
    ];
    for state in forged {
        let id = h.id();
        let from = h.server.stderr_len();
        let extra = json!({"inputResponses": {round.key.clone(): accept_region("eu")}, "requestState": state});
        let response = h.call(id.clone(), provision_params(json!({"name": "forged"}), extra)).await;
        let error = error_of(&response, &id);
        assert_eq!(
            error,
            json!({"code": -32602, "message": INVALID_STATE, "data": {"reason": "invalid_request_state"}}),
            "requestState {:?}",
            state.chars().take(40).collect::<String>()
        );
        assert!(!response.to_string().contains(&marker), "the error echoes the forged state: {response}");
        let warn = h.expect_warn(from, "a rejected requestState logs a WARN").await;
        assert!(warn.contains("requestState rejected"), "{warn}");
        h.assert_still_serving().await;
    }
    // A genuine token bound to other arguments, or to another tool, is refused as well.
    let extra = json!({"inputResponses": {round.key.clone(): accept_region("eu")}, "requestState": round.state});
    let id = h.id();
    let response = h.call(id.clone(), provision_params(json!({"name": "other"}), extra.clone())).await;
    assert_eq!(error_of(&response, &id)["message"], INVALID_STATE);
    let mut cluster = provision_params(json!({"name": "forged"}), extra.clone());
    cluster["name"] = json!("provision_cluster");
    let id = h.id();
    let response = h.call(id.clone(), cluster).await;
    assert_eq!(error_of(&response, &id)["message"], INVALID_STATE);
    // The genuine token still completes its own call.
    let response = h.call(json!("genuine"), provision_params(json!({"name": "forged"}), extra)).await;
    assert_eq!(complete_text(&response), "Provisioned 'forged' in eu.");
    h.finish().await;
}

#[tokio::test]
async fn gigantic_request_state_is_refused_by_its_size() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("giant").await;
    let marker = h.secret("GIANT-STATE-MARKER-77aa");
    for size in [MAX_STATE + 1, 1024 * 1024, 3 * 1024 * 1024] {
        let state = format!("v1.{marker}{}", "A".repeat(size - 3 - marker.len()));
        assert_eq!(state.len(), size);
        let id = h.id();
        let from = h.server.stderr_len();
        let extra = json!({"inputResponses": {round.key.clone(): accept_region("eu")}, "requestState": state});
        let response = h.call(id.clone(), provision_params(json!({"name": "giant"}), extra)).await;
        let error = error_of(&response, &id);
        assert_eq!(error["code"], -32602, "{size} bytes: {error}");
        assert_eq!(error["message"], format!("Invalid params: requestState exceeds {MAX_STATE} bytes"), "{size}");
        assert!(!response.to_string().contains(&marker), "the error echoes the state");
        h.expect_warn(from, "an oversized requestState logs a WARN").await;
        h.assert_still_serving().await;
    }
    h.finish().await;
}

#[tokio::test]
async fn input_responses_of_the_wrong_shape_are_invalid_params() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("shape").await;
    let secret = h.secret("SECRET-ANSWER-4b8d");
    for responses in [json!([accept_region("eu")]), json!(secret), json!(12), json!(true), json!([])] {
        let id = h.id();
        let extra = json!({"inputResponses": responses, "requestState": round.state});
        let response = h.call(id.clone(), provision_params(json!({"name": "shape"}), extra)).await;
        assert_eq!(
            error_of(&response, &id),
            json!({"code": -32602, "message": "Invalid params: inputResponses must be an object"}),
            "inputResponses {responses}"
        );
        h.assert_still_serving().await;
    }
    // Entries that are not result objects.
    for entry in [json!(secret), json!(5), json!([1]), json!(null), json!(true), json!({"action": "maybe"})] {
        let id = h.id();
        let extra = json!({"inputResponses": {round.key.clone(): entry}, "requestState": round.state});
        let response = h.call(id.clone(), provision_params(json!({"name": "shape"}), extra)).await;
        let error = error_of(&response, &id);
        assert_eq!(error["code"], -32602, "entry {entry}: {error}");
        assert!(error["message"].as_str().unwrap_or_default().starts_with("Invalid params"), "{error}");
        h.assert_still_serving().await;
    }
    h.finish().await;
}

#[tokio::test]
async fn too_many_or_too_large_input_responses_are_refused() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("many").await;
    let filler = |n: usize| -> serde_json::Map<String, Value> {
        (0..n).map(|i| (format!("unknown-{i}"), json!({"action": "decline"}))).collect()
    };
    // At the limit: unknown keys are ignored, the genuine answer is used.
    let mut at_limit = filler(MAX_RESPONSES - 1);
    at_limit.insert(round.key.clone(), accept_region("eu"));
    let extra = json!({"inputResponses": at_limit, "requestState": round.state});
    let response = h.call(json!("at-limit"), provision_params(json!({"name": "many"}), extra)).await;
    assert_eq!(complete_text(&response), "Provisioned 'many' in eu.");

    let mut over = filler(MAX_RESPONSES);
    over.insert(round.key.clone(), accept_region("eu"));
    let from = h.server.stderr_len();
    let id = h.id();
    let extra = json!({"inputResponses": over, "requestState": round.state});
    let response = h.call(id.clone(), provision_params(json!({"name": "many"}), extra)).await;
    assert_eq!(
        error_of(&response, &id),
        json!({"code": -32602, "message": format!("Invalid params: more than {MAX_RESPONSES} inputResponses")})
    );
    h.expect_warn(from, "too many inputResponses log a WARN").await;
    h.assert_still_serving().await;

    // An entry of exactly the limit is used; one byte more is refused.
    let secret = h.secret("SECRET-BIG-ANSWER-0e9f");
    let envelope = accept_region("").to_string().len();
    for (size, too_large) in [(MAX_RESPONSE_BYTES, false), (MAX_RESPONSE_BYTES + 1, true)] {
        let region = format!("{secret}{}", "r".repeat(size - envelope - secret.len()));
        let entry = accept_region(&region);
        assert_eq!(entry.to_string().len(), size);
        let id = h.id();
        let from = h.server.stderr_len();
        let extra = json!({"inputResponses": {round.key.clone(): entry}, "requestState": round.state});
        let response = h.call(id.clone(), provision_params(json!({"name": "many"}), extra)).await;
        if too_large {
            assert_eq!(
                error_of(&response, &id),
                json!({
                    "code": -32602,
                    "message": format!("Invalid params: an inputResponses entry exceeds {MAX_RESPONSE_BYTES} bytes"),
                })
            );
            h.expect_warn(from, "an oversized inputResponses entry logs a WARN").await;
        } else {
            assert_eq!(complete_text(&response), format!("Provisioned 'many' in {region}."));
        }
        h.assert_still_serving().await;
    }
    h.finish().await;
}

#[tokio::test]
async fn input_responses_of_the_wrong_kind_fail_the_call_or_ask_again() {
    let mut h = Hostile::provisioner();
    let round = h.first_round("kind").await;
    let key = round.key.clone();
    let sampled = json!({"role": "assistant", "content": {"type": "text", "text": "eu"}, "model": "m"});
    let roots = json!({"roots": [{"uri": "file:///eu"}]});
    for (answer, why) in [
        (sampled, "a non-elicitation response"),
        (roots, "a non-elicitation response"),
        (json!({"action": "accept"}), "an accepted elicitation with no content"),
        (
            json!({"action": "accept", "content": {"region": 7}}),
            "an elicitation whose content does not match the requested schema",
        ),
        (
            json!({"action": "accept", "content": {}}),
            "an elicitation whose content does not match the requested schema",
        ),
    ] {
        let id = h.id();
        let extra = json!({"inputResponses": {key.clone(): answer}, "requestState": round.state});
        let response = h.call(id.clone(), provision_params(json!({"name": "kind"}), extra)).await;
        assert_eq!(tool_error_text(&response), format!("Resolver '{key}' received {why}"), "{answer}");
        h.assert_still_serving().await;
    }
    // Answers under keys nobody asked: ignored, and the question comes again.
    for responses in [
        json!({"unknown": accept_region("eu")}),
        json!({format!("{key} "): accept_region("eu")}),
        json!({key.to_uppercase(): accept_region("eu")}),
        json!({}),
    ] {
        let id = h.id();
        let extra = json!({"inputResponses": responses, "requestState": round.state});
        let response = h.call(id, provision_params(json!({"name": "kind"}), extra)).await;
        assert_eq!(asked_key(&response), key, "{responses}");
        h.assert_still_serving().await;
    }
    // Unknown members inside a well-formed answer are ignored.
    let answer = json!({"action": "accept", "content": {"region": "eu"}, "extra": [1], "_meta": {"x": 1}});
    let extra = json!({"inputResponses": {key.clone(): answer}, "requestState": round.state});
    let response = h.call(json!("extra-members"), provision_params(json!({"name": "kind"}), extra)).await;
    assert_eq!(complete_text(&response), "Provisioned 'kind' in eu.");
    h.finish().await;
}
