//! What the client says about itself (its name, version and title) and the methods it
//! names reach the server's logs escaped and bounded, so they cannot forge log lines.

use mcp::Server;
use mcp::serve::http::HttpConfig;
use mcp_testkit::http;
use serde_json::json;

use crate::support::legacy_http::legacy_headers;
use crate::support::logs::capture_logs;

/// A forged log line, as a hostile client would smuggle it in after a newline.
const FORGED: &str = "2026-01-01T00:00:00Z  INFO admin logged in";

#[tokio::test]
async fn client_info_and_method_names_are_logged_escaped_and_bounded() {
    let (logs, _guard) = capture_logs();
    let addr = http::serve(&Server::builder("log-test", "1.0.0").build(), HttpConfig::default()).await;
    let long_title = "t".repeat(10_000);
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": format!("evil\n{FORGED}"), "version": format!("1.0\r\n{FORGED}"), "title": long_title},
    }});
    let reply = http::post(addr, &legacy_headers(None), &initialize).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    let session =
        reply.header("mcp-session-id").unwrap_or_else(|| panic!("no session: {:?}", reply.headers)).to_owned();
    let notification = json!({"jsonrpc": "2.0", "method": format!("notifications/x\n{FORGED}")});
    let reply = http::post(addr, &legacy_headers(Some(&session)), &notification).await;
    assert_eq!(reply.status.as_u16(), 202, "{}", reply.body);

    let all = logs.since(0);
    assert!(all.contains("legacy session initialized"), "the initialize was logged:\n{all}");
    assert!(all.contains(r#"client="evil\n2026-01-01"#), "the name is escaped:\n{all}");
    assert!(all.contains(r#"method="notifications/x\n2026"#), "the method is escaped:\n{all}");
    for line in all.lines() {
        assert!(!line.starts_with(FORGED), "a forged log line:\n{all}");
        assert!(line.len() < 2_000, "an unbounded log line of {} bytes", line.len());
    }
    assert!(!all.contains(&long_title[..200]), "the title is cut");
}
