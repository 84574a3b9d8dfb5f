//! Round trips.

use super::*;

#[tokio::test]
async fn round_trip_seals_on_the_wire_and_restores_the_plaintext() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let args = json!({"env": "prod"});
    let token = h.mint("deploy", args.clone(), None).await;
    assert!(token.starts_with("v1."), "{token}");
    assert!(!token.contains("plain-state"), "{token}");
    // Layout: v1. + base64url(kid 4 ‖ nonce 12 ‖ ciphertext ‖ tag 16), unpadded.
    let raw = URL_SAFE_NO_PAD.decode(&token[3..]).expect("unpadded base64url");
    let plaintext = envelope(&token, &[K]).to_payload();
    assert_eq!(raw.len(), 4 + 12 + plaintext.len() + 16);
    assert!(!raw.windows(b"plain-state".len()).any(|w| w == b"plain-state"), "the state is encrypted");
    assert_eq!(h.seen.last_state(), None, "the first round has no state");

    let seen = h.expect_completes("deploy", args.clone(), &token, None).await;
    assert_eq!(seen, "plain-state-deploy-r1");

    // Two seals of the same state differ (fresh nonce), and both open to the same state.
    let a = h.mint("deploy", args.clone(), None).await;
    let b = h.mint("deploy", args.clone(), None).await;
    assert_ne!(a, b);
    assert_eq!(envelope(&a, &[K]).s, envelope(&b, &[K]).s);
}

/// The token is read from the request's text where it lies when it needs no unescaping;
/// written with escapes, it is the same token and opens the same (and a number is no
/// token at all).
#[tokio::test]
async fn a_token_opens_however_its_string_is_written() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let args = json!({"env": "prod"});
    let retry = |state: &str| {
        let params = modern(json!({"name": "deploy", "arguments": args.clone(), "requestState": "@"}));
        let text = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).to_string();
        text.replacen(r#""@""#, state, 1)
    };
    for escaped in [false, true] {
        let token = h.mint("deploy", args.clone(), None).await;
        assert!(token.starts_with("v1."), "the escapes below rewrite this prefix: {token}");
        let written = match escaped {
            false => format!("\"{token}\""),
            // `v1.` with its `v` and its `.` escaped.
            true => format!("\"\\u0076{}\\u002e{}\"", &token[1..2], &token[3..]),
        };
        let result = h.send_text(&retry(&written)).await.expect("the retry completes");
        assert_eq!(result["resultType"], "complete", "{written}: {result}");
        assert_eq!(h.seen.last_state().as_deref(), Some("plain-state-deploy-r1"), "{written}");
    }
    let before = h.seen.len();
    assert_rejected(h.send_text(&retry("31")).await);
    assert_eq!(h.seen.len(), before, "a handler ran for a number as requestState");
}

#[tokio::test]
async fn each_round_is_resealed_with_a_fresh_expiry() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let args = json!({"rounds": 2});
    let first = h.mint("plan", args.clone(), None).await;
    let claims = envelope(&first, &[K]);
    assert_eq!((claims.iat, claims.exp), (T0, T0 + TTL_MS));

    // Just inside the first round's ttl: accepted, and the second round is resealed.
    clock.set(T0 + TTL_MS - 1);
    let second = token_of(&h.call("plan", args.clone(), Some(json!(first)), None).await);
    assert_eq!(h.seen.last_state().as_deref(), Some("plain-state-plan-r1"));
    assert_ne!(second, first);
    let claims = envelope(&second, &[K]);
    assert_eq!((claims.iat, claims.exp), (T0 + TTL_MS - 1, T0 + 2 * TTL_MS - 1));
    assert_eq!(claims.s, "plain-state-plan-r2");

    // Past the first token's expiry the second one still works: the ttl is per round.
    clock.set(T0 + TTL_MS + 500);
    h.expect_call_rejected("plan", args.clone(), json!(first), None).await;
    assert_eq!(h.expect_completes("plan", args, &second, None).await, "plain-state-plan-r2");
}

#[tokio::test]
async fn envelope_claims_are_the_documented_ones() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let token = h.mint("deploy", json!({"env": "prod"}), None).await;
    let claims = envelope(&token, &[K]);
    let expected = Envelope {
        v: 1,
        iat: T0,
        exp: T0 + TTL_MS,
        m: "tools/call".to_owned(),
        t: "deploy".to_owned(),
        a: args_digest(Some(&json!({"env": "prod"}))),
        s: "plain-state-deploy-r1".to_owned(),
        aud: Some("svc".to_owned()),
        p: None,
    };
    assert_eq!(claims, expected, "no `p` when no principal is bound");
    assert_eq!(Envelope::from_payload(&expected.to_payload()).expect("decodes"), expected);

    // With a principal, `p` is a salted hash: two mints for one user differ, and neither
    // contains the principal.
    let alice = user("client-1", "alice");
    let p1 = envelope(&h.mint("deploy", json!({}), Some(&alice)).await, &[K]).p.expect("p");
    let p2 = envelope(&h.mint("deploy", json!({}), Some(&alice)).await, &[K]).p.expect("p");
    assert_ne!(p1, p2);
    assert!(!p1.contains("alice") && !p1.contains("client-1"));
}

#[tokio::test]
async fn prompts_and_resources_seal_and_restore_too() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let prompt = modern(json!({"name": "review", "arguments": {"lang": "rust"}}));
    let token = token_of(&h.send("prompts/get", prompt.clone(), None).await);
    assert!(token.starts_with("v1.") && !token.contains("plain-state"));
    let mut retry = prompt;
    retry["requestState"] = json!(token);
    let done = h.send("prompts/get", retry, None).await.expect("completes");
    assert_eq!(done["resultType"], "complete");
    assert_eq!(h.seen.last_state().as_deref(), Some("plain-state-review-r1"));

    let read = modern(json!({"uri": "file:///notes/a.txt"}));
    let token = token_of(&h.send("resources/read", read.clone(), None).await);
    assert!(token.starts_with("v1."));
    let mut retry = read;
    retry["requestState"] = json!(token);
    let done = h.send("resources/read", retry, None).await.expect("completes");
    assert_eq!(done["contents"][0]["text"], "done");
    assert_eq!(h.seen.last_state().as_deref(), Some("plain-state-file:///notes/a.txt-r1"));
}
