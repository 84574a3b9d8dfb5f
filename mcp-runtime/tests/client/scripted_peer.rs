//! A scripted server, for what our own server never sends.

use super::*;

/// The server end of an in-memory pipe, driven line by line by the test.
pub(super) struct Peer {
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
}

impl Peer {
    /// The next message the client sent.
    pub(super) async fn recv(&mut self) -> Value {
        let line = within("the client's next message", self.lines.next_line()).await;
        let line = line.unwrap_or_else(|e| panic!("{e}")).unwrap_or_else(|| panic!("the client closed the pipe"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The next message, which must be `method`.
    pub(super) async fn expect(&mut self, method: &str) -> Value {
        let message = self.recv().await;
        assert_eq!(message["method"], method, "{message}");
        message
    }

    pub(super) async fn send(&mut self, message: Value) {
        use tokio::io::AsyncWriteExt;
        let line = format!("{message}\n");
        within("writing to the client", self.writer.write_all(line.as_bytes())).await.unwrap_or_else(|e| panic!("{e}"));
    }

    pub(super) async fn answer(&mut self, request: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result})).await;
    }

    async fn refuse(&mut self, request: &Value, code: i32, message: &str) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": message}})).await;
    }
}

/// A client connected to a [`Peer`] that answers the negotiation: `server/discover` when
/// `modern`, else a refusal of it and the `initialize` handshake.
pub(super) async fn connect_peer(builder: ClientBuilder, modern: bool) -> (Client, Peer) {
    use tokio::io::AsyncBufReadExt;
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_end);
    let (server_read, writer) = tokio::io::split(server_end);
    let mut peer = Peer { lines: tokio::io::BufReader::new(server_read).lines(), writer };
    let negotiate = async {
        let discover = peer.expect("server/discover").await;
        assert_eq!(discover["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        if modern {
            let result = json!({
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "0.1"}},
            });
            peer.answer(&discover, result).await;
        } else {
            peer.refuse(&discover, -32601, "Method not found").await;
            let initialize = peer.expect("initialize").await;
            assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");
            let result = json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "0.1"},
            });
            peer.answer(&initialize, result).await;
            peer.expect("notifications/initialized").await;
        }
    };
    let (client, ()) = tokio::join!(builder.connect_raw(RawClient::new(client_read, client_write)), negotiate);
    let client = client.unwrap_or_else(|e| panic!("connecting to the scripted server: {e}"));
    assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("scripted"));
    assert_eq!(client.is_legacy(), !modern);
    (client, peer)
}

/// Call tool `x` and answer its first round with `result`.
async fn call_answered_with(client: &Client, peer: &mut Peer, result: Value) -> Result<CallToolResult, ClientError> {
    let serve = async {
        let call = peer.expect("tools/call").await;
        peer.answer(&call, result).await;
    };
    let (outcome, ()) = tokio::join!(within("call", client.call_tool("x", json!({}))), serve);
    outcome
}

/// Send one more request and check it is the next message on the wire (nothing, such
/// as a retry, came in between).
async fn next_request_is_the_next_call(client: &Client, peer: &mut Peer) {
    let serve = async {
        let next = peer.recv().await;
        assert_eq!(next["method"], "test/next", "expected nothing before the next call: {next}");
        peer.answer(&next, json!({"ok": true})).await;
    };
    let (answer, ()) = tokio::join!(client.request("test/next", json!({})), serve);
    assert_eq!(answer.unwrap_or_else(|e| panic!("{e}")), json!({"ok": true}));
}

#[tokio::test]
async fn a_result_without_result_type_is_complete_and_an_unknown_one_is_invalid() {
    let (client, mut peer) = connect_peer(Client::builder(), true).await;
    let plain = json!({"content": [{"type": "text", "text": "from an older server"}]});
    let result = call_answered_with(&client, &mut peer, plain).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text_of(&result), "from an older server");

    let complete = json!({"resultType": "complete", "content": [{"type": "text", "text": "tagged"}]});
    let result = call_answered_with(&client, &mut peer, complete).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text_of(&result), "tagged");

    for unknown in ["task", "Complete", "input-required", ""] {
        let odd = json!({"resultType": unknown, "content": [{"type": "text", "text": "?"}]});
        let result = call_answered_with(&client, &mut peer, odd).await;
        assert!(matches!(&result, Err(ClientError::Protocol(_))), "resultType {unknown:?}: {result:?}");
    }
    let odd = json!({"resultType": 7, "content": []});
    let result = call_answered_with(&client, &mut peer, odd).await;
    assert!(matches!(&result, Err(ClientError::Protocol(_))), "a resultType that is not a string: {result:?}");

    // The manual form reads results the same way.
    let serve = async {
        let call = peer.expect("tools/call").await;
        peer.answer(&call, json!({"resultType": "task", "taskId": "t1"})).await;
    };
    let (once, ()) = tokio::join!(client.call_tool_once("x", json!({}), CallOptions::default()), serve);
    assert!(matches!(&once, Err(ClientError::Protocol(_))), "{once:?}");
}

