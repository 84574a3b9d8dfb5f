//! Disconnects and the concurrency limit, and mounting the service in axum.

use super::*;

#[tokio::test]
async fn closing_the_sse_stream_cancels_the_handler() {
    let (addr, probe) = start().await;
    let message = with_progress_token(call(json!(1), "slow", json!({"ms": 5_000})), "slow-1");
    let mut stream = http::open(addr, "POST", PATH, &call_headers("slow"), message.to_string()).await;
    assert_eq!(stream.content_type().as_deref(), Some("text/event-stream"));
    let first = stream.next_message().await.expect("the first progress notification");
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(probe.started(), 1);
    drop(stream);
    wait_until("the handler future is dropped", Duration::from_secs(2), || probe.dropped() == 1).await;
    assert_eq!(probe.finished(), 0);
    assert_serving(addr).await;
}

#[tokio::test]
async fn closing_the_connection_while_waiting_for_json_cancels_the_handler() {
    let (addr, probe) = start().await;
    let message = call(json!(1), "slow", json!({"ms": 5_000}));
    let socket = http::write_raw(addr, "POST", PATH, &call_headers("slow"), message.to_string().as_bytes()).await;
    wait_until("the handler starts", Duration::from_secs(2), || probe.started() == 1).await;
    drop(socket);
    wait_until("the handler future is dropped", Duration::from_secs(2), || probe.dropped() == 1).await;
    assert_eq!(probe.finished(), 0);
    assert_serving(addr).await;
}

#[tokio::test]
async fn a_completed_slow_call_is_not_counted_as_dropped() {
    // The probe itself: a call that runs to the end is not reported as dropped.
    let (addr, probe) = start().await;
    let reply = post(addr, &call_headers("slow"), &call(json!(1), "slow", json!({"ms": 20}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(1)), "slept 20 ms");
    assert_eq!((probe.started(), probe.finished(), probe.dropped()), (1, 1, 0));
}

#[tokio::test]
async fn over_the_concurrency_limit_is_503_with_retry_after() {
    let (addr, probe) = start_with(HttpConfig::default().max_concurrent_requests(1)).await;
    let message = call(json!(1), "slow", json!({"ms": 5_000}));
    let socket = http::write_raw(addr, "POST", PATH, &call_headers("slow"), message.to_string().as_bytes()).await;
    wait_until("the slow handler starts", Duration::from_secs(2), || probe.started() == 1).await;

    let reply = post(addr, &call_headers("echo"), &call(json!(2), "echo", json!({"text": "x"}))).await;
    // Refused before its body is read, so the request id is not known: null.
    assert_error(&reply, 503, -32000, &Value::Null);
    let retry_after = reply.header("retry-after").unwrap_or_else(|| panic!("no Retry-After: {:?}", reply.headers));
    assert!(retry_after.parse::<u64>().is_ok(), "Retry-After is delay-seconds: {retry_after:?}");

    drop(socket);
    wait_until("the slow handler is dropped", Duration::from_secs(2), || probe.dropped() == 1).await;
    assert_serving(addr).await;
}

#[tokio::test]
async fn the_service_mounts_in_an_axum_router() {
    let (server, _) = test_server();
    let app = axum::Router::new()
        .route_service("/mcp", mcp::serve::http::McpHttpService::new(server.clone(), HttpConfig::default()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("the bound address");
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("axum stopped: {e}");
        }
    });
    let reply = post(addr, &call_headers("echo"), &call(json!("axum"), "echo", json!({"text": "via axum"}))).await;
    assert_eq!(assert_tool_text(&reply, &json!("axum")), "via axum");
    let message = with_progress_token(call(json!("axum-sse"), "progress", json!({})), "t");
    let reply = post(addr, &call_headers("progress"), &message).await;
    assert_eq!(reply.content_type().as_deref(), Some("text/event-stream"));
    assert_eq!(reply.sse_messages().len(), 4, "{}", reply.body);
    let reply = http::send(addr, "POST", "/elsewhere", &call_headers("echo"), "{}").await;
    assert_eq!(reply.status.as_u16(), 404);
}

