//! Hostile bodies: malformed, truncated and cut off; of the wrong content type or size;
//! nested too deep, with duplicate keys, or mis-encoded.

use super::*;

#[tokio::test]
async fn malformed_and_truncated_bodies_are_400_parse_errors() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let secret = "SECRET-ARG-truncated-http-31b7";
    let whole = call(json!(1), "echo", json!({"text": secret}), json!({})).to_string();
    let mut bodies = vec![
        String::new(),
        "   ".to_owned(),
        "{not json".to_owned(),
        "{".to_owned(),
        "nul".to_owned(),
        "{'jsonrpc': '2.0'}".to_owned(),
        format!("{whole} trailing"),
        format!("{whole}{whole}"),
        format!("{whole}\n{whole}"),
        format!("\u{feff}{whole}"),
    ];
    for cut in [1, 10, whole.len() / 2, whole.len() - 1] {
        bodies.push(whole[..cut].to_owned());
    }
    for body in bodies {
        let reply = post_body(addr, "echo", body.clone()).await;
        let error = assert_error(&reply, 400, -32700, &Value::Null);
        assert_eq!(error, json!({"code": -32700, "message": "Parse error: Invalid JSON"}), "{body:?}");
        assert_still_serving(addr).await;
    }
    logs.assert_clean(&[secret]);
}

#[tokio::test]
async fn a_body_cut_off_by_the_client_is_400_and_the_server_keeps_serving() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let secret = "SECRET-ARG-cut-off-8c21";
    let body = call(json!(1), "echo", json!({"text": secret}), json!({})).to_string();
    let half = &body.as_bytes()[..body.len() / 2];

    // Content-Length promises more than arrives, then the client stops sending.
    let headers = call_headers("echo").set("Content-Length", &body.len().to_string());
    let request = http::raw_request(addr, "POST", PATH, &headers, half);
    assert_unreadable_body(http::send_bytes(addr, &request, true).await);
    assert_still_serving(addr).await;

    // The same, with the client closing the whole connection.
    let socket = http::write_raw(addr, "POST", PATH, &headers, half).await;
    drop(socket);
    assert_still_serving(addr).await;

    // A chunked body that stops in the middle of a chunk.
    let headers = call_headers("echo").set("Transfer-Encoding", "chunked").set("Content-Length", "none");
    let mut request =
        http::raw_request(addr, "POST", PATH, &headers, b"").replacen_bytes(b"Content-Length: none\r\n", b"");
    request.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
    request.extend_from_slice(half);
    assert_unreadable_body(http::send_bytes(addr, &request, true).await);
    assert_still_serving(addr).await;

    // Content-Length shorter than the body: the server reads a truncated message.
    let headers = call_headers("echo").set("Content-Length", &(body.len() / 2).to_string()).set("Connection", "close");
    let request = http::raw_request(addr, "POST", PATH, &headers, body.as_bytes());
    let reply = http::send_bytes(addr, &request, false).await.unwrap_or_else(|e| panic!("{e}"));
    assert_error(&reply, 400, -32700, &Value::Null);
    assert_still_serving(addr).await;
    logs.assert_clean(&[secret]);
}

/// The answer to a request whose body ended early: 400, `-32600`, on the half-closed connection.
#[track_caller]
fn assert_unreadable_body(outcome: Result<Reply, String>) {
    let reply = outcome.unwrap_or_else(|e| panic!("a 400 is due for a body cut short: {e}"));
    let error = assert_error(&reply, 400, -32600, &Value::Null);
    assert_eq!(error["message"], "Could not read the request body");
}

#[tokio::test]
async fn wrong_content_types_are_415_and_an_unacceptable_accept_is_406() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let body = call(json!(1), "echo", json!({"text": "x"}), json!({})).to_string();
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json-seq",
        "application/jsonx",
        "json",
        "application/",
        "",
        ";application/json",
        "application/jsön",
    ] {
        let headers = call_headers("echo").set("Content-Type", content_type);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 415, -32600, &Value::Null);
        assert_eq!(error["message"], "Unsupported Media Type: Content-Type must be application/json", "{content_type}");
        assert_still_serving(addr).await;
    }
    let reply = http::send_raw(addr, "POST", PATH, &call_headers("echo").remove("Content-Type"), body.as_bytes()).await;
    assert_error(&reply, 415, -32600, &Value::Null);
    // Only the first of two Content-Type headers counts.
    let headers = call_headers("echo").set("Content-Type", "text/plain").add("Content-Type", "application/json");
    let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
    assert_error(&reply, 415, -32600, &Value::Null);

    for accept in [
        "application/json",
        "text/event-stream",
        "text/html",
        "*/json",
        "application/json-seq, text/event-streams",
        ",,,;;;",
        "applicätion/json, text/event-stream",
    ] {
        let headers = call_headers("echo").set("Accept", accept);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        let error = assert_error(&reply, 406, -32600, &Value::Null);
        assert_eq!(
            error["message"], "Not Acceptable: Accept must list application/json and text/event-stream",
            "{accept}"
        );
        assert_still_serving(addr).await;
    }
    let reply = http::send_raw(addr, "POST", PATH, &call_headers("echo").remove("Accept"), body.as_bytes()).await;
    assert_error(&reply, 406, -32600, &Value::Null);
    for accept in [
        "*/*",
        "application/*, text/*",
        "APPLICATION/JSON, TEXT/EVENT-STREAM",
        "text/event-stream;q=0, application/json;q=0.1",
    ] {
        let headers = call_headers("echo").set("Accept", accept);
        let reply = http::send_raw(addr, "POST", PATH, &headers, body.as_bytes()).await;
        assert_eq!(complete_text(&assert_result(&reply, &json!(1))), "x", "{accept}");
    }
}

