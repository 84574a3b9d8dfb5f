//! The in-memory single-use store: bounded, expiring ids by time, refusing new ids when
//! full (fail closed), driven through the `ConsumedTokens` trait with explicit times.

use super::*;
use crate::support::logs::capture_logs;
use mcp::sealing::ConsumedTokens;

/// Record `id` in `store` through the trait; the in-memory store always answers.
async fn consume(store: &InMemoryConsumedTokens, id: [u8; 16], expires_ms: u64, now_ms: u64) -> bool {
    ConsumedTokens::consume(store, id, expires_ms, now_ms).await.expect("an in-memory store always answers")
}

/// A distinct id for each `n`.
fn id(n: u32) -> [u8; 16] {
    let mut id = [0u8; 16];
    id[..4].copy_from_slice(&n.to_be_bytes());
    id
}

#[tokio::test]
async fn a_full_store_refuses_new_ids_until_old_ones_expire() {
    let store = InMemoryConsumedTokens::bounded(2);
    assert!(consume(&store, id(1), T0 + 10_000, T0).await);
    assert!(consume(&store, id(2), T0 + 20_000, T0).await);
    // Full of unexpired ids: a new id is refused rather than forgetting one (which would let
    // that token be replayed), and it is not recorded.
    assert!(!consume(&store, id(3), T0 + 30_000, T0 + 1).await);
    assert!(!consume(&store, id(3), T0 + 30_000, T0 + 9_000).await);
    assert_eq!(store.len(), 2);
    // Replays are still refused while full.
    assert!(!consume(&store, id(1), T0 + 10_000, T0 + 9_000).await);
    // Once the first id expires, its slot is free again.
    assert!(consume(&store, id(3), T0 + 30_000, T0 + 11_000).await);
    assert!(!consume(&store, id(4), T0 + 40_000, T0 + 11_000).await);
    assert!(!consume(&store, id(3), T0 + 30_000, T0 + 12_000).await);
}

#[tokio::test]
async fn expired_ids_are_forgotten_without_waiting_for_the_map_to_grow() {
    let store = InMemoryConsumedTokens::default();
    for n in 0..1_000 {
        assert!(consume(&store, id(n), T0 + 5_000, T0).await);
    }
    assert_eq!(store.len(), 1_000);
    // Past their expiry (and the one-second bucket they were filed in) they are dropped.
    assert!(consume(&store, id(5_000), T0 + 60_000, T0 + 7_000).await);
    assert_eq!(store.len(), 1);
    assert!(!store.is_empty());
}

#[tokio::test]
async fn an_id_is_refused_until_its_expiry_and_may_be_recorded_again_after() {
    let store = InMemoryConsumedTokens::bounded(1);
    assert!(consume(&store, id(1), T0 + 5_000, T0).await);
    assert!(!consume(&store, id(1), T0 + 5_000, T0 + 4_999).await);
    // At its expiry the envelope check refuses the token anyway; the store forgets the id.
    assert!(consume(&store, id(1), T0 + 9_000, T0 + 5_000).await);
    assert!(!consume(&store, id(1), T0 + 9_000, T0 + 8_999).await);
    assert!(!consume(&store, id(2), T0 + 9_000, T0 + 8_999).await);
    assert!(consume(&store, id(2), T0 + 12_000, T0 + 10_000).await);
}

#[tokio::test]
async fn a_store_without_room_refuses_every_token() {
    let store = InMemoryConsumedTokens::bounded(0);
    assert!(!consume(&store, id(1), T0 + 5_000, T0).await);
    assert!(store.is_empty());
}

#[test]
fn the_default_capacity_holds_two_to_the_eighteen_ids() {
    assert_eq!(InMemoryConsumedTokens::DEFAULT_CAPACITY, 1 << 18);
    assert_eq!(InMemoryConsumedTokens::default().capacity(), 1 << 18);
    assert_eq!(InMemoryConsumedTokens::bounded(7).capacity(), 7);
}

#[tokio::test]
async fn a_full_store_refuses_the_retry_with_the_fixed_error_and_a_warning() {
    let (logs, _guard) = capture_logs();

    let clock = TestClock::new();
    let h = server("svc", policy(&[K], &clock).single_use(InMemoryConsumedTokens::bounded(1)).build().expect("policy"));
    let first = h.mint("deploy", json!({}), None).await;
    assert_eq!(h.expect_completes("deploy", json!({}), &first, None).await, "plain-state-deploy-r1");
    // See `logs_give_reasons_but_never_secrets`: register the callsites, then rebuild the
    // interest cache from this thread, which has the subscriber.
    let warm_up = h.mint("warm-up", json!({}), None).await;
    h.expect_call_rejected("warm-up", json!({}), json!(warm_up), None).await;
    tracing::callsite::rebuild_interest_cache();
    logs.0.lock().expect("log lock").clear();

    clock.set(T0 + TTL_MS - 1_000);
    let second = h.mint("deploy", json!({}), None).await;
    h.expect_call_rejected("deploy", json!({}), json!(second), None).await;
    let text = String::from_utf8(logs.0.lock().expect("log lock").clone()).expect("UTF-8 logs");
    assert!(text.contains("WARN"), "{text}");
    assert!(text.contains("single-use store full"), "{text}");
    assert!(!text.contains(&second), "the log leaks the token:\n{text}");

    // The first token's id expires with it, and the refused one was never recorded: its
    // retry now goes through.
    clock.set(T0 + TTL_MS + 1_000);
    assert_eq!(h.expect_completes("deploy", json!({}), &second, None).await, "plain-state-deploy-r1");
    h.expect_call_rejected("deploy", json!({}), json!(second), None).await;
}

/// A single-use store that cannot be reached.
struct Unreachable;

impl ConsumedTokens for Unreachable {
    fn consume(
        &self,
        _id: [u8; 16],
        _expires_ms: u64,
        _now_ms: u64,
    ) -> mcp::tasks::StoreFuture<'_, Result<bool, mcp::sealing::ConsumedTokensError>> {
        let cause = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "store-host refused the connection");
        Box::pin(std::future::ready(Err(mcp::sealing::ConsumedTokensError::unavailable(cause))))
    }
}

#[tokio::test]
async fn an_unavailable_store_refuses_the_retry_with_a_retryable_error_and_a_warning() {
    let (logs, _guard) = capture_logs();
    let clock = TestClock::new();
    let h = server("svc", policy(&[K], &clock).single_use(Unreachable).build().expect("policy"));
    // A first round needs no store.
    let token = h.mint("deploy", json!({}), None).await;
    tracing::callsite::rebuild_interest_cache();
    let from = logs.len();
    let before = h.seen.len();
    let error = h.call("deploy", json!({}), Some(json!(token)), None).await.expect_err("the store is down");
    assert_eq!(
        error_json(error),
        json!({"code": -32603, "message": "The single-use store is unavailable; try again later"}),
        "not the replay error: the round itself is fine"
    );
    assert_eq!(
        error_json(mcp::sealing::single_use_store_unavailable()),
        json!({"code": -32603, "message": "The single-use store is unavailable; try again later"})
    );
    assert_eq!(h.seen.len(), before, "the handler did not run");
    let warning = logs.assert_warned(from, "an unavailable single-use store");
    assert!(warning.contains("store-host refused the connection"), "the WARN gives the cause: {warning}");
    logs.assert_clean(&[&token]);
}
