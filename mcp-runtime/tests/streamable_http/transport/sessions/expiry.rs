//! Sessions end after an idle timeout and an absolute lifetime; their ids then get 404.

use super::*;

#[tokio::test]
async fn an_idle_session_expires_and_its_id_gets_404() {
    let config = HttpConfig::default().session_idle_timeout(Some(Duration::from_millis(200)));
    let (addr, _) = start_with(config).await;
    let session = initialize(addr, json!({})).await;
    assert_list_ok(&post(addr, &legacy_headers(Some(&session)), &list(1)).await);

    tokio::time::sleep(Duration::from_millis(600)).await;
    let reply = post(addr, &legacy_headers(Some(&session)), &list(2)).await;
    assert_error(&reply, 404, -32600, &json!(2));
    // The client initializes again.
    let again = initialize(addr, json!({})).await;
    assert_list_ok(&post(addr, &legacy_headers(Some(&again)), &list(3)).await);
}

#[tokio::test]
async fn a_session_with_an_open_stream_or_a_running_request_is_not_idle() {
    let config = HttpConfig::default().session_idle_timeout(Some(Duration::from_millis(200)));
    let (addr, probe) = start_with(config).await;

    let streaming = initialize(addr, json!({})).await;
    let held = open_get(addr, legacy_headers(Some(&streaming))).await;
    let working = initialize(addr, json!({})).await;
    let mut call = open_slow_call(addr, &legacy_headers(Some(&working)), 700).await;

    let last = call.next_message().await.expect("the tool result");
    assert_eq!(last["id"], "slow-1", "{last}");
    assert_eq!(last["result"]["content"][0]["text"], "slept 700 ms", "the running request was not aborted: {last}");
    assert_eq!((probe.finished(), probe.dropped()), (1, 0));
    assert_list_ok(&post(addr, &legacy_headers(Some(&streaming)), &list(1)).await);
    assert_list_ok(&post(addr, &legacy_headers(Some(&working)), &list(2)).await);
    drop(held);
}

#[tokio::test]
async fn a_session_past_its_lifetime_ends_even_while_busy() {
    let config =
        HttpConfig::default().session_idle_timeout(None).session_max_lifetime(Some(Duration::from_millis(400)));
    let (addr, probe) = start_with(config).await;
    let session = initialize(addr, json!({})).await;
    let mut held = open_get(addr, legacy_headers(Some(&session))).await;
    let mut call = open_slow_call(addr, &legacy_headers(Some(&session)), 5_000).await;

    // No request arrives: the server itself ends the session, its stream and its request.
    assert_eq!(held.next_message_within(Duration::from_secs(3)).await, None, "the GET stream ends");
    assert_eq!(call.next_message_within(Duration::from_secs(3)).await, None, "the running request is aborted");
    wait_until("the slow handler is dropped", Duration::from_secs(2), || probe.dropped() == 1).await;
    let reply = post(addr, &legacy_headers(Some(&session)), &list(1)).await;
    assert_error(&reply, 404, -32600, &json!(1));
}
