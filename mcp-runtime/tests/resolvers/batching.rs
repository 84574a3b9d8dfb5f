//! Batching: everything that can be asked now goes out in one round

use super::*;

const REGION: &str = "resolvers::batching::ask_region";
const SIZE: &str = "resolvers::batching::ask_size";
const NAME: &str = "resolvers::batching::suggest_name";
const ROOTS: &str = "resolvers::batching::workspace_roots";

#[mcp::resolver]
pub(crate) fn ask_region() -> Elicit<Region> {
    Elicit::new("Which region?")
}

#[mcp::resolver]
fn ask_size() -> Elicit<Size> {
    Elicit::new("How many GB?")
}

/// Two independent questions.
#[mcp::tool]
fn place(region: Resolve<ask_region>, size: Resolve<ask_size>) -> String {
    format!("{} GB in {}", size.size_gb, region.region)
}

#[mcp::resolver]
pub(crate) fn suggest_name(topic: &str) -> Sample {
    Sample::user(format!("Suggest a name for {topic}."), 20)
}

#[mcp::resolver]
pub(crate) fn workspace_roots() -> ListRoots {
    ListRoots::new()
}

/// One question of each kind.
#[mcp::tool]
pub(crate) fn mixed(
    topic: String,
    region: Resolve<ask_region>,
    name: Resolve<suggest_name>,
    roots: Resolve<workspace_roots>,
) -> String {
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    format!("{topic}: region={} name={} roots={}", region.region, sampled_text(&name), uris.join(","))
}

#[mcp::resolver]
fn ask_owner() -> Elicit<Step> {
    Elicit::new("Who owns it?")
}

#[mcp::resolver]
fn ask_team() -> Elicit<Step> {
    Elicit::new("Which team?")
}

#[mcp::resolver]
fn confirm_handover(owner: Resolve<ask_owner>, team: Resolve<ask_team>) -> Elicit<Confirm> {
    Elicit::new(format!("Hand it to {} of {}?", owner.value, team.value))
}

/// A question whose two dependencies are independent of each other.
#[mcp::tool]
fn hand_over(owner: Resolve<ask_owner>, confirm: Resolve<confirm_handover>) -> String {
    format!("handed to {}: {}", owner.value, confirm.ok)
}

/// What the mixed tool's questions are answered with.
pub(crate) fn mixed_script() -> Script {
    Script::new()
        .on("Which region?", accept(json!({"region": "eu-west-1"})))
        .on("sample: Suggest a name for orders.", sampled("orders-db"))
        .on("roots/list", roots_answer(&["file:///a", "file:///b"]))
}

pub(crate) const MIXED_TEXT: &str = "orders: region=eu-west-1 name=orders-db roots=file:///a,file:///b";

fn server() -> Server {
    Server::builder("batching", "1.0.0").tool::<place>().tool::<mixed>().tool::<hand_over>().build()
}

#[tokio::test]
async fn two_independent_elicitations_go_out_in_one_input_required_result() {
    let client = in_process(&server());
    let first = Leg::new("place", json!({})).result(&client).await;
    assert_eq!(questions(&first), expect_questions(&[(REGION, "Which region?"), (SIZE, "How many GB?")]));

    let run = Driver::new(
        Script::new()
            .on("Which region?", accept(json!({"region": "eu-west-1"})))
            .on("How many GB?", accept(json!({"size_gb": 10}))),
    )
    .run(&client, "place", json!({}))
    .await;
    assert_eq!(run.asked(), [["Which region?", "How many GB?"]]);
    assert_eq!((run.legs, run.answered), (2, 2));
    assert_eq!(run.text(), "10 GB in eu-west-1");
}

#[tokio::test]
async fn elicitation_sampling_and_roots_batch_into_one_round() {
    let client = in_process(&server());
    let first = Leg::new("mixed", json!({"topic": "orders"})).result(&client).await;
    assert_eq!(
        questions(&first),
        expect_questions(&[
            (REGION, "Which region?"),
            (NAME, "sample: Suggest a name for orders."),
            (ROOTS, "roots/list"),
        ])
    );
    let requests = &first["inputRequests"];
    assert_eq!(requests[REGION]["method"], "elicitation/create");
    assert_eq!(requests[NAME]["method"], "sampling/createMessage");
    assert_eq!(requests[NAME]["params"]["maxTokens"], 20);
    assert_eq!(requests[ROOTS]["method"], "roots/list");

    let run = Driver::new(mixed_script()).run(&client, "mixed", json!({"topic": "orders"})).await;
    assert_eq!(run.rounds.len(), 1, "{:?}", run.asked());
    assert_eq!(run.text(), MIXED_TEXT);
}

#[tokio::test]
async fn independent_nested_dependencies_batch_into_one_round() {
    let client = in_process(&server());
    let run = Driver::new(
        Script::new()
            .on("Who owns it?", accept(json!({"value": "ada"})))
            .on("Which team?", accept(json!({"value": "infra"})))
            .on("Hand it to ada of infra?", accept(json!({"ok": true}))),
    )
    .run(&client, "hand_over", json!({}))
    .await;
    assert_eq!(run.asked(), vec![vec!["Who owns it?", "Which team?"], vec!["Hand it to ada of infra?"]]);
    assert_eq!(run.text(), "handed to ada: true");
}
