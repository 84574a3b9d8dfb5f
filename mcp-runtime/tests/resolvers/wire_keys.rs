//! Wire keys and resolved parameters

use super::*;

const REGION_KEY: &str = "resolvers::wire_keys::ask_region";

#[mcp::resolver]
fn ask_region() -> Elicit<Region> {
    Elicit::new("Which region?")
}

/// Provision a database.
#[mcp::tool]
fn provision(
    /// The database's name.
    name: String,
    region: Resolve<ask_region>,
) -> String {
    format!("Provisioned {name} in {}.", region.region)
}

#[mcp::resolver(key = "pick")]
fn first_pick() -> Elicit<Step> {
    Elicit::new("First pick?")
}

#[mcp::resolver(key = "pick")]
fn second_pick() -> Elicit<Step> {
    Elicit::new("Second pick?")
}

/// Two resolvers sharing an explicit key.
#[mcp::tool]
fn pick_two(first: Resolve<first_pick>, second: Resolve<second_pick>) -> String {
    format!("first={} second={}", first.value, second.value)
}

/// The same, declared the other way round.
#[mcp::tool]
fn pick_two_reversed(second: Resolve<second_pick>, first: Resolve<first_pick>) -> String {
    format!("first={} second={}", first.value, second.value)
}

#[mcp::resolver(key = "pick#1")]
fn third_pick() -> Elicit<Step> {
    Elicit::new("Third pick?")
}

/// Three resolvers whose keys would collide if suffixes were not checked.
#[mcp::tool]
fn pick_three(first: Resolve<first_pick>, second: Resolve<second_pick>, third: Resolve<third_pick>) -> String {
    format!("first={} second={} third={}", first.value, second.value, third.value)
}

fn server() -> Server {
    Server::builder("wire-keys", "1.0.0")
        .tool::<provision>()
        .tool::<pick_two>()
        .tool::<pick_two_reversed>()
        .tool::<pick_three>()
        .build()
}

#[tokio::test]
async fn a_wire_key_is_the_module_path_and_name_and_is_the_same_in_every_server() {
    assert_eq!(<ask_region as Resolver>::KEY, REGION_KEY);
    // Two servers (think: two processes) ask under the same key, and each takes the
    // answer under it.
    for server in [server(), server()] {
        let client = in_process(&server);
        let first = Leg::new("provision", json!({"name": "orders"})).result(&client).await;
        assert_eq!(questions(&first), expect_questions(&[(REGION_KEY, "Which region?")]));
        assert_eq!(first["inputRequests"][REGION_KEY]["method"], "elicitation/create");
        let schema = &first["inputRequests"][REGION_KEY]["params"]["requestedSchema"];
        assert_eq!(schema["required"], json!(["region"]), "{schema}");
        assert_eq!(schema["properties"]["region"]["type"], "string", "{schema}");

        let done = Leg::new("provision", json!({"name": "orders"}))
            .answers(json!({REGION_KEY: accept(json!({"region": "eu-west-1"}))}))
            .state(&state_of(&first))
            .result(&client)
            .await;
        assert_eq!(complete_text(&done), "Provisioned orders in eu-west-1.");
    }
}

#[tokio::test]
async fn an_explicit_key_overrides_the_default_and_a_repeat_gets_a_suffix_in_discovery_order() {
    assert_eq!(<first_pick as Resolver>::KEY, "pick");
    assert_eq!(<second_pick as Resolver>::KEY, "pick");
    let client = in_process(&server());
    for (tool, expected) in [
        ("pick_two", [("pick", "First pick?"), ("pick#1", "Second pick?")]),
        ("pick_two_reversed", [("pick", "Second pick?"), ("pick#1", "First pick?")]),
    ] {
        let first = Leg::new(tool, json!({})).result(&client).await;
        assert_eq!(questions(&first), expect_questions(&expected), "{tool}");
        let run = Driver::new(
            Script::new()
                .on("First pick?", accept(json!({"value": "one"})))
                .on("Second pick?", accept(json!({"value": "two"}))),
        )
        .run(&client, tool, json!({}))
        .await;
        assert_eq!(run.text(), "first=one second=two", "{tool}: each answer reaches its own parameter");
    }
}

#[tokio::test]
async fn an_explicit_key_that_looks_like_a_suffix_never_collides_with_one() {
    assert_eq!(<third_pick as Resolver>::KEY, "pick#1");
    let client = in_process(&server());
    let first = Leg::new("pick_three", json!({})).result(&client).await;
    // `second_pick` takes `pick#1` first (discovery order); the explicit `pick#1`
    // moves on to the next free suffix of its own base.
    assert_eq!(
        questions(&first),
        expect_questions(&[("pick", "First pick?"), ("pick#1", "Second pick?"), ("pick#1#1", "Third pick?")])
    );
    let run = Driver::new(
        Script::new()
            .on("First pick?", accept(json!({"value": "one"})))
            .on("Second pick?", accept(json!({"value": "two"})))
            .on("Third pick?", accept(json!({"value": "three"}))),
    )
    .run(&client, "pick_three", json!({}))
    .await;
    assert_eq!(run.asked(), [["First pick?", "Second pick?", "Third pick?"]], "each asked once, together");
    assert_eq!(run.text(), "first=one second=two third=three");
}

#[tokio::test]
async fn resolved_parameters_are_absent_from_the_advertised_input_schema() {
    let client = in_process(&server());
    let list = within("tools/list", client.request("tools/list", json!({"_meta": meta(&json!({}))})))
        .await
        .unwrap_or_else(|e| panic!("tools/list: {e:?}"));
    let tools = list["tools"].as_array().unwrap_or_else(|| panic!("{list}"));
    let provision = tools.iter().find(|t| t["name"] == "provision").unwrap_or_else(|| panic!("{list}"));
    let schema = &provision["inputSchema"];
    assert_eq!(keys_of(&schema["properties"]), ["name"], "{schema}");
    assert_eq!(schema["required"], json!(["name"]), "{schema}");
    let pick_two = tools.iter().find(|t| t["name"] == "pick_two").unwrap_or_else(|| panic!("{list}"));
    assert!(keys_of(&pick_two["inputSchema"]["properties"]).is_empty(), "{pick_two}");
    assert!(pick_two["inputSchema"].get("required").is_none_or(|r| r == &json!([])), "{pick_two}");
}

#[tokio::test]
async fn a_client_supplied_argument_under_a_resolved_name_is_ignored() {
    let client = in_process(&server());
    let forged = json!({"name": "orders", "region": {"region": "forged-1"}});
    let first = Leg::new("provision", forged.clone()).result(&client).await;
    assert_eq!(questions(&first), expect_questions(&[(REGION_KEY, "Which region?")]), "still asked");
    let run = Driver::new(Script::new().on("Which region?", accept(json!({"region": "eu-west-1"}))))
        .run(&client, "provision", forged)
        .await;
    assert_eq!(run.text(), "Provisioned orders in eu-west-1.");
}
