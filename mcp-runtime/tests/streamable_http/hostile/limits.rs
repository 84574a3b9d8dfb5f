//! The time and concurrency limits under load.

use super::*;

#[tokio::test]
async fn a_handler_over_the_timeout_is_504_and_cancelled() {
    let (logs, _guard) = capture_logs();
    let limits = Limits::default().handler_timeout(Some(Duration::from_millis(200)));
    let addr = http::serve(&server_with(limits), HttpConfig::default()).await;
    let from = logs.len();
    let started = tokio::time::Instant::now();
    let reply = post(addr, "slow", &call(json!("slow"), "slow", json!({"ms": 1_000}), json!({}))).await;
    let elapsed = started.elapsed();
    let error = assert_error(&reply, 504, -32001, &json!("slow"));
    assert_eq!(error, json!({"code": -32001, "message": "Request timed out"}));
    assert!(elapsed < Duration::from_millis(900), "the timeout answered after {elapsed:?}");
    logs.assert_warned(from, "a handler timeout");
    assert_still_serving(addr).await;
    // The handler was dropped: it never finishes.
    tokio::time::sleep(Duration::from_millis(1_200).saturating_sub(started.elapsed())).await;
    assert_eq!(SLOW_FINISHED.load(Ordering::SeqCst), 0, "the timed-out handler ran to the end");
    // A handler within the limit is unaffected.
    let reply = post(addr, "slow", &call(json!("quick"), "slow", json!({"ms": 10}), json!({}))).await;
    assert_eq!(complete_text(&assert_result(&reply, &json!("quick"))), "slept 10 ms");
}

#[tokio::test]
async fn requests_over_the_concurrency_limit_are_503_with_retry_after() {
    let (logs, _guard) = capture_logs();
    let config = HttpConfig::default().max_concurrent_requests(2);
    let addr = http::serve(&server_with(Limits::default()), config).await;
    let holding: Vec<_> = (0..2)
        .map(|i| {
            let message = call(json!(format!("hold-{i}")), "hold", json!({"ms": 1_500}), json!({}));
            tokio::spawn(async move { post(addr, "hold", &message).await })
        })
        .collect();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while HOLD_STARTED.load(Ordering::SeqCst) < 2 {
        assert!(tokio::time::Instant::now() < deadline, "the holding calls did not start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let from = logs.len();
    for id in 0..3 {
        let reply = post(addr, "echo", &call(json!(id), "echo", json!({"text": "x"}), json!({}))).await;
        // Refused before its body is read, so the request id is not known: null.
        let error = assert_error(&reply, 503, -32000, &Value::Null);
        assert_eq!(error["message"], "Server busy: too many requests in flight; retry later");
        assert_eq!(reply.header("retry-after"), Some("1"), "{:?}", reply.headers);
    }
    logs.assert_warned(from, "the concurrency limit");
    for (i, task) in holding.into_iter().enumerate() {
        let reply = task.await.unwrap_or_else(|e| panic!("the holding call failed: {e}"));
        assert_eq!(complete_text(&assert_result(&reply, &json!(format!("hold-{i}")))), "held 1500 ms");
    }
    assert_still_serving(addr).await;
}
