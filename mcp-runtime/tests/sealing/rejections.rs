//! Rejections: always exactly the fixed error, and the handler never runs.

use super::*;

#[tokio::test]
async fn malformed_tokens_are_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    // A tool name whose token body leaves spare bits in its last character (the body
    // length is fixed by the envelope, which the fixed clock makes deterministic).
    let mut name = String::from("d");
    let mut token = h.mint(&name, json!({}), None).await;
    while token[3..].len() % 4 == 0 {
        name.push('x');
        token = h.mint(&name, json!({}), None).await;
    }
    let body = &token[3..];
    // A body whose last character carries non-zero trailing bits: the same bytes as
    // `body` under a lenient decoder, but not the text `seal` produced.
    let alias = {
        let (head, last) = body.split_at(body.len() - 1);
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let i = alphabet.iter().position(|c| *c == last.as_bytes()[0]).expect("base64url char");
        let unused_bits = match body.len() % 4 {
            2 => 0b1111,
            3 => 0b11,
            _ => 0,
        };
        assert_ne!(unused_bits, 0, "the token body length leaves spare bits");
        format!("v1.{head}{}", alphabet[i | 1] as char)
    };
    let cases = [
        ("empty", String::new()),
        ("no prefix", body.to_owned()),
        ("other prefix", format!("v2.{body}")),
        ("upper-case prefix", format!("V1.{body}")),
        ("bad base64", format!("v1.{}*{}", &body[..10], &body[11..])),
        ("standard alphabet", format!("v1.{}+/", &body[..body.len() - 2])),
        ("padded", format!("{token}{}", "=".repeat(4 - body.len() % 4))),
        ("non-canonical trailing bits", alias),
        ("whitespace", format!("{token} ")),
        ("too short", format!("v1.{}", URL_SAFE_NO_PAD.encode([0u8; 31]))),
        ("prefix only", "v1.".to_owned()),
    ];
    for (what, bad) in cases {
        assert_ne!(bad, token, "{what}");
        h.expect_call_rejected(&name, json!({}), json!(bad), None).await;
    }
    assert_eq!(h.expect_completes(&name, json!({}), &token, None).await, format!("plain-state-{name}-r1"));
}

#[tokio::test]
async fn a_token_from_another_key_ring_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let other = server("svc", keys_policy(&[K2], &clock));
    let foreign = other.mint("deploy", json!({}), None).await;
    h.expect_call_rejected("deploy", json!({}), json!(foreign), None).await;
    // Two default (ephemeral) policies never accept each other's tokens either.
    let a = server("svc", RequestStateSecurity::ephemeral().expect("ephemeral"));
    let b = server("svc", RequestStateSecurity::ephemeral().expect("ephemeral"));
    let token = a.mint("deploy", json!({}), None).await;
    b.expect_call_rejected("deploy", json!({}), json!(token), None).await;
}

#[tokio::test]
async fn a_flipped_byte_anywhere_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    let len = URL_SAFE_NO_PAD.decode(&token[3..]).expect("base64url").len();
    // kid, nonce, ciphertext (start and middle), tag.
    for at in [0, 5, 16, 16 + (len - 32) / 2, len - 1] {
        let tampered = rebody(&token, "v1.", |raw| raw[at] ^= 0x01);
        h.expect_call_rejected("deploy", json!({}), json!(tampered), None).await;
    }
    // A kid transplanted from another ring's token onto this body.
    let foreign = server("svc", keys_policy(&[K2], &clock)).mint("deploy", json!({}), None).await;
    let foreign_kid = URL_SAFE_NO_PAD.decode(&foreign[3..]).expect("base64url")[..4].to_vec();
    let transplanted = rebody(&token, "v1.", |raw| raw[..4].copy_from_slice(&foreign_kid));
    let two_ring = server("svc", keys_policy(&[K, K2], &clock));
    two_ring.expect_call_rejected("deploy", json!({}), json!(transplanted), None).await;
}

#[tokio::test]
async fn a_reprefixed_token_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    for prefix in ["v2.", "v0.", "x1.", "v1..", ".v1."] {
        h.expect_call_rejected("deploy", json!({}), json!(format!("{prefix}{}", &token[3..])), None).await;
    }
}

#[tokio::test]
async fn a_token_minted_beyond_the_future_skew_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    // The verifier's clock is behind the minter's by more than 60 s.
    clock.set(T0 - SKEW_MS - 1);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    clock.set(T0 - 120_000);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    // Exactly 60 s behind is still within the skew.
    clock.set(T0 - SKEW_MS);
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn an_expired_token_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    clock.set(T0 + TTL_MS + 1_000);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    clock.set(T0 + 10 * TTL_MS);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
}

