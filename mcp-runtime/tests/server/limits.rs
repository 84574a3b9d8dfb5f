//! Every configurable limit, exceeded on a newline-delimited connection (as stdio runs it):
//! the specific error comes back and the connection keeps serving.

use std::time::Duration;

use mcp::Server;
use mcp::limits::Limits;
use mcp::protocol::{CallToolOutcome, CallToolResult};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

/// `echo` answers at once; `sleep` waits `ms` milliseconds.
fn server(limits: Limits) -> Server {
    Server::builder("limits", "1.0.0")
        .limits(limits)
        .on_call_tool(|_ctx, params| async move {
            let args = params.arguments.unwrap_or_default();
            if params.name == "sleep" {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            Ok(CallToolOutcome::from(CallToolResult::text(params.name)))
        })
        .build()
}

pub(super) struct Conn {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
}

/// The connection settings a test changes.
#[derive(Default)]
pub(super) struct ConnLimits {
    max_in_flight: Option<usize>,
    max_message_bytes: Option<usize>,
    max_listen_streams: Option<usize>,
}

pub(super) fn connect(server: Server, config: ConnLimits) -> Conn {
    let (input, server_in) = tokio::io::duplex(1 << 20);
    let (server_out, output) = tokio::io::duplex(1 << 20);
    let mut connection = mcp::serve::connection(server, server_in, server_out);
    if let Some(n) = config.max_in_flight {
        connection = connection.max_in_flight(n);
    }
    if let Some(n) = config.max_message_bytes {
        connection = connection.max_message_bytes(n);
    }
    if let Some(n) = config.max_listen_streams {
        connection = connection.max_listen_streams(n);
    }
    tokio::spawn(async move { connection.await });
    Conn::new(input, output)
}

impl Conn {
    /// The client's ends of a connection served elsewhere.
    pub(super) fn new(input: DuplexStream, output: DuplexStream) -> Self {
        Conn { input, output: BufReader::new(output).lines() }
    }

    pub(super) async fn send_line(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).await.unwrap_or_else(|e| panic!("write: {e}"));
        self.input.write_all(b"\n").await.unwrap_or_else(|e| panic!("write: {e}"));
    }

    pub(super) async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.output.next_line())
            .await
            .unwrap_or_else(|_| panic!("no response within 5 s"))
            .unwrap_or_else(|e| panic!("read: {e}"))
            .unwrap_or_else(|| panic!("the connection closed"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    async fn exchange(&mut self, line: &str) -> Value {
        self.send_line(line).await;
        self.recv().await
    }

    async fn assert_still_serving(&mut self) {
        let reply = self.exchange(&call(99, "echo", json!({}), json!({})).to_string()).await;
        assert_eq!(reply["id"], 99, "{reply}");
        assert_eq!(reply["result"]["content"][0]["text"], "echo", "{reply}");
    }
}

pub(super) fn call(id: i64, tool: &str, arguments: Value, extra: Value) -> Value {
    let mut params = json!({
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        },
        "name": tool,
        "arguments": arguments,
    });
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn assert_error(reply: &Value, id: Value, code: i64, message: &str) {
    assert_eq!(reply["id"], id, "{reply}");
    assert_eq!(reply["error"]["code"], code, "{reply}");
    assert_eq!(reply["error"]["message"], message, "{reply}");
}

#[tokio::test]
async fn nesting_deeper_than_the_limit_is_invalid_request() {
    let mut conn = connect(server(Limits::default().max_json_depth(8)), ConnLimits::default());
    // The message object, params, arguments: 3 levels; 5 more arrays make 8.
    let ok = call(1, "echo", json!({"v": [[[[[1]]]]]}), json!({}));
    assert_eq!(conn.exchange(&ok.to_string()).await["result"]["content"][0]["text"], "echo");
    let deep = call(2, "echo", json!({"v": [[[[[[1]]]]]]}), json!({}));
    let reply = conn.exchange(&deep.to_string()).await;
    assert_error(&reply, Value::Null, -32600, "Invalid Request: JSON nested deeper than 8 levels");
    // Far deeper than serde_json's own limit: the same error, no stack overflow.
    let abyss = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"x","params":{{"a":{}1{}}}}}"#,
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    let reply = conn.exchange(&abyss).await;
    assert_error(&reply, Value::Null, -32600, "Invalid Request: JSON nested deeper than 8 levels");
    conn.assert_still_serving().await;
}

#[tokio::test]
async fn duplicate_keys_are_invalid_request() {
    let mut conn = connect(server(Limits::default()), ConnLimits::default());
    let cases = [
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":"sleep"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"a":{"b":1,"b":2}}}}"#,
    ];
    for case in cases {
        let reply = conn.exchange(case).await;
        assert_error(&reply, Value::Null, -32600, "Invalid Request: duplicate key in a JSON object");
        conn.assert_still_serving().await;
    }
}

