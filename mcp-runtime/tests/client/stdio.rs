//! stdio: this test binary, re-run as the probe server.

use super::*;

/// Set in the environment of the child that serves the probe server over stdio.
const STDIO_CHILD: &str = "MCP_CLIENT_TEST_STDIO_CHILD";

/// The stdio server the stdio tests spawn: this test binary, running only this test
/// (named by its path in the crate, which `stdio_child` passes with `--exact`).
#[test]
#[ignore = "the probe server over stdio; runs only as the child of the stdio tests"]
fn stdio_child_server() {
    use std::io::Write;
    if std::env::var_os(STDIO_CHILD).is_none() {
        return;
    }
    // End the test harness's "test ... " line: the client skips lines that are not JSON.
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(b"\n").and_then(|()| stdout.flush());
    let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let (server, _probe, _hang) = runtime.block_on(async { probe_server() });
    let _ = runtime.block_on(async { mcp::serve::stdio(server).await });
}

fn stdio_child() -> tokio::process::Command {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let mut command = tokio::process::Command::new(exe);
    command
        .args(["stdio::stdio_child_server", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(STDIO_CHILD, "1")
        .stderr(std::process::Stdio::null());
    command
}

#[tokio::test]
async fn a_stdio_child_serves_both_eras_and_sees_cancellations() {
    for mode in BOTH_ERAS {
        let asked = Asked::default();
        let builder = Client::builder().mode(mode.clone()).elicitation(asked.elicitation("Grace"));
        let client = within("spawning", builder.connect_stdio(&mut stdio_child())).await;
        let client = client.unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let legacy = mode == Mode::Legacy;
        assert_eq!(client.protocol_version(), if legacy { "2025-11-25" } else { "2026-07-28" });
        assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("probe"));

        let result = within("ask", client.call_tool("ask", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
        let expected = if legacy { "Hello, Grace!" } else { "Hello, Grace! (state ask-state)" };
        assert_eq!(text_of(&result), expected, "{mode:?}");
        assert!(asked_the_eras_way(&asked.all()[0].0, legacy, "name"), "{mode:?}: {:?}", asked.all());

        let options = CallOptions { timeout: Some(Duration::from_millis(300)), ..CallOptions::default() };
        let result = within("hang", client.call_tool_with("hang", json!({}), options)).await;
        assert_eq!(result, Err(ClientError::Timeout), "{mode:?}");
        let report = within("report", client.call_tool("hang_dropped", json!({}))).await;
        assert_eq!(text_of(&report.unwrap_or_else(|e| panic!("{e}"))), "1 dropped", "{mode:?}: the server cancelled");
    }
}
