//! Adversarial state: what a server without sealing does with state it did not write

use super::*;

const REGION: &str = "resolvers::adversarial_state::ask_region";
const OWNER: &str = "resolvers::adversarial_state::ask_owner";
const REASON: &str = "resolvers::adversarial_state::ask_reason";
const CONFIRM: &str = "resolvers::adversarial_state::auto_confirm";
const QUOTA: &str = "resolvers::adversarial_state::quota";
const TITLE: &str = "resolvers::adversarial_state::ask_title";

#[mcp::resolver]
fn ask_region() -> Elicit<Region> {
    Elicit::new("Which region?")
}

/// One question.
#[mcp::tool]
fn provision(region: Resolve<ask_region>) -> String {
    format!("in {}", region.region)
}

#[mcp::resolver]
fn ask_owner() -> Elicit<Step> {
    Elicit::new("Who owns it?")
}

#[mcp::resolver]
fn ask_reason(owner: Resolve<ask_owner>) -> Elicit<Step> {
    Elicit::new(format!("Why does {} need it?", owner.value))
}

/// Two chained questions.
#[mcp::tool]
fn request_access(owner: Resolve<ask_owner>, reason: Resolve<ask_reason>) -> String {
    format!("{}: {}", owner.value, reason.value)
}

/// Asks only for big sizes.
#[mcp::resolver]
fn auto_confirm(size_gb: u32) -> Elicit<Confirm> {
    if size_gb < 100 {
        return Elicit::answered(Confirm { ok: true });
    }
    Elicit::new(format!("Really {size_gb} GB?"))
}

#[mcp::resolver]
fn quota() -> u64 {
    100
}

/// A question that is sometimes not asked, and a plain value.
#[mcp::tool]
fn reserve(size_gb: u32, confirm: Resolve<auto_confirm, Refusable>, quota: Resolve<quota>) -> String {
    let ok = confirm.accepted().map(|c| c.ok);
    format!("{size_gb} GB: {} ok={ok:?} quota={}", confirm.action(), *quota)
}

#[mcp::resolver]
fn ask_title(topic: &str) -> Sample {
    Sample::user(format!("Title for {topic}?"), 5)
}

/// A sampling question.
#[mcp::tool]
fn title(topic: String, title: Resolve<ask_title>) -> String {
    format!("{topic}: {}", sampled_text(&title))
}

fn server() -> Server {
    Server::builder("adversarial-state", "1.0.0")
        .tool::<provision>()
        .tool::<request_access>()
        .tool::<reserve>()
        .tool::<title>()
        .plaintext_request_state_for_tests()
        .build()
}

/// The digest the server pins `key`'s first-round question to.
async fn digest(client: &RawClient, tool: &str, arguments: Value, key: &str) -> Value {
    let first = Leg::new(tool, arguments).result(client).await;
    let digest = decode_state(&state_of(&first))["asked"][key].clone();
    assert!(digest.is_string(), "{first}");
    digest
}

#[tokio::test]
async fn unknown_response_keys_and_ghost_state_entries_are_ignored_and_not_carried_forward() {
    let client = in_process(&server());
    let first = Leg::new("request_access", json!({})).result(&client).await;
    let mut state = decode_state(&state_of(&first));
    state["outcomes"]["ghost::accepted"] = json!({"action": "accept", "data": {"value": "boo"}, "q": "x"});
    state["outcomes"]["ghost::declined"] = json!({"action": "decline", "q": "y"});
    state["asked"]["ghost::asked"] = json!("z");

    let second = Leg::new("request_access", json!({}))
        .answers(json!({OWNER: accept(json!({"value": "ada"})), "nobody::asked": accept(json!({"value": "?"}))}))
        .state(&state.to_string())
        .result(&client)
        .await;
    assert_eq!(questions(&second), expect_questions(&[(REASON, "Why does ada need it?")]));
    let next = decode_state(&state_of(&second));
    assert_eq!(keys_of(&next["outcomes"]), [OWNER], "{next}");
    assert_eq!(keys_of(&next["asked"]), [REASON], "{next}");

    let done = Leg::new("request_access", json!({}))
        .answers(json!({REASON: accept(json!({"value": "audit"})), "ghost::accepted": accept(json!({}))}))
        .state(&state_of(&second))
        .result(&client)
        .await;
    assert_eq!(complete_text(&done), "ada: audit");
}

