//! The 2026-07-28 retry loop (`mcp::client::driver::drive`) with fake effects: a scripted
//! server (`retry`), recording callbacks (`answer`) and a recording clock (`sleep`).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::ClientError;
use mcp::client::driver::{DEFAULT_MAX_ROUNDS, FIRST_BACKOFF, MAX_BACKOFF, Round, drive};
use mcp::protocol::{
    ElicitRequestParams, ElicitResult, ElicitationSchema, Error, InputRequest, InputRequiredResult, InputResponse,
    InputResponses,
};
use serde_json::{Value, json};
use tokio::sync::{Barrier, oneshot};

/// How long any test may take before it counts as hung.
const HANG: Duration = Duration::from_secs(5);

type AnswerFuture = Pin<Box<dyn Future<Output = Result<InputResponse, Error>> + Send>>;

/// What the fake server answers a retry with.
type Scripted = Result<Round<String>, ClientError>;

type RetryFuture = Pin<Box<dyn Future<Output = Scripted>>>;

fn ask(message: &str) -> InputRequest {
    InputRequest::Elicit(ElicitRequestParams::form(message, ElicitationSchema::default()))
}

/// The answer a recording callback gives to the question under `key`.
fn answer_for(key: &str) -> InputResponse {
    let Value::Object(content) = json!({"answered": key}) else { unreachable!("an object literal") };
    InputResponse::Elicit(ElicitResult::accept(content))
}

fn responses(keys: &[&str]) -> InputResponses {
    keys.iter().map(|k| ((*k).to_owned(), answer_for(k))).collect()
}

fn asking(keys: &[&str], state: Option<&str>) -> Round<String> {
    let mut result = InputRequiredResult::default();
    for key in keys {
        result = result.and_ask(*key, ask(&format!("question {key}")));
    }
    result.request_state = state.map(str::to_owned);
    Round::InputRequired(result)
}

fn state_only(state: &str) -> Round<String> {
    Round::InputRequired(InputRequiredResult::state_only(state))
}

fn done(text: &str) -> Round<String> {
    Round::Complete(text.to_owned())
}

/// What the effects saw, in order.
#[derive(Debug, Default)]
struct Log {
    /// `(key, message)` of every question answered.
    answered: Vec<(String, String)>,
    /// `(inputResponses, requestState)` of every retry.
    retries: Vec<(Option<InputResponses>, Option<String>)>,
    /// Every wait.
    sleeps: Vec<Duration>,
}

/// Fake effects: the server answers each retry with the next scripted round.
#[derive(Clone, Default)]
struct Fakes {
    log: Arc<Mutex<Log>>,
    script: Arc<Mutex<VecDeque<Scripted>>>,
}

impl Fakes {
    fn scripted(rounds: impl IntoIterator<Item = Round<String>>) -> Self {
        let fakes = Fakes::default();
        fakes.lock_script().extend(rounds.into_iter().map(Ok));
        fakes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn lock_script(&self) -> std::sync::MutexGuard<'_, VecDeque<Scripted>> {
        self.script.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A callback that records the question and accepts it with [`answer_for`].
    fn answer(&self) -> impl Fn(String, InputRequest) -> AnswerFuture + use<> {
        let log = Arc::clone(&self.log);
        move |key, request| {
            let message = match &request {
                InputRequest::Elicit(params) => params.message().to_owned(),
                other => other.method().to_owned(),
            };
            log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).answered.push((key.clone(), message));
            Box::pin(async move { Ok(answer_for(&key)) })
        }
    }

    /// A retry that records what it was given and returns the next scripted round.
    fn retry(&self) -> impl FnMut(Option<InputResponses>, Option<String>) -> RetryFuture + use<> {
        let fakes = self.clone();
        move |responses, state| {
            fakes.lock().retries.push((responses, state));
            let next = fakes.lock_script().pop_front();
            let next: RetryFuture = Box::pin(async move {
                next.unwrap_or_else(|| {
                    Err(ClientError::Transport(mcp::client::TransportError::new("the script ran out")))
                })
            });
            next
        }
    }

    /// A clock that records the wait and returns at once.
    fn sleep(&self) -> impl Fn(Duration) -> std::future::Ready<()> + use<> {
        let log = Arc::clone(&self.log);
        move |d| {
            log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).sleeps.push(d);
            std::future::ready(())
        }
    }

    async fn drive(&self, first: Round<String>, max_rounds: usize) -> Result<String, ClientError> {
        let run = drive(first, max_rounds, self.answer(), self.retry(), self.sleep());
        tokio::time::timeout(HANG, run).await.unwrap_or_else(|_| panic!("the loop hung"))
    }
}

