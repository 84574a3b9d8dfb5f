//! The tasks extension on the server: tools that answer with a task, `tasks/get`,
//! `tasks/update`, `tasks/cancel` and task notifications, the capability gate, ownership,
//! expiry, and the bounds of the in-memory store.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp::client::RawClient;
use mcp::handler::{AuthInfo, Session};
use mcp::protocol::{ErrorCode, JsonRpcMessage, decode_message};
use mcp::resolve::{Answer, Elicit, ask};
use mcp::tasks::{MemoryTaskStore, TaskConfig};
use mcp::{Context, Server, State};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::{dispatch_as, meta, within};

/// How many naps finished, per server.
#[derive(Clone, Default)]
struct Finished(Arc<AtomicUsize>);

/// Sleep, then count that the work finished.
#[mcp::tool(task = "optional")]
async fn nap(millis: u64, ctx: Context, finished: State<Finished>) -> String {
    if let Some(task) = ctx.task() {
        task.set_status_message("napping").await;
    }
    tokio::time::sleep(Duration::from_millis(millis)).await;
    let Finished(count) = &*finished;
    count.fetch_add(1, Ordering::SeqCst);
    format!("slept {millis} ms")
}

/// Only as a task.
#[mcp::tool(task = "required")]
async fn export() -> String {
    "exported".into()
}

/// A task whose work panics.
#[mcp::tool(task = "required")]
async fn explode() -> String {
    panic!("the secret is hunter2")
}

#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Asks halfway through.
#[mcp::tool(task = "required")]
async fn wipe(disk: String, ctx: Context) -> Result<String, mcp::Error> {
    match ask(&ctx, Elicit::<Confirm>::new(format!("Wipe {disk}?"))).await? {
        Answer::Accept(Confirm { confirm: true }) => Ok(format!("wiped {disk}")),
        other => Ok(format!("kept {disk} ({})", other.action())),
    }
}

#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Name {
    /// Your name.
    name: String,
}

/// Asks two questions at once, halfway through.
#[mcp::tool(task = "required")]
async fn survey(ctx: Context) -> Result<String, mcp::Error> {
    let (name, confirm) =
        tokio::join!(ask(&ctx, Elicit::<Name>::new("Name?")), ask(&ctx, Elicit::<Confirm>::new("Sure?")));
    let name = name?.accepted().map_or_else(String::new, |n| n.name.clone());
    Ok(format!("{name}: {}", confirm?.accepted().is_some_and(|c| c.confirm)))
}

fn server_with(config: TaskConfig) -> Server {
    counted(config, Finished::default())
}

fn counted(config: TaskConfig, finished: Finished) -> Server {
    Server::builder("tasks", "1.0.0")
        .state(finished)
        .tool::<nap>()
        .tool::<export>()
        .tool::<explode>()
        .tool::<wipe>()
        .tool::<survey>()
        .tasks(config)
        .build()
}

fn server() -> Server {
    server_with(TaskConfig::builder().poll_interval(Duration::from_millis(20)).build())
}

