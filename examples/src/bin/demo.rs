//! The quick start: a client and the low-level provisioner in one process, talking
//! MCP 2026-07-28 over the in-memory pairing. It prints each leg of the multi
//! round-trip call, then the same call in a 2025-11-25 session, where the question
//! travels as a server-to-client request instead.

use mcp::protocol::JsonRpcMessage;
use serde_json::{Value, json};

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "demo", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    })
}

async fn run() -> Result<(), mcp::protocol::ErrorObject> {
    let server = mcp_examples::provisioner::server();

    println!("== MCP 2026-07-28: the server returns a question, the client retries ==");
    let client = mcp::transport::memory::connect(&server);
    let call = json!({"_meta": meta(), "name": "provision", "arguments": {"name": "orders"}});
    println!("-> tools/call {}", json!({"name": "provision", "arguments": {"name": "orders"}}));
    let first = client.request("tools/call", call.clone()).await?;
    println!("<- resultType={} inputRequests={}", first["resultType"], first["inputRequests"]);
    let key = first["inputRequests"].as_object().and_then(|r| r.keys().next().cloned()).unwrap_or_default();
    let question = &first["inputRequests"][&key]["params"]["message"];
    println!("   (the user is asked: {question} and answers eu-west-1)");
    let mut retry = call;
    retry["inputResponses"] = json!({key: {"action": "accept", "content": {"region": "eu-west-1"}}});
    retry["requestState"] = first["requestState"].clone();
    let state = first["requestState"].as_str().unwrap_or_default();
    println!("   (requestState: {} bytes, sealed by the server; the client echoes it without reading it)", state.len());
    println!("-> tools/call again with inputResponses and the same requestState");
    let done = client.request("tools/call", retry).await?;
    println!("<- resultType={} content={}", done["resultType"], done["content"][0]["text"]);

    println!();
    println!("== MCP 2025-11-25: the server asks over the back-channel ==");
    let legacy = mcp::transport::memory::connect(&server);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "demo", "version": "1.0.0"}});
    let negotiated = legacy.request("initialize", init).await?;
    println!("-> initialize <- protocolVersion={}", negotiated["protocolVersion"]);
    legacy.notify("notifications/initialized", json!({})).await;
    let pending = legacy
        .start_request(legacy.next_id(), "tools/call", json!({"name": "provision", "arguments": {"name": "orders"}}))
        .await;
    println!("-> tools/call provision");
    if let Some(JsonRpcMessage::Request(ask)) = legacy.next_message().await {
        println!("<- server request {} {}", ask.method, json!(ask.params)["message"]);
        legacy.respond(ask.id, json!({"action": "accept", "content": {"region": "eu-west-1"}})).await;
        println!("-> answer: eu-west-1");
    }
    let done = pending.await.unwrap_or_else(|_| Err(mcp::Error::internal("connection closed").into()))?;
    println!("<- content={}", done["content"][0]["text"]);
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    mcp_examples::init_logging();
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo failed: {} ({})", e.message, e.code);
            std::process::ExitCode::FAILURE
        }
    }
}
