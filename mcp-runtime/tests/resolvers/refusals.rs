//! Decline and cancel

use super::*;

/// Runs of `strict`'s body. The legacy module also calls `strict`, but only to refuse,
/// which never runs the body, so this stays 0 until the accepting call in the test below.
static STRICT_RUNS: AtomicUsize = AtomicUsize::new(0);

#[mcp::resolver]
pub(crate) fn ask_go() -> Elicit<Confirm> {
    Elicit::new("Go ahead?")
}

/// Needs the value: a refusal fails the call.
#[mcp::tool]
pub(crate) fn strict(go: Resolve<ask_go>) -> String {
    bump(&STRICT_RUNS);
    format!("go={}", go.ok)
}

/// Takes the outcome: handles a refusal itself.
#[mcp::tool]
pub(crate) fn lenient(go: Resolve<ask_go, Refusable>) -> String {
    match &*go {
        Answer::Accept(c) => format!("accepted go={}", c.ok),
        Answer::Decline => "declined".to_owned(),
        Answer::Cancel => "cancelled".to_owned(),
    }
}

#[mcp::resolver]
fn why_go(go: Resolve<ask_go>) -> Elicit<Step> {
    Elicit::new(format!("Why {}?", go.ok))
}

/// A resolver that needs a refused value.
#[mcp::tool]
fn nested_strict(why: Resolve<why_go>) -> String {
    why.value.clone()
}

const START: &str = "resolvers::refusals::start";

#[mcp::resolver]
fn start() -> Elicit<Confirm> {
    Elicit::new("Start?")
}

#[mcp::resolver]
fn next_step(start: Resolve<start, Refusable>) -> Elicit<Step> {
    Elicit::new(format!("Next, after {}?", start.action()))
}

/// A refusal a later question builds on.
#[mcp::tool]
fn two_steps(start: Resolve<start, Refusable>, next: Resolve<next_step>) -> String {
    format!("start={} next={}", start.action(), next.value)
}

fn builder(name: &str) -> mcp::server::ServerBuilder {
    Server::builder(name, "1.0.0").tool::<strict>().tool::<lenient>().tool::<nested_strict>().tool::<two_steps>()
}

fn server() -> Server {
    builder("refusals").build()
}

/// Answers "Go ahead?" with `answer`.
pub(crate) fn go_script(answer: Value) -> Script {
    Script::new().on("Go ahead?", answer).on("Why true?", accept(json!({"value": "because"})))
}

#[tokio::test]
async fn a_refusal_fails_a_value_consumer_with_an_error_result_naming_the_parameter() {
    let client = in_process(&server());
    for (answer, refused) in [(decline(), "declined"), (cancel(), "cancelled")] {
        let run = Driver::new(go_script(answer)).run(&client, "strict", json!({})).await;
        assert_eq!(run.asked(), [["Go ahead?"]]);
        let text = tool_error_text(run.result());
        assert_eq!(text, format!("Resolver for parameter 'go' could not resolve: the elicitation was {refused}"));
        assert!(text.contains("parameter 'go'"), "{text}");
    }
    assert_eq!(runs(&STRICT_RUNS), 0, "the tool body never ran");
    let run = Driver::new(go_script(accept(json!({"ok": true})))).run(&client, "strict", json!({})).await;
    assert_eq!(run.text(), "go=true");
}

#[tokio::test]
async fn a_refusal_a_resolver_needs_fails_the_call_naming_that_resolvers_parameter() {
    let client = in_process(&server());
    let run = Driver::new(go_script(decline())).run(&client, "nested_strict", json!({})).await;
    assert_eq!(
        tool_error_text(run.result()),
        "Resolver for parameter 'go' could not resolve: the elicitation was declined"
    );
    let run = Driver::new(go_script(accept(json!({"ok": true})))).run(&client, "nested_strict", json!({})).await;
    assert_eq!(run.text(), "because");
}

#[tokio::test]
async fn an_outcome_consumer_receives_accept_decline_and_cancel() {
    let client = in_process(&server());
    for (answer, expected) in
        [(accept(json!({"ok": false})), "accepted go=false"), (decline(), "declined"), (cancel(), "cancelled")]
    {
        let run = Driver::new(go_script(answer)).run(&client, "lenient", json!({})).await;
        assert_eq!(run.text(), expected);
    }
}

#[tokio::test]
async fn a_refusal_is_recorded_in_the_state_and_not_asked_again() {
    let client = in_process(&builder("refusals-plain").plaintext_request_state_for_tests().build());
    for (answer, action) in [(decline(), "decline"), (cancel(), "cancel")] {
        let next_label = format!("Next, after {action}?");
        let run = Driver::new(Script::new().on("Start?", answer).on(&next_label, accept(json!({"value": "n"}))))
            .run(&client, "two_steps", json!({}))
            .await;
        assert_eq!(run.asked(), vec![vec!["Start?".to_owned()], vec![next_label.clone()]]);
        assert_eq!(run.text(), format!("start={action} next=n"));
        let asked_start = decode_state(&run.rounds[0].state)["asked"][START].clone();
        let recorded = decode_state(&run.rounds[1].state)["outcomes"][START].clone();
        assert_eq!(recorded, json!({"action": action, "q": asked_start}), "no data, pinned to the question");
    }
}
