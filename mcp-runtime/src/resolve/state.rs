//! The resolvers' progress, kept in the (sealed) `requestState` between rounds:
//!
//! ```json
//! {"v":1, "r":1,
//!  "outcomes":{"<key>":{"action":"accept","data":{..},"q":"<digest>"}},
//!  "asked":{"<key>":"<digest>"}}
//! ```
//!
//! `outcomes` holds the answers received so far, each pinned to the digest of the exact
//! question it answers; `asked` holds the digests of the questions sent in the last round,
//! so an answer counts only if it comes back with the state that asked it; `r` counts the
//! rounds served so far (for the spans' `mcp.round`).

use std::cell::RefCell;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::recent::Recent;
use crate::protocol::{ElicitAction, InputRequest};

use super::entries::Entries;

const VERSION: u64 = 1;

/// One recorded answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Recorded {
    pub(crate) action: ElicitAction,
    /// The accepted payload as it came from the client (absent for decline and cancel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) data: Option<Value>,
    /// The digest of the question it answers.
    pub(crate) q: String,
}

/// The decoded progress of one call.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub(crate) struct Progress {
    v: u64,
    /// The rounds served so far: the round that wrote this state is `r`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) r: u32,
    pub(crate) outcomes: Entries<Recorded>,
    pub(crate) asked: Entries<String>,
}

/// The state as read before its entries: each entry stays the text it was, so that one
/// malformed entry can be dropped alone without first reading the whole state as a tree.
#[derive(Deserialize)]
struct Loose<'a> {
    v: u64,
    #[serde(default)]
    r: u32,
    #[serde(default, borrow)]
    outcomes: Entries<&'a RawValue>,
    #[serde(default, borrow)]
    asked: Entries<&'a RawValue>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Progress {
    pub(crate) fn new() -> Self {
        Progress { v: VERSION, ..Default::default() }
    }

    /// Decode the plaintext state. Anything unreadable (another version, another shape,
    /// a malformed entry) counts as no progress for that part, never as an error: the
    /// state was sealed by this fleet, so only a deploy in between can produce it.
    pub(crate) fn decode(state: Option<&str>) -> Self {
        let Some(loose) = state.and_then(|s| serde_json::from_str::<Loose>(s).ok()) else {
            return Progress::new();
        };
        if loose.v != VERSION {
            return Progress::new();
        }
        let outcomes = loose
            .outcomes
            .into_iter()
            .filter_map(|(key, entry)| Some((key, serde_json::from_str::<Recorded>(entry.get()).ok()?)))
            .filter(|(_, r)| (r.action == ElicitAction::Accept) == r.data.is_some())
            .collect();
        let asked = loose
            .asked
            .into_iter()
            .filter_map(|(key, q)| Some((key, serde_json::from_str::<String>(q.get()).ok()?)))
            .collect();
        Progress { v: VERSION, r: loose.r, outcomes, asked }
    }

    pub(crate) fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The digest that pins an answer to its question: 22 base64url characters of the
/// SHA-256 of the method and the compact JSON of the rendered parameters.
pub fn question_digest(request: &InputRequest) -> String {
    // The compact JSON of the params, written into one buffer and hashed in one update
    // (serde writes a token at a time, and a hash update per token costs more): the same
    // bytes as encoding the params as a tree first (struct fields in declaration order, as
    // `Value` keeps them), without the tree.
    let mut text = Vec::with_capacity(256);
    text.extend_from_slice(request.method().as_bytes());
    text.push(b'\n');
    let written = match request {
        InputRequest::Elicit(p) => serde_json::to_writer(&mut text, p),
        InputRequest::Sample(p) => serde_json::to_writer(&mut text, p),
        InputRequest::ListRoots(Some(p)) => serde_json::to_writer(&mut text, p),
        InputRequest::ListRoots(None) => serde_json::to_writer(&mut text, &Value::Null),
    };
    if written.is_err() {
        // As the tree did: params that cannot be encoded count as `null`.
        text.clear();
        text.extend_from_slice(request.method().as_bytes());
        text.extend_from_slice(b"\nnull");
    }
    remembered_digest(&text)
}

/// The longest question text whose digest a thread remembers.
const REMEMBERED: usize = 4096;

thread_local! {
    /// The last question text this thread hashed, and its digest. A resolver asks the same
    /// question call after call, and each call hashes it twice (to ask, then to check the
    /// answer against it): hashing was two thirds of a digest's cost, and a sixth of a
    /// two-round call's.
    static LAST_DIGEST: RefCell<Recent<String, 1, REMEMBERED>> = const { RefCell::new(Recent::new()) };
}

/// The digest of `text`: the last one this thread computed when the text is the same
/// (compared byte for byte), else computed, and remembered in its place.
fn remembered_digest(text: &[u8]) -> String {
    // `try_with`: a thread whose locals are being torn down hashes every time.
    if let Ok(Some(digest)) = LAST_DIGEST.try_with(|last| last.borrow().find(text, |_| true).cloned()) {
        return digest;
    }
    let digest = digest_of(text);
    let _ = LAST_DIGEST.try_with(|last| last.borrow_mut().keep(text, digest.clone()));
    digest
}

