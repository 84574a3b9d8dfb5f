//! Several `provisioner http` processes, as behind a load balancer: a retry that lands
//! on another instance succeeds when they share keys, fails with the fixed error when
//! each has its own, and no in-flight round is lost at any phase of a key rotation
//! (`[K]` -> `[K, K2]` -> `[K2, K]` -> `[K2]`).

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use crate::support::free_port;
use mcp_testkit::http::{self, Headers};
use mcp_testkit::stdio::modern_params;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

const K: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const K2: &str = "2222222222222222222222222222222222222222222222222222222222222222";

struct Instance {
    addr: SocketAddr,
    _child: Child,
}

/// Start `provisioner http` with these keys (`None`: its own per-process key).
async fn instance(keys: Option<&[&str]>) -> Instance {
    let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap_or_else(|e| panic!("{e}"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_provisioner"));
    command.args(["http", &addr.to_string()]).stdin(Stdio::null()).kill_on_drop(true);
    match keys {
        Some(keys) => command.env("MCP_REQUEST_STATE_KEYS", keys.join(",")),
        None => command.env_remove("MCP_REQUEST_STATE_KEYS"),
    };
    let child = command.spawn().unwrap_or_else(|e| panic!("spawn provisioner: {e}"));
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return Instance { addr, _child: child };
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("provisioner did not listen on {addr}");
}

fn call(id: i64, extra: Value) -> Value {
    let mut params =
        modern_params(json!({"elicitation": {}}), json!({"name": "provision", "arguments": {"name": "orders"}}));
    if let (Value::Object(p), Value::Object(extra)) = (&mut params, extra) {
        p.extend(extra);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// Ask on `first`, answer on `second`; the retry's reply.
async fn round_trip(first: &Instance, second: &Instance) -> Value {
    let headers = Headers::modern("tools/call", Some("provision"));
    let asked = http::post(first.addr, &headers, &call(1, json!({}))).await.json();
    let state = asked["result"]["requestState"].clone();
    assert!(state.as_str().is_some_and(|s| s.starts_with("v1.")), "a sealed state: {asked}");
    let key = asked["result"]["inputRequests"].as_object().and_then(|r| r.keys().next().cloned()).unwrap_or_default();
    assert_eq!(key, "mcp_examples::provisioner::ask_region", "{asked}");
    let answer = json!({
        "inputResponses": {key: {"action": "accept", "content": {"region": "eu-west-1"}}},
        "requestState": state,
    });
    http::post(second.addr, &headers, &call(2, answer)).await.json()
}

fn assert_completed(reply: &Value, what: &str) {
    assert_eq!(reply["result"]["content"][0]["text"], "Provisioned 'orders' in eu-west-1.", "{what}: {reply}");
}

fn assert_rejected(reply: &Value, what: &str) {
    assert_eq!(
        reply["error"],
        json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}}),
        "{what}: {reply}"
    );
}

#[tokio::test]
async fn instances_with_shared_keys_accept_each_others_state_and_others_do_not() {
    let (a, b) = tokio::join!(instance(Some(&[K])), instance(Some(&[K])));
    assert_completed(&round_trip(&a, &b).await, "shared [K]");
    assert_completed(&round_trip(&a, &a).await, "same instance");
    let (c, d) = tokio::join!(instance(None), instance(None));
    assert_rejected(&round_trip(&c, &d).await, "two per-process keys");
    assert_completed(&round_trip(&c, &c).await, "a per-process key on its own instance");
    let e = instance(Some(&[K2])).await;
    assert_rejected(&round_trip(&a, &e).await, "[K] minted, [K2] alone cannot verify");
}

#[tokio::test]
async fn a_three_phase_rotation_loses_no_round() {
    let (p0, p1, p2, p3) =
        tokio::join!(instance(Some(&[K])), instance(Some(&[K, K2])), instance(Some(&[K2, K])), instance(Some(&[K2])),);
    // During each rollout, instances of the old and the new phase serve side by side.
    for (old, new, what) in [(&p0, &p1, "[K] / [K, K2]"), (&p1, &p2, "[K, K2] / [K2, K]"), (&p2, &p3, "[K2, K] / [K2]")]
    {
        assert_completed(&round_trip(old, new).await, &format!("{what}: old mints, new verifies"));
        assert_completed(&round_trip(new, old).await, &format!("{what}: new mints, old verifies"));
    }
    // Promoting the new minter first would lose rounds: [K2, K] mints with K2, which [K] cannot open.
    assert_rejected(&round_trip(&p2, &p0).await, "skipping phase 1");
}