#[tokio::test]
async fn without_a_callback_the_client_refuses_the_question_itself() {
    // A server that asks without checking the declared capabilities (ours refuses first,
    // with -32021): the client's default answer is the SDKs' -32600 refusal.
    let (client, mut peer) = connect_peer(Client::builder(), true).await;
    let cases = [
        (
            json!({"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}),
            "Elicitation not supported",
        ),
        (
            json!({"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}),
            "Sampling not supported",
        ),
        (json!({"method": "roots/list"}), "List roots not supported"),
    ];
    for (question, message) in cases {
        let ask = json!({"resultType": "input_required", "inputRequests": {"q": question}, "requestState": "s"});
        let result = call_answered_with(&client, &mut peer, ask).await;
        let expected = Error { code: -32600, message: message.to_owned(), data: None };
        assert_eq!(result, Err(ClientError::Callback { key: "q".into(), error: expected }));
        // No retry was sent: the next thing on the wire is the next request.
        next_request_is_the_next_call(&client, &mut peer).await;
    }
}

#[tokio::test]
async fn a_legacy_session_answers_the_servers_requests_with_the_callbacks() {
    let asked = Asked::default();
    let builder = Client::builder().elicitation(asked.elicitation("Ada"));
    let (client, mut peer) = connect_peer(builder, false).await;
    assert_eq!(client.protocol_version(), "2025-11-25");
    let serve = async {
        let call = peer.expect("tools/call").await;
        assert!(call["params"].get("_meta").is_none(), "no per-request _meta in a legacy session: {call}");
        let mut answers = Vec::new();
        let questions = [
            (
                "e1",
                json!({"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}),
            ),
            ("s1", json!({"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}})),
            ("r1", json!({"method": "roots/list"})),
            ("p1", json!({"method": "ping"})),
            ("u1", json!({"method": "tasks/list"})),
        ];
        for (id, question) in questions {
            let mut request = question;
            request["jsonrpc"] = json!("2.0");
            request["id"] = json!(id);
            peer.send(request).await;
            answers.push(peer.recv().await);
        }
        peer.answer(&call, json!({"content": [{"type": "text", "text": "done"}]})).await;
        answers
    };
    let (result, answers) = tokio::join!(within("call", client.call_tool("x", json!({}))), serve);
    assert_eq!(text_of(&result.unwrap_or_else(|e| panic!("{e}"))), "done");
    let by_id =
        |id: &str| answers.iter().find(|a| a["id"] == id).cloned().unwrap_or_else(|| panic!("no answer to {id}"));
    assert_eq!(by_id("e1")["result"], json!({"action": "accept", "content": {"name": "Ada"}}));
    assert_eq!(by_id("s1")["error"], json!({"code": -32600, "message": "Sampling not supported"}));
    assert_eq!(by_id("r1")["error"], json!({"code": -32600, "message": "List roots not supported"}));
    assert_eq!(by_id("p1")["result"], json!({}));
    assert_eq!(by_id("u1")["error"]["code"], -32601);
    let asked = asked.all();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0], (Asker::ServerRequest(RequestId::from("e1")), "Name?".to_owned()));
}

#[tokio::test]
async fn a_timeout_sends_notifications_cancelled_for_the_abandoned_request() {
    let builder = Client::builder().timeout(Duration::from_millis(200));
    let (client, mut peer) = connect_peer(builder, true).await;
    let serve = async {
        let call = peer.expect("tools/call").await;
        let cancelled = peer.expect("notifications/cancelled").await;
        (call, cancelled)
    };
    let (result, (call, cancelled)) = tokio::join!(within("call", client.call_tool("x", json!({}))), serve);
    assert_eq!(result, Err(ClientError::Timeout));
    assert_eq!(cancelled["params"]["requestId"], call["id"], "{cancelled}");
    assert!(cancelled.get("id").is_none(), "a notification has no id");
    // A late answer to the abandoned request is ignored; the next call works.
    peer.answer(&call, json!({"content": []})).await;
    next_request_is_the_next_call(&client, &mut peer).await;
}

#[tokio::test]
async fn a_server_that_refuses_every_version_we_speak_is_unsupported() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_end);
    let (server_read, writer) = tokio::io::split(server_end);
    use tokio::io::AsyncBufReadExt;
    let mut peer = Peer { lines: tokio::io::BufReader::new(server_read).lines(), writer };
    let serve = async {
        let discover = peer.expect("server/discover").await;
        let error = json!({"code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2027-01-01"], "requested": "2026-07-28"}});
        peer.send(json!({"jsonrpc": "2.0", "id": discover["id"], "error": error})).await;
    };
    let (client, ()) = tokio::join!(Client::builder().connect_raw(RawClient::new(client_read, client_write)), serve);
    assert!(matches!(&client, Err(ClientError::Unsupported(_))), "{client:?}");
}

#[tokio::test]
async fn a_raw_client_already_read_from_still_connects() {
    use tokio::io::AsyncBufReadExt;
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_end);
    let (server_read, writer) = tokio::io::split(server_end);
    let mut peer = Peer { lines: tokio::io::BufReader::new(server_read).lines(), writer };
    let raw = RawClient::new(client_read, client_write);
    // The caller reads a notification itself before handing the stream to a Client.
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": 1}}))
        .await;
    let early = within("the early notification", raw.next_message()).await;
    assert!(matches!(early, Some(mcp::protocol::JsonRpcMessage::Notification(_))), "{early:?}");
    let serve = async {
        let discover = peer.expect("server/discover").await;
        peer.answer(&discover, json!({"supportedVersions": ["2026-07-28"], "capabilities": {}})).await;
    };
    let (client, ()) = tokio::join!(within("connect", Client::builder().connect_raw(raw)), serve);
    let client = client.unwrap_or_else(|e| panic!("{e}"));
    next_request_is_the_next_call(&client, &mut peer).await;
}
