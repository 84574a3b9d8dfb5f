//! What one `consume` costs in the single-use store ([`InMemoryConsumedTokens`]) holding
//! 2^18 live ids: the store fills with that many unexpired ids, then each timed call
//! presents an id it already holds (a replayed token: refused, so the store stays full).
//! A second store, with room for twice as many, then times new ids on top of 2^18 live
//! ones, the clock moving 1 ms per call so that expiry buckets come and go.
//!
//! `cargo run --release -p mcp-bench-servers --bin consumed_tokens_bench [CALLS]`
//!
//! A plain timing loop, not a statistical harness: the figure of interest moves by orders
//! of magnitude (a whole-map scan per call against a hash lookup), not by percents.

use std::hint::black_box;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use mcp::sealing::{ConsumedTokens, InMemoryConsumedTokens};

const LIVE: u64 = 1 << 18;
const NOW_MS: u64 = 1_800_000_000_000;
const TTL_MS: u64 = 600_000;

/// A distinct 16-byte id for each `n`.
fn id(n: u64) -> [u8; 16] {
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&n.to_le_bytes());
    id[8..].copy_from_slice(&n.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes());
    id
}

/// One `consume`, polled once: the in-memory store answers at once, so no runtime is needed
/// (and none is timed).
fn consume(store: &InMemoryConsumedTokens, id: [u8; 16], expires_ms: u64, now_ms: u64) -> bool {
    let mut call = store.consume(id, expires_ms, now_ms);
    match call.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(answer) => answer.expect("an in-memory store always answers"),
        Poll::Pending => unreachable!("the in-memory store answers at once"),
    }
}

fn main() {
    let calls: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let store = InMemoryConsumedTokens::default();

    let started = Instant::now();
    for n in 0..LIVE {
        assert!(consume(&store, id(n), NOW_MS + TTL_MS, NOW_MS), "id {n} was refused while filling");
    }
    let fill = started.elapsed();
    println!("fill: {LIVE} ids in {:.1} ms ({:.0} ns per id)", ms(fill), ns(fill) / LIVE as f64);

    let started = Instant::now();
    for n in 0..calls {
        let fresh = black_box(consume(&store, id(n % LIVE), NOW_MS + TTL_MS, NOW_MS + 1));
        assert!(!fresh, "a replayed id was accepted");
    }
    let replay = started.elapsed();
    println!(
        "consume (replay) with {LIVE} live ids: {:.3} ms per call ({:.0} ns) over {calls} calls",
        ms(replay) / calls as f64,
        ns(replay) / calls as f64,
    );

    let store = InMemoryConsumedTokens::bounded(2 * LIVE as usize);
    for n in 0..LIVE {
        assert!(consume(&store, id(n), NOW_MS + n % TTL_MS, NOW_MS), "id {n} was refused while filling");
    }
    let started = Instant::now();
    for n in 0..calls {
        let now = NOW_MS + n;
        let fresh = black_box(consume(&store, id(LIVE + n), now + TTL_MS, now));
        assert!(fresh, "a new id was refused");
    }
    let fresh = started.elapsed();
    println!(
        "consume (new id) with {LIVE} live ids: {:.3} ms per call ({:.0} ns) over {calls} calls",
        ms(fresh) / calls as f64,
        ns(fresh) / calls as f64,
    );
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn ns(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e9
}
