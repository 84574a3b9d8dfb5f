//! The 2026-07-28 retry loop: while the server answers `input_required`, answer every
//! input request of the round concurrently, then retry the same request with the answers
//! under the same keys and the `requestState` echoed byte for byte.
//!
//! The loop is a pure function of three effects (answer a question, retry, sleep), so it
//! is tested with fakes and an injected clock.

use std::future::Future;
use std::time::Duration;

use super::ClientError;
use crate::protocol::{Error, InputRequest, InputRequiredResult, InputResponses};

/// The default round limit (the TypeScript and Python SDKs use 10 too).
pub const DEFAULT_MAX_ROUNDS: usize = 10;

/// The first wait of a round that carries only `requestState`.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(50);

/// The longest wait between state-only rounds.
pub const MAX_BACKOFF: Duration = Duration::from_millis(250);

/// One answer from the server: final, or asking for input.
#[derive(Debug, Clone, PartialEq)]
pub enum Round<T> {
    /// The final result.
    Complete(T),
    /// Input is required first.
    InputRequired(InputRequiredResult),
}

/// Run the loop from a first answer. `answer(key, request)` answers one question;
/// `retry(responses, state)` re-sends the original request (with a new id) and returns
/// the server's next answer; `sleep` waits between state-only rounds.
pub async fn drive<T, A, AF, R, RF, S, SF>(
    first: Round<T>,
    max_rounds: usize,
    answer: A,
    mut retry: R,
    sleep: S,
) -> Result<T, ClientError>
where
    A: Fn(String, InputRequest) -> AF,
    AF: Future<Output = Result<crate::protocol::InputResponse, Error>> + Send + 'static,
    R: FnMut(Option<InputResponses>, Option<String>) -> RF,
    RF: Future<Output = Result<Round<T>, ClientError>>,
    S: Fn(Duration) -> SF,
    SF: Future<Output = ()>,
{
    let mut current = first;
    let mut rounds = 0usize;
    let mut backoff = FIRST_BACKOFF;
    loop {
        let asked = match current {
            Round::Complete(result) => return Ok(result),
            Round::InputRequired(asked) => asked,
        };
        rounds += 1;
        if rounds > max_rounds {
            return Err(ClientError::RoundsExceeded { max_rounds });
        }
        let requests = asked.input_requests.unwrap_or_default();
        let responses = if requests.is_empty() {
            sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
            None
        } else {
            backoff = FIRST_BACKOFF;
            Some(answer_all(requests, &answer).await?)
        };
        current = retry(responses, asked.request_state).await?;
    }
}

/// Answer every question of a round concurrently; the first failure cancels the rest.
/// (A task's `inputRequests` are answered here too.)
pub(crate) async fn answer_all<A, AF>(
    requests: crate::protocol::InputRequests,
    answer: &A,
) -> Result<InputResponses, ClientError>
where
    A: Fn(String, InputRequest) -> AF,
    AF: Future<Output = Result<crate::protocol::InputResponse, Error>> + Send + 'static,
{
    let mut tasks = tokio::task::JoinSet::new();
    for (key, request) in requests {
        let future = answer(key.clone(), request);
        tasks.spawn(async move { (key, future.await) });
    }
    let mut responses = InputResponses::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((key, Ok(response))) => {
                responses.insert(key, response);
            }
            Ok((key, Err(error))) => return Err(super::callbacks::callback_error(&key, error)),
            Err(e) => {
                return Err(ClientError::Callback {
                    key: String::new(),
                    error: Error {
                        code: crate::protocol::ErrorCode::INTERNAL_ERROR,
                        message: format!("a callback panicked: {e}"),
                        data: None,
                    },
                });
            }
        }
    }
    Ok(responses)
}
