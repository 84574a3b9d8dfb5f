//! A scripted HTTP server.

use super::*;

/// One POST as the scripted HTTP server saw it: lowercased header names, and the body.
#[derive(Debug, Clone)]
pub(super) struct Post {
    pub(super) headers: BTreeMap<String, String>,
    pub(super) body: Value,
}

/// What the scripted HTTP server answers: status, content type, body.
pub(super) type Reply = (u16, &'static str, String);

/// Serve HTTP/1.1 on 127.0.0.1, one request per connection, answering each POST with
/// `respond`; every POST is recorded.
pub(super) async fn scripted_http(
    respond: impl Fn(&Post) -> Reply + Send + Sync + 'static,
) -> (SocketAddr, Arc<Mutex<Vec<Post>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let posts: Arc<Mutex<Vec<Post>>> = Arc::default();
    let record = Arc::clone(&posts);
    let respond = Arc::new(respond);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let record = Arc::clone(&record);
            let respond = Arc::clone(&respond);
            tokio::spawn(async move {
                let mut buffer = Vec::new();
                let mut chunk = [0u8; 4096];
                let head_end = loop {
                    if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                        break end;
                    }
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                    }
                };
                let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
                let headers: BTreeMap<String, String> = head
                    .lines()
                    .skip(1)
                    .filter_map(|line| line.split_once(':'))
                    .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .collect();
                let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
                let mut body = buffer[head_end + 4..].to_vec();
                while body.len() < length {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => body.extend_from_slice(&chunk[..n]),
                    }
                }
                let post = Post { headers, body: serde_json::from_slice(&body).unwrap_or(Value::Null) };
                lock(&record).push(post.clone());
                let (status, content_type, body) = respond(&post);
                let response = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    (addr, posts)
}

pub(super) fn rpc_result(post: &Post, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": post.body["id"], "result": result}).to_string()
}

pub(super) fn discovered(post: &Post) -> Reply {
    let result = json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}});
    (200, "application/json", rpc_result(post, result))
}

#[tokio::test]
async fn a_header_mismatch_is_resent_only_once() {
    let (addr, posts) = scripted_http(|post| match post.body["method"].as_str() {
        Some("server/discover") => discovered(post),
        Some("tools/list") => {
            let tool = json!({"name": "region", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}}}});
            (200, "application/json", rpc_result(post, json!({"tools": [tool]})))
        }
        _ => {
            let error = json!({"code": -32020, "message": "Header mismatch: always"});
            (400, "application/json", json!({"jsonrpc": "2.0", "id": post.body["id"], "error": error}).to_string())
        }
    })
    .await;
    let client = within("connect", Client::builder().connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    let result = within("call", client.call_tool("region", json!({"region": "eu"}))).await;
    assert_eq!(result.map_err(|e| e.code()), Err(Some(-32020)));
    let posts = lock(&posts).clone();
    let methods: Vec<&str> = posts.iter().map(|p| p.body["method"].as_str().unwrap_or("-")).collect();
    assert_eq!(methods, ["server/discover", "tools/call", "tools/list", "tools/call"]);
    assert_eq!(posts[3].headers.get("mcp-param-region").map(String::as_str), Some("eu"));
    assert_ne!(posts[1].body["id"], posts[3].body["id"], "the resend is a new request");
}

#[tokio::test]
async fn an_sse_answer_delivers_its_notifications_then_its_result() {
    let (addr, posts) = scripted_http(|post| match post.body["method"].as_str() {
        Some("server/discover") => discovered(post),
        _ => {
            let token = post.body["params"]["_meta"]["progressToken"].clone();
            let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 1, "total": 2}});
            let result = rpc_result(post, json!({"content": [{"type": "text", "text": "streamed"}]}));
            let body =
                format!(": keep-alive\r\n\r\nevent: message\r\ndata: {progress}\r\n\r\nid: 1\ndata: {result}\n\n");
            (200, "text/event-stream", body)
        }
    })
    .await;
    let progress: Arc<Mutex<Vec<ProgressParams>>> = Arc::default();
    let seen = Arc::clone(&progress);
    let builder = Client::builder().on_progress(move |p| lock(&seen).push(p));
    let client = within("connect", builder.connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    let result = within("call", client.call_tool("anything", json!({}))).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text_of(&result), "streamed", "no resultType over HTTP either: complete");
    let progress = lock(&progress).clone();
    assert_eq!(progress.iter().map(|p| (p.progress, p.total)).collect::<Vec<_>>(), [(1.0, Some(2.0))]);
    let posts = lock(&posts).clone();
    assert_eq!(posts[1].headers.get("mcp-name").map(String::as_str), Some("anything"));
    assert_eq!(posts[1].headers.get("accept").map(String::as_str), Some("application/json, text/event-stream"));
}

#[tokio::test]
async fn an_unknown_result_type_over_http_is_a_protocol_error() {
    let (addr, _posts) = scripted_http(|post| match post.body["method"].as_str() {
        Some("server/discover") => discovered(post),
        _ => (200, "application/json", rpc_result(post, json!({"resultType": "surprise", "content": []}))),
    })
    .await;
    let client = within("connect", Client::builder().connect_http(&url(addr))).await.unwrap_or_else(|e| panic!("{e}"));
    let result = within("call", client.call_tool("x", json!({}))).await;
    assert!(matches!(&result, Err(ClientError::Protocol(why)) if why.contains("surprise")), "{result:?}");
}
