//! What came back for a question.

/// The outcome of a resolver's question, for a `Resolve<R, Refusable>` consumer.
///
/// Only elicitations can be declined or cancelled; sampling and roots answers, and
/// resolvers that answer without asking, are always `Accept`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer<T> {
    /// The user (or client) answered with this value.
    Accept(T),
    /// The user refused.
    Decline,
    /// The user dismissed the question.
    Cancel,
}

impl<T> Answer<T> {
    /// The accepted value, if any.
    pub fn accepted(&self) -> Option<&T> {
        match self {
            Answer::Accept(value) => Some(value),
            Answer::Decline | Answer::Cancel => None,
        }
    }

    /// `"accept"`, `"decline"` or `"cancel"`.
    pub fn action(&self) -> &'static str {
        match self {
            Answer::Accept(_) => "accept",
            Answer::Decline => "decline",
            Answer::Cancel => "cancel",
        }
    }
}
