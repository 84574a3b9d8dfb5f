//! Answers that do not fit their question

use super::*;

pub(crate) const ORDER: &str = "resolvers::bad_answers::ask_order";
const TITLE: &str = "resolvers::bad_answers::ask_title";
const ROOTS: &str = "resolvers::bad_answers::ask_roots";
const CODE: &str = "resolvers::bad_answers::ask_code";

/// A code of at most three characters: its schema says more than its type, so only the
/// check against the schema refuses a longer one (deserializing it would succeed).
#[derive(Debug, serde::Deserialize)]
struct Code {
    code: String,
}

impl mcp::resolve::ElicitForm for Code {
    fn schema() -> &'static mcp::protocol::ElicitationSchema {
        static SCHEMA: std::sync::OnceLock<mcp::protocol::ElicitationSchema> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| {
            let code = mcp::protocol::StringSchema { max_length: Some(3), ..Default::default() };
            mcp::protocol::ElicitationSchema {
                properties: [("code".to_owned(), mcp::protocol::PrimitiveSchema::String(code))].into_iter().collect(),
                required: Some(vec!["code".into()]),
                ..Default::default()
            }
        })
    }
}

#[mcp::resolver]
fn ask_code() -> Elicit<Code> {
    Elicit::new("Which code?")
}

/// Enter a code.
#[mcp::tool]
fn enter(code: Resolve<ask_code>) -> String {
    code.code.clone()
}

#[mcp::resolver]
pub(crate) fn ask_order() -> Elicit<Order> {
    Elicit::new("How many, and which tier?")
}

/// Order something.
#[mcp::tool]
pub(crate) fn order(order: Resolve<ask_order>) -> String {
    format!("{} x {:?}", order.count, order.tier)
}

#[mcp::resolver]
fn ask_title() -> Sample {
    Sample::user("Name it.", 5)
}

/// Name something.
#[mcp::tool]
fn title(title: Resolve<ask_title>) -> String {
    sampled_text(&title)
}

#[mcp::resolver]
fn ask_roots() -> ListRoots {
    ListRoots::new()
}

/// Count the roots.
#[mcp::tool]
fn count_roots(roots: Resolve<ask_roots>) -> String {
    roots.roots.len().to_string()
}

fn server() -> Server {
    Server::builder("bad-answers", "1.0.0")
        .tool::<order>()
        .tool::<title>()
        .tool::<count_roots>()
        .tool::<enter>()
        .build()
}

/// Ask `tool` once, then answer its one question (under `key`) with `answer`.
async fn answer_once(client: &RawClient, tool: &str, key: &str, answer: Value) -> Value {
    let first = Leg::new(tool, json!({})).result(client).await;
    assert_eq!(keys_of(&first["inputRequests"]), [key], "{first}");
    Leg::new(tool, json!({})).answers(json!({key: answer})).state(&state_of(&first)).result(client).await
}

/// Content that does not fit the `Order` form.
pub(crate) fn misfits() -> Vec<(&'static str, Value)> {
    vec![
        ("a string for an integer", json!({"count": "3", "tier": "small"})),
        ("a missing required field", json!({"tier": "small"})),
        ("a null required field", json!({"count": null, "tier": "small"})),
        ("an integer above the maximum", json!({"count": 300, "tier": "small"})),
        ("a negative integer for u8", json!({"count": -1, "tier": "small"})),
        ("a fraction for an integer", json!({"count": 1.5, "tier": "small"})),
        ("a value outside the enum", json!({"count": 3, "tier": "medium"})),
        ("a number for the enum", json!({"count": 3, "tier": 1})),
    ]
}

/// What the schema check says, and nothing from the deserializer.
#[track_caller]
pub(crate) fn assert_schema_mismatch(text: &str, what: &str) {
    assert_eq!(
        text,
        format!("Resolver '{ORDER}' received an elicitation whose content does not match the requested schema"),
        "{what}"
    );
    for leak in ["invalid type", "invalid value", "missing field", "unknown variant", "expected", "line", "column"] {
        assert!(!text.contains(leak), "{what}: {text}");
    }
}

#[tokio::test]
async fn accepted_content_failing_the_form_schema_fails_the_call_without_leaking_serde() {
    let client = in_process(&server());
    for (what, content) in misfits() {
        let result = answer_once(&client, "order", ORDER, accept(content)).await;
        assert_schema_mismatch(&tool_error_text(&result), what);
    }
    // Unknown fields are not a mismatch.
    let result = answer_once(&client, "order", ORDER, accept(json!({"count": 2, "tier": "large", "extra": [1]}))).await;
    assert_eq!(complete_text(&result), "2 x Large");
}

#[tokio::test]
async fn content_the_type_reads_but_the_schema_refuses_fails_the_call() {
    // The answer is taken on the thread that asked (which knows the question's digest, so
    // reads the answer without rendering the question again): the schema is checked all
    // the same.
    let client = in_process(&server());
    let result = answer_once(&client, "enter", CODE, accept(json!({"code": "ABCD"}))).await;
    assert_eq!(
        tool_error_text(&result),
        format!("Resolver '{CODE}' received an elicitation whose content does not match the requested schema")
    );
    let result = answer_once(&client, "enter", CODE, accept(json!({"code": "ABC"}))).await;
    assert_eq!(complete_text(&result), "ABC");
}

#[tokio::test]
async fn an_accept_without_content_is_an_error_not_a_cancel() {
    let client = in_process(&server());
    let result = answer_once(&client, "order", ORDER, json!({"action": "accept"})).await;
    assert_eq!(
        tool_error_text(&result),
        format!("Resolver '{ORDER}' received an accepted elicitation with no content")
    );
}

#[tokio::test]
async fn an_answer_of_the_wrong_kind_is_an_error() {
    let client = in_process(&server());
    let result = answer_once(&client, "order", ORDER, roots_answer(&["file:///a"])).await;
    assert_eq!(tool_error_text(&result), format!("Resolver '{ORDER}' received a non-elicitation response"));
    let result = answer_once(&client, "title", TITLE, accept(json!({"value": "x"}))).await;
    assert_eq!(tool_error_text(&result), format!("Resolver '{TITLE}' received a response of the wrong kind"));
    let result = answer_once(&client, "count_roots", ROOTS, sampled("x")).await;
    assert_eq!(tool_error_text(&result), format!("Resolver '{ROOTS}' received a response of the wrong kind"));
    // The right kinds complete.
    let result = answer_once(&client, "title", TITLE, sampled("Atlas")).await;
    assert_eq!(complete_text(&result), "Atlas");
    let result = answer_once(&client, "count_roots", ROOTS, roots_answer(&["file:///a", "file:///b"])).await;
    assert_eq!(complete_text(&result), "2");
}
