//! The three questions a resolver can ask: [`Elicit`], [`Sample`] and [`ListRoots`].

use serde::Deserialize as _;
use serde_json::Value;

use super::form::{ElicitForm, content_matches};
use crate::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitRequestParams, InputRequest, ListRootsResult, SamplingMessage,
};

/// Which capability a question needs, and how its answers look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuestionKind {
    /// `elicitation/create` (form mode).
    Elicit,
    /// `sampling/createMessage`.
    Sample,
    /// `roots/list`.
    ListRoots,
}

/// A resolver's return type that may ask the client: [`Elicit<T>`], [`Sample`] or
/// [`ListRoots`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a question",
    label = "a resolver returns a plain value or one of `Elicit<T>`, `Sample`, `ListRoots`"
)]
pub trait Question: Send + 'static {
    /// The answer's value.
    type Value: Send + Sync + 'static;
    /// The kind of question.
    const KIND: QuestionKind;
    /// The value when the resolver answered without asking, else the request to send.
    fn into_request(self) -> Rendered<Self::Value>;
    /// An accepted answer's payload (elicitation content, sampling or roots result) as the
    /// value, checked against the request it answers; `None` if it does not fit.
    fn decode(request: &InputRequest, payload: &Value) -> Option<Self::Value>;
}

/// A question rendered for the wire, or the value a resolver already knew.
#[derive(Debug)]
pub enum Rendered<V> {
    /// No question: this is the value.
    Answered(V),
    /// Send this request.
    Ask(Box<InputRequest>),
}

/// Ask the user to fill in the form `T` (form-mode elicitation).
///
/// `T` derives [`ElicitForm`](macro@crate::ElicitForm) (and `Deserialize`), which checks at
/// compile time that it is a flat form of strings, numbers, integers, booleans and
/// string enums.
#[derive(Debug)]
pub struct Elicit<T> {
    inner: Result<T, String>,
}

impl<T: ElicitForm> Elicit<T> {
    /// Ask `message`, with the schema of `T`.
    pub fn new(message: impl Into<String>) -> Self {
        Elicit { inner: Err(message.into()) }
    }

    /// Do not ask: the value is already known (the consumer gets it as accepted).
    pub fn answered(value: T) -> Self {
        Elicit { inner: Ok(value) }
    }
}

impl<T: ElicitForm> Question for Elicit<T> {
    type Value = T;
    const KIND: QuestionKind = QuestionKind::Elicit;

    fn into_request(self) -> Rendered<T> {
        match self.inner {
            Ok(value) => Rendered::Answered(value),
            Err(message) => {
                Rendered::Ask(Box::new(InputRequest::Elicit(ElicitRequestParams::form(message, T::schema().clone()))))
            }
        }
    }

    fn decode(request: &InputRequest, payload: &Value) -> Option<T> {
        let InputRequest::Elicit(ElicitRequestParams::Form(form)) = request else {
            return None;
        };
        if !content_matches(&form.requested_schema, payload) {
            return None;
        }
        T::deserialize(payload).ok()
    }
}

/// Ask the client's model for a completion (`sampling/createMessage`).
#[derive(Debug)]
pub struct Sample {
    inner: Result<CreateMessageResult, Box<CreateMessageParams>>,
}

impl Sample {
    /// Ask with these parameters. Tools and tool choice need the client's `sampling.tools`.
    pub fn new(params: CreateMessageParams) -> Self {
        Sample { inner: Err(Box::new(params)) }
    }

    /// Ask with these messages and token budget, leaving the other parameters unset.
    pub fn messages(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        let mut params = CreateMessageParams::user_text("", max_tokens);
        params.messages = messages;
        Sample::new(params)
    }

    /// Ask with one user text message.
    pub fn user(text: impl Into<String>, max_tokens: u64) -> Self {
        Sample::new(CreateMessageParams::user_text(text, max_tokens))
    }

    /// Do not ask: the result is already known.
    pub fn answered(result: CreateMessageResult) -> Self {
        Sample { inner: Ok(result) }
    }
}

impl Question for Sample {
    type Value = CreateMessageResult;
    const KIND: QuestionKind = QuestionKind::Sample;

    fn into_request(self) -> Rendered<CreateMessageResult> {
        match self.inner {
            Ok(result) => Rendered::Answered(result),
            Err(params) => Rendered::Ask(Box::new(InputRequest::Sample(*params))),
        }
    }

    fn decode(_request: &InputRequest, payload: &Value) -> Option<CreateMessageResult> {
        CreateMessageResult::deserialize(payload).ok()
    }
}

/// Ask for the client's roots (`roots/list`).
#[derive(Debug, Default)]
pub struct ListRoots {
    answered: Option<ListRootsResult>,
}

impl ListRoots {
    /// Ask.
    pub fn new() -> Self {
        ListRoots { answered: None }
    }

    /// Do not ask: the roots are already known.
    pub fn answered(result: ListRootsResult) -> Self {
        ListRoots { answered: Some(result) }
    }
}

impl Question for ListRoots {
    type Value = ListRootsResult;
    const KIND: QuestionKind = QuestionKind::ListRoots;

    fn into_request(self) -> Rendered<ListRootsResult> {
        match self.answered {
            Some(result) => Rendered::Answered(result),
            None => Rendered::Ask(Box::new(InputRequest::ListRoots(None))),
        }
    }

    fn decode(_request: &InputRequest, payload: &Value) -> Option<ListRootsResult> {
        ListRootsResult::deserialize(payload).ok()
    }
}
