//! Opening a 2025-11-25 session on the Streamable HTTP endpoint.

use std::net::SocketAddr;

use mcp_testkit::http::{self, Headers};
use mcp_testkit::spec::{LEGACY, assert_valid};
use serde_json::{Value, json};

/// JSON headers for a legacy session; without a session, those of `initialize` (which
/// carries no protocol-version header).
pub fn legacy_headers(session: Option<&str>) -> Headers {
    let headers = Headers::json().set("MCP-Protocol-Version", "2025-11-25");
    match session {
        Some(id) => headers.set("Mcp-Session-Id", id),
        None => headers.remove("MCP-Protocol-Version"),
    }
}

/// `initialize` (without `_meta`) declaring `capabilities`, then `notifications/initialized`;
/// returns the session id.
pub async fn initialize(addr: SocketAddr, capabilities: Value) -> String {
    initialize_with(addr, capabilities, &[]).await
}

/// [`initialize`] with `extra` headers (credentials, say) on both messages.
pub async fn initialize_with(addr: SocketAddr, capabilities: Value, extra: &[(&str, &str)]) -> String {
    let with_extra = |headers: Headers| extra.iter().fold(headers, |headers, (name, value)| headers.set(name, value));
    let message = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "http-test-client", "version": "1.0.0"},
    }});
    let reply = http::post(addr, &with_extra(legacy_headers(None)), &message).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.body);
    assert_eq!(reply.content_type().as_deref(), Some("application/json"));
    let body = reply.json();
    assert_eq!(body["id"], 0);
    assert_valid(LEGACY, "InitializeResult", &body["result"]);
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
    let session = reply.header("mcp-session-id").unwrap_or_else(|| panic!("no Mcp-Session-Id: {:?}", reply.headers));
    assert!(!session.is_empty() && session.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{session:?}");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = http::post(addr, &with_extra(legacy_headers(Some(session))), &initialized).await;
    assert_eq!((reply.status.as_u16(), reply.body.as_str()), (202, ""));
    session.to_owned()
}
