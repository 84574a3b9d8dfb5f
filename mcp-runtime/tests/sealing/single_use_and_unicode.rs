//! Single-use tokens, and Unicode (non-BMP, unpaired surrogates) in the arguments.

use super::*;

#[tokio::test]
async fn single_use_mode_accepts_a_token_once() {
    let clock = TestClock::new();
    let h = server("svc", policy(&[K], &clock).single_use(InMemoryConsumedTokens::default()).build().expect("policy"));
    let token = h.mint("deploy", json!({}), None).await;
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    // A rejected token is not consumed: the binding check runs before the store.
    let other = h.mint("deploy", json!({}), None).await;
    h.expect_call_rejected("destroy", json!({}), json!(other), None).await;
    assert_eq!(h.expect_completes("deploy", json!({}), &other, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn without_single_use_a_token_is_accepted_again_within_its_ttl() {
    // The default trade-off, as in the reference SDK: within the ttl the same token may be
    // echoed again for the same method, target, arguments, audience and principal. That
    // keeps retries after a lost response working and needs no shared store across
    // instances; the price is that whoever holds a token can replay that exact request
    // until it expires. Servers whose rounds have side effects opt into `single_use`
    // (with a store shared by every instance).
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    for _ in 0..3 {
        assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
    }
}

#[tokio::test]
async fn non_bmp_arguments_digest_stably() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let args = json!({"clef": "𝄞🎉", "nested": {"ü": ["ß", "😀"]}});
    assert_eq!(args_digest(Some(&args)), args_digest(Some(&args.clone())));
    let token = h.mint("music", args.clone(), None).await;
    assert_eq!(h.expect_completes("music", args.clone(), &token, None).await, "plain-state-music-r1");
    // The same characters written as escaped surrogate pairs are the same arguments.
    let escaped = r#"{"clef":"\ud834\udd1e\ud83c\udf89","nested":{"\u00fc":["\u00df","\ud83d\ude00"]}}"#;
    let escaped: Value = serde_json::from_str(escaped).expect("valid JSON");
    assert_eq!(args_digest(Some(&escaped)), args_digest(Some(&args)));
    assert_eq!(h.expect_completes("music", escaped, &token, None).await, "plain-state-music-r1");
    h.expect_call_rejected("music", json!({"clef": "𝄞", "nested": {"ü": ["ß", "😀"]}}), json!(token), None).await;
}

#[test]
fn an_unpaired_surrogate_is_a_parse_error_not_a_panic() {
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"t":"\ud800"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","requestState":"\udfff"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud800\u0041"}}"#,
    ] {
        let error = decode_message(body).expect_err("a lone surrogate is not a Rust string");
        assert_eq!(error.code, ErrorCode::PARSE_ERROR);
        assert_eq!(error.code, -32700);
    }
}
