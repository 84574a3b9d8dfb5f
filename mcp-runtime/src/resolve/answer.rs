//! What came back for a question.

/// The outcome of a resolver's question, for a `Resolve<R, Refusable>` consumer.
///
/// Only elicitations can be declined or cancelled; sampling and roots answers, and
/// resolvers that answer without asking, are always `Accept`.
///
/// # Examples
///
/// A tool that handles a refusal itself takes `Resolve<r, Refusable>` and matches on the
/// answer; here the client declines, in a 2025-11-25 session:
///
/// ```
/// use mcp::client::{Client, Mode};
/// use mcp::protocol::ElicitResult;
/// use mcp::resolve::{Answer, Elicit, Refusable};
/// use mcp::{Resolve, Server};
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Confirm {
///     ok: bool,
/// }
///
/// #[mcp::resolver]
/// fn ask_go() -> Elicit<Confirm> {
///     Elicit::new("Delete the file?")
/// }
///
/// /// Delete a file, unless the user says no.
/// #[mcp::tool]
/// fn delete(go: Resolve<ask_go, Refusable>) -> String {
///     match &*go {
///         Answer::Accept(c) if c.ok => "deleted".to_owned(),
///         Answer::Accept(_) | Answer::Decline => "kept".to_owned(),
///         Answer::Cancel => "cancelled".to_owned(),
///     }
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), mcp::client::ClientError> {
///     let server = Server::builder("files", "1.0.0").tool::<delete>().build();
///     let client = Client::builder()
///         .mode(Mode::Legacy)
///         .elicitation(|_asker, _params| async { Ok(ElicitResult::decline()) })
///         .connect_in_process(&server)
///         .await?;
///     let result = client.call_tool("delete", serde_json::json!({})).await?;
///     assert_eq!(result.content[0].as_text(), Some("kept"));
///     Ok(())
/// }
/// ```
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
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::resolve::Answer;
    ///
    /// assert_eq!(Answer::Accept("eu-west-1").accepted(), Some(&"eu-west-1"));
    /// assert_eq!(Answer::<&str>::Decline.accepted(), None);
    /// assert_eq!(Answer::<&str>::Cancel.accepted(), None);
    /// ```
    pub fn accepted(&self) -> Option<&T> {
        match self {
            Answer::Accept(value) => Some(value),
            Answer::Decline | Answer::Cancel => None,
        }
    }

    /// The same answer with the accepted value mapped by `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::resolve::Answer;
    ///
    /// assert_eq!(Answer::Accept(2).map(|n| n * 10), Answer::Accept(20));
    /// assert_eq!(Answer::<i32>::Decline.map(|n| n * 10), Answer::Decline);
    /// ```
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        match self {
            Answer::Accept(value) => Answer::Accept(f(value)),
            Answer::Decline => Answer::Decline,
            Answer::Cancel => Answer::Cancel,
        }
    }

    /// `"accept"`, `"decline"` or `"cancel"`.
    ///
    /// These are the wire names of the elicitation actions.
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::resolve::Answer;
    ///
    /// assert_eq!(Answer::Accept(1).action(), "accept");
    /// assert_eq!(Answer::<i32>::Decline.action(), "decline");
    /// assert_eq!(Answer::<i32>::Cancel.action(), "cancel");
    /// ```
    pub fn action(&self) -> &'static str {
        match self {
            Answer::Accept(_) => "accept",
            Answer::Decline => "decline",
            Answer::Cancel => "cancel",
        }
    }
}
