//! Hostile lines: malformed, truncated, blank, mis-encoded, over the size limit, nested
//! too deep or with duplicate keys.

use super::*;

#[tokio::test]
async fn malformed_and_truncated_json_is_a_parse_error_and_the_process_keeps_serving() {
    let mut h = Hostile::provisioner();
    h.assert_still_serving().await;
    let secret = h.secret("SECRET-ARG-truncated-7f3a");
    let whole = request(json!(1), provision_params(json!({"name": secret}), json!({}))).to_string();
    let mut lines = vec![
        "{not json".to_owned(),
        "{".to_owned(),
        "}".to_owned(),
        "nul".to_owned(),
        "{'jsonrpc': '2.0'}".to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call",}"#.to_owned(),
        // A message followed by garbage, and two messages on one line.
        format!("{whole} trailing"),
        format!("{whole}{whole}"),
        // A byte-order mark before the message.
        format!("\u{feff}{whole}"),
    ];
    // The same message cut short at several points.
    for cut in [1, 10, whole.len() / 2, whole.len() - 1] {
        lines.push(whole[..cut].to_owned());
    }
    for line in lines {
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(error, json!({"code": -32700, "message": "Parse error: Invalid JSON"}), "{line:?}");
        h.assert_still_serving().await;
    }
    // A NUL byte in the middle of a message.
    let mut bytes = whole.clone().into_bytes();
    bytes.insert(20, 0);
    h.server.send_bytes(&bytes).await;
    assert_eq!(h.error_without_id().await["code"], -32700);
    h.assert_still_serving().await;
    h.finish().await;
}

#[tokio::test]
async fn blank_lines_are_skipped_and_crlf_is_accepted() {
    let mut h = Hostile::provisioner();
    for blank in ["", " ", "\t \t", "\r"] {
        h.server.send_line(blank).await;
    }
    h.expect_silence("blank lines").await;
    // A CRLF-terminated message is served like any other.
    let id = h.id();
    let line = format!("{}\r", request(id.clone(), provision_params(json!({"name": "crlf"}), json!({}))));
    h.server.send_line(&line).await;
    let response = h.server.response(&id).await;
    asked_key(&response);
    h.finish().await;
}

#[tokio::test]
async fn json_that_is_not_a_message_is_an_invalid_request() {
    let mut h = Hostile::provisioner();
    for line in ["42", "\"tools/call\"", "null", "true", "-1.5e3"] {
        h.server.send_line(line).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({"code": -32600, "message": "Invalid Request: a JSON-RPC message must be a JSON object"}),
            "{line}"
        );
        h.assert_still_serving().await;
    }
    // The envelope is wrong but the id can be read: the error echoes it.
    let params = provision_params(json!({"name": "x"}), json!({}));
    let cases = [
        (
            json!({"id": 7, "method": "tools/call", "params": params}),
            -32600,
            "Invalid Request: jsonrpc must be \"2.0\"",
        ),
        (
            json!({"jsonrpc": "1.0", "id": 7, "method": "tools/call", "params": params}),
            -32600,
            "Invalid Request: jsonrpc must be \"2.0\"",
        ),
        (json!({"jsonrpc": 2.0, "id": 7, "method": "tools/call"}), -32600, "Invalid Request: jsonrpc must be \"2.0\""),
        (json!({"jsonrpc": "2.0", "id": 7, "method": 12}), -32600, "Invalid Request: method must be a string"),
        (json!({"jsonrpc": "2.0", "id": 7, "method": null}), -32600, "Invalid Request: method must be a string"),
        (
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": [1, 2]}),
            -32602,
            "Invalid params: params must be a JSON object",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "x"}),
            -32602,
            "Invalid params: params must be a JSON object",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 7}),
            -32600,
            "Invalid Request: expected a request, a notification or a response",
        ),
    ];
    for (message, code, text) in cases {
        h.server.send(message.clone()).await;
        let response = h.server.response(&json!(7)).await;
        assert_eq!(error_of(&response, &json!(7)), json!({"code": code, "message": text}), "{message}");
        h.assert_still_serving().await;
    }
    // Params as anything but an object, with no id: the error cannot echo one.
    h.server.send_line(r#"{"jsonrpc":"2.0","method":"tools/call","params":[1]}"#).await;
    assert_eq!(h.error_without_id().await["code"], -32602);
    h.finish().await;
}