fn ms(list: &[u64]) -> Vec<Duration> {
    list.iter().copied().map(Duration::from_millis).collect()
}

#[test]
fn the_defaults_match_the_other_sdks() {
    assert_eq!(DEFAULT_MAX_ROUNDS, 10);
    assert_eq!(FIRST_BACKOFF, Duration::from_millis(50));
    assert_eq!(MAX_BACKOFF, Duration::from_millis(250));
}

#[tokio::test]
async fn a_complete_first_answer_is_returned_without_any_effect() {
    let fakes = Fakes::default();
    let result = fakes.drive(done("at once"), DEFAULT_MAX_ROUNDS).await;
    assert_eq!(result, Ok("at once".to_owned()));
    let log = fakes.lock();
    assert!(log.answered.is_empty() && log.retries.is_empty() && log.sleeps.is_empty(), "{log:?}");
}

#[tokio::test]
async fn a_single_round_is_answered_then_retried_to_the_final_result() {
    let fakes = Fakes::scripted([done("finished")]);
    let result = fakes.drive(asking(&["region"], Some("state-1")), DEFAULT_MAX_ROUNDS).await;
    assert_eq!(result, Ok("finished".to_owned()));
    let log = fakes.lock();
    assert_eq!(log.answered, vec![("region".to_owned(), "question region".to_owned())]);
    assert_eq!(log.retries, vec![(Some(responses(&["region"])), Some("state-1".to_owned()))]);
    assert!(log.sleeps.is_empty(), "a round with questions retries without waiting");
}

#[tokio::test]
async fn several_rounds_loop_until_the_server_completes() {
    let fakes = Fakes::scripted([asking(&["size", "zone"], Some("state-2")), asking(&["confirm"], None), done("done")]);
    let result = fakes.drive(asking(&["region"], Some("state-1")), DEFAULT_MAX_ROUNDS).await;
    assert_eq!(result, Ok("done".to_owned()));
    let log = fakes.lock();
    let mut answered: Vec<&str> = log.answered.iter().map(|(k, _)| k.as_str()).collect();
    answered[1..3].sort_unstable();
    assert_eq!(answered, ["region", "size", "zone", "confirm"]);
    assert_eq!(
        log.retries,
        vec![
            (Some(responses(&["region"])), Some("state-1".to_owned())),
            (Some(responses(&["size", "zone"])), Some("state-2".to_owned())),
            (Some(responses(&["confirm"])), None),
        ],
        "each retry carries that round's answers and that round's state only"
    );
}

#[tokio::test]
async fn answers_go_back_under_the_keys_of_their_questions() {
    let keys = ["a", "server:weird key/ü", "z-9", ""];
    let fakes = Fakes::scripted([done("ok")]);
    fakes.drive(asking(&keys, Some("s")), DEFAULT_MAX_ROUNDS).await.unwrap_or_else(|e| panic!("{e}"));
    let log = fakes.lock();
    let (sent, _) = &log.retries[0];
    let sent = sent.as_ref().unwrap_or_else(|| panic!("the retry carries answers"));
    assert_eq!(sent.keys().collect::<Vec<_>>(), {
        let mut k: Vec<&str> = keys.to_vec();
        k.sort_unstable();
        k
    });
    for key in keys {
        assert_eq!(sent.get(key), Some(&answer_for(key)), "the answer to {key:?} is filed under {key:?}");
    }
}

#[tokio::test]
async fn request_state_is_passed_back_byte_for_byte() {
    let odd = [
        "  v1.abc==  ",
        "{\"json\": [1, 2.50, \"\\u00e9\"]}",
        "line\nbreak\ttab\r\n",
        "ünïcødé ✓ \u{0}",
        "",
        "=?base64?aGk=?=",
    ];
    for state in odd {
        let fakes = Fakes::scripted([done("ok")]);
        fakes.drive(asking(&["k"], Some(state)), 3).await.unwrap_or_else(|e| panic!("{e}"));
        let log = fakes.lock();
        assert_eq!(log.retries[0].1.as_deref(), Some(state), "state {state:?} is echoed unchanged");
    }
    // The same through a state-only round.
    let fakes = Fakes::scripted([done("ok")]);
    fakes.drive(state_only(odd[1]), 3).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fakes.lock().retries, vec![(None, Some(odd[1].to_owned()))]);
}

