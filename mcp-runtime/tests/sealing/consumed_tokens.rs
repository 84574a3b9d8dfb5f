//! The in-memory single-use store: bounded, expiring ids by time, refusing new ids when
//! full (fail closed), driven through the `ConsumedTokens` trait with explicit times.

use super::*;
use crate::support::logs::capture_logs;
use mcp::sealing::ConsumedTokens;

/// A distinct id for each `n`.
fn id(n: u32) -> [u8; 16] {
    let mut id = [0u8; 16];
    id[..4].copy_from_slice(&n.to_be_bytes());
    id
}

#[test]
fn a_full_store_refuses_new_ids_until_old_ones_expire() {
    let store = InMemoryConsumedTokens::bounded(2);
    assert!(store.consume(id(1), T0 + 10_000, T0));
    assert!(store.consume(id(2), T0 + 20_000, T0));
    // Full of unexpired ids: a new id is refused rather than forgetting one (which would let
    // that token be replayed), and it is not recorded.
    assert!(!store.consume(id(3), T0 + 30_000, T0 + 1));
    assert!(!store.consume(id(3), T0 + 30_000, T0 + 9_000));
    assert_eq!(store.len(), 2);
    // Replays are still refused while full.
    assert!(!store.consume(id(1), T0 + 10_000, T0 + 9_000));
    // Once the first id expires, its slot is free again.
    assert!(store.consume(id(3), T0 + 30_000, T0 + 11_000));
    assert!(!store.consume(id(4), T0 + 40_000, T0 + 11_000));
    assert!(!store.consume(id(3), T0 + 30_000, T0 + 12_000));
}

#[test]
fn expired_ids_are_forgotten_without_waiting_for_the_map_to_grow() {
    let store = InMemoryConsumedTokens::default();
    for n in 0..1_000 {
        assert!(store.consume(id(n), T0 + 5_000, T0));
    }
    assert_eq!(store.len(), 1_000);
    // Past their expiry (and the one-second bucket they were filed in) they are dropped.
    assert!(store.consume(id(5_000), T0 + 60_000, T0 + 7_000));
    assert_eq!(store.len(), 1);
    assert!(!store.is_empty());
}

#[test]
fn an_id_is_refused_until_its_expiry_and_may_be_recorded_again_after() {
    let store = InMemoryConsumedTokens::bounded(1);
    assert!(store.consume(id(1), T0 + 5_000, T0));
    assert!(!store.consume(id(1), T0 + 5_000, T0 + 4_999));
    // At its expiry the envelope check refuses the token anyway; the store forgets the id.
    assert!(store.consume(id(1), T0 + 9_000, T0 + 5_000));
    assert!(!store.consume(id(1), T0 + 9_000, T0 + 8_999));
    assert!(!store.consume(id(2), T0 + 9_000, T0 + 8_999));
    assert!(store.consume(id(2), T0 + 12_000, T0 + 10_000));
}

#[test]
fn a_store_without_room_refuses_every_token() {
    let store = InMemoryConsumedTokens::bounded(0);
    assert!(!store.consume(id(1), T0 + 5_000, T0));
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
