//! Hostile connections: a request head or body sent slowly, a kept-alive connection left
//! idle, more connections than the cap, and a large body sent while the request pool is
//! full. Each runs with short configured limits over real TCP.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;

/// `park` calls that have started (this file's tests only).
static PARKED: AtomicUsize = AtomicUsize::new(0);

/// Sleep `ms` milliseconds, counted when it starts.
#[mcp::tool]
async fn park(ms: u64) -> String {
    PARKED.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("parked {ms} ms")
}

fn connections_server() -> Server {
    Server::builder("connections-http", "1.0.0").tool::<provision>().tool::<echo>().tool::<park>().build()
}

async fn start_with(config: HttpConfig) -> SocketAddr {
    http::serve(&connections_server(), config).await
}

/// A whole `echo` request, as bytes.
fn echo_request(addr: SocketAddr, id: &str, extra: &Headers) -> Vec<u8> {
    let body = call(json!(id), "echo", json!({"text": id}), json!({})).to_string();
    let mut headers = call_headers("echo");
    for (name, value) in extra.iter() {
        headers = headers.set(name, value);
    }
    http::raw_request(addr, "POST", PATH, &headers, body.as_bytes())
}

/// Read until the server closes the connection; `None` if it is still open after `within`.
async fn read_until_closed(stream: &mut TcpStream, within: Duration) -> Option<Vec<u8>> {
    let mut received = Vec::new();
    let mut buf = [0u8; 8192];
    let reading = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(within, reading).await.ok().map(|()| received)
}

/// Read one whole response (head and `Content-Length` body) without waiting for a close;
/// `None` if none arrived within `within`.
async fn read_response(stream: &mut TcpStream, within: Duration) -> Option<String> {
    let mut received = Vec::new();
    let mut buf = [0u8; 8192];
    let reading = async {
        loop {
            if let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&received[..end]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap_or(0)))
                    .unwrap_or(0);
                if received.len() >= end + 4 + length {
                    return true;
                }
            }
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    };
    match tokio::time::timeout(within, reading).await {
        Ok(true) => Some(String::from_utf8_lossy(&received).into_owned()),
        _ => None,
    }
}

