//! Default sealing

use super::*;

const REGION: &str = "resolvers::sealing::region_for";

#[mcp::resolver]
fn region_for(name: &str) -> Elicit<Region> {
    Elicit::new(format!("Which region for {name}?"))
}

/// One question worded from an argument.
#[mcp::tool]
fn provision(name: String, region: Resolve<region_for>) -> String {
    format!("{name} in {}", region.region)
}

/// A server with macro items and no sealing configuration.
fn server() -> Server {
    Server::builder("sealing", "1.0.0").tool::<provision>().build()
}

fn answer() -> Value {
    json!({REGION: accept(json!({"region": "eu-west-1"}))})
}

#[track_caller]
fn assert_invalid_state(error: &Error) {
    assert_eq!((error.code, error.message.as_str()), (-32602, "Invalid or expired requestState"), "{error:?}");
    assert_eq!(error.data, Some(json!({"reason": "invalid_request_state"})), "{error:?}");
}

#[tokio::test]
async fn the_request_state_is_a_sealed_token_and_the_retry_completes() {
    let client = in_process(&server());
    let first = Leg::new("provision", json!({"name": "orders"})).result(&client).await;
    let token = state_of(&first);
    assert!(token.starts_with("v1."), "{token}");
    for plaintext in ["outcomes", "asked", "resolvers::", "region"] {
        assert!(!token.contains(plaintext), "the token reveals {plaintext:?}: {token}");
    }
    let done = Leg::new("provision", json!({"name": "orders"})).answers(answer()).state(&token).result(&client).await;
    assert_eq!(complete_text(&done), "orders in eu-west-1");
}

#[tokio::test]
async fn a_tampered_foreign_or_rebound_token_is_refused_with_the_fixed_error() {
    let server = server();
    let client = in_process(&server);
    let first = Leg::new("provision", json!({"name": "orders"})).result(&client).await;
    let token = state_of(&first);

    let mut chars: Vec<char> = token.chars().collect();
    let middle = chars.len() / 2;
    chars[middle] = if chars[middle] == 'A' { 'B' } else { 'A' };
    let tampered: String = chars.into_iter().collect();
    let error =
        Leg::new("provision", json!({"name": "orders"})).answers(answer()).state(&tampered).error(&client).await;
    assert_invalid_state(&error);

    // Arguments are bound to the token: the reworded-question retry cannot happen here.
    let error = Leg::new("provision", json!({"name": "other"})).answers(answer()).state(&token).error(&client).await;
    assert_invalid_state(&error);

    // The default key belongs to one server instance.
    let other = in_process(&self::server());
    let error = Leg::new("provision", json!({"name": "orders"})).answers(answer()).state(&token).error(&other).await;
    assert_invalid_state(&error);

    // The untouched token still works.
    let done = Leg::new("provision", json!({"name": "orders"})).answers(answer()).state(&token).result(&client).await;
    assert_eq!(complete_text(&done), "orders in eu-west-1");
}