#[tokio::test]
async fn retry_fields_over_their_limits_are_invalid_params() {
    let limits = Limits::default().max_input_responses(2).max_input_response_bytes(64).max_request_state_bytes(100);
    let mut conn = connect(server(limits), ConnLimits::default());
    let accept = json!({"action": "accept", "content": {"x": 1}});
    let cases = [
        (json!({"requestState": "s".repeat(101)}), "Invalid params: requestState exceeds 100 bytes"),
        (
            json!({"inputResponses": {"a": accept, "b": accept, "c": accept}}),
            "Invalid params: more than 2 inputResponses",
        ),
        (
            json!({"inputResponses": {"a": {"action": "accept", "content": {"x": "y".repeat(64)}}}}),
            "Invalid params: an inputResponses entry exceeds 64 bytes",
        ),
        (json!({"inputResponses": [accept]}), "Invalid params: inputResponses must be an object"),
        (json!({"inputResponses": "accept"}), "Invalid params: inputResponses must be an object"),
    ];
    for (i, (extra, message)) in (1..).zip(cases) {
        let reply = conn.exchange(&call(i, "echo", json!({}), extra).to_string()).await;
        assert_error(&reply, json!(i), -32602, message);
        conn.assert_still_serving().await;
    }
    // At the limits exactly: served (the server never asked, so the answers are ignored).
    let at_limits = json!({"inputResponses": {"a": accept, "b": accept}});
    let reply = conn.exchange(&call(7, "echo", json!({}), at_limits).to_string()).await;
    assert_eq!(reply["result"]["content"][0]["text"], "echo", "{reply}");
}

#[tokio::test]
async fn a_handler_over_the_timeout_is_cancelled_with_32001() {
    let limits = Limits::default().handler_timeout(Some(Duration::from_millis(150)));
    let mut conn = connect(server(limits), ConnLimits::default());
    let reply = conn.exchange(&call(1, "sleep", json!({"ms": 10_000}), json!({})).to_string()).await;
    assert_error(&reply, json!(1), -32001, "Request timed out");
    let reply = conn.exchange(&call(2, "sleep", json!({"ms": 20}), json!({})).to_string()).await;
    assert_eq!(reply["result"]["content"][0]["text"], "sleep", "{reply}");

    // No timeout at all when it is switched off.
    let limits = Limits::default().handler_timeout(None);
    let mut conn = connect(server(limits), ConnLimits::default());
    let reply = conn.exchange(&call(3, "sleep", json!({"ms": 300}), json!({})).to_string()).await;
    assert_eq!(reply["result"]["content"][0]["text"], "sleep", "{reply}");
}

#[tokio::test]
async fn requests_beyond_max_in_flight_are_refused_as_busy() {
    let config = ConnLimits { max_in_flight: Some(2), ..ConnLimits::default() };
    let mut conn = connect(server(Limits::default()), config);
    for id in 1..=2 {
        conn.send_line(&call(id, "sleep", json!({"ms": 400}), json!({})).to_string()).await;
    }
    let reply = conn.exchange(&call(3, "echo", json!({}), json!({})).to_string()).await;
    assert_error(&reply, json!(3), -32000, "Server busy: too many requests in flight; retry later");
    let mut finished = vec![conn.recv().await["id"].clone(), conn.recv().await["id"].clone()];
    finished.sort_by_key(|id| id.as_i64());
    assert_eq!(finished, vec![json!(1), json!(2)]);
    // Slots free again once they finish.
    conn.assert_still_serving().await;
}

#[tokio::test]
async fn a_line_over_max_message_bytes_is_refused_and_skipped() {
    let config = ConnLimits { max_message_bytes: Some(1024), ..ConnLimits::default() };
    let mut conn = connect(server(Limits::default()), config);
    let big = call(1, "echo", json!({"text": "x".repeat(2000)}), json!({}));
    let reply = conn.exchange(&big.to_string()).await;
    assert_error(&reply, Value::Null, -32600, "Invalid Request: message exceeds 1024 bytes");
    conn.assert_still_serving().await;
}

fn listen(id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        },
        "notifications": {"toolsListChanged": true},
    }})
    .to_string()
}

#[tokio::test]
async fn listen_streams_do_not_count_against_max_in_flight() {
    let config = ConnLimits { max_in_flight: Some(2), ..ConnLimits::default() };
    let mut conn = connect(server(Limits::default()), config);
    for id in 1..=3 {
        let ack = conn.exchange(&listen(id)).await;
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
        assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id, "{ack}");
    }
    // Three open subscriptions, two request slots: both slots are still free.
    for id in 4..=5 {
        conn.send_line(&call(id, "sleep", json!({"ms": 200}), json!({})).to_string()).await;
    }
    let mut finished = [conn.recv().await, conn.recv().await];
    finished.sort_by_key(|reply| reply["id"].as_i64());
    for (reply, id) in finished.iter().zip(4..) {
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["result"]["content"][0]["text"], "sleep", "{reply}");
    }
    conn.assert_still_serving().await;
}

#[tokio::test]
async fn listen_streams_beyond_max_listen_streams_are_refused_as_busy() {
    let config = ConnLimits { max_listen_streams: Some(2), ..ConnLimits::default() };
    let mut conn = connect(server(Limits::default()), config);
    for id in 1..=2 {
        let ack = conn.exchange(&listen(id)).await;
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    }
    let reply = conn.exchange(&listen(3)).await;
    assert_error(&reply, json!(3), -32000, "Server busy: too many open streams; retry later");
    conn.assert_still_serving().await;
    // Cancelling a subscription frees its slot (once its task has stopped): a new one fits.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    conn.send_line(&cancel.to_string()).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    for id in 4.. {
        let reply = conn.exchange(&listen(id)).await;
        if reply["method"] == "notifications/subscriptions/acknowledged" {
            assert_eq!(reply["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id, "{reply}");
            break;
        }
        assert_error(&reply, json!(id), -32000, "Server busy: too many open streams; retry later");
        assert!(tokio::time::Instant::now() < deadline, "cancelling a subscription never freed its slot");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