#[tokio::test]
async fn a_token_is_rejected_exactly_at_its_expiry_and_accepted_just_before() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    clock.set(T0 + TTL_MS);
    h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    clock.set(T0 + TTL_MS - 1);
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn a_token_replayed_on_another_tool_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({"env": "prod"}), None).await;
    h.expect_call_rejected("destroy", json!({"env": "prod"}), json!(token), None).await;
    assert_eq!(h.expect_completes("deploy", json!({"env": "prod"}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn a_token_replayed_with_other_arguments_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({"env": "staging", "n": 1}), None).await;
    for other in [
        json!({"env": "prod", "n": 1}),
        json!({"env": "staging"}),
        json!({"env": "staging", "n": 1, "force": true}),
        json!({"env": "staging", "n": 1.0}),
        json!({"env": "staging", "n": "1"}),
        json!({}),
        Value::Null,
    ] {
        h.expect_call_rejected("deploy", other, json!(token), None).await;
    }
    // Absent, `null` and `{}` arguments are one and the same binding.
    let empty = h.mint("deploy", json!({}), None).await;
    let params = modern(json!({"name": "deploy", "requestState": empty}));
    let done = h.send("tools/call", params, None).await.expect("absent arguments match {}");
    assert_eq!(done["resultType"], "complete");
    let null = h.mint("deploy", Value::Null, None).await;
    assert_eq!(h.expect_completes("deploy", json!({}), &null, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn argument_key_order_does_not_matter() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    // Raw JSON text, so the two requests really carry the keys in different orders.
    let text = |id: i64, order: &str, state: Option<&str>| {
        let state = state.map(|s| format!(r#","requestState":"{s}""#)).unwrap_or_default();
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"{PROTOCOL_VERSION}":"2026-07-28","{CLIENT_CAPABILITIES}":{{"elicitation":{{}}}}}},"name":"sum","arguments":{order}{state}}}}}"#
        )
    };
    let request = |text: String| match decode_message(&text) {
        Ok(JsonRpcMessage::Request(request)) => request,
        other => panic!("not a request: {other:?}"),
    };
    let result = h
        .server
        .handle_request_as(
            &h.session,
            request(text(1, r#"{"a":1,"b":{"y":2,"x":[{"q":1,"p":2}]}}"#, None)),
            h.notifications.clone(),
            None,
        )
        .await;
    let token = token_of(&result);
    let retry = text(2, r#"{"b":{"x":[{"p":2,"q":1}],"y":2},"a":1}"#, Some(&token));
    let done = h.server.handle_request_as(&h.session, request(retry), h.notifications.clone(), None).await;
    assert_eq!(done.expect("reordered keys are the same arguments")["resultType"], "complete");
    assert_eq!(h.seen.last_state().as_deref(), Some("plain-state-sum-r1"));
    // Array order does matter.
    let token = token_of(
        &h.server
            .handle_request_as(&h.session, request(text(3, r#"{"a":[1,2]}"#, None)), h.notifications.clone(), None)
            .await,
    );
    let swapped = h
        .server
        .handle_request_as(&h.session, request(text(4, r#"{"a":[2,1]}"#, Some(&token))), h.notifications.clone(), None)
        .await;
    assert_rejected(swapped);
}

#[test]
fn the_arguments_digest_is_over_sorted_compact_json() {
    // The documented definition: SHA-256 of the canonical JSON (keys sorted at every
    // level, no whitespace), first 16 bytes, base64url. Pinned independently of how
    // serde_json happens to order its maps (`preserve_order`).
    let value = json!({"b": {"y": [3, {"z": 1, "a": null}], "x": "é"}, "a": true, "aa": 1.5});
    let canonical = r#"{"a":true,"aa":1.5,"b":{"x":"é","y":[3,{"a":null,"z":1}]}}"#;
    let digest = ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes());
    assert_eq!(args_digest(Some(&value)), URL_SAFE_NO_PAD.encode(&digest.as_ref()[..16]));
    let empty = ring::digest::digest(&ring::digest::SHA256, b"{}");
    assert_eq!(args_digest(None), URL_SAFE_NO_PAD.encode(&empty.as_ref()[..16]));
    assert_eq!(args_digest(Some(&json!({}))), args_digest(None));
}

#[tokio::test]
async fn a_tools_call_token_replayed_on_prompts_get_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    // Same name and same (string) arguments: only the method differs.
    let token = h.mint("deploy", json!({"env": "prod"}), None).await;
    let replay = modern(json!({"name": "deploy", "arguments": {"env": "prod"}, "requestState": token}));
    h.expect_rejected("prompts/get", replay, None).await;
    let mut prompt = modern(json!({"name": "deploy", "arguments": {"env": "prod"}}));
    let prompt_token = token_of(&h.send("prompts/get", prompt.clone(), None).await);
    h.expect_call_rejected("deploy", json!({"env": "prod"}), json!(prompt_token), None).await;
    prompt["requestState"] = json!(prompt_token);
    assert_eq!(h.send("prompts/get", prompt, None).await.expect("completes")["resultType"], "complete");
}

#[tokio::test]
async fn resources_read_tokens_are_bound_to_the_uri() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = token_of(&h.send("resources/read", modern(json!({"uri": "file:///a.txt"})), None).await);
    for uri in ["file:///b.txt", "file:///a.txt/", "FILE:///a.txt"] {
        h.expect_rejected("resources/read", modern(json!({"uri": uri, "requestState": token})), None).await;
    }
    // ... and to the method: a tool named like the URI does not accept it.
    h.expect_call_rejected("file:///a.txt", json!({}), json!(token), None).await;
    let done = h.send("resources/read", modern(json!({"uri": "file:///a.txt", "requestState": token})), None).await;
    assert_eq!(done.expect("completes")["resultType"], "complete");
}

#[tokio::test]
async fn two_servers_sharing_keys_reject_each_others_tokens_by_name() {
    let clock = TestClock::new();
    let a = server("svc-a", keys_policy(&[K], &clock));
    let b = server("svc-b", keys_policy(&[K], &clock));
    let token = a.mint("deploy", json!({}), None).await;
    b.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    // Same name, same keys: one logical service (instances behind a balancer).
    let a2 = server("svc-a", keys_policy(&[K], &clock));
    assert_eq!(a2.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn an_explicit_audience_on_one_side_only_is_rejected() {
    let clock = TestClock::new();
    let named = server("svc", keys_policy(&[K], &clock));
    let explicit = server("svc", policy(&[K], &clock).audience("svc-prod").build().expect("policy"));
    let token = named.mint("deploy", json!({}), None).await;
    explicit.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    let token = explicit.mint("deploy", json!({}), None).await;
    named.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    // An explicit audience overrides the name: differently named servers sharing it agree.
    let other = server("svc-other", policy(&[K], &clock).audience("svc-prod").build().expect("policy"));
    assert_eq!(other.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn a_token_for_another_principal_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    // One OAuth client, one issuer, two users.
    let alice = user("shared-client", "alice");
    let bob = user("shared-client", "bob");
    let token = h.mint("deploy", json!({}), Some(&alice)).await;
    h.expect_call_rejected("deploy", json!({}), json!(token), Some(&bob)).await;
    // Another client for the same subject, or another issuer, is another principal too.
    h.expect_call_rejected("deploy", json!({}), json!(token), Some(&user("other-client", "alice"))).await;
    let other_issuer = Arc::new(AuthInfo { issuer: Some("https://evil.example".into()), ..(*alice).clone() });
    h.expect_call_rejected("deploy", json!({}), json!(token), Some(&other_issuer)).await;
    // Scopes and expiry are not part of the principal.
    let rescoped = Arc::new(AuthInfo { scopes: vec![], expires_at: Some(1), ..(*alice).clone() });
    assert_eq!(h.expect_completes("deploy", json!({}), &token, Some(&rescoped)).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn principal_presence_drift_is_rejected_both_ways() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let alice = user("client-1", "alice");
    let authenticated = h.mint("deploy", json!({}), Some(&alice)).await;
    h.expect_call_rejected("deploy", json!({}), json!(authenticated), None).await;
    let anonymous = h.mint("deploy", json!({}), None).await;
    h.expect_call_rejected("deploy", json!({}), json!(anonymous), Some(&alice)).await;
    assert_eq!(h.expect_completes("deploy", json!({}), &authenticated, Some(&alice)).await, "plain-state-deploy-r1");
    assert_eq!(h.expect_completes("deploy", json!({}), &anonymous, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn a_non_string_request_state_is_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({}), None).await;
    for bad in [json!(42), json!({"token": token}), json!([token]), json!(true)] {
        h.expect_call_rejected("deploy", json!({}), bad, None).await;
    }
}

#[tokio::test]
async fn an_explicit_null_request_state_is_a_first_round() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let result = h.call("deploy", json!({}), Some(Value::Null), None).await;
    let token = token_of(&result);
    assert_eq!(h.seen.len(), 1);
    assert_eq!(h.seen.last_state(), None, "the handler sees no state");
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}