/// Client capabilities declaring the extension (and form elicitation).
fn with_tasks() -> Value {
    json!({"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

async fn request(
    client: &RawClient,
    method: &str,
    mut params: Value,
    capabilities: &Value,
) -> Result<Value, mcp::Error> {
    params["_meta"] = meta(capabilities);
    within(method, client.request(method, params)).await
}

async fn call(client: &RawClient, tool: &str, arguments: Value) -> Value {
    let params = json!({"name": tool, "arguments": arguments});
    request(client, "tools/call", params, &with_tasks()).await.unwrap_or_else(|e| panic!("{tool}: {e:?}"))
}

async fn get(client: &RawClient, id: &str) -> Result<Value, mcp::Error> {
    request(client, "tasks/get", json!({"taskId": id}), &with_tasks()).await
}

/// Poll until the task is terminal.
async fn settle(client: &RawClient, id: &str) -> Value {
    within("the task to settle", async {
        loop {
            let task = get(client, id).await.expect("tasks/get");
            if ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap_or_default()) {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
}

/// Poll until the task has status `status`.
async fn reach(client: &RawClient, id: &str, status: &str) -> Value {
    within(status, async {
        loop {
            let task = get(client, id).await.expect("tasks/get");
            if task["status"] == status {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
}

fn task_id(created: &Value) -> String {
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"].as_str().unwrap_or_else(|| panic!("no taskId in {created}")).to_owned()
}

#[tokio::test]
async fn a_task_is_created_flat_found_at_once_and_completes_with_the_tools_result() {
    let server = server();
    let client = mcp::client::in_process(&server);
    let created = call(&client, "nap", json!({"millis": 50})).await;
    let id = task_id(&created);
    assert_eq!(id.len(), 32, "128 random bits, hex");
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    for absent in ["result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval", "content"] {
        assert!(created.get(absent).is_none(), "{absent} on a CreateTaskResult: {created}");
    }
    assert_eq!(created["ttlMs"], 3_600_000);
    assert_eq!(created["pollIntervalMs"], 20);
    assert!(created["createdAt"].as_str().is_some_and(|t| t.ends_with('Z') && t.contains('T')));

    let first = get(&client, &id).await.expect("durable: tasks/get finds the task at once");
    assert_eq!(first["resultType"], "complete");
    assert_eq!(first["taskId"], id.as_str());
    let done = settle(&client, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["statusMessage"], "napping");
    assert_eq!(done["result"]["content"][0]["text"], "slept 50 ms");
    assert!(done.get("error").is_none() && done.get("inputRequests").is_none());
}

#[tokio::test]
async fn without_the_extension_an_optional_task_tool_runs_in_the_request_and_a_required_one_is_refused() {
    let server = server();
    let client = mcp::client::in_process(&server);
    let plain = request(&client, "tools/call", json!({"name": "nap", "arguments": {"millis": 1}}), &json!({}))
        .await
        .expect("an ordinary call");
    assert_eq!(plain["resultType"], "complete");
    assert_eq!(plain["content"][0]["text"], "slept 1 ms");

    // The 2025-11-25 `tasks` capability does not count.
    let legacy_caps = json!({"tasks": {"requests": {"tools": {"call": {}}}}});
    let refused = request(&client, "tools/call", json!({"name": "export", "arguments": {}}), &legacy_caps)
        .await
        .expect_err("a required task tool needs the extension");
    assert_eq!(refused.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert_eq!(
        refused.data.expect("as set up")["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );

    // A legacy `task` param never turns a call into a task.
    let params = json!({"name": "nap", "arguments": {"millis": 1}, "task": {"ttl": 60000}});
    let ignored = request(&client, "tools/call", params, &json!({})).await.expect("ignored");
    assert!(ignored.get("taskId").is_none());
}

#[tokio::test]
async fn a_legacy_session_runs_task_tools_as_ordinary_calls() {
    let server = server();
    let client = mcp::client::in_process(&server);
    let init =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}});
    within("initialize", client.request("initialize", init)).await.expect("initialize");
    let result = within("tools/call", client.request("tools/call", json!({"name": "export", "arguments": {}})))
        .await
        .expect("a required task tool runs in a 2025-11-25 session, which has no tasks");
    assert_eq!(result["content"][0]["text"], "exported");
    let missing = within("tasks/get", client.request("tasks/get", json!({"taskId": "x"}))).await;
    assert!(matches!(missing, Err(e) if e.code == ErrorCode::METHOD_NOT_FOUND));
}

#[tokio::test]
async fn the_tasks_methods_check_the_extension_before_the_id_and_removed_methods_are_not_found() {
    let server = server();
    let client = mcp::client::in_process(&server);
    for (method, params) in [
        ("tasks/get", json!({"taskId": "gate-test"})),
        ("tasks/update", json!({"taskId": "gate-test", "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": "gate-test"})),
    ] {
        let error = request(&client, method, params, &json!({})).await.expect_err(method);
        assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, "{method}");
    }
    for method in ["tasks/result", "tasks/list"] {
        let error = request(&client, method, json!({"taskId": "x"}), &with_tasks()).await.expect_err(method);
        assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND, "{method}");
    }
    let unknown = get(&client, "tasks-conformance-nonexistent-12345").await.expect_err("unknown");
    assert_eq!(unknown.code, ErrorCode::INVALID_PARAMS);
    let malformed = request(&client, "tasks/get", json!({"taskId": 7}), &with_tasks()).await.expect_err("not a string");
    assert_eq!(malformed.code, ErrorCode::INVALID_PARAMS);
}

fn caller(subject: &str) -> Arc<AuthInfo> {
    Arc::new(AuthInfo { client_id: "app".into(), subject: Some(subject.into()), ..AuthInfo::default() })
}

async fn send_as(
    server: &Server,
    method: &str,
    mut params: Value,
    auth: Option<Arc<AuthInfo>>,
) -> Result<Value, mcp::Error> {
    params["_meta"] = meta(&with_tasks());
    dispatch_as(server, method, params, auth).await
}

#[tokio::test]
async fn a_task_belongs_to_its_principal_and_any_other_gets_the_unknown_task_error() {
    let server = server();
    let created =
        send_as(&server, "tools/call", json!({"name": "nap", "arguments": {"millis": 2000}}), Some(caller("alice")))
            .await
            .expect("created");
    let id = task_id(&created);
    let unknown = send_as(&server, "tasks/get", json!({"taskId": "0".repeat(32)}), Some(caller("bob")))
        .await
        .expect_err("an error");
    for who in [Some(caller("bob")), None] {
        for (method, params) in [
            ("tasks/get", json!({"taskId": id})),
            ("tasks/update", json!({"taskId": id, "inputResponses": {}})),
            ("tasks/cancel", json!({"taskId": id})),
        ] {
            let error = send_as(&server, method, params, who.clone()).await.expect_err(method);
            assert_eq!(error, unknown, "{method}: another principal learns nothing about the task");
        }
    }
    let owned = send_as(&server, "tasks/get", json!({"taskId": id}), Some(caller("alice"))).await.expect("the owner");
    assert_eq!(owned["status"], "working");
    send_as(&server, "tasks/cancel", json!({"taskId": id}), Some(caller("alice"))).await.expect("the owner cancels");
}

#[tokio::test]
async fn cancel_stops_the_work_at_once_and_a_terminal_task_still_acks() {
    let finished = Finished::default();
    let server = counted(TaskConfig::default(), finished.clone());
    let client = mcp::client::in_process(&server);
    let id = task_id(&call(&client, "nap", json!({"millis": 300})).await);
    let ack = request(&client, "tasks/cancel", json!({"taskId": id}), &with_tasks()).await.expect("ack");
    assert_eq!(ack.as_object().map(|o| o.keys().filter(|k| *k != "_meta").count()), Some(1), "{ack}");
    assert_eq!(ack["resultType"], "complete");
    assert_eq!(get(&client, &id).await.expect("as set up")["status"], "cancelled", "marked at once");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(finished.0.load(Ordering::SeqCst), 0, "the work was stopped, not left to finish");
    assert_eq!(get(&client, &id).await.expect("as set up")["status"], "cancelled", "terminal states never change");
    request(&client, "tasks/cancel", json!({"taskId": id}), &with_tasks()).await.expect("cancelling again acks");
}

#[tokio::test]
async fn a_panicking_task_fails_with_an_internal_error_that_reveals_nothing() {
    let server = server();
    let client = mcp::client::in_process(&server);
    let id = task_id(&call(&client, "explode", json!({})).await);
    let failed = settle(&client, &id).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], ErrorCode::INTERNAL_ERROR);
    assert!(failed.get("result").is_none());
    assert!(!failed.to_string().contains("hunter2"), "the panic message stays in the server: {failed}");
    // The server keeps serving.
    assert_eq!(settle(&client, &task_id(&call(&client, "export", json!({})).await)).await["status"], "completed");
}

#[tokio::test]
async fn a_task_asks_for_input_halfway_and_tasks_update_answers_it() {
    let server = server();
    let client = mcp::client::in_process(&server);
    let id = task_id(&call(&client, "wipe", json!({"disk": "sdb"})).await);
    let waiting = reach(&client, &id, "input_required").await;
    let requests = waiting["inputRequests"].as_object().expect("inputRequests").clone();
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, question) = requests.iter().next().expect("as set up");
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Wipe sdb?");

    // Keys the task does not wait for are ignored, unread.
    let update = |responses: Value| {
        let client = &client;
        let id = id.clone();
        async move {
            request(client, "tasks/update", json!({"taskId": id, "inputResponses": responses}), &with_tasks()).await
        }
    };
    let ack = update(json!({"unknown-key": {"ignored": true}})).await.expect("ack");
    assert_eq!(ack["resultType"], "complete");
    assert_eq!(get(&client, &id).await.expect("as set up")["status"], "input_required");
    // An answer that is no answer to the open question is refused, and the question stays open.
    let wrong = update(json!({ key.as_str(): {"action": "maybe"} })).await.expect_err("not an elicitation result");
    assert_eq!(wrong.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(get(&client, &id).await.expect("as set up")["status"], "input_required");

    update(json!({ key.as_str(): {"action": "accept", "content": {"confirm": true}} })).await.expect("answered");
    let after = get(&client, &id).await.expect("as set up");
    assert_ne!(after["status"], "input_required", "the key is closed at once: {after}");
    assert!(after.get("inputRequests").is_none(), "{after}");
    let done = settle(&client, &id).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "wiped sdb");
}

#[tokio::test]
async fn a_partial_update_closes_only_its_key_and_the_next_get_shows_it() {
    let server = server();
    let client = mcp::client::in_process(&server);
    let id = task_id(&call(&client, "survey", json!({})).await);
    let both = within("two open questions", async {
        loop {
            let task = get(&client, &id).await.expect("tasks/get");
            if task["inputRequests"].as_object().is_some_and(|r| r.len() == 2) {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let keys: Vec<String> = both["inputRequests"].as_object().expect("map").keys().cloned().collect();
    let name_key =
        keys.iter().find(|k| both["inputRequests"][k.as_str()]["params"]["message"] == "Name?").expect("asked");
    let other = keys.iter().find(|k| *k != name_key).expect("two keys");
    let answer = json!({"taskId": id, "inputResponses": { name_key.as_str(): {"action": "accept", "content": {"name": "Ada"}} }});
    request(&client, "tasks/update", answer, &with_tasks()).await.expect("ack");
    let partial = get(&client, &id).await.expect("tasks/get");
    assert_eq!(partial["status"], "input_required", "one question is still open: {partial}");
    let open: Vec<&String> = partial["inputRequests"].as_object().expect("map").keys().collect();
    assert_eq!(open, [other], "the answered key is gone at once, the other stays");
    let answer =
        json!({"taskId": id, "inputResponses": { other.as_str(): {"action": "accept", "content": {"confirm": true}} }});
    request(&client, "tasks/update", answer, &with_tasks()).await.expect("ack");
    let done = settle(&client, &id).await;
    assert_eq!(done["result"]["content"][0]["text"], "Ada: true");
}

#[tokio::test]
async fn no_more_tasks_run_at_once_than_allowed() {
    let server = server_with(TaskConfig::builder().max_running(1).build());
    let client = mcp::client::in_process(&server);
    let id = task_id(&call(&client, "nap", json!({"millis": 2000})).await);
    let params = json!({"name": "nap", "arguments": {"millis": 1}});
    let refused = request(&client, "tools/call", params.clone(), &with_tasks()).await.expect_err("one runs already");
    assert_eq!(refused.code, ErrorCode::INTERNAL_ERROR);
    request(&client, "tasks/cancel", json!({"taskId": id}), &with_tasks()).await.expect("cancel");
    within("a free slot", async {
        while request(&client, "tools/call", params.clone(), &with_tasks()).await.is_err() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

#[tokio::test]
async fn a_task_asking_what_the_client_did_not_declare_fails() {
    let server = server();
    let client = mcp::client::in_process(&server);
    let params = json!({"name": "wipe", "arguments": {"disk": "sdc"}});
    let caps = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let id = task_id(&request(&client, "tools/call", params, &caps).await.expect("created"));
    let failed = settle(&client, &id).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
}

#[tokio::test]
async fn the_ttl_stops_the_work_and_forgets_the_task() {
    let finished = Finished::default();
    let server = counted(TaskConfig::builder().ttl(Duration::from_millis(150)).build(), finished.clone());
    let client = mcp::client::in_process(&server);
    let created = call(&client, "nap", json!({"millis": 400})).await;
    assert_eq!(created["ttlMs"], 150);
    let id = task_id(&created);
    tokio::time::sleep(Duration::from_millis(600)).await;
    let gone = get(&client, &id).await.expect_err("expired");
    assert_eq!(gone.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(finished.0.load(Ordering::SeqCst), 0, "the work was stopped at the ttl");
}

#[tokio::test]
async fn a_full_store_refuses_new_tasks_with_a_clear_error() {
    let server = server_with(TaskConfig::builder().store(MemoryTaskStore::new(1)).build());
    let client = mcp::client::in_process(&server);
    let id = task_id(&call(&client, "nap", json!({"millis": 1000})).await);
    let params = json!({"name": "nap", "arguments": {"millis": 1}});
    let full = request(&client, "tools/call", params, &with_tasks()).await.expect_err("full");
    assert_eq!(full.code, ErrorCode::INTERNAL_ERROR);
    assert!(full.message.contains("too many tasks"), "{}", full.message);
    request(&client, "tasks/cancel", json!({"taskId": id}), &with_tasks()).await.expect("cancel");
}

#[tokio::test]
async fn a_listen_stream_tells_the_state_of_a_task_that_finished_before_it_opened() {
    let server = server();
    let client = mcp::client::in_process(&server);
    let id = task_id(&call(&client, "export", json!({})).await);
    settle(&client, &id).await;
    let params = json!({"notifications": {"taskIds": [id]}, "_meta": meta(&with_tasks())});
    let message = json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen", "params": params});
    let Ok(JsonRpcMessage::Request(listen)) = decode_message(&message.to_string()) else { panic!("a request") };
    let (sender, mut frames) = mpsc::channel(16);
    let stream = tokio::spawn({
        let server = server.clone();
        async move { server.handle_request_as(&Arc::new(Session::new()), listen, sender, None).await }
    });
    let _ack = within("ack", frames.recv()).await.expect("ack");
    let state: Value = serde_json::from_str(&within("state", frames.recv()).await.expect("a frame")).expect("JSON");
    assert_eq!(state["method"], "notifications/tasks");
    assert_eq!(state["params"]["status"], "completed");
    assert_eq!(state["params"]["result"]["content"][0]["text"], "exported");
    stream.abort();
}

#[tokio::test]
async fn a_listen_stream_sends_the_state_of_the_tasks_it_watches() {
    let server = server();
    let client = mcp::client::in_process(&server);
    let id = task_id(&call(&client, "nap", json!({"millis": 100})).await);

    let params = json!({"notifications": {"taskIds": [id, "not-a-task"]}, "_meta": meta(&with_tasks())});
    let message = json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": params});
    let Ok(JsonRpcMessage::Request(listen)) = decode_message(&message.to_string()) else { panic!("a request") };
    let (sender, mut frames) = mpsc::channel(16);
    let stream = tokio::spawn({
        let server = server.clone();
        async move { server.handle_request_as(&Arc::new(Session::new()), listen, sender, None).await }
    });
    async fn next(frames: &mut mpsc::Receiver<String>) -> Value {
        let frame = within("a notification", frames.recv()).await.expect("a frame");
        serde_json::from_str::<Value>(&frame).expect("JSON")
    }
    let ack = next(&mut frames).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]), "unknown ids are left out");
    let done = loop {
        let frame = next(&mut frames).await;
        assert_eq!(frame["method"], "notifications/tasks");
        assert_eq!(frame["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9);
        if frame["params"]["status"] == "completed" {
            break frame;
        }
    };
    assert_eq!(done["params"]["taskId"], id.as_str());
    assert_eq!(done["params"]["result"]["content"][0]["text"], "slept 100 ms");
    drop(frames);
    stream.abort();

    let params = json!({"notifications": {"taskIds": [id]}});
    let refused = request(&client, "subscriptions/listen", params, &json!({})).await.expect_err("no extension");
    assert_eq!(refused.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
}
