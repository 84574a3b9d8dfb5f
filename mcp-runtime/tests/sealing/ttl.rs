//! The ttl in force when a token comes back bounds it, not only the ttl it was minted with.

use super::*;
use mcp::sealing::{ConsumedTokens, ConsumedTokensError};
use mcp::tasks::StoreFuture;

fn with_ttl(clock: &TestClock, seconds: u64) -> RequestStateSecurityBuilder {
    policy(&[K], clock).ttl(Duration::from_secs(seconds))
}

#[tokio::test]
async fn lowering_the_ttl_shortens_tokens_already_issued() {
    let clock = TestClock::new();
    let long = server("svc", with_ttl(&clock, 600).build().expect("policy"));
    let token = long.mint("deploy", json!({}), None).await;
    // The same keys and audience, redeployed with a shorter ttl.
    let short = server("svc", with_ttl(&clock, 60).build().expect("policy"));
    clock.set(T0 + 120_000);
    short.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    // Issued 120 s ago: the old policy's 600 s still cover it.
    assert_eq!(long.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
    clock.set(T0 + 30_000);
    assert_eq!(short.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
    // Valid while issued-at + ttl is still ahead.
    clock.set(T0 + 60_000);
    short.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    clock.set(T0 + 59_999);
    assert_eq!(short.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

#[tokio::test]
async fn raising_the_ttl_does_not_lengthen_tokens_already_issued() {
    let clock = TestClock::new();
    let short = server("svc", with_ttl(&clock, 60).build().expect("policy"));
    let token = short.mint("deploy", json!({}), None).await;
    let long = server("svc", with_ttl(&clock, 600).build().expect("policy"));
    clock.set(T0 + 120_000);
    long.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    clock.set(T0 + 59_999);
    assert_eq!(long.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}

/// Records the expiry each consumed id is remembered until.
#[derive(Clone, Default)]
struct Expiries(Arc<Mutex<Vec<u64>>>);

impl ConsumedTokens for Expiries {
    fn consume(
        &self,
        _id: [u8; 16],
        expires_ms: u64,
        _now_ms: u64,
    ) -> StoreFuture<'_, Result<bool, ConsumedTokensError>> {
        self.0.lock().expect("expiries lock").push(expires_ms);
        Box::pin(std::future::ready(Ok(true)))
    }
}

#[tokio::test]
async fn the_single_use_store_remembers_an_id_only_until_the_current_ttl_ends() {
    let clock = TestClock::new();
    let long = server("svc", with_ttl(&clock, 600).build().expect("policy"));
    let token = long.mint("deploy", json!({}), None).await;
    let expiries = Expiries::default();
    let short = server("svc", with_ttl(&clock, 60).single_use(expiries.clone()).build().expect("policy"));
    clock.set(T0 + 30_000);
    assert_eq!(short.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
    assert_eq!(*expiries.0.lock().expect("expiries lock"), [T0 + 60_000]);
}