/// 22 base64url characters of the SHA-256 of `text`.
fn digest_of(text: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, text);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&digest.as_ref()[..16])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ElicitRequestParams, ElicitationSchema};
    use serde_json::json;

    fn ask(message: &str) -> InputRequest {
        InputRequest::Elicit(ElicitRequestParams::form(message, ElicitationSchema::default()))
    }

    #[test]
    fn digest_pins_the_rendered_question() {
        let q = question_digest(&ask("Region?"));
        assert_eq!(q.len(), 22);
        assert!(!q.contains('='));
        assert_eq!(q, question_digest(&ask("Region?")));
        assert_ne!(q, question_digest(&ask("Region? ")));
        assert_ne!(question_digest(&InputRequest::ListRoots(None)), q);
    }

    /// A digest remembered from the last question is that question's: asked in turns
    /// (the same twice, another, the first again, one past what is remembered), each
    /// digest is the hash of its own text.
    #[test]
    fn remembered_digests_are_their_questions() {
        let long = "x".repeat(REMEMBERED);
        for message in ["Region?", "Region?", "Size?", "Region?", long.as_str(), long.as_str(), "Region?"] {
            let request = ask(message);
            let mut text = format!("{}\n", request.method()).into_bytes();
            let InputRequest::Elicit(params) = &request else { unreachable!("asked above") };
            serde_json::to_writer(&mut text, params).expect("test value");
            assert_eq!(question_digest(&request), digest_of(&text), "{message}");
        }
        assert_ne!(question_digest(&ask("Region?")), question_digest(&ask("Size?")));
    }

    /// The digest hashes the params as written straight from the struct; tokens sealed
    /// before that change hashed them through a `Value` tree. Both must agree, or state
    /// sealed by an older build would stop matching its question.
    #[test]
    fn digest_matches_the_tree_encoding() {
        let schema: ElicitationSchema = serde_json::from_value(json!({
            "type": "object",
            "properties": {"region": {"type": "string", "title": "Region", "enum": ["eu", "us"]}, "n": {"type": "integer", "minimum": 1}},
            "required": ["region"]
        }))
        .expect("test value");
        let sample: crate::protocol::CreateMessageParams = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Name it ü \"x\""}}],
            "maxTokens": 50, "temperature": 0.25
        }))
        .expect("test value");
        let requests = [
            InputRequest::Elicit(ElicitRequestParams::form("Region? 1.5e3 \u{1F600}", schema)),
            InputRequest::Sample(sample),
            InputRequest::ListRoots(None),
        ];
        for request in &requests {
            let params = request.params_value().expect("test value").unwrap_or(Value::Null);
            let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
            ctx.update(request.method().as_bytes());
            ctx.update(b"\n");
            ctx.update(&serde_json::to_vec(&params).expect("test value"));
            let tree = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&ctx.finish().as_ref()[..16]);
            assert_eq!(question_digest(request), tree, "{}", request.method());
        }
    }

    #[test]
    fn round_trips_every_action() {
        let mut p = Progress::new();
        p.outcomes
            .insert("a".into(), Recorded { action: ElicitAction::Accept, data: Some(json!({"x": 1})), q: "q1".into() });
        p.outcomes.insert("b".into(), Recorded { action: ElicitAction::Decline, data: None, q: "q2".into() });
        p.outcomes.insert("c".into(), Recorded { action: ElicitAction::Cancel, data: None, q: "q3".into() });
        p.asked.insert("d".into(), "q4".into());
        assert_eq!(Progress::decode(Some(&p.encode())), p);
    }

    #[test]
    fn malformed_state_is_no_progress() {
        for bad in ["", "null", "[]", "{\"v\":2}", "{\"v\":\"1\"}", "not json", "{\"outcomes\":{}}"] {
            assert_eq!(Progress::decode(Some(bad)), Progress::new(), "{bad}");
        }
        assert_eq!(Progress::decode(None), Progress::new());
    }

    #[test]
    fn malformed_entries_are_dropped_one_by_one() {
        let state = json!({"v": 1, "outcomes": {
            "good": {"action": "accept", "data": {"x": 1}, "q": "q"},
            "no_q": {"action": "accept", "data": {"x": 1}},
            "accept_without_data": {"action": "accept", "q": "q"},
            "decline_with_data": {"action": "decline", "data": 1, "q": "q"},
            "bad_action": {"action": "maybe", "q": "q"},
            "not_an_object": 7
        }, "asked": {"k": "q", "bad": 3}});
        let p = Progress::decode(Some(&state.to_string()));
        assert_eq!(p.outcomes.keys().collect::<Vec<_>>(), ["good"]);
        assert_eq!(p.asked.keys().collect::<Vec<_>>(), ["k"]);
    }
}
