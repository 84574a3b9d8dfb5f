//! Asking the client a question in the middle of a tool's work: inside a task (answered
//! through `tasks/update`), or in a 2025-11-25 session (a server-to-client request).

use super::answer::Answer;
use super::question::{Question, Rendered};
use super::round::interpret;
use crate::Error;
use crate::handler::RequestContext;

/// Ask the client `question` (an [`Elicit<T>`](super::Elicit), a [`Sample`](super::Sample)
/// or [`ListRoots`](super::ListRoots)) while a tool works, and wait for the answer.
///
/// - In a task's work (`#[mcp::tool(task = "...")]`), the task becomes `input_required`
///   with the question in its `inputRequests`; the client answers with `tasks/update`.
///   Questions asked concurrently are open together.
/// - In a 2025-11-25 session, it is an `elicitation/create`, `sampling/createMessage` or
///   `roots/list` request to the client.
/// - In an ordinary 2026-07-28 call there is no way to ask mid-call: it fails. Ask with
///   `Resolve<...>` parameters there, before the body runs.
///
/// A question the client did not declare the capability for fails with `-32021`; an
/// answer that does not fit the question fails with `-32602`.
///
/// # Examples
///
/// ```
/// use mcp::resolve::{Answer, Elicit, ask};
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Confirm {
///     /// Delete it?
///     confirm: bool,
/// }
///
/// /// Delete a file, once the user confirms: a task that asks halfway.
/// #[mcp::tool(task = "required")]
/// async fn delete(filename: String, ctx: mcp::Context) -> Result<String, mcp::Error> {
///     let question = Elicit::<Confirm>::new(format!("Delete {filename}?"));
///     match ask(&ctx, question).await? {
///         Answer::Accept(Confirm { confirm: true }) => Ok(format!("Deleted {filename}.")),
///         _ => Ok(format!("Kept {filename}.")),
///     }
/// }
/// # let _ = mcp::Server::builder("files", "1.0.0").tool::<delete>().build();
/// ```
pub async fn ask<Q: Question>(ctx: &RequestContext, question: Q) -> Result<Answer<Q::Value>, Error> {
    let request = match question.into_request() {
        Rendered::Answered(value) => return Ok(Answer::Accept(value)),
        Rendered::Ask(request) => *request,
    };
    let response = ctx.request_input(request.clone()).await?;
    match interpret::<Q>(request.method(), &response, |payload| Q::decode(&request, payload)) {
        Ok(fresh) => Ok(fresh.answer),
        Err(why) => Err(Error::invalid_params(why)),
    }
}