#[tokio::test]
async fn half_a_request_head_is_closed_at_the_header_read_timeout() {
    let addr = start_with(HttpConfig::default().header_read_timeout(Duration::from_millis(200))).await;
    let mut stream = TcpStream::connect(addr).await.unwrap_or_else(|e| panic!("connect: {e}"));
    let head = format!("POST {PATH} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n");
    stream.write_all(head.as_bytes()).await.unwrap_or_else(|e| panic!("write: {e}"));
    let received = read_until_closed(&mut stream, Duration::from_secs(3)).await;
    let received = received.unwrap_or_else(|| panic!("half a request head kept the connection open"));
    // hyper closes without an answer: there is no request to answer yet.
    assert!(received.is_empty(), "no response is due for half a head: {:?}", String::from_utf8_lossy(&received));
    assert_still_serving(addr).await;
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed() {
    let addr = start_with(HttpConfig::default().header_read_timeout(Duration::from_millis(300))).await;
    let mut stream = TcpStream::connect(addr).await.unwrap_or_else(|e| panic!("connect: {e}"));
    for id in ["first", "second"] {
        stream.write_all(&echo_request(addr, id, &Headers::new())).await.unwrap_or_else(|e| panic!("write: {e}"));
        let response = read_response(&mut stream, Duration::from_secs(3)).await;
        let response = response.unwrap_or_else(|| panic!("no answer to the {id} request"));
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        assert!(response.contains(&format!("\"text\":\"{id}\"")), "{response}");
    }
    // No third request: the server closes the idle connection.
    let received = read_until_closed(&mut stream, Duration::from_secs(3)).await;
    let received = received.unwrap_or_else(|| panic!("an idle kept-alive connection stayed open"));
    assert!(received.is_empty(), "nothing more is due: {:?}", String::from_utf8_lossy(&received));
}

#[tokio::test]
async fn a_stalled_body_is_408_and_the_connection_is_closed() {
    let (logs, _guard) = capture_logs();
    let config = HttpConfig::default().body_read_timeout(Duration::from_millis(300));
    let addr = start_with(config).await;
    let from = logs.len();
    // 10 of 1,000 declared bytes, then nothing.
    let headers = call_headers("echo").set("Content-Length", "1000");
    let request = http::raw_request(addr, "POST", PATH, &headers, br#"{"jsonrpc""#);
    let mut stream = TcpStream::connect(addr).await.unwrap_or_else(|e| panic!("connect: {e}"));
    stream.write_all(&request).await.unwrap_or_else(|e| panic!("write: {e}"));
    let received = read_until_closed(&mut stream, Duration::from_secs(3)).await;
    let received = received.unwrap_or_else(|| panic!("a stalled body kept the connection open"));
    let text = String::from_utf8_lossy(&received).into_owned();
    assert!(text.starts_with("HTTP/1.1 408"), "a stalled body gets 408: {text:?}");
    let body = &text[text.find("\r\n\r\n").map_or(0, |at| at + 4)..];
    let body: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text:?}"));
    assert_eq!(body["error"]["code"], json!(-32600), "{body}");
    assert_eq!(body["error"]["message"], "Request Timeout: the request body did not arrive in time", "{body}");
    assert!(body.get("id").is_none_or(Value::is_null), "{body}");
    logs.assert_warned(from, "a stalled body");
    assert_still_serving(addr).await;
}

#[tokio::test]
async fn connections_over_the_cap_wait_until_one_closes() {
    let (logs, _guard) = capture_logs();
    let addr = start_with(HttpConfig::default().max_connections(2)).await;
    let from = logs.len();
    let mut held = Vec::new();
    for _ in 0..2 {
        held.push(TcpStream::connect(addr).await.unwrap_or_else(|e| panic!("connect: {e}")));
    }
    // Both held connections are served.
    for (i, stream) in held.iter_mut().enumerate() {
        let id = format!("held-{i}");
        stream.write_all(&echo_request(addr, &id, &Headers::new())).await.unwrap_or_else(|e| panic!("write: {e}"));
        let response = read_response(stream, Duration::from_secs(3)).await;
        assert!(response.is_some_and(|r| r.starts_with("HTTP/1.1 200")), "connection {i} within the cap");
    }
    // A third connection is not served while both stay open...
    let mut third = TcpStream::connect(addr).await.unwrap_or_else(|e| panic!("connect: {e}"));
    third.write_all(&echo_request(addr, "third", &Headers::new())).await.unwrap_or_else(|e| panic!("write: {e}"));
    let early = read_response(&mut third, Duration::from_millis(500)).await;
    assert!(early.is_none(), "a connection over the cap was served: {early:?}");
    logs.assert_warned(from, "the connection cap");
    // ...and is served once one of them closes.
    drop(held.pop());
    let response = read_response(&mut third, Duration::from_secs(3)).await;
    let response = response.unwrap_or_else(|| panic!("the waiting connection was not served after a slot freed"));
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("\"text\":\"third\""), "{response}");
}

#[tokio::test]
async fn a_full_request_pool_refuses_a_large_body_without_reading_it() {
    let config = HttpConfig::default().max_concurrent_requests(1);
    let addr = start_with(config).await;
    let before = PARKED.load(Ordering::SeqCst);
    let message = call(json!("parked"), "park", json!({"ms": 2_000}), json!({}));
    let parked = tokio::spawn(async move { post(addr, "park", &message).await });
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while PARKED.load(Ordering::SeqCst) == before {
        assert!(tokio::time::Instant::now() < deadline, "the parked call did not start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Declare 4 MiB, send 64 KiB of it, then wait: the answer must come without the rest.
    let declared = BODY_LIMIT.to_string();
    let headers = call_headers("echo").set("Content-Length", &declared);
    let request = http::raw_request(addr, "POST", PATH, &headers, &vec![b' '; 64 * 1024]);
    let mut stream = TcpStream::connect(addr).await.unwrap_or_else(|e| panic!("connect: {e}"));
    stream.write_all(&request).await.unwrap_or_else(|e| panic!("write: {e}"));
    let response = read_response(&mut stream, Duration::from_secs(1)).await;
    let response = response.unwrap_or_else(|| panic!("the server waited for the body of a request it cannot serve"));
    assert!(response.starts_with("HTTP/1.1 503"), "{response}");
    assert!(response.to_ascii_lowercase().contains("\r\nretry-after: 1\r\n"), "{response}");
    assert!(response.contains("\"code\":-32000"), "{response}");
    let reply = parked.await.unwrap_or_else(|e| panic!("the parked call failed: {e}"));
    assert_eq!(complete_text(&assert_result(&reply, &json!("parked"))), "parked 2000 ms");
}