#[tokio::test]
async fn no_request_state_is_sent_when_the_server_sent_none() {
    let fakes = Fakes::scripted([asking(&["b"], None), done("ok")]);
    fakes.drive(asking(&["a"], None), DEFAULT_MAX_ROUNDS).await.unwrap_or_else(|e| panic!("{e}"));
    let log = fakes.lock();
    assert_eq!(log.retries.len(), 2);
    assert!(log.retries.iter().all(|(answers, state)| answers.is_some() && state.is_none()), "{:?}", log.retries);
}

#[tokio::test]
async fn exceeding_the_round_cap_fails_after_exactly_that_many_rounds() {
    for max_rounds in [1, 3, 10] {
        let fakes = Fakes::scripted((0..20).map(|i| asking(&["again"], Some(&format!("s{i}")))));
        let result = fakes.drive(asking(&["again"], Some("first")), max_rounds).await;
        assert_eq!(result, Err(ClientError::RoundsExceeded { max_rounds }));
        let log = fakes.lock();
        assert_eq!(log.answered.len(), max_rounds, "rounds answered with a cap of {max_rounds}");
        assert_eq!(log.retries.len(), max_rounds, "retries with a cap of {max_rounds}");
    }
}

#[tokio::test]
async fn the_cap_counts_state_only_rounds_too() {
    let fakes = Fakes::scripted((0..20).map(|_| state_only("wait")));
    let result = fakes.drive(state_only("wait"), 4).await;
    assert_eq!(result, Err(ClientError::RoundsExceeded { max_rounds: 4 }));
    assert_eq!(fakes.lock().retries.len(), 4);
}

#[tokio::test]
async fn a_call_that_completes_on_the_last_allowed_round_succeeds() {
    let fakes = Fakes::scripted([asking(&["b"], None), asking(&["c"], None), done("just in time")]);
    assert_eq!(fakes.drive(asking(&["a"], None), 3).await, Ok("just in time".to_owned()));
    let fakes = Fakes::scripted([done("never")]);
    assert_eq!(
        fakes.drive(asking(&["a"], None), 0).await,
        Err(ClientError::RoundsExceeded { max_rounds: 0 }),
        "a cap of 0 allows no retry at all"
    );
    assert!(fakes.lock().answered.is_empty());
}

#[tokio::test]
async fn a_callback_error_aborts_the_call_without_retrying() {
    let refusal = Error { code: -32600, message: "Elicitation not supported".into(), data: Some(json!({"x": 1})) };
    let fakes = Fakes::scripted([done("must not be reached")]);
    let error = refusal.clone();
    let answer = move |key: String, _request: InputRequest| -> AnswerFuture {
        let error = error.clone();
        Box::pin(async move { if key == "bad" { Err(error) } else { Ok(answer_for(&key)) } })
    };
    let run = drive(asking(&["bad"], Some("s")), DEFAULT_MAX_ROUNDS, answer, fakes.retry(), fakes.sleep());
    let result = tokio::time::timeout(HANG, run).await.unwrap_or_else(|_| panic!("hung"));
    assert_eq!(result, Err(ClientError::Callback { key: "bad".into(), error: refusal }));
    assert!(fakes.lock().retries.is_empty(), "no retry after a callback error");
    assert_eq!(fakes.lock_script().len(), 1);
}

#[tokio::test]
async fn a_callback_error_cancels_the_other_questions_of_the_round() {
    let (dropped_tx, dropped_rx) = oneshot::channel::<()>();
    let dropped_tx = Arc::new(Mutex::new(Some(dropped_tx)));
    struct SignalOnDrop(Arc<Mutex<Option<oneshot::Sender<()>>>>);
    impl Drop for SignalOnDrop {
        fn drop(&mut self) {
            if let Some(tx) = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
                let _ = tx.send(());
            }
        }
    }
    let answer = move |key: String, _request: InputRequest| -> AnswerFuture {
        let guard = SignalOnDrop(Arc::clone(&dropped_tx));
        Box::pin(async move {
            if key == "bad" {
                return Err(Error { code: -1, message: "no".into(), data: None });
            }
            let _guard = guard;
            std::future::pending::<()>().await;
            Ok(answer_for(&key))
        })
    };
    let fakes = Fakes::default();
    let run = drive(asking(&["bad", "slow"], None), DEFAULT_MAX_ROUNDS, answer, fakes.retry(), fakes.sleep());
    let result = tokio::time::timeout(HANG, run).await.unwrap_or_else(|_| panic!("the failure waited for a sibling"));
    assert!(matches!(&result, Err(ClientError::Callback { key, .. }) if key == "bad"), "{result:?}");
    tokio::time::timeout(HANG, dropped_rx)
        .await
        .unwrap_or_else(|_| panic!("the pending sibling was never cancelled"))
        .unwrap_or_else(|_| panic!("the guard was dropped without signalling"));
}

