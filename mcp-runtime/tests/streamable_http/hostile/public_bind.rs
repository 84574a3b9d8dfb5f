//! A server bound to a non-loopback address with neither allowed hosts nor a token
//! verifier refuses to start, and names the ways out.

use std::future::IntoFuture;

use super::*;

/// Serve on `0.0.0.0:0` with `config` (when given); the future's outcome if it ends within
/// a second, and the port.
async fn serve_public(config: Option<HttpConfig>) -> (Option<std::io::Result<()>>, u16) {
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let port = listener.local_addr().unwrap_or_else(|e| panic!("local_addr: {e}")).port();
    let mut serve = mcp::serve::http(listener, server_with(Limits::default()));
    if let Some(config) = config {
        serve = serve.config(config);
    }
    let task = tokio::spawn(serve.into_future());
    let ended = tokio::time::timeout(Duration::from_secs(1), async {
        loop {
            if task.is_finished() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    match ended {
        Ok(()) => (Some(task.await.unwrap_or_else(|e| panic!("the serve task panicked: {e}"))), port),
        Err(_) => {
            task.abort();
            (None, port)
        }
    }
}

#[track_caller]
fn assert_refused(outcome: Option<std::io::Result<()>>) {
    let outcome = outcome.unwrap_or_else(|| panic!("a public unauthenticated server started serving"));
    let error = outcome.err().unwrap_or_else(|| panic!("a public unauthenticated server returned Ok"));
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "{error}");
    let message = error.to_string();
    for way_out in
        ["HttpConfig::allowed_hosts", "HttpConfig::token_verifier", "HttpConfig::allow_public_unauthenticated"]
    {
        assert!(message.contains(way_out), "the error names {way_out}: {message}");
    }
}

#[tokio::test]
async fn a_public_bind_without_allowed_hosts_or_auth_refuses_to_start() {
    let (outcome, _) = serve_public(None).await;
    assert_refused(outcome);
    let (outcome, _) = serve_public(Some(HttpConfig::default())).await;
    assert_refused(outcome);
    // Switching the host check off is not a way out.
    let (outcome, _) = serve_public(Some(HttpConfig::default().allow_any_host())).await;
    assert_refused(outcome);
}

#[tokio::test]
async fn a_public_bind_with_allowed_hosts_or_the_opt_in_serves() {
    for config in
        [HttpConfig::default().allowed_hosts(["127.0.0.1"]), HttpConfig::default().allow_public_unauthenticated()]
    {
        let (outcome, _) = serve_public(Some(config.clone())).await;
        assert!(outcome.is_none(), "{config:?} must serve, yet: {outcome:?}");
    }
    // And it answers (through the loopback interface, which 0.0.0.0 includes).
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let port = listener.local_addr().unwrap_or_else(|e| panic!("local_addr: {e}")).port();
    let server = server_with(Limits::default());
    let config = HttpConfig::default().allowed_hosts(["127.0.0.1"]);
    tokio::spawn(async move { mcp::serve::http(listener, server).config(config).await });
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    assert_still_serving(addr).await;
}