#[tokio::test]
async fn invalid_utf8_and_unpaired_surrogates_are_parse_errors() {
    let mut h = Hostile::provisioner();
    let template = request(json!(1), provision_params(json!({"name": "@@"}), json!({}))).to_string();
    let (before, after) = template.split_once("@@").unwrap_or_else(|| panic!("no placeholder in {template}"));
    let bad_bytes: [&[u8]; 8] = [
        b"\xff",
        b"\xfe\xff",
        b"\xc0\x80",         // an overlong NUL
        b"\xe0\x80\xaf",     // an overlong '/'
        b"\xed\xa0\x80",     // a surrogate encoded as UTF-8 (CESU-8)
        b"\x80",             // a lone continuation byte
        b"\xe2\x82",         // a sequence cut short
        b"\xf4\x90\x80\x80", // above U+10FFFF
    ];
    for bad in bad_bytes {
        let mut line = before.as_bytes().to_vec();
        line.extend_from_slice(bad);
        line.extend_from_slice(after.as_bytes());
        h.server.send_bytes(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(error, json!({"code": -32700, "message": "Parse error: Invalid JSON"}), "{bad:x?}");
        h.assert_still_serving().await;
    }
    // Unpaired surrogate escapes, in a value and in a key.
    for escaped in [r"\ud800", r"\udc00", r"\ud800x", r"\ud800\u0041", r"\udfff\ud800"] {
        let line = format!("{before}{escaped}{after}");
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(error, json!({"code": -32700, "message": "Parse error: Invalid JSON"}), "{escaped}");
        h.assert_still_serving().await;
    }
    let key = template.replacen("\"name\"", "\"\\ud800\"", 1);
    h.server.send_line(&key).await;
    assert_eq!(h.error_without_id().await["code"], -32700);
    h.assert_still_serving().await;

    // A paired surrogate escape is a valid character and survives the round trip.
    let round = h.first_round("db-\u{1F600}").await;
    let paired = request(
        json!("paired"),
        provision_params(
            json!({"name": "@@"}),
            json!({"inputResponses": {round.key: accept_region("eu")}, "requestState": round.state}),
        ),
    )
    .to_string()
    .replace("@@", r"db-\ud83d\ude00");
    h.server.send_line(&paired).await;
    let response = h.server.response(&json!("paired")).await;
    assert_eq!(complete_text(&response), "Provisioned 'db-\u{1F600}' in eu.");
    h.finish().await;
}

#[tokio::test]
async fn a_line_over_the_limit_is_refused_and_a_large_one_is_served() {
    let mut h = Hostile::provisioner();
    let secret = h.secret(format!("SECRET-ARG-huge-{}", "s".repeat(64)));
    let huge = format!("{secret}{}", "x".repeat(LINE_LIMIT));
    let from = h.server.stderr_len();
    h.server.send(request(json!("huge"), provision_params(json!({"name": huge}), json!({})))).await;
    let error = h.error_without_id().await;
    assert_eq!(
        error,
        json!({"code": -32600, "message": format!("Invalid Request: message exceeds {LINE_LIMIT} bytes")})
    );
    h.expect_warn(from, "an oversized line logs a WARN").await;
    h.assert_still_serving().await;

    // Large but under the limit: the whole call, both rounds, goes through.
    let large = "L".repeat(LINE_LIMIT / 2);
    let round = h.first_round(&large).await;
    let extra = json!({"inputResponses": {round.key: accept_region("eu")}, "requestState": round.state});
    let response = h.call(json!("large"), provision_params(json!({"name": large}), extra)).await;
    assert_eq!(complete_text(&response), format!("Provisioned '{large}' in eu."));
    h.assert_still_serving().await;

    // Several oversized lines in a row, then a normal one.
    for _ in 0..3 {
        h.server.send_line(&"z".repeat(LINE_LIMIT + 1)).await;
        assert_eq!(h.error_without_id().await["code"], -32600);
    }
    h.finish().await;
}

#[tokio::test]
async fn json_nested_deeper_than_the_limit_is_refused() {
    let mut h = Hostile::provisioner();
    // The message (1), params (2) and arguments (3) are levels too.
    let at_limit = MAX_DEPTH - 3;
    let template = request(json!("deep"), provision_params(json!({"name": "deep", "deep": "@@"}), json!({})));
    let template = template.to_string();
    let line = template.replacen("\"@@\"", &nested(at_limit), 1);
    h.server.send_line(&line).await;
    asked_key(&h.server.response(&json!("deep")).await);
    h.assert_still_serving().await;

    let secret = h.secret("SECRET-ARG-deep-91c2");
    let with_secret = request(json!("deep"), provision_params(json!({"name": secret, "deep": "@@"}), json!({})));
    let with_secret = with_secret.to_string();
    for levels in [at_limit + 1, 200, 100_000] {
        let from = h.server.stderr_len();
        let line = with_secret.replacen("\"@@\"", &nested(levels), 1);
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({"code": -32600, "message": format!("Invalid Request: JSON nested deeper than {MAX_DEPTH} levels")}),
            "{levels} levels"
        );
        h.expect_warn(from, "deep nesting logs a WARN").await;
        h.assert_still_serving().await;
    }
    // Deep nesting in `_meta` and in an unterminated prefix counts the same.
    let meta_deep = template.replacen(
        "\"io.modelcontextprotocol/protocolVersion\"",
        &format!("\"x\":{},\"io.modelcontextprotocol/protocolVersion\"", nested(MAX_DEPTH)),
        1,
    );
    h.server.send_line(&meta_deep).await;
    assert_eq!(h.error_without_id().await["code"], -32600);
    h.assert_still_serving().await;
    h.server.send_line(&"[".repeat(10_000)).await;
    assert_eq!(h.error_without_id().await["code"], -32600);
    h.assert_still_serving().await;
    h.finish().await;
}

