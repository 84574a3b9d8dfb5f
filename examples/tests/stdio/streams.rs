//! stdio when the standard streams are not both pipes: the server falls back to blocking
//! reads and writes, and must still wait for input that has not arrived yet.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// A request line under 2026-07-28 for `everything`'s simplest tool.
fn simple_call(id: i64) -> String {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "streams-test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let request = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "test_simple_text", "arguments": {}, "_meta": meta}
    });
    format!("{request}\n")
}

/// stdin a pipe that stays empty for a while, stdout a regular file (`server < pipe > out`).
/// Only stdin can be a non-blocking pipe here, so the server must not leave it non-blocking
/// when it falls back: the first read of the still-empty pipe would fail at once.
#[test]
fn a_pipe_in_and_a_file_out_waits_for_input_and_answers() {
    let path = std::env::temp_dir().join(format!("mcp-stdio-streams-{}.jsonl", std::process::id()));
    let out = std::fs::File::create(&path).expect("create the output file");
    let mut server = Command::new(env!("CARGO_BIN_EXE_everything"))
        .arg("stdio")
        .stdin(Stdio::piped())
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn everything");
    std::thread::sleep(Duration::from_millis(300));
    let mut stdin = server.stdin.take().expect("stdin is piped");
    stdin.write_all(simple_call(7).as_bytes()).expect("write the request");
    drop(stdin);
    let status = server.wait().expect("wait for the server");
    let written = std::fs::read_to_string(&path).expect("read the output file");
    let _ = std::fs::remove_file(&path);
    assert!(status.success(), "server exited with {status}; wrote {written:?}");
    let response: Value = serde_json::from_str(written.lines().next().expect("one response line")).expect("JSON");
    assert_eq!(response["id"], 7);
    assert_eq!(response["result"]["content"][0]["text"], "This is a simple text response for testing.");
}
