//! Hand-built questions: the keys a handler asked, recorded in its (sealed) `requestState`
//! so that on the retry only answers to those questions count.
//!
//! The plaintext state of a round minted by [`Context::record_questions`] is
//!
//! ```json
//! {"v":"asked/1","asked":["<key>", ...],"state":"<the handler's own state>"}
//! ```
//!
//! `asked` holds the keys of the questions the round sent; `state` is what the handler
//! set, if anything.
//! [`Context::new`] takes the wrapper apart again: `request_state()` is the handler's own
//! state, and [`Context::answers`] keeps only the answers whose keys were asked.
//!
//! [`Context::record_questions`]: crate::Context::record_questions
//! [`Context::new`]: crate::Context::new
//! [`Context::answers`]: crate::Context::answers

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::protocol::{InputRequiredResult, InputResponse, InputResponses};

const VERSION: &str = "asked/1";

/// The keys of the questions a round asked.
pub(crate) type Asked = BTreeSet<String>;

#[derive(Serialize, Deserialize)]
struct Wrapper {
    v: String,
    asked: Asked,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    state: Option<String>,
}

/// Record the questions `result` asks in its state, around the state the handler set.
pub(crate) fn record(mut result: InputRequiredResult) -> InputRequiredResult {
    let asked = result.input_requests.iter().flatten().map(|(key, _)| key.clone()).collect();
    let wrapper = Wrapper { v: VERSION.to_owned(), asked, state: result.request_state.take() };
    result.request_state = Some(serde_json::to_string(&wrapper).unwrap_or_default());
    result
}

/// Split an echoed state into the handler's own state and the questions it recorded as
/// asked. A state that is not a recorded round is the handler's own, with nothing asked.
pub(crate) fn split(state: Option<String>) -> (Option<String>, Asked) {
    let Some(text) = state else { return (None, Asked::new()) };
    if !text.starts_with("{\"v\":\"asked/") {
        return (Some(text), Asked::new());
    }
    match serde_json::from_str::<Wrapper>(&text) {
        Ok(wrapper) if wrapper.v == VERSION => (wrapper.state, wrapper.asked),
        _ => (Some(text), Asked::new()),
    }
}

/// The answers of a retry to the questions its (sealed) `requestState` records as asked:
/// what [`Context::answers`](crate::Context::answers) returns (see there for an example).
/// Answers under any other key, and every answer of a call without such a state (a first
/// call), are left out, as the spec says a server should ignore keys it does not recognise.
#[derive(Debug, Clone, Copy)]
pub struct Answers<'a> {
    asked: &'a Asked,
    responses: Option<&'a InputResponses>,
}

impl<'a> Answers<'a> {
    pub(crate) fn new(asked: &'a Asked, responses: Option<&'a InputResponses>) -> Self {
        Answers { asked, responses }
    }

    /// The answer under `key`, if the state asked `key` and the client answered it.
    pub fn get(&self, key: &str) -> Option<&'a InputResponse> {
        if !self.asked.contains(key) {
            return None;
        }
        self.responses?.get(key)
    }

    /// Every counted answer, by key (in key order).
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'a InputResponse)> + 'a {
        let asked = self.asked;
        self.responses
            .into_iter()
            .flatten()
            .filter(move |(key, _)| asked.contains(key.as_str()))
            .map(|(key, answer)| (key.as_str(), answer))
    }

    /// How many answers count.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether no answer counts (always on a first call).
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ElicitRequestParams, ElicitationSchema, InputRequest};

    fn ask(message: &str) -> InputRequest {
        InputRequest::Elicit(ElicitRequestParams::form(message, ElicitationSchema::default()))
    }

    #[test]
    fn a_recorded_round_splits_back_into_the_state_and_the_asked_keys() {
        let round = InputRequiredResult::ask("a", ask("A?")).and_ask("b", ask("B?")).with_state("mine");
        let (state, asked) = split(record(round).request_state);
        assert_eq!(state.as_deref(), Some("mine"));
        assert_eq!(asked.iter().collect::<Vec<_>>(), ["a", "b"]);

        let (state, asked) = split(record(InputRequiredResult::ask("a", ask("A?"))).request_state);
        assert_eq!((state, asked.len()), (None, 1));
    }

    #[test]
    fn any_other_state_is_the_handlers_own_with_nothing_asked() {
        for other in ["plain", "{\"v\":1,\"asked\":[\"a\"]}", "{\"v\":\"asked/2\",\"asked\":[\"a\"]}"] {
            let (state, asked) = split(Some(other.to_owned()));
            assert_eq!(state.as_deref(), Some(other));
            assert!(asked.is_empty(), "{other}");
        }
        assert_eq!(split(None), (None, Asked::new()));
    }
}