#[tokio::test]
async fn a_retry_error_ends_the_loop_with_that_error() {
    let fakes = Fakes::default();
    fakes.lock_script().push_back(Err(ClientError::Rpc(Error { code: -32602, message: "bad".into(), data: None })));
    let result = fakes.drive(asking(&["a"], Some("s")), DEFAULT_MAX_ROUNDS).await;
    assert_eq!(result.map_err(|e| e.code()), Err(Some(-32602)));
    assert_eq!(fakes.lock().retries.len(), 1);
}

#[tokio::test]
async fn state_only_rounds_back_off_exponentially_to_the_cap() {
    let fakes = Fakes::scripted((1..6).map(|i| state_only(&format!("s{i}"))).chain([done("ok")]));
    let result = fakes.drive(state_only("s0"), DEFAULT_MAX_ROUNDS).await;
    assert_eq!(result, Ok("ok".to_owned()));
    let log = fakes.lock();
    assert_eq!(log.sleeps, ms(&[50, 100, 200, 250, 250, 250]));
    assert!(log.answered.is_empty());
    let expected: Vec<_> = (0..6).map(|i| (None, Some(format!("s{i}")))).collect();
    assert_eq!(log.retries, expected, "state-only retries carry no inputResponses");
}

#[tokio::test]
async fn the_backoff_resets_after_a_round_with_questions() {
    let script = [
        state_only("2"),
        asking(&["q"], Some("3")),
        state_only("4"),
        state_only("5"),
        state_only("6"),
        asking(&["r"], None),
        state_only("8"),
        done("ok"),
    ];
    let fakes = Fakes::scripted(script);
    let result = fakes.drive(state_only("1"), DEFAULT_MAX_ROUNDS).await;
    assert_eq!(result, Ok("ok".to_owned()));
    assert_eq!(fakes.lock().sleeps, ms(&[50, 100, 50, 100, 200, 50]));
}

#[tokio::test]
async fn the_questions_of_a_round_are_answered_concurrently() {
    // Each answer waits at a barrier for all three: answering them one after another
    // would never get past the first.
    let barrier = Arc::new(Barrier::new(3));
    let answer = move |key: String, _request: InputRequest| -> AnswerFuture {
        let barrier = Arc::clone(&barrier);
        Box::pin(async move {
            barrier.wait().await;
            Ok(answer_for(&key))
        })
    };
    let fakes = Fakes::scripted([done("together")]);
    let run = drive(asking(&["one", "two", "three"], None), DEFAULT_MAX_ROUNDS, answer, fakes.retry(), fakes.sleep());
    let result =
        tokio::time::timeout(HANG, run).await.unwrap_or_else(|_| panic!("the questions were answered one by one"));
    assert_eq!(result, Ok("together".to_owned()));
    assert_eq!(fakes.lock().retries[0].0, Some(responses(&["one", "two", "three"])));
}

#[tokio::test]
async fn a_panicking_callback_is_a_callback_error() {
    let answer =
        |_key: String, _request: InputRequest| -> AnswerFuture { Box::pin(async { panic!("the callback blew up") }) };
    let fakes = Fakes::default();
    let run = drive(asking(&["k"], None), DEFAULT_MAX_ROUNDS, answer, fakes.retry(), fakes.sleep());
    let result = tokio::time::timeout(HANG, run).await.unwrap_or_else(|_| panic!("hung"));
    match result {
        Err(ClientError::Callback { error, .. }) => assert_eq!(error.code, -32603),
        other => panic!("expected a callback error, got {other:?}"),
    }
    assert!(fakes.lock().retries.is_empty());
}

#[tokio::test]
async fn every_kind_of_question_reaches_the_callback() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let answer = move |key: String, request: InputRequest| -> AnswerFuture {
        record.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((key, request.method()));
        Box::pin(async { Ok(InputResponse::ListRoots(Default::default())) })
    };
    let first = InputRequiredResult::ask("e", ask("hi"))
        .and_ask("s", InputRequest::Sample(mcp::protocol::CreateMessageParams::user_text("hello", 5)))
        .and_ask("r", InputRequest::ListRoots(None));
    let fakes = Fakes::scripted([done("ok")]);
    let run = drive(Round::InputRequired(first), 2, answer, fakes.retry(), fakes.sleep());
    tokio::time::timeout(HANG, run).await.unwrap_or_else(|_| panic!("hung")).unwrap_or_else(|e| panic!("{e}"));
    let mut seen = seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            ("e".to_owned(), "elicitation/create"),
            ("r".to_owned(), "roots/list"),
            ("s".to_owned(), "sampling/createMessage")
        ]
    );
}
