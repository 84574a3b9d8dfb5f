//! Logs free of secrets.

use super::*;
use crate::support::logs::Logs;

/// Seals nothing: every seal fails, as with a KMS outage.
struct FailingCodec;

impl RequestStateCodec for FailingCodec {
    fn seal(&self, _payload: &[u8]) -> Result<String, SealError> {
        Err(SealError("kms unavailable".to_owned()))
    }

    fn unseal(&self, _token: &str) -> Result<Vec<u8>, InvalidRequestState> {
        Err(InvalidRequestState("malformed"))
    }
}

#[tokio::test]
async fn logs_give_reasons_but_never_secrets() {
    let logs = Logs::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(logs.clone())
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let failing = server(
        "svc",
        RequestStateSecurity::builder().codec(FailingCodec).clock(clock.clone()).build().expect("policy"),
    );
    // tracing caches each callsite's interest when the callsite is first hit. Other tests
    // run on other threads without a subscriber; if one of them hits the rejection
    // callsite first, it is cached as "never" and this test's events vanish. Hit both
    // callsites here, then rebuild the cache from this thread, which has the subscriber.
    h.expect_call_rejected("warm-up", json!({}), json!(0), None).await;
    let _ = failing.call("warm-up", json!({}), None, None).await;
    tracing::callsite::rebuild_interest_cache();
    logs.0.lock().expect("log lock").clear();

    let client_id = "client-7f3a9c";
    let subject = "subject-alice-42";
    let alice = user(client_id, subject);
    let args = json!({"env": "prod"});
    let token = h.mint("deploy", args.clone(), Some(&alice)).await;
    let tampered = rebody(&token, "v1.", |raw| raw[20] ^= 1);
    let unknown = server("svc", keys_policy(&[K2], &clock)).mint("deploy", args.clone(), Some(&alice)).await;

    h.expect_call_rejected("destroy", args.clone(), json!(token), Some(&alice)).await;
    h.expect_call_rejected("deploy", args.clone(), json!(token), Some(&user(client_id, "subject-bob"))).await;
    h.expect_call_rejected("deploy", args.clone(), json!(token), None).await;
    h.expect_call_rejected("deploy", args.clone(), json!(tampered), Some(&alice)).await;
    h.expect_call_rejected("deploy", args.clone(), json!(unknown), Some(&alice)).await;
    h.expect_call_rejected("deploy", args.clone(), json!(42), Some(&alice)).await;
    clock.set(T0 + TTL_MS);
    h.expect_call_rejected("deploy", args.clone(), json!(token), Some(&alice)).await;

    // A seal failure is a sanitized internal error.
    let error = failing.call("deploy", args.clone(), None, Some(&alice)).await.expect_err("the seal fails");
    assert_eq!(error_json(error), json!({"code": -32603, "message": "Internal error"}));

    let text = String::from_utf8(logs.0.lock().expect("log lock").clone()).expect("UTF-8 logs");
    for reason in [
        "requestState rejected",
        "request binding",
        "principal",
        "principal drift",
        "seal",
        "unknown key",
        "non-string requestState",
        "expired",
        "refusing to seal requestState",
        "kms unavailable",
    ] {
        assert!(text.contains(reason), "the log lacks {reason:?}:\n{text}");
    }
    let principal = alice.principal();
    for secret in [
        token.as_str(),
        &token[3..],
        &token[3..40],
        tampered.as_str(),
        unknown.as_str(),
        "plain-state",
        client_id,
        subject,
        principal.as_str(),
    ] {
        assert!(!text.contains(secret), "the log leaks {secret:?}:\n{text}");
    }
}
