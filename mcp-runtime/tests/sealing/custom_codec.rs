//! A custom codec.

use super::*;

/// A reversible XOR "cipher" with an HMAC-SHA256 tag over `x1.` ‖ body. For the test
/// only: XOR with a fixed pad hides nothing from someone with two tokens.
struct XorHmacCodec {
    pad: [u8; 32],
    key: hmac::Key,
}

const X_PREFIX: &str = "x1.";

impl XorHmacCodec {
    fn new(secret: &[u8]) -> Self {
        let mut pad = [0u8; 32];
        pad.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, secret).as_ref());
        XorHmacCodec { pad, key: hmac::Key::new(hmac::HMAC_SHA256, secret) }
    }

    fn xor(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.iter().enumerate().map(|(i, b)| b ^ self.pad[i % self.pad.len()]).collect()
    }

    fn signed(body: &[u8]) -> Vec<u8> {
        [X_PREFIX.as_bytes(), body].concat()
    }
}

impl RequestStateCodec for XorHmacCodec {
    fn seal(&self, payload: &[u8]) -> Result<String, SealError> {
        let mut raw = self.xor(payload);
        let tag = hmac::sign(&self.key, &Self::signed(&raw));
        raw.extend_from_slice(tag.as_ref());
        Ok(format!("{X_PREFIX}{}", URL_SAFE_NO_PAD.encode(raw)))
    }

    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState> {
        let text = token.strip_prefix(X_PREFIX).ok_or(InvalidRequestState("malformed"))?;
        let raw = URL_SAFE_NO_PAD.decode(text).map_err(|_| InvalidRequestState("malformed"))?;
        if URL_SAFE_NO_PAD.encode(&raw) != text || raw.len() < 32 {
            return Err(InvalidRequestState("malformed"));
        }
        let (body, tag) = raw.split_at(raw.len() - 32);
        hmac::verify(&self.key, &Self::signed(body), tag).map_err(|_| InvalidRequestState("seal"))?;
        Ok(self.xor(body))
    }
}

#[tokio::test]
async fn a_custom_codec_round_trips_and_tampering_gets_the_fixed_error() {
    let clock = TestClock::new();
    let security = RequestStateSecurity::builder()
        .codec(XorHmacCodec::new(b"custom codec secret"))
        .clock(clock.clone())
        .build()
        .expect("policy");
    let h = server("svc", security);
    let token = h.mint("deploy", json!({"env": "prod"}), None).await;
    assert!(token.starts_with("x1.") && !token.contains("plain-state"), "{token}");
    let tampered = rebody(&token, X_PREFIX, |raw| raw[3] ^= 0x80);
    h.expect_call_rejected("deploy", json!({"env": "prod"}), json!(tampered), None).await;
    // The codec authenticates; the server still checks the binding and expiry.
    h.expect_call_rejected("other", json!({"env": "prod"}), json!(token), None).await;
    clock.set(T0 + TTL_MS);
    h.expect_call_rejected("deploy", json!({"env": "prod"}), json!(token), None).await;
    clock.set(T0 + 1);
    assert_eq!(h.expect_completes("deploy", json!({"env": "prod"}), &token, None).await, "plain-state-deploy-r1");
    // A `v1.` token is not this codec's.
    let aes = server("svc", keys_policy(&[K], &clock)).mint("deploy", json!({"env": "prod"}), None).await;
    h.expect_call_rejected("deploy", json!({"env": "prod"}), json!(aes), None).await;
}

#[tokio::test]
async fn codec_authenticated_bytes_that_are_not_an_envelope_are_rejected() {
    let clock = TestClock::new();
    let h = server("svc", keys_policy(&[K], &clock));
    let codec = AesGcmCodec::new(&[K]).expect("codec");
    let good = envelope(&h.mint("deploy", json!({}), None).await, &[K]);
    let payload = good.to_payload();
    let edited = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = payload.clone();
        f(&mut bytes);
        bytes
    };
    let json_envelope = json!({"v": 1, "iat": T0, "exp": T0 + TTL_MS, "m": "tools/call", "t": "deploy",
        "a": good.a, "s": good.s, "aud": "svc"});
    let bad: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("text", b"not an envelope".to_vec()),
        ("a JSON envelope", json_envelope.to_string().into_bytes()),
        ("other version", edited(&|b| b[0] = 2)),
        ("truncated", payload[..payload.len() - 1].to_vec()),
        ("header only", payload[..17].to_vec()),
        ("trailing byte", edited(&|b| b.push(0))),
        ("invalid UTF-8 state", edited(&|b| *b.last_mut().expect("state") = 0xff)),
        ("bad optional flag", {
            // v, iat, exp, then m, t, a (short strings: one length byte each), then aud's flag.
            let at = 17 + 1 + good.m.len() + 1 + good.t.len() + 1 + good.a.len();
            assert_eq!(payload[at], 1, "aud present");
            edited(&|b| b[at] = 2)
        }),
        ("length past the end", edited(&|b| b[17] = 0x7f)),
        ("overlong length", {
            let mut b = payload[..17].to_vec();
            b.extend_from_slice(&[0x8a, 0x00]); // 10 written in two bytes
            b.extend_from_slice(&payload[18..]);
            b
        }),
        ("huge length", {
            let mut b = payload[..17].to_vec();
            b.extend_from_slice(&[0xff; 10]);
            b.extend_from_slice(&payload[18..]);
            b
        }),
    ];
    for (what, bytes) in bad {
        assert!(Envelope::from_payload(&bytes).is_err(), "{what} decodes");
        let token = codec.seal(&bytes).expect("seals");
        h.expect_call_rejected("deploy", json!({}), json!(token), None).await;
    }
    // The same path accepts a well-formed envelope sealed by hand.
    let token = codec.seal(&payload).expect("seals");
    assert_eq!(h.expect_completes("deploy", json!({}), &token, None).await, "plain-state-deploy-r1");
}
