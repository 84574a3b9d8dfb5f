//! Pinning: an answer counts only for the exact question, asked with the state that asked it

use super::*;

const REGION: &str = "resolvers::pinning::region_for";
const SIZE: &str = "resolvers::pinning::any_size";

#[mcp::resolver]
fn region_for(name: &str) -> Elicit<Region> {
    Elicit::new(format!("Which region for {name}?"))
}

#[mcp::resolver]
fn any_size() -> Elicit<Size> {
    Elicit::new("How many GB?")
}

/// A question worded from an argument, and one that is not.
#[mcp::tool]
fn place_named(name: String, region: Resolve<region_for>, size: Resolve<any_size>) -> String {
    format!("{name}: {} GB in {}", size.size_gb, region.region)
}

fn builder(name: &str) -> mcp::server::ServerBuilder {
    Server::builder(name, "1.0.0").tool::<place_named>()
}

fn plain_server() -> Server {
    builder("pinning-plain").plaintext_request_state_for_tests().build()
}

fn both_answers() -> Value {
    json!({REGION: accept(json!({"region": "eu-west-1"})), SIZE: accept(json!({"size_gb": 10}))})
}

#[tokio::test]
async fn an_answer_without_the_echoed_state_is_asked_again_not_consumed() {
    for server in [builder("pinning-sealed").build(), plain_server()] {
        let client = in_process(&server);
        let first = Leg::new("place_named", json!({"name": "a"})).result(&client).await;
        let asked = questions(&first);
        assert_eq!(asked.len(), 2);
        let again = Leg::new("place_named", json!({"name": "a"})).answers(both_answers()).result(&client).await;
        assert_eq!(questions(&again), asked, "{}: both questions are asked again", server.info().name);
    }
    // And nothing was recorded from the stray answers.
    let client = in_process(&plain_server());
    let again = Leg::new("place_named", json!({"name": "a"})).answers(both_answers()).result(&client).await;
    assert_eq!(decode_state(&state_of(&again))["outcomes"], json!({}));
}

#[tokio::test]
async fn a_reworded_question_is_asked_again_and_a_siblings_answer_survives() {
    // Without sealing the arguments are not bound to the state, so a retry can change
    // the argument the region question is worded from.
    let client = in_process(&plain_server());
    let first = Leg::new("place_named", json!({"name": "a"})).result(&client).await;
    assert_eq!(questions(&first), expect_questions(&[(REGION, "Which region for a?"), (SIZE, "How many GB?")]));

    let second = Leg::new("place_named", json!({"name": "b"}))
        .answers(both_answers())
        .state(&state_of(&first))
        .result(&client)
        .await;
    assert_eq!(questions(&second), expect_questions(&[(REGION, "Which region for b?")]), "no failure: re-asked");
    let state = decode_state(&state_of(&second));
    assert_eq!(keys_of(&state["outcomes"]), [SIZE], "the size answer was taken: {state}");
    assert_eq!(keys_of(&state["asked"]), [REGION], "{state}");

    let done = Leg::new("place_named", json!({"name": "b"}))
        .answers(json!({REGION: accept(json!({"region": "us-east-2"}))}))
        .state(&state_of(&second))
        .result(&client)
        .await;
    assert_eq!(complete_text(&done), "b: 10 GB in us-east-2");
}

#[tokio::test]
async fn a_recorded_outcome_pinned_to_another_question_is_dropped_and_the_question_asked() {
    let client = in_process(&plain_server());
    let first = Leg::new("place_named", json!({"name": "a"})).result(&client).await;
    let asked = decode_state(&state_of(&first))["asked"].clone();
    let size_q = asked[SIZE].clone();
    let size_entry = json!({"action": "accept", "data": {"size_gb": 10}, "q": size_q});
    let stale = "AAAAAAAAAAAAAAAAAAAAAA";
    for (what, region_entry) in [
        ("an accept for another wording", json!({"action": "accept", "data": {"region": "x"}, "q": stale})),
        ("a decline of another wording", json!({"action": "decline", "q": stale})),
        ("a cancel of another wording", json!({"action": "cancel", "q": stale})),
        ("an entry without a digest", json!({"action": "accept", "data": {"region": "x"}})),
    ] {
        let state = json!({"v": 1, "outcomes": {REGION: region_entry, SIZE: size_entry}, "asked": {}});
        let result = Leg::new("place_named", json!({"name": "a"})).state(&state.to_string()).result(&client).await;
        assert_eq!(questions(&result), expect_questions(&[(REGION, "Which region for a?")]), "{what}");
        let next = decode_state(&state_of(&result));
        assert_eq!(next["outcomes"], json!({SIZE: size_entry}), "{what}: only the sibling is carried");
    }
}

#[tokio::test]
async fn a_recorded_outcome_pinned_to_the_current_question_completes_without_asking() {
    let client = in_process(&plain_server());
    let first = Leg::new("place_named", json!({"name": "a"})).result(&client).await;
    let asked = decode_state(&state_of(&first))["asked"].clone();
    let state = json!({"v": 1, "asked": {}, "outcomes": {
        REGION: {"action": "accept", "data": {"region": "ap-south-1"}, "q": asked[REGION]},
        SIZE: {"action": "accept", "data": {"size_gb": 3}, "q": asked[SIZE]},
    }});
    let done = Leg::new("place_named", json!({"name": "a"})).state(&state.to_string()).result(&client).await;
    assert_eq!(complete_text(&done), "a: 3 GB in ap-south-1");
}
