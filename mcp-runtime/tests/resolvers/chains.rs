//! Chains: one round per link; earlier answers ride along; bodies re-run, questions don't

use super::*;

static LOGIN_RUNS: AtomicUsize = AtomicUsize::new(0);
static CONFIRM_RUNS: AtomicUsize = AtomicUsize::new(0);
static SIGN_IN_RUNS: AtomicUsize = AtomicUsize::new(0);

#[mcp::resolver]
fn login() -> Elicit<Step> {
    bump(&LOGIN_RUNS);
    Elicit::new("Who are you?")
}

#[mcp::resolver]
fn confirm_login(user: Resolve<login>) -> Elicit<Confirm> {
    bump(&CONFIRM_RUNS);
    Elicit::new(format!("Continue as {}?", user.value))
}

/// A question that needs the previous one's answer.
#[mcp::tool]
fn sign_in(user: Resolve<login>, confirm: Resolve<confirm_login>) -> String {
    bump(&SIGN_IN_RUNS);
    format!("{} signed in: {}", user.value, confirm.ok)
}

static BASE_RUNS: AtomicUsize = AtomicUsize::new(0);
static LEFT_RUNS: AtomicUsize = AtomicUsize::new(0);
static RIGHT_RUNS: AtomicUsize = AtomicUsize::new(0);

#[mcp::resolver]
fn base() -> Elicit<Step> {
    bump(&BASE_RUNS);
    Elicit::new("Which base?")
}

#[mcp::resolver]
fn left(base: Resolve<base>) -> Elicit<Step> {
    bump(&LEFT_RUNS);
    Elicit::new(format!("Left of {}?", base.value))
}

#[mcp::resolver]
fn right(base: Resolve<base>) -> Elicit<Step> {
    bump(&RIGHT_RUNS);
    Elicit::new(format!("Right of {}?", base.value))
}

/// A dependency shared by two resolvers and the tool itself.
#[mcp::tool]
fn span(left: Resolve<left>, right: Resolve<right>, base: Resolve<base>) -> String {
    format!("{} | {} | {}", left.value, base.value, right.value)
}

static PLAIN_RUNS: AtomicUsize = AtomicUsize::new(0);

#[mcp::resolver]
fn plain_base() -> u32 {
    bump(&PLAIN_RUNS);
    7
}

#[mcp::resolver]
fn up(base: Resolve<plain_base>) -> Elicit<Step> {
    Elicit::new(format!("Up from {}?", *base))
}

#[mcp::resolver]
fn down(base: Resolve<plain_base>) -> Elicit<Step> {
    Elicit::new(format!("Down from {}?", *base))
}

/// A plain-valued dependency shared by two questions.
#[mcp::tool]
fn around(up: Resolve<up>, down: Resolve<down>) -> String {
    format!("up={} down={}", up.value, down.value)
}

fn link(n: usize, previous: &Step) -> Elicit<Step> {
    Elicit::new(format!("Step {n} after {}?", previous.value))
}

#[mcp::resolver]
fn c1() -> Elicit<Step> {
    Elicit::new("Step 1?")
}
#[mcp::resolver]
fn c2(previous: Resolve<c1>) -> Elicit<Step> {
    link(2, &previous)
}
#[mcp::resolver]
fn c3(previous: Resolve<c2>) -> Elicit<Step> {
    link(3, &previous)
}
#[mcp::resolver]
fn c4(previous: Resolve<c3>) -> Elicit<Step> {
    link(4, &previous)
}
#[mcp::resolver]
fn c5(previous: Resolve<c4>) -> Elicit<Step> {
    link(5, &previous)
}
#[mcp::resolver]
fn c6(previous: Resolve<c5>) -> Elicit<Step> {
    link(6, &previous)
}
#[mcp::resolver]
fn c7(previous: Resolve<c6>) -> Elicit<Step> {
    link(7, &previous)
}
#[mcp::resolver]
fn c8(previous: Resolve<c7>) -> Elicit<Step> {
    link(8, &previous)
}
#[mcp::resolver]
fn c9(previous: Resolve<c8>) -> Elicit<Step> {
    link(9, &previous)
}
#[mcp::resolver]
fn c10(previous: Resolve<c9>) -> Elicit<Step> {
    link(10, &previous)
}
#[mcp::resolver]
fn c11(previous: Resolve<c10>) -> Elicit<Step> {
    link(11, &previous)
}

/// A chain of four questions.
#[mcp::tool]
fn four_links(first: Resolve<c1>, last: Resolve<c4>) -> String {
    format!("first={} last={}", first.value, last.value)
}

/// A chain of eleven questions.
#[mcp::tool]
fn eleven_links(last: Resolve<c11>) -> String {
    format!("last={}", last.value)
}

/// Answers link n with `sn`.
fn chain_script(links: usize) -> Script {
    let mut script = Script::new().on("Step 1?", accept(json!({"value": "s1"})));
    for n in 2..=links {
        script = script.on(format!("Step {n} after s{}?", n - 1), accept(json!({"value": format!("s{n}")})));
    }
    script
}

fn builder(name: &str) -> mcp::server::ServerBuilder {
    Server::builder(name, "1.0.0")
        .tool::<sign_in>()
        .tool::<span>()
        .tool::<around>()
        .tool::<four_links>()
        .tool::<eleven_links>()
}

fn server() -> Server {
    builder("chains").build()
}

/// The same tools with plaintext `requestState`, to read the engine's progress.
fn plain_server() -> Server {
    builder("chains-plain").plaintext_request_state_for_tests().build()
}

