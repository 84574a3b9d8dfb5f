//! User layers (`ServerBuilder::layer`) wrap the handler stack: they see each request
//! that reaches a handler, can answer it themselves, and wrap in the order added.

use std::sync::{Arc, Mutex};

use mcp::Server;
use mcp::handler::{BoxFuture, Handler, Layer, Reply, Request};
use mcp::protocol::{CallToolOutcome, CallToolResult, ErrorCode};
use serde_json::json;

use crate::support::{meta, within};

/// Records `name:method` for each request, and refuses tool calls named `blocked`.
#[derive(Clone)]
struct Audit {
    name: &'static str,
    seen: Arc<Mutex<Vec<String>>>,
}

struct Audited<H> {
    inner: H,
    audit: Audit,
}

impl<H: Handler> Handler for Audited<H> {
    fn call(&self, request: Request) -> BoxFuture<Result<Reply, mcp::Error>> {
        self.audit
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(format!("{}:{}", self.audit.name, request.method));
        let blocked = request.params.as_ref().and_then(|p| p.get("name")).is_some_and(|n| n == "blocked");
        if blocked {
            return Box::pin(async { Err(mcp::Error::new(ErrorCode::INVALID_REQUEST, "blocked by policy")) });
        }
        self.inner.call(request)
    }
}

impl<H: Handler> Layer<H> for Audit {
    type Handler = Audited<H>;

    fn layer(&self, inner: H) -> Audited<H> {
        Audited { inner, audit: self.clone() }
    }
}

#[tokio::test]
async fn layers_see_requests_in_order_and_can_refuse_them() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = Server::builder("audited", "1.0.0")
        .on_call_tool(|_ctx, params| async move {
            Ok(CallToolOutcome::from(CallToolResult::text(format!("ran {}", params.name))))
        })
        .layer(Audit { name: "inner", seen: Arc::clone(&seen) })
        .layer(Audit { name: "outer", seen: Arc::clone(&seen) })
        .build();
    let client = mcp::client::in_process(&server);
    let call = |name: &str| json!({"_meta": meta(&json!({})), "name": name, "arguments": {}});
    let ok = within("allowed call", client.request("tools/call", call("deploy"))).await.expect("allowed");
    assert_eq!(ok["content"][0]["text"], "ran deploy");
    let refused = within("blocked call", client.request("tools/call", call("blocked"))).await.expect_err("refused");
    assert_eq!((refused.code, refused.message.as_str()), (ErrorCode::INVALID_REQUEST, "blocked by policy"));
    let seen = seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    assert_eq!(seen, ["outer:tools/call", "inner:tools/call", "outer:tools/call"], "the outer layer refused first");
}