#[tokio::test]
async fn a_body_over_the_limit_is_413_and_a_large_one_is_served() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let secret = "SECRET-ARG-huge-http-2aa0";
    let huge = format!("{secret}{}", "x".repeat(BODY_LIMIT));
    let body = call(json!(1), "echo", json!({"text": huge}), json!({})).to_string();
    let from = logs.len();
    let headers = call_headers("echo").set("Connection", "close");
    let request = http::raw_request(addr, "POST", PATH, &headers, body.as_bytes());
    let reply = http::send_bytes(addr, &request, false).await.unwrap_or_else(|e| panic!("{e}"));
    let error = assert_error(&reply, 413, -32600, &Value::Null);
    assert_eq!(error["message"], format!("Request body exceeds {BODY_LIMIT} bytes"));
    logs.assert_warned(from, "a body over the limit");
    assert_still_serving(addr).await;

    // Large but under the limit: served whole.
    let large = "L".repeat(BODY_LIMIT / 2);
    let reply = post(addr, "echo", &call(json!(2), "echo", json!({"text": large}), json!({}))).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(2))), large);
    let state = first_round(addr, &large).await;
    let extra = json!({"inputResponses": {REGION_KEY: accept_region("eu")}, "requestState": state});
    let reply = retry(addr, &json!(3), &large, extra).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(3))), format!("Provisioned '{large}' in eu."));
    assert_still_serving(addr).await;
    logs.assert_clean(&[secret]);
}

#[tokio::test]
async fn json_nested_deeper_than_the_limit_is_400_invalid_request() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let secret = "SECRET-ARG-deep-http-6d0f";
    let template = call(json!("deep"), "echo", json!({"text": secret, "deep": "@@"}), json!({})).to_string();
    // The message (1), params (2) and arguments (3) are levels too.
    let at_limit = MAX_DEPTH - 3;
    let reply = post_body(addr, "echo", template.replacen("\"@@\"", &nested(at_limit), 1)).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!("deep"))), secret);
    for body in [
        template.replacen("\"@@\"", &nested(at_limit + 1), 1),
        template.replacen("\"@@\"", &nested(1_000), 1),
        template.replacen("\"@@\"", &nested(200_000), 1),
        "[".repeat(100_000),
        format!("{}{}", "{\"a\":".repeat(MAX_DEPTH + 1), "1"),
    ] {
        let from = logs.len();
        let reply = post_body(addr, "echo", body).await;
        let error = assert_error(&reply, 400, -32600, &Value::Null);
        assert_eq!(error["message"], format!("Invalid Request: JSON nested deeper than {MAX_DEPTH} levels"));
        logs.assert_warned(from, "nesting over the limit");
        assert_still_serving(addr).await;
    }
    logs.assert_clean(&[]);
}

#[tokio::test]
async fn a_duplicate_key_anywhere_is_400_invalid_request() {
    let (logs, _guard) = capture_logs();
    let addr = start().await;
    let params = modern_params(json!({}), json!({"name": "echo", "arguments": {"text": "dup"}})).to_string();
    let bodies = [
        format!(r#"{{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params},"params":{params}}}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}}"#,
            params.replacen(r#""text":"dup""#, r#""text":"dup","text":"other""#, 1)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}}"#,
            params.replacen(r#""name":"echo""#, r#""name":"echo","name":"hold""#, 1)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"\u006detho\u0064":"tools/list","method":"tools/call","params":{params}}}"#
        ),
    ];
    for body in bodies {
        assert!(serde_json::from_str::<Value>(&body).is_ok(), "the case must be JSON apart from the duplicate: {body}");
        let from = logs.len();
        let reply = post_body(addr, "echo", body.clone()).await;
        let error = assert_error(&reply, 400, -32600, &Value::Null);
        assert_eq!(error["message"], "Invalid Request: duplicate key in a JSON object", "{body}");
        logs.assert_warned(from, "a duplicate key");
        assert_still_serving(addr).await;
    }
}

#[tokio::test]
async fn invalid_utf8_and_unpaired_surrogates_are_400_parse_errors() {
    let (_logs, _guard) = capture_logs();
    let addr = start().await;
    let template = call(json!(1), "echo", json!({"text": "@@"}), json!({})).to_string();
    let (before, after) = template.split_once("@@").unwrap_or_else(|| panic!("no placeholder in {template}"));
    let bad_bytes: [&[u8]; 7] =
        [b"\xff", b"\xc0\x80", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\x80", b"\xe2\x82", b"\xf4\x90\x80\x80"];
    for bad in bad_bytes {
        let mut body = before.as_bytes().to_vec();
        body.extend_from_slice(bad);
        body.extend_from_slice(after.as_bytes());
        let reply = post_body(addr, "echo", body).await;
        let error = assert_error(&reply, 400, -32700, &Value::Null);
        assert_eq!(error["message"], "Parse error: Invalid JSON", "{bad:x?}");
        assert_still_serving(addr).await;
    }
    for escaped in [r"\ud800", r"\udc00", r"\ud800x", r"\ud800\u0041", r"\udfff\ud800"] {
        let reply = post_body(addr, "echo", format!("{before}{escaped}{after}")).await;
        assert_error(&reply, 400, -32700, &Value::Null);
        assert_still_serving(addr).await;
    }
    // A paired surrogate escape is one valid character.
    let reply = post_body(addr, "echo", format!(r"{before}\ud83d\ude00{after}")).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!(1))), "\u{1F600}");
}
