//! The in-flight limit under a burst of requests.

use super::*;

/// The default number of requests in flight on one connection.
const MAX_IN_FLIGHT: usize = 256;

#[tokio::test]
async fn requests_over_the_in_flight_limit_get_server_busy() {
    // The provisioner's tools answer at once; `everything` has a slow one.
    let mut server = spawn(env!("CARGO_BIN_EXE_everything"));
    let extra = 20;
    let from = server.stderr_len();
    for id in 0..(MAX_IN_FLIGHT + extra) as i64 {
        let params = modern_params(json!({}), json!({"name": "test_slow", "arguments": {"ms": 2_000}}));
        server.send_request(json!(id), "tools/call", params).await;
    }
    let mut busy = Vec::new();
    let mut done = 0;
    while done + busy.len() < MAX_IN_FLIGHT + extra {
        let response = server.next().await;
        if response.get("method").is_some() {
            continue;
        }
        if response.get("error").is_some() {
            assert_valid(MODERN, "JSONRPCErrorResponse", &response);
            assert_eq!(
                response["error"],
                json!({"code": -32000, "message": "Server busy: too many requests in flight; retry later"}),
                "{response}"
            );
            busy.push(response["id"].as_i64().unwrap_or(-1));
        } else {
            assert_eq!(response["result"]["content"][0]["text"], "Slept 2000 ms.", "{response}");
            done += 1;
        }
    }
    assert_eq!((done, busy.len()), (MAX_IN_FLIGHT, extra), "refused ids: {busy:?}");
    assert!(busy.iter().all(|id| *id >= MAX_IN_FLIGHT as i64), "only the excess is refused: {busy:?}");
    server
        .wait_for_stderr_line(from, LOG_WAIT, "refusing requests over the limit logs a WARN", |line| {
            line.contains("WARN")
        })
        .await;
    // Once the slow ones are done, the connection serves again.
    let params = modern_params(json!({}), json!({"name": "test_simple_text", "arguments": {}}));
    let response = server.request(json!("after"), "tools/call", params).await;
    assert_eq!(response["result"]["content"][0]["text"], "This is a simple text response for testing.", "{response}");
    assert!(server.is_running());
    assert_eq!(server.close().await.code(), Some(0));
}
