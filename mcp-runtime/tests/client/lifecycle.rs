//! Timeouts and cancellation.
//! Notifications.
//! The connection's lifetime and the order of what arrives on it.

use super::*;

#[tokio::test]
async fn a_timeout_ends_the_call_and_cancels_it_on_the_server() {
    for (via, per_call) in [(Via::InProcess, false), (Via::InProcess, true), (Via::Http, false)] {
        let (server, _probe, mut hang) = probe_server();
        let builder = if per_call { Client::builder() } else { Client::builder().timeout(Duration::from_millis(300)) };
        let client = connect(via, builder, &server).await;
        let options = CallOptions { timeout: per_call.then_some(Duration::from_millis(300)), ..CallOptions::default() };
        let result = within("hang", client.call_tool_with("hang", json!({}), options)).await;
        assert_eq!(result, Err(ClientError::Timeout), "{via:?}");
        assert_eq!(within("start", hang.recv()).await, Some(Hang::Started), "{via:?}");
        assert_eq!(
            within("cancellation", hang.recv()).await,
            Some(Hang::Dropped),
            "{via:?}: the handler was cancelled"
        );
        // The client still works afterwards.
        within("ping", client.ping()).await.unwrap_or_else(|e| panic!("{via:?}: {e}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn progress_and_log_callbacks_receive_the_notifications_of_a_call() {
    for via in BOTH_WAYS {
        for mode in BOTH_ERAS {
            let (server, _probe, _hang) = probe_server();
            let progress: Arc<Mutex<Vec<ProgressParams>>> = Arc::default();
            let logs: Arc<Mutex<Vec<LoggingMessageParams>>> = Arc::default();
            let (p, l) = (Arc::clone(&progress), Arc::clone(&logs));
            let builder = Client::builder()
                .mode(mode.clone())
                .on_progress(move |params| lock(&p).push(params))
                .on_log(LoggingLevel::Info, move |params| lock(&l).push(params));
            let client = connect(via, builder, &server).await;
            let result = within("chatty", client.call_tool("chatty", json!({}))).await;
            assert_eq!(text_of(&result.unwrap_or_else(|e| panic!("{via:?} {mode:?}: {e}"))), "chatted");

            let progress = lock(&progress).clone();
            let steps: Vec<(f64, Option<f64>, Option<String>)> =
                progress.iter().map(|p| (p.progress, p.total, p.message.clone())).collect();
            let expected: Vec<(f64, Option<f64>, Option<String>)> =
                (1..=3).map(|s| (f64::from(s), Some(3.0), Some(format!("step {s}")))).collect();
            assert_eq!(steps, expected, "{via:?} {mode:?}: every progress notification, before the result");
            let token = &progress[0].progress_token;
            assert!(progress.iter().all(|p| &p.progress_token == token), "{via:?} {mode:?}: one token per call");

            let logs = lock(&logs).clone();
            let logs: Vec<(LoggingLevel, Option<String>, Value)> =
                logs.into_iter().map(|l| (l.level, l.logger, l.data)).collect();
            assert_eq!(
                logs,
                vec![(LoggingLevel::Warning, Some("probe".to_owned()), json!({"note": "careful"}))],
                "{via:?} {mode:?}: messages at the chosen level and above, before the result"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn notifications_reach_the_callbacks_before_the_call_returns() {
    let (server, _probe, _hang) = probe_server();
    for via in BOTH_WAYS {
        let progress: Arc<Mutex<Vec<ProgressParams>>> = Arc::default();
        let seen = Arc::clone(&progress);
        let builder = Client::builder().on_progress(move |params| {
            // A callback that takes a moment (a UI update, say) must still see every
            // notification the server sent before its result, before the call returns.
            std::thread::sleep(Duration::from_micros(200));
            lock(&seen).push(params);
        });
        let client = connect(via, builder, &server).await;
        for round in 0..50 {
            lock(&progress).clear();
            within("chatty", client.call_tool("chatty", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(lock(&progress).len(), 3, "{via:?}, call {round}: progress arrived after the result");
        }
    }
}

#[tokio::test]
async fn dropping_the_client_closes_the_in_process_connection() {
    let (server, _probe, _hang) = probe_server();
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn({
        let server = server.clone();
        async move { mcp::serve::connection(server, server_read, server_write).await }
    });
    let (client_read, client_write) = tokio::io::split(client_end);
    let raw = RawClient::new(client_read, client_write);
    let client = within("connect", Client::builder().connect_raw(raw)).await.unwrap_or_else(|e| panic!("{e}"));
    within("ping", client.ping()).await.unwrap_or_else(|e| panic!("{e}"));
    let copy = client.clone();
    drop(client);
    within("ping", copy.ping()).await.unwrap_or_else(|e| panic!("a clone keeps the connection: {e}"));
    drop(copy);
    let served = within("the server seeing the client leave", serving).await;
    assert!(served.is_ok_and(|r| r.is_ok()), "the connection ends cleanly");
}

#[tokio::test]
async fn a_refused_connection_is_a_transport_error_carrying_its_cause() {
    use std::error::Error as _;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = listener.local_addr().expect("its address");
    drop(listener);
    let error = mcp::client::Client::builder()
        .connect_http(&format!("http://{addr}/mcp"))
        .await
        .expect_err("nothing listens there");
    let ClientError::Transport(transport) = &error else { panic!("not a transport error: {error:?}") };
    assert!(error.source().is_some(), "ClientError::source is the transport error");
    let mut cause = transport.source();
    let mut io = None;
    while let Some(e) = cause {
        io = io.or_else(|| e.downcast_ref::<std::io::Error>().map(std::io::Error::kind));
        cause = e.source();
    }
    assert_eq!(io, Some(std::io::ErrorKind::ConnectionRefused), "the chain reaches the io error: {error}");
}
