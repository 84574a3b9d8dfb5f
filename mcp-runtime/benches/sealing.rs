//! What sealing costs per round: the full envelope path the server runs (build the
//! envelope, encode it, seal, unseal, decode and check it) for a 300-byte state, next to
//! a bare AES-256-GCM seal and open of the same 300 bytes with ring (fresh nonce from
//! `SystemRandom`, as the codec does).
//!
//! `cargo bench -p mcp-runtime --bench sealing -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use mcp::sealing::{AesGcmCodec, Binding, Envelope, RequestStateCodec, args_digest};
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};
use serde_json::json;

const KEY: [u8; 32] = [7; 32];
const NOW_MS: u64 = 1_800_000_000_000;
const TTL_MS: u64 = 600_000;
const STATE_BYTES: usize = 300;

/// A 300-byte state shaped like a resolver's: JSON, full of quotes a JSON envelope would escape.
fn state() -> String {
    let mut state = String::from(
        r#"{"v":3,"outcomes":{"app:ask_region":{"action":"accept","data":{"region":"eu-west-1"},"q":"e29hp6MxKKqQyMQZVArlug"}},"asked":{"app:confirm":"cpW1mcFtGeM0ZPdUOr4a0A"},"note":""#,
    );
    while state.len() < STATE_BYTES - 2 {
        state.push('x');
    }
    state.push_str("\"}");
    assert_eq!(state.len(), STATE_BYTES);
    state
}

fn full_path(c: &mut Criterion) {
    let codec = AesGcmCodec::new(&[KEY]).expect("codec");
    let binding = Binding {
        method: "tools/call".to_owned(),
        target: "provision".to_owned(),
        args_digest: args_digest(Some(&json!({"name": "orders", "region": "eu-west-1"}))),
    };
    let audience = "Provisioner";
    let state = state();
    // The handler hands its state over by value, so the copy is made outside the timing.
    c.bench_function("full envelope seal+unseal (300 B state)", |b| {
        b.iter_batched(
            || state.clone(),
            |state| {
                let envelope = Envelope::new(NOW_MS, TTL_MS, &binding, state, Some(audience.to_owned()), None);
                let payload = envelope.to_payload();
                let token = codec.seal(&payload).expect("seals");
                let bytes = codec.unseal(black_box(&token)).expect("unseals");
                let opened = Envelope::open(&bytes, NOW_MS + 1, &binding, Some(audience), None).expect("opens");
                black_box(opened.s)
            },
            BatchSize::SmallInput,
        );
    });
}

fn bare_aead(c: &mut Criterion) {
    let key = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &KEY).expect("key"));
    let rng = SystemRandom::new();
    let plaintext = state().into_bytes();
    c.bench_function("bare ring AES-256-GCM seal+open (300 B)", |b| {
        b.iter(|| {
            let mut nonce = [0u8; NONCE_LEN];
            rng.fill(&mut nonce).expect("randomness");
            let mut buffer = black_box(&plaintext).clone();
            key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(b"v1.kid0"), &mut buffer)
                .expect("seals");
            let opened = key
                .open_in_place(Nonce::assume_unique_for_key(nonce), Aad::from(b"v1.kid0"), &mut buffer)
                .expect("opens");
            black_box(opened.len())
        });
    });
}

criterion_group!(benches, full_path, bare_aead);
criterion_main!(benches);