#[tokio::test]
async fn a_dependent_question_goes_out_in_the_next_round_and_each_question_is_asked_once() {
    let client = in_process(&server());
    let run = Driver::new(
        Script::new()
            .on("Who are you?", accept(json!({"value": "ada"})))
            .on("Continue as ada?", accept(json!({"ok": true}))),
    )
    .run(&client, "sign_in", json!({}))
    .await;
    assert_eq!(run.asked(), vec![vec!["Who are you?"], vec!["Continue as ada?"]]);
    assert_eq!(run.all_asked().len(), 2, "each question is asked exactly once");
    assert_eq!(run.legs, 3);
    assert_eq!(run.text(), "ada signed in: true");
    // Bodies re-run on every round; what they ask is only sent once. Round 1: `login`
    // runs and asks, `confirm_login` waits for it (not run). Round 2: `login` re-runs
    // and takes the fresh answer, `confirm_login` runs and asks. Round 3: `login`
    // re-runs (answer from the state), `confirm_login` re-runs and takes its fresh
    // answer, and the tool body runs once. The reference SDK reports the same 3 and 2.
    assert_eq!(runs(&LOGIN_RUNS), 3, "login");
    assert_eq!(runs(&CONFIRM_RUNS), 2, "confirm_login");
    assert_eq!(runs(&SIGN_IN_RUNS), 1, "the tool body");
}

#[tokio::test]
async fn a_deep_chain_keeps_earlier_answers_across_rounds() {
    let client = in_process(&plain_server());
    let run = Driver::new(chain_script(4)).run(&client, "four_links", json!({})).await;
    assert_eq!(
        run.asked(),
        vec![vec!["Step 1?"], vec!["Step 2 after s1?"], vec!["Step 3 after s2?"], vec!["Step 4 after s3?"]]
    );
    assert_eq!(run.text(), "first=s1 last=s4");

    // Round n's state records the answers to links 1..n-1 and asks link n; an answer,
    // once recorded, is carried forward unchanged.
    let key = |n: usize| format!("resolvers::chains::c{n}");
    let mut first_seen: BTreeMap<String, Value> = BTreeMap::new();
    for (round, asked) in run.rounds.iter().enumerate() {
        let state = decode_state(&asked.state);
        assert_eq!(state["v"], 1, "{state}");
        assert_eq!(keys_of(&state["asked"]), [key(round + 1)], "round {}: {state}", round + 1);
        let mut recorded: Vec<String> = (1..=round).map(key).collect();
        recorded.sort();
        assert_eq!(keys_of(&state["outcomes"]), recorded, "round {}: {state}", round + 1);
        for k in recorded {
            let entry = state["outcomes"][&k].clone();
            assert_eq!(entry["action"], "accept", "{entry}");
            let before = first_seen.entry(k.clone()).or_insert_with(|| entry.clone());
            assert_eq!(before, &entry, "{k} changed between rounds");
        }
    }
    assert_eq!(first_seen[&key(1)]["data"], json!({"value": "s1"}), "the raw accepted content is kept");
}

#[tokio::test]
async fn a_shared_dependency_runs_once_per_round_whatever_the_number_of_consumers() {
    let client = in_process(&server());
    let run = Driver::new(
        Script::new()
            .on("Which base?", accept(json!({"value": "b"})))
            .on("Left of b?", accept(json!({"value": "l"})))
            .on("Right of b?", accept(json!({"value": "r"}))),
    )
    .run(&client, "span", json!({}))
    .await;
    assert_eq!(run.asked(), vec![vec!["Which base?"], vec!["Left of b?", "Right of b?"]]);
    assert_eq!(run.text(), "l | b | r");
    // Three rounds, three consumers of `base` (left, right, the tool): one run a round.
    assert_eq!(runs(&BASE_RUNS), 3, "base");
    assert_eq!((runs(&LEFT_RUNS), runs(&RIGHT_RUNS)), (2, 2), "left and right run in rounds 2 and 3");
}

#[tokio::test]
async fn a_plain_shared_value_is_computed_once_per_round_and_never_persisted() {
    let client = in_process(&plain_server());
    let run = Driver::new(
        Script::new().on("Up from 7?", accept(json!({"value": "u"}))).on("Down from 7?", accept(json!({"value": "d"}))),
    )
    .run(&client, "around", json!({}))
    .await;
    // Keys sort `down` before `up`.
    assert_eq!(run.asked(), [["Down from 7?", "Up from 7?"]]);
    assert_eq!(run.text(), "up=u down=d");
    assert_eq!(runs(&PLAIN_RUNS), 2, "once in each of the two rounds");
    let state = decode_state(&run.rounds[0].state);
    assert!(state["outcomes"].get("resolvers::chains::plain_base").is_none(), "{state}");
}

#[tokio::test]
async fn a_chain_longer_than_the_round_budget_makes_the_driver_give_up() {
    let client = in_process(&server());
    let expected: Vec<String> =
        std::iter::once("Step 1?".to_owned()).chain((2..=11).map(|n| format!("Step {n} after s{}?", n - 1))).collect();

    let run = Driver::new(chain_script(11)).budget(10).run(&client, "eleven_links", json!({})).await;
    assert!(matches!(run.end, End::GaveUp), "{:?}", run.end);
    assert_eq!(run.answered, 10, "the user was asked exactly ten times");
    assert_eq!(run.legs, 11);
    assert_eq!(run.all_asked(), expected, "one question per round, the eleventh left unanswered");

    let run = Driver::new(chain_script(11)).budget(11).run(&client, "eleven_links", json!({})).await;
    assert_eq!((run.answered, run.legs), (11, 12));
    assert_eq!(run.text(), "last=s11");
}