#[tokio::test]
async fn a_panicking_handler_is_500_minus_32603_for_that_request_only() {
    let (addr, _probe) = start().await;
    let slow = call(json!(1), "slow", json!({"ms": 300}));
    let in_flight = tokio::spawn(async move { http::post(addr, &call_headers("slow"), &slow).await });
    for id in 2..5 {
        let reply = post(addr, &call_headers("panic"), &call(json!(id), "panic", json!({}))).await;
        let error = assert_error(&reply, 500, -32603, &json!(id));
        assert_eq!(error["message"], "Internal error", "no panic text leaks: {error}");
    }
    let reply = post(addr, &call_headers("echo"), &call(json!(5), "echo", json!({"text": "still here"}))).await;
    assert_eq!(reply.json()["result"]["content"][0]["text"], "still here", "{}", reply.body);
    let reply = in_flight.await.unwrap_or_else(|e| panic!("join: {e}"));
    assert_eq!(reply.json()["result"]["content"][0]["text"], "slept 300 ms", "{}", reply.body);
}

/// `server` served over HTTP on a free port (on `workers` threads of its own, or on this
/// runtime for 0) until the returned sender fires or is dropped.
async fn serve_until_stopped(
    server: Server,
    workers: usize,
) -> (SocketAddr, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<std::io::Result<()>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = mcp::serve::http(listener, server).workers(workers).with_graceful_shutdown(async {
        let _ = stopped.await;
    });
    (addr, stop, tokio::spawn(serving.into_future()))
}

/// Graceful shutdown ends a connection that is open but idle between requests (HTTP/1.1
/// keeps it alive): the signal alone wakes the connection's task, on the caller's runtime
/// and on worker threads alike.
#[tokio::test]
async fn shutdown_closes_an_idle_kept_alive_connection() {
    use tokio::io::AsyncReadExt as _;
    for workers in [0, 2] {
        let (server, _probe) = test_server();
        let (addr, stop, serving) = serve_until_stopped(server, workers).await;
        let message = call(json!(1), "echo", json!({"text": "still here"}));
        let mut socket =
            http::write_raw(addr, "POST", PATH, &call_headers("echo"), message.to_string().as_bytes()).await;
        let mut answer = Vec::new();
        while !String::from_utf8_lossy(&answer).contains("still here") {
            let mut chunk = [0u8; 4096];
            let read = tokio::time::timeout(Duration::from_secs(5), socket.read(&mut chunk)).await;
            let n = read.expect("the answer arrives").expect("reading the answer");
            assert!(n > 0, "workers {workers}: the connection closed before the answer");
            answer.extend_from_slice(&chunk[..n]);
        }
        // Answered, the connection stays open; the shutdown signal alone must close it.
        let _ = stop.send(());
        let mut rest = Vec::new();
        let closed = tokio::time::timeout(Duration::from_secs(5), socket.read_to_end(&mut rest)).await;
        assert!(closed.is_ok(), "workers {workers}: the idle connection was not closed on shutdown");
        let ended = tokio::time::timeout(Duration::from_secs(5), serving).await;
        let ended = ended.unwrap_or_else(|_| panic!("workers {workers}: shutdown did not finish"));
        ended.expect("the serving task").expect("served without an I/O error");
    }
}

/// `Serve::workers`: connections served on threads of their own, each with a
/// single-threaded runtime. Requests on several connections are answered, progress
/// streams, a client going away cancels its handler there, and shutdown drains them.
#[tokio::test]
async fn connections_served_on_worker_threads() {
    let (server, probe) = test_server();
    let (addr, stop, serving) = serve_until_stopped(server, 2).await;

    let mut calls = tokio::task::JoinSet::new();
    for i in 0..6 {
        calls.spawn(async move {
            let message = call(json!(i), "echo", json!({"text": format!("hi {i}")}));
            let reply = post(addr, &call_headers("echo"), &message).await;
            assert_eq!(assert_tool_text(&reply, &json!(i)), format!("hi {i}"));
        });
    }
    while let Some(done) = calls.join_next().await {
        done.expect("a call");
    }

    let message = with_progress_token(call(json!(10), "slow", json!({"ms": 5_000})), "slow-10");
    let mut stream = http::open(addr, "POST", PATH, &call_headers("slow"), message.to_string()).await;
    let first = stream.next_message().await.expect("the first progress notification");
    assert_eq!(first["method"], "notifications/progress", "{first}");
    drop(stream);
    wait_until("the handler future is dropped", Duration::from_secs(2), || probe.dropped() == 1).await;

    let reply = post(addr, &call_headers("slow"), &call(json!(11), "slow", json!({"ms": 20}))).await;
    assert_eq!(assert_tool_text(&reply, &json!(11)), "slept 20 ms");
    let _ = stop.send(());
    let ended = tokio::time::timeout(Duration::from_secs(10), serving).await.expect("shutdown finishes");
    ended.expect("the serving task").expect("served without an I/O error");
}
