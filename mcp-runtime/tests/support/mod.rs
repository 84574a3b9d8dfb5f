//! Helpers shared by the test crates of `mcp-runtime`, included by each with
//! `#[path = "../support/mod.rs"] mod support;`.
//!
//! Not every crate uses every helper, hence the `dead_code` allowance, here only.
#![allow(dead_code)]

pub mod legacy_http;
pub mod logs;
pub mod rounds;

use std::future::Future;
use std::time::Duration;

use serde_json::{Value, json};

/// How long any exchange may take before the test counts as hung.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Await `work`, failing the test if it hangs.
pub async fn within<F: Future>(what: &str, work: F) -> F::Output {
    tokio::time::timeout(TIMEOUT, work).await.unwrap_or_else(|_| panic!("{what}: no answer within {TIMEOUT:?}"))
}

/// Serve one request (`params` as sent, `_meta` included) on `server` with no transport,
/// on a fresh session, as the caller `auth`.
pub async fn dispatch_as(
    server: &mcp::Server,
    method: &str,
    params: Value,
    auth: Option<std::sync::Arc<mcp::handler::AuthInfo>>,
) -> Result<Value, mcp::Error> {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let request = match mcp::protocol::decode_message(&message.to_string()) {
        Ok(mcp::protocol::JsonRpcMessage::Request(request)) => request,
        other => panic!("not a request: {other:?}"),
    };
    let (notifications, _receiver) = tokio::sync::mpsc::channel(16);
    let session = std::sync::Arc::new(mcp::handler::Session::new());
    server.handle_request_as(&session, request, notifications, auth).await
}

/// The `_meta` of a 2026-07-28 request declaring `capabilities`.
pub fn meta(capabilities: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}
