//! HTTP headers.

use super::*;

/// The headers of every POST that reached the server.
type Seen = Arc<Mutex<Vec<http::HeaderMap>>>;

/// Serve `server` behind a layer that records each request's headers.
async fn serve_recording(server: &Server) -> (SocketAddr, Seen) {
    let seen: Seen = Arc::default();
    let record = Arc::clone(&seen);
    let app = axum::Router::new()
        .route_service("/mcp", mcp::serve::http::McpHttpService::new(server.clone(), HttpConfig::default()))
        .layer(axum::middleware::from_fn(move |request: axum::extract::Request, next: axum::middleware::Next| {
            lock(&record).push(request.headers().clone());
            next.run(request)
        }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, seen)
}

fn header<'a>(headers: &'a http::HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn methods_seen(seen: &Seen) -> Vec<String> {
    lock(seen).iter().map(|h| header(h, "mcp-method").unwrap_or("-").to_owned()).collect()
}

#[tokio::test]
async fn modern_posts_carry_the_request_headers() {
    let (server, _probe, _hang) = probe_server();
    let (addr, seen) = serve_recording(&server).await;
    let client = within("connect", Client::builder().connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    let tools = within("list", client.list_tools()).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tools.len(), probe_tools().len());
    let arguments = json!({"region": "Zürich ", "count": 3, "dry_run": true, "note": "not mirrored"});
    let result = within("region", client.call_tool("region", arguments)).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text_of(&result), "region=\"Zürich \" count=3 dry_run=true");

    let seen = lock(&seen).clone();
    let methods: Vec<Option<&str>> = seen.iter().map(|h| header(h, "mcp-method")).collect();
    assert_eq!(methods, [Some("server/discover"), Some("tools/list"), Some("tools/call")]);
    for headers in &seen {
        assert_eq!(header(headers, "mcp-protocol-version"), Some("2026-07-28"), "{headers:?}");
        assert!(header(headers, "mcp-session-id").is_none(), "no sessions in 2026-07-28");
    }
    assert_eq!(header(&seen[1], "mcp-name"), None, "tools/list has no name");
    let call = &seen[2];
    assert_eq!(header(call, "mcp-name"), Some("region"));
    // Not plain visible ASCII (and a trailing space): base64 of the UTF-8 bytes.
    assert_eq!(header(call, "mcp-param-region"), Some("=?base64?WsO8cmljaCA=?="));
    assert_eq!(header(call, "mcp-param-count"), Some("3"));
    assert_eq!(header(call, "mcp-param-dry-run"), Some("true"));
    let params: Vec<&str> = call.keys().map(http::HeaderName::as_str).filter(|n| n.starts_with("mcp-param-")).collect();
    assert_eq!(params.len(), 3, "only annotated arguments are mirrored: {params:?}");
}

#[tokio::test]
async fn legacy_posts_carry_the_session_instead() {
    let (server, _probe, _hang) = probe_server();
    let (addr, seen) = serve_recording(&server).await;
    let builder = Client::builder().mode(Mode::Legacy);
    let client = within("connect", builder.connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    within("list", client.list_tools()).await.unwrap_or_else(|e| panic!("{e}"));
    let seen = lock(&seen).clone();
    assert!(header(&seen[0], "mcp-session-id").is_none(), "initialize starts the session");
    for later in &seen[1..] {
        assert!(header(later, "mcp-session-id").is_some(), "{later:?}");
        assert_eq!(header(later, "mcp-protocol-version"), Some("2025-11-25"));
        assert!(header(later, "mcp-method").is_none());
    }
}

#[tokio::test]
async fn a_header_mismatch_lists_the_tools_again_and_resends_once() {
    let (server, probe, _hang) = probe_server();
    let (addr, seen) = serve_recording(&server).await;
    let client = within("connect", Client::builder().connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    // No tools/list first: the client cannot know `region` is mirrored into a header.
    let result = within("region", client.call_tool("region", json!({"region": "eu-west-1", "count": 7}))).await;
    assert_eq!(text_of(&result.unwrap_or_else(|e| panic!("{e}"))), "region=\"eu-west-1\" count=7 dry_run=null");
    assert_eq!(methods_seen(&seen), ["server/discover", "tools/call", "tools/list", "tools/call"]);
    let seen = lock(&seen).clone();
    assert!(header(&seen[1], "mcp-param-region").is_none());
    assert_eq!(header(&seen[3], "mcp-param-region"), Some("eu-west-1"));
    assert_eq!(header(&seen[3], "mcp-param-count"), Some("7"));
    assert_eq!(probe.calls().len(), 1, "the refused POST never reached the handler");
}

#[tokio::test]
async fn list_tools_over_http_drops_tools_with_invalid_header_annotations() {
    let tools = || {
        vec![
            Tool::new("plain", "No headers.", json!({"type": "object"})),
            Tool::new(
                "good",
                "A string, an integer and a boolean.",
                json!({"type": "object", "properties": {
                    "a": {"type": "string", "x-mcp-header": "A"},
                    "b": {"type": "integer", "x-mcp-header": "B"},
                    "c": {"type": "boolean", "x-mcp-header": "C"},
                }}),
            ),
            Tool::new(
                "number",
                "A number.",
                json!({"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}),
            ),
            Tool::new(
                "in_items",
                "Nested in items.",
                json!({"type": "object", "properties": {
                    "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
                }}),
            ),
            Tool::new(
                "nested",
                "Nested in an object.",
                json!({"type": "object", "properties": {
                    "outer": {"type": "object", "properties": {"inner": {"type": "string", "x-mcp-header": "Inner"}}},
                }}),
            ),
            Tool::new(
                "twice",
                "The same header twice, in different case.",
                json!({"type": "object", "properties": {
                    "a": {"type": "string", "x-mcp-header": "Same"},
                    "b": {"type": "string", "x-mcp-header": "SAME"},
                }}),
            ),
            Tool::new(
                "bad_name",
                "Not a header token.",
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}}),
            ),
            Tool::new(
                "empty_name",
                "An empty header name.",
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            ),
        ]
    };
    let server = Server::builder("headers", "1.0.0")
        .on_list_tools(move |_ctx, _params| {
            let tools = tools();
            async move { Ok(ListToolsResult::new(tools)) }
        })
        .build();
    let names = |tools: Vec<Tool>| tools.into_iter().map(|t| t.name).collect::<Vec<_>>();
    let over_http = connect(Via::Http, Client::builder(), &server).await;
    let listed = within("list", over_http.list_tools()).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names(listed), ["plain", "good"]);
    // The rule is HTTP's: in process every tool is kept.
    let in_process = connect(Via::InProcess, Client::builder(), &server).await;
    let listed = within("list", in_process.list_tools()).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names(listed).len(), 8);
}