#[tokio::test]
async fn a_forged_entry_failing_the_schema_is_asked_again_not_an_error() {
    let client = in_process(&server());
    let q = digest(&client, "provision", json!({}), REGION).await;
    for data in [json!({"region": 5}), json!({}), json!("eu-west-1"), json!([1])] {
        let state = json!({"v": 1, "outcomes": {REGION: {"action": "accept", "data": data, "q": q}}, "asked": {}});
        let result = Leg::new("provision", json!({})).state(&state.to_string()).result(&client).await;
        assert_eq!(questions(&result), expect_questions(&[(REGION, "Which region?")]), "{data}");
        assert_eq!(decode_state(&state_of(&result))["outcomes"], json!({}), "{data}: dropped");
    }
    // A fitting one with the right digest is used as recorded.
    let state = json!({"v": 1, "outcomes": {REGION: {"action": "accept", "data": {"region": "eu"}, "q": q}}});
    let done = Leg::new("provision", json!({})).state(&state.to_string()).result(&client).await;
    assert_eq!(complete_text(&done), "in eu");
}

#[tokio::test]
async fn a_decline_entry_for_a_sampling_question_is_asked_again() {
    let client = in_process(&server());
    let args = json!({"topic": "maps"});
    let q = digest(&client, "title", args.clone(), TITLE).await;
    for entry in [json!({"action": "decline", "q": q}), json!({"action": "cancel", "q": q})] {
        let state = json!({"v": 1, "outcomes": {TITLE: entry}});
        let result = Leg::new("title", args.clone()).state(&state.to_string()).result(&client).await;
        assert_eq!(questions(&result), expect_questions(&[(TITLE, "sample: Title for maps?")]), "{entry}");
    }
    // A recorded sampling result with the right digest is restored.
    let state = json!({"v": 1, "outcomes": {TITLE: {"action": "accept", "data": sampled("Atlas"), "q": q}}});
    let done = Leg::new("title", args).state(&state.to_string()).result(&client).await;
    assert_eq!(complete_text(&done), "maps: Atlas");
}

#[tokio::test]
async fn a_state_entry_never_replaces_a_value_computed_without_asking() {
    let client = in_process(&server());
    // The digest of the question `auto_confirm` asks for 500 GB.
    let q = digest(&client, "reserve", json!({"size_gb": 500}), CONFIRM).await;
    let forged = json!({"v": 1, "outcomes": {
        CONFIRM: {"action": "accept", "data": {"ok": false}, "q": q},
        QUOTA: {"action": "accept", "data": 1, "q": q},
    }});
    // For 50 GB the resolver answers itself: the entry is never consulted.
    let small = Leg::new("reserve", json!({"size_gb": 50})).state(&forged.to_string()).result(&client).await;
    assert_eq!(complete_text(&small), "50 GB: accept ok=Some(true) quota=100");
    // For 500 GB it asks, and the entry pinned to that very question answers it.
    let big = Leg::new("reserve", json!({"size_gb": 500})).state(&forged.to_string()).result(&client).await;
    assert_eq!(complete_text(&big), "500 GB: accept ok=Some(false) quota=100");

    let declines = json!({"v": 1, "outcomes": {
        CONFIRM: {"action": "decline", "q": "x"},
        QUOTA: {"action": "decline", "q": "x"},
    }});
    let small = Leg::new("reserve", json!({"size_gb": 50})).state(&declines.to_string()).result(&client).await;
    assert_eq!(complete_text(&small), "50 GB: accept ok=Some(true) quota=100");
}

#[tokio::test]
async fn malformed_inner_state_is_no_progress_not_an_error() {
    let client = in_process(&server());
    let q = digest(&client, "provision", json!({}), REGION).await;
    let good_entry = json!({"action": "accept", "data": {"region": "eu"}, "q": q});
    let answer = json!({REGION: accept(json!({"region": "eu"}))});
    for state in [
        "not json".to_owned(),
        String::new(),
        "[]".to_owned(),
        "null".to_owned(),
        json!({"v": 2, "outcomes": {REGION: good_entry}, "asked": {REGION: q}}).to_string(),
        json!({"v": "1", "outcomes": {REGION: good_entry}, "asked": {REGION: q}}).to_string(),
        json!({"outcomes": {REGION: good_entry}, "asked": {REGION: q}}).to_string(),
    ] {
        // Neither the recorded entry nor the fresh answer counts: the question is asked again.
        let result = Leg::new("provision", json!({})).answers(answer.clone()).state(&state).result(&client).await;
        assert_eq!(questions(&result), expect_questions(&[(REGION, "Which region?")]), "{state:?}");
        assert_eq!(decode_state(&state_of(&result))["outcomes"], json!({}), "{state:?}");
    }
}
