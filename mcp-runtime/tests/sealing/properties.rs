//! Property: the codec opens exactly what it sealed.

use super::*;

static CODEC: LazyLock<AesGcmCodec> = LazyLock::new(|| AesGcmCodec::new(&[K, K2]).expect("codec"));
const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

#[derive(Debug, Clone)]
enum Edit {
    /// Replace the character at this position with another base64url character.
    Change(Index, usize),
    /// Delete the character at this position.
    Delete(Index),
    /// Append these characters.
    Append(String),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 0..64usize).prop_map(|(at, c)| Edit::Change(at, c)),
        any::<Index>().prop_map(Edit::Delete),
        "[A-Za-z0-9_-]{1,8}".prop_map(Edit::Append),
    ]
}

fn apply(token: &str, edit: &Edit) -> String {
    let mut bytes = token.as_bytes().to_vec();
    match edit {
        Edit::Change(at, c) => {
            let at = at.index(bytes.len());
            let mut replacement = BASE64URL[*c];
            if replacement == bytes[at] {
                replacement = BASE64URL[(c + 1) % 64];
            }
            bytes[at] = replacement;
        }
        Edit::Delete(at) => {
            bytes.remove(at.index(bytes.len()));
        }
        Edit::Append(more) => bytes.extend_from_slice(more.as_bytes()),
    }
    String::from_utf8(bytes).expect("ASCII")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_edit_of_a_sealed_token_is_rejected(payload in proptest::collection::vec(any::<u8>(), 0..512), edit in edit()) {
        let token = CODEC.seal(&payload).expect("seals");
        prop_assert_eq!(CODEC.unseal(&token).expect("the unmodified token opens"), payload);
        let edited = apply(&token, &edit);
        prop_assert_ne!(&edited, &token);
        prop_assert!(CODEC.unseal(&edited).is_err(), "{:?} of {} was accepted", edit, token);
    }
}

fn any_envelope() -> impl Strategy<Value = Envelope> {
    let text = || "\\PC{0,40}";
    (
        (any::<u64>(), any::<u64>(), text(), text(), text()),
        (
            proptest::collection::vec(any::<char>(), 0..300).prop_map(String::from_iter),
            proptest::option::of(text()),
            proptest::option::of(text()),
        ),
    )
        .prop_map(|((iat, exp, m, t, a), (s, aud, p))| Envelope { v: 1, iat, exp, m, t, a, s, aud, p })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn envelopes_round_trip_and_truncations_are_refused(envelope in any_envelope(), cut in any::<Index>(), extra in any::<u8>()) {
        let payload = envelope.to_payload();
        prop_assert_eq!(Envelope::from_payload(&payload).expect("decodes"), envelope);
        prop_assert!(Envelope::from_payload(&payload[..cut.index(payload.len())]).is_err());
        let mut longer = payload.clone();
        longer.push(extra);
        prop_assert!(Envelope::from_payload(&longer).is_err());
    }
}