#[tokio::test]
async fn a_duplicate_key_anywhere_refuses_the_message_unexecuted() {
    let mut h = Hostile::provisioner();
    let params = provision_params(json!({"name": "dup"}), json!({})).to_string();
    let inner = params.trim_start_matches('{');
    let cases = [
        format!(r#"{{"jsonrpc":"2.0","id":"dup-1","id":"dup-2","method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":"dup-1","method":"tools/list","method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{{"name":"other",{inner}}}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{}}}"#,
            params.replacen(r#""name":"dup""#, r#""name":"dup","name":"x""#, 1)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{}}}"#,
            params.replacen(r#""elicitation":{}"#, r#""elicitation":{},"elicitation":{"form":{}}"#, 1)
        ),
        // The same key spelled with an escape.
        format!(r#"{{"jsonrpc":"2.0","id":"dup-1","\u0069d":"dup-2","method":"tools/call","params":{params}}}"#),
    ];
    for line in cases {
        assert!(serde_json::from_str::<Value>(&line).is_ok(), "the case must be JSON apart from the duplicate: {line}");
        let from = h.server.stderr_len();
        h.server.send_line(&line).await;
        let error = h.error_without_id().await;
        assert_eq!(
            error,
            json!({"code": -32600, "message": "Invalid Request: duplicate key in a JSON object"}),
            "{line}"
        );
        h.expect_warn(from, "a duplicate key logs a WARN").await;
        h.expect_silence("a refused duplicate-key message").await;
        h.assert_still_serving().await;
    }
    h.finish().await;
}
