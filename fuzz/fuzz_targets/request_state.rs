//! The `requestState` unsealer and the envelope inside it, as `Boundary::inbound` uses
//! them: `AesGcmCodec::unseal` then `Envelope::open`.
//!
//! Per input:
//! 1. Its text, as a token, is refused by the key ring `[A, B]` unless it is one of the
//!    genuine tokens committed in `fuzz/seeds/request_state/` (the fuzzer starts from
//!    those, so every near miss is tried); a genuine token opens to a valid envelope.
//! 2. Its bytes, as a sealed payload, decode as an envelope only if they are exactly that
//!    envelope's canonical encoding, and `Envelope::open` agrees with the claims (time
//!    window, request binding, audience, principal).
//! 3. Its bytes, sealed, unseal to the same bytes; the token with one byte flipped,
//!    truncated, or extended is refused.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use mcp::sealing::{AesGcmCodec, Binding, Envelope, FUTURE_SKEW_MS, Rejection, RequestStateCodec};
use mcp_fuzz::{ring_codec, text_prefix};

static RING: LazyLock<AesGcmCodec> = LazyLock::new(ring_codec);

/// Tokens minted by `examples/seeds.rs` under the ring's keys, with their payloads.
const GENUINE: &[&str] = &[
    include_str!("../seeds/request_state/genuine-a-tools-call.txt"),
    include_str!("../seeds/request_state/genuine-a-empty.txt"),
    include_str!("../seeds/request_state/genuine-b-resources-read.txt"),
    include_str!("../seeds/request_state/genuine-b-principal.txt"),
];

fn unseal_arbitrary(token: &str) {
    match RING.unseal(token) {
        Err(refused) => assert!(!refused.0.is_empty()),
        Ok(payload) => {
            assert!(GENUINE.contains(&token), "a token that was never minted opened: {token:?} -> {payload:?}");
            // Everything the server mints is an envelope.
            if !payload.is_empty() {
                let envelope = Envelope::from_payload(&payload)
                    .unwrap_or_else(|r| panic!("a genuine token holds no envelope ({r:?}): {token}"));
                check_envelope(&payload, &envelope);
            }
        }
    }
}

fn binding_of(envelope: &Envelope) -> Binding {
    Binding { method: envelope.m.clone(), target: envelope.t.clone(), args_digest: envelope.a.clone() }
}

/// What `Envelope::open` must say about `payload`, which decodes as `envelope`.
fn check_envelope(payload: &[u8], envelope: &Envelope) {
    let binding = binding_of(envelope);
    let aud = envelope.aud.as_deref();
    let open = |now: u64, binding: &Binding, aud: Option<&str>, principal: Option<&str>| {
        Envelope::open(payload, now, binding, aud, principal)
    };
    // Inside its window (the issue time itself), for its own request and audience.
    let now = envelope.iat;
    let expected = if envelope.exp <= now {
        Err(Rejection::Expired)
    } else if envelope.p.is_some() {
        // A principal claim, opened without a principal.
        Err(Rejection::PrincipalDrift)
    } else {
        Ok(envelope.clone())
    };
    assert_eq!(open(now, &binding, aud, None), expected, "{envelope:?}");
    if expected.is_err() {
        return;
    }
    // Only its own principal (none here) is accepted.
    assert_eq!(open(now, &binding, aud, Some("fuzz-principal")), Err(Rejection::PrincipalDrift));
    // Expiry and skew.
    assert_eq!(open(envelope.exp, &binding, aud, None), Err(Rejection::Expired));
    if let Some(early) = envelope.iat.checked_sub(FUTURE_SKEW_MS + 1) {
        assert_eq!(open(early, &binding, aud, None), Err(Rejection::FromTheFuture));
    }
    // Another request or audience.
    let mut other = binding.clone();
    other.method.push('x');
    assert_eq!(open(now, &other, aud, None), Err(Rejection::RequestBinding));
    let mut other = binding.clone();
    other.target.push('x');
    assert_eq!(open(now, &other, aud, None), Err(Rejection::RequestBinding));
    let mut other = binding;
    other.args_digest.push('x');
    assert_eq!(open(now, &other, aud, None), Err(Rejection::RequestBinding));
    let other_aud = format!("{}x", aud.unwrap_or_default());
    assert_eq!(open(now, &binding_of(envelope), Some(&other_aud), None), Err(Rejection::Audience));
}

fn decode_arbitrary_payload(data: &[u8]) {
    match Envelope::from_payload(data) {
        Err(rejection) => {
            assert_eq!(rejection, Rejection::Malformed);
            let binding = Binding { method: String::new(), target: String::new(), args_digest: String::new() };
            assert_eq!(Envelope::open(data, 0, &binding, None, None), Err(Rejection::Malformed));
        }
        Ok(envelope) => {
            // Strict decoding: one encoding per envelope, nothing trailing.
            assert_eq!(envelope.to_payload(), data, "{envelope:?} was read from a non-canonical payload");
            check_envelope(data, &envelope);
            if envelope.p.is_some() && envelope.iat < envelope.exp {
                let opened =
                    Envelope::open(data, envelope.iat, &binding_of(&envelope), envelope.aud.as_deref(), Some("p"));
                assert_eq!(opened, Err(Rejection::Principal), "an arbitrary principal claim matched");
            }
        }
    }
}

fn seal_and_tamper(data: &[u8]) {
    let token = RING.seal(data).unwrap_or_else(|e| panic!("seal failed: {e}"));
    assert_eq!(RING.unseal(&token).as_deref(), Ok(data), "seal then unseal");
    // Where and how to tamper, chosen by the input.
    let pick = data.iter().fold(0usize, |acc, b| acc.wrapping_mul(31).wrapping_add(usize::from(*b)));
    let at = pick % token.len();
    let flip = u8::try_from(pick / token.len() % 127).unwrap_or(0) + 1;
    let mut bytes = token.clone().into_bytes();
    bytes[at] ^= flip;
    // Flipping bits of an ASCII byte by less than 0x80 keeps it ASCII.
    let tampered = String::from_utf8(bytes).unwrap_or_else(|e| panic!("{e}"));
    assert!(RING.unseal(&tampered).is_err(), "flipped byte {at} by {flip:#x}: {tampered}");
    assert!(RING.unseal(&token[..at]).is_err(), "truncated to {at} bytes");
    let extended = format!("{token}{}", char::from(b'A' + flip % 26));
    assert!(RING.unseal(&extended).is_err(), "extended by one character");
}

fuzz_target!(|data: &[u8]| {
    unseal_arbitrary(text_prefix(data));
    decode_arbitrary_payload(data);
    seal_and_tamper(data);
});
