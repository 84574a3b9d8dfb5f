//! The tasks extension from the client's side: `call_tool` follows a task to its end
//! (results, tool errors, failures, questions halfway through, resolver rounds first),
//! cancels it when the call is dropped or times out, and the one-round API hands the task
//! to callers who poll it themselves. In process and over Streamable HTTP.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use mcp::Context;
use mcp::protocol::{DetailedTask, TaskStatus, declares_tasks};
use mcp::resolve::{Answer, ask};
use mcp::tasks::TaskConfig;

use super::*;

/// A result the test expects to be `Ok` (or `Err`), panicking with what it was otherwise.
trait Must<T, E> {
    fn must(self) -> T;
    fn must_fail(self) -> E;
}

impl<T: std::fmt::Debug, E: std::fmt::Debug> Must<T, E> for Result<T, E> {
    fn must(self) -> T {
        self.unwrap_or_else(|e| panic!("expected success, got {e:?}"))
    }

    fn must_fail(self) -> E {
        match self {
            Ok(value) => panic!("expected an error, got {value:?}"),
            Err(e) => e,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The server: tools that run as tasks
// ---------------------------------------------------------------------------------------

/// A yes or no.
#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// A name.
#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Name {
    /// Your name.
    name: String,
}

/// Whether this request declared the tasks extension.
#[mcp::tool]
fn declared(ctx: Context) -> String {
    format!("declared: {}", declares_tasks(ctx.client_capabilities()))
}

/// Compute briefly: a task when the client supports them.
#[mcp::tool(task = "optional")]
async fn compute(label: String, ctx: Context) -> String {
    tokio::time::sleep(Duration::from_millis(50)).await;
    format!("computed {label} (task: {})", ctx.task().is_some())
}

/// Only as a task; ends with a tool error.
#[mcp::tool(task = "required")]
async fn broken() -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    Err("the input data is corrupt".to_owned())
}

/// Only as a task; ends with a JSON-RPC error.
#[mcp::tool(task = "required")]
async fn crash() -> Result<String, Error> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    Err(Error::internal("the job hit an internal error"))
}

/// Delete a file once the user confirms, asked halfway through the task.
#[mcp::tool(task = "required")]
async fn remove(filename: String, ctx: Context) -> Result<String, Error> {
    tokio::time::sleep(Duration::from_millis(30)).await;
    match ask(&ctx, Elicit::<Confirm>::new(format!("Delete {filename}?"))).await? {
        Answer::Accept(Confirm { confirm: true }) => Ok(format!("Deleted {filename}.")),
        _ => Ok(format!("Kept {filename}.")),
    }
}

/// Ask two questions at once, halfway through the task.
#[mcp::tool(task = "required")]
async fn two_questions(ctx: Context) -> Result<String, Error> {
    let (name, confirm) =
        tokio::join!(ask(&ctx, Elicit::<Name>::new("Your name?")), ask(&ctx, Elicit::<Confirm>::new("Proceed?")));
    let name = name?.accepted().map_or_else(|| "nobody".to_owned(), |n| n.name.clone());
    let confirmed = confirm?.accepted().is_some_and(|c| c.confirm);
    Ok(format!("Hello, {name}: {}.", if confirmed { "confirmed" } else { "not confirmed" }))
}

/// The user's name, asked in a round before the task starts.
#[mcp::resolver(key = "user_name")]
fn user_name() -> Elicit<Name> {
    Elicit::new("What is your name?")
}

/// Ask the name in multi round-trip rounds, then greet from a task.
#[mcp::tool(task = "required")]
async fn greet_later(name: Resolve<user_name>, ctx: Context) -> String {
    tokio::time::sleep(Duration::from_millis(30)).await;
    format!("Hello from the task, {}! (task: {})", name.name, ctx.task().is_some())
}

/// The task ids of the running `wait_forever` calls, by tag.
static STARTED: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
/// The tags of the `wait_forever` calls whose work was stopped.
static STOPPED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Records, when dropped, that the work of the `wait_forever` call tagged so stopped.
struct Stopped(String);

impl Drop for Stopped {
    fn drop(&mut self) {
        lock(&STOPPED).insert(self.0.clone());
    }
}

/// Never finish (until cancelled); record the task id under `tag`.
#[mcp::tool(task = "required")]
async fn wait_forever(tag: String, ctx: Context) -> String {
    let _stopped = Stopped(tag.clone());
    let task = ctx.task().map(|t| t.id().to_owned()).unwrap_or_default();
    lock(&STARTED).insert(tag, task);
    std::future::pending::<()>().await;
    "unreachable".to_owned()
}

fn tasks_server() -> Server {
    Server::builder("tasks", "1.0.0")
        .tool::<declared>()
        .tool::<compute>()
        .tool::<broken>()
        .tool::<crash>()
        .tool::<remove>()
        .tool::<two_questions>()
        .tool::<greet_later>()
        .tool::<wait_forever>()
        .tasks(TaskConfig::builder().poll_interval(Duration::from_millis(20)).build())
        .build()
}

/// Where the server is, to connect several clients to the same one.
enum Served {
    InProcess(Server),
    Http(String),
}

async fn serve(via: Via) -> Served {
    let server = tasks_server();
    match via {
        Via::InProcess => Served::InProcess(server),
        Via::Http => Served::Http(url(mcp_testkit::http::serve(&server, HttpConfig::default()).await)),
    }
}

impl Served {
    async fn client(&self, builder: ClientBuilder) -> Client {
        let connected = match self {
            Served::InProcess(server) => within("connecting", builder.connect_in_process(server)).await,
            Served::Http(url) => within("connecting", builder.connect_http(url)).await,
        };
        connected.unwrap_or_else(|e| panic!("connecting: {e}"))
    }
}

/// A client that declares the extension and accepts every elicitation: `confirm` true, a
/// `name` of "Ada", recording who asked what.
fn tasks_client(asked: &Asked) -> ClientBuilder {
    let asked = asked.clone();
    Client::builder().tasks(true).elicitation(move |asker, params: ElicitRequestParams| {
        asked.push(asker, params.message());
        let mut content = JsonObject::new();
        if let ElicitRequestParams::Form(form) = &params {
            for field in form.requested_schema.properties.keys() {
                let value = if field == "confirm" { Value::Bool(true) } else { Value::String("Ada".into()) };
                content.insert(field.clone(), value);
            }
        }
        async move { Ok(ElicitResult::accept(content)) }
    })
}

/// The task id `wait_forever` recorded under `tag`, once it runs.
async fn started(tag: &str) -> String {
    within("the task to start", async {
        loop {
            if let Some(id) = lock(&STARTED).get(tag).cloned() {
                return id;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
}

/// Poll `task_id` (with `client`) until it reaches `status`.
async fn reaches(client: &Client, task_id: &str, status: TaskStatus) -> DetailedTask {
    within("the task's status", async {
        loop {
            let task = client.get_task(task_id).await.unwrap_or_else(|e| panic!("tasks/get: {e}"));
            if task.task.status == status {
                return task;
            }
            assert!(!task.task.status.is_terminal(), "expected {status}, the task ended {}", task.task.status);
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
}

/// Wait until the work of the `wait_forever` call tagged `tag` has stopped.
async fn stopped(tag: &str) {
    within("the task's work to stop", async {
        while !lock(&STOPPED).contains(tag) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

fn task_inputs(asked: &Asked) -> Vec<(String, String)> {
    asked
        .all()
        .into_iter()
        .filter_map(|(asker, message)| match asker {
            Asker::TaskInput(key) => Some((key, message)),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// call_tool follows the task
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_task_is_polled_to_its_result() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let client = served.client(tasks_client(&Asked::default())).await;
        let result = within("compute", client.call_tool("compute", json!({"label": "x"}))).await.must();
        assert_eq!(text_of(&result), "computed x (task: true)", "{via:?}");
        assert_ne!(result.is_error, Some(true), "{via:?}");
    }
}

#[tokio::test]
async fn the_extension_is_declared_only_when_asked_and_only_under_2026_07_28() {
    let served = serve(Via::InProcess).await;
    for (builder, expected) in [
        (Client::builder().tasks(true), "declared: true"),
        (Client::builder(), "declared: false"),
        (Client::builder().tasks(true).mode(Mode::Legacy), "declared: false"),
    ] {
        let client = served.client(builder).await;
        let result = within("declared", client.call_tool("declared", json!({}))).await.must();
        assert_eq!(text_of(&result), expected, "legacy: {}", client.is_legacy());
    }
}

#[tokio::test]
async fn a_tool_error_in_a_task_stays_a_tool_result() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let client = served.client(tasks_client(&Asked::default())).await;
        let result = within("broken", client.call_tool("broken", json!({}))).await.must();
        assert_eq!(result.is_error, Some(true), "{via:?}");
        assert!(text_of(&result).contains("the input data is corrupt"), "{via:?}: {}", text_of(&result));
    }
}

#[tokio::test]
async fn a_failed_task_is_the_servers_error() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let client = served.client(tasks_client(&Asked::default())).await;
        let error = within("crash", client.call_tool("crash", json!({}))).await.must_fail();
        let ClientError::Rpc(error) = error else { panic!("{via:?}: expected an RPC error, got {error:?}") };
        assert_eq!(error.code, -32603, "{via:?}");
        assert!(error.message.contains("internal error"), "{via:?}: {}", error.message);
    }
}

#[tokio::test]
async fn a_task_that_asks_for_input_halfway_through_is_answered_by_the_callback() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let asked = Asked::default();
        let client = served.client(tasks_client(&asked)).await;
        let result = within("remove", client.call_tool("remove", json!({"filename": "a.txt"}))).await.must();
        assert_eq!(text_of(&result), "Deleted a.txt.", "{via:?}");
        let inputs = task_inputs(&asked);
        assert_eq!(inputs.len(), 1, "{via:?}: asked once, as a task's question: {:?}", asked.all());
        assert_eq!(inputs[0].1, "Delete a.txt?", "{via:?}");
    }
}

#[tokio::test]
async fn two_questions_at_once_are_each_answered_once() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let asked = Asked::default();
        let client = served.client(tasks_client(&asked)).await;
        let result = within("two_questions", client.call_tool("two_questions", json!({}))).await.must();
        assert_eq!(text_of(&result), "Hello, Ada: confirmed.", "{via:?}");
        let inputs = task_inputs(&asked);
        let messages: BTreeSet<&str> = inputs.iter().map(|(_, m)| m.as_str()).collect();
        let keys: BTreeSet<&str> = inputs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(inputs.len(), 2, "{via:?}: each question once: {inputs:?}");
        assert_eq!(messages, BTreeSet::from(["Proceed?", "Your name?"]), "{via:?}");
        assert_eq!(keys.len(), 2, "{via:?}: two distinct keys: {inputs:?}");
    }
}

#[tokio::test]
async fn resolver_rounds_come_first_then_the_task() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let asked = Asked::default();
        let client = served.client(tasks_client(&asked)).await;
        let result = within("greet_later", client.call_tool("greet_later", json!({}))).await.must();
        assert_eq!(text_of(&result), "Hello from the task, Ada! (task: true)", "{via:?}");
        let all = asked.all();
        assert_eq!(all.len(), 1, "{via:?}: {all:?}");
        assert_eq!(all[0], (Asker::InputRequest("user_name".into()), "What is your name?".to_owned()), "{via:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Cancelling
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn dropping_the_call_cancels_the_task() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let client = served.client(tasks_client(&Asked::default())).await;
        let tag = format!("drop-{via:?}");
        let call = {
            let client = client.clone();
            let tag = tag.clone();
            tokio::spawn(async move { client.call_tool("wait_forever", json!({"tag": tag})).await })
        };
        let task_id = started(&tag).await;
        // The call is still following the task; dropping it cancels the task.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!call.is_finished(), "{via:?}");
        call.abort();
        let other = served.client(tasks_client(&Asked::default())).await;
        reaches(&other, &task_id, TaskStatus::Cancelled).await;
        stopped(&tag).await;
    }
}

#[tokio::test]
async fn a_call_that_times_out_cancels_its_task() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let client = served.client(tasks_client(&Asked::default())).await;
        let tag = format!("timeout-{via:?}");
        let options = CallOptions { timeout: Some(Duration::from_millis(300)), ..Default::default() };
        let error = within("wait_forever", client.call_tool_with("wait_forever", json!({"tag": tag}), options))
            .await
            .must_fail();
        assert_eq!(error, ClientError::Timeout, "{via:?}");
        let task_id = started(&tag).await;
        reaches(&client, &task_id, TaskStatus::Cancelled).await;
        stopped(&tag).await;
    }
}

#[tokio::test]
async fn a_task_cancelled_elsewhere_ends_the_call_with_task_cancelled() {
    let served = serve(Via::InProcess).await;
    let client = served.client(tasks_client(&Asked::default())).await;
    let call = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("wait_forever", json!({"tag": "elsewhere"})).await })
    };
    let task_id = started("elsewhere").await;
    let other = served.client(tasks_client(&Asked::default())).await;
    within("tasks/cancel", other.cancel_task(&task_id)).await.must();
    let ended = within("the call", call).await.expect("the call's task panicked");
    assert_eq!(ended.must_fail(), ClientError::TaskCancelled);
}

// ---------------------------------------------------------------------------------------
// The one-round API
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn the_one_round_api_hands_over_the_task() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let asked = Asked::default();
        let client = served.client(tasks_client(&asked)).await;
        let outcome =
            within("remove", client.call_tool_once("remove", json!({"filename": "b.txt"}), CallOptions::default()))
                .await
                .must();
        let Outcome::Task(created) = outcome else { panic!("{via:?}: expected a task, got {outcome:?}") };
        let task_id = created.task.task_id;
        assert!(!created.task.status.is_terminal(), "{via:?}");

        // Another client (a restart, say) picks the task up by its id.
        let other = served.client(Client::builder().tasks(true)).await;
        let waiting = reaches(&other, &task_id, TaskStatus::InputRequired).await;
        let requests = waiting.input_requests.unwrap_or_default();
        assert_eq!(requests.len(), 1, "{via:?}: {requests:?}");
        let key = requests.keys().next().cloned().unwrap_or_default();
        let answer = InputResponse::Elicit(ElicitResult::accept(object(json!({"confirm": false}))));
        within("tasks/update", other.update_task(&task_id, BTreeMap::from([(key, answer)]))).await.must();
        let done = reaches(&other, &task_id, TaskStatus::Completed).await;
        let result: CallToolResult = serde_json::from_value(Value::Object(done.result.unwrap_or_default())).must();
        assert_eq!(text_of(&result), "Kept b.txt.", "{via:?}");
        // Cancelling a task that ended is acknowledged all the same.
        within("tasks/cancel", other.cancel_task(&task_id)).await.must();
        assert!(task_inputs(&asked).is_empty(), "{via:?}: nobody followed the task but the caller");
    }
}

#[tokio::test]
async fn the_one_round_api_cancels_a_task() {
    let served = serve(Via::Http).await;
    let client = served.client(Client::builder().tasks(true)).await;
    let outcome = within(
        "wait_forever",
        client.call_tool_once("wait_forever", json!({"tag": "once-cancel"}), CallOptions::default()),
    )
    .await
    .must();
    let Outcome::Task(created) = outcome else { panic!("expected a task, got {outcome:?}") };
    assert_eq!(started("once-cancel").await, created.task.task_id);
    within("tasks/cancel", client.cancel_task(&created.task.task_id)).await.must();
    reaches(&client, &created.task.task_id, TaskStatus::Cancelled).await;
    stopped("once-cancel").await;
}

#[tokio::test]
async fn an_unknown_task_is_invalid_params() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let client = served.client(Client::builder().tasks(true)).await;
        let error = within("tasks/get", client.get_task("no-such-task")).await.must_fail();
        assert_eq!(error.code(), Some(-32602), "{via:?}: {error:?}");
    }
}

#[tokio::test]
async fn a_legacy_session_has_no_tasks() {
    let served = serve(Via::InProcess).await;
    let client = served.client(Client::builder().tasks(true).mode(Mode::Legacy)).await;
    let result = within("compute", client.call_tool("compute", json!({"label": "y"}))).await.must();
    assert_eq!(text_of(&result), "computed y (task: false)");
    let error = within("tasks/get", client.get_task("any")).await.must_fail();
    assert!(matches!(error, ClientError::Unsupported(_)), "{error:?}");
}

// ---------------------------------------------------------------------------------------
// Without the extension
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn without_the_extension_an_optional_task_runs_plainly_and_a_required_one_is_refused() {
    for via in BOTH_WAYS {
        let served = serve(via).await;
        let client = served.client(Client::builder()).await;
        let result = within("compute", client.call_tool("compute", json!({"label": "z"}))).await.must();
        assert_eq!(text_of(&result), "computed z (task: false)", "{via:?}");
        let error = within("broken", client.call_tool("broken", json!({}))).await.must_fail();
        let ClientError::Rpc(error) = error else { panic!("{via:?}: expected an RPC error, got {error:?}") };
        assert_eq!(error.code, -32021, "{via:?}");
        let required = error.data.as_ref().and_then(|d| d.pointer("/requiredCapabilities/extensions"));
        assert!(required.and_then(|e| e.get("io.modelcontextprotocol/tasks")).is_some(), "{via:?}: {:?}", error.data);
    }
}

// ---------------------------------------------------------------------------------------
// The wire, against scripted servers
// ---------------------------------------------------------------------------------------

/// A `CreateTaskResult` for task `t1`, polled every 10 ms.
fn created_task() -> Value {
    json!({"resultType": "task", "taskId": "t1", "status": "working", "createdAt": "2026-12-01T10:00:00Z",
           "lastUpdatedAt": "2026-12-01T10:00:00Z", "ttlMs": null, "pollIntervalMs": 10})
}

/// A `tasks/get` result for `t1` with `status` and more fields.
fn task_state(status: &str, more: Value) -> Value {
    let mut task = object(json!({"resultType": "complete", "taskId": "t1", "status": status,
        "createdAt": "2026-12-01T10:00:00Z", "lastUpdatedAt": "2026-12-01T10:00:01Z", "ttlMs": null,
        "pollIntervalMs": 10}));
    task.extend(object(more));
    Value::Object(task)
}

fn elicit_request(message: &str) -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
}

fn declares_the_extension(request: &Value) -> bool {
    request["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
        .get("io.modelcontextprotocol/tasks")
        .is_some()
}

#[tokio::test]
async fn a_question_still_listed_after_its_answer_is_not_answered_again() {
    use super::scripted_peer::connect_peer;
    let asked = Asked::default();
    let (client, mut peer) = connect_peer(tasks_client(&asked), true).await;
    let call = tokio::spawn(async move { client.call_tool("x", json!({})).await });

    let request = peer.expect("tools/call").await;
    assert!(declares_the_extension(&request), "{request}");
    peer.answer(&request, created_task()).await;

    let get = peer.expect("tasks/get").await;
    assert_eq!(get["params"]["taskId"], "t1");
    assert!(declares_the_extension(&get), "{get}");
    peer.answer(&get, task_state("input_required", json!({"inputRequests": {"q1": elicit_request("First?")}}))).await;
    let update = peer.expect("tasks/update").await;
    assert!(declares_the_extension(&update), "{update}");
    assert_eq!(update["params"]["taskId"], "t1");
    assert_eq!(update["params"]["inputResponses"]["q1"]["content"]["name"], "Ada", "{update}");
    peer.answer(&update, json!({"resultType": "complete"})).await;

    // An eventually consistent server still lists q1 next to a new question.
    let get = peer.expect("tasks/get").await;
    let both = json!({"inputRequests": {"q1": elicit_request("First?"), "q2": elicit_request("Second?")}});
    peer.answer(&get, task_state("input_required", both)).await;
    let update = peer.expect("tasks/update").await;
    let answered: Vec<&String> =
        update["params"]["inputResponses"].as_object().map(|o| o.keys().collect()).unwrap_or_default();
    assert_eq!(answered, ["q2"], "only the new question: {update}");
    peer.answer(&update, json!({"resultType": "complete"})).await;

    let get = peer.expect("tasks/get").await;
    peer.answer(&get, task_state("working", json!({}))).await;
    let get = peer.expect("tasks/get").await;
    let result = json!({"result": {"content": [{"type": "text", "text": "done"}], "isError": false}});
    peer.answer(&get, task_state("completed", result)).await;

    let result = within("the call", call).await.expect("the call's task panicked").must();
    assert_eq!(text_of(&result), "done");
    assert_eq!(task_inputs(&asked), [("q1".to_owned(), "First?".to_owned()), ("q2".to_owned(), "Second?".to_owned())]);
}

#[tokio::test]
async fn a_task_where_none_was_declared_is_a_protocol_error() {
    use super::scripted_peer::connect_peer;
    // A client without the extension, and a prompt (never a task), both get one.
    let (client, mut peer) = connect_peer(Client::builder(), true).await;
    let call = tokio::spawn(async move { client.call_tool("x", json!({})).await });
    let request = peer.expect("tools/call").await;
    assert!(!declares_the_extension(&request), "{request}");
    peer.answer(&request, created_task()).await;
    let error = within("the call", call).await.expect("the call's task panicked").must_fail();
    assert!(matches!(&error, ClientError::Protocol(why) if why.contains("task")), "{error:?}");

    let (client, mut peer) = connect_peer(Client::builder().tasks(true), true).await;
    let call = tokio::spawn(async move { client.get_prompt("p", BTreeMap::new()).await });
    let request = peer.expect("prompts/get").await;
    peer.answer(&request, created_task()).await;
    let error = within("the prompt", call).await.expect("the call's task panicked").must_fail();
    assert!(matches!(&error, ClientError::Protocol(why) if why.contains("task")), "{error:?}");
}

#[tokio::test]
async fn task_requests_over_http_name_the_task_in_mcp_name() {
    use super::scripted_http::{discovered, rpc_result, scripted_http};
    let (addr, posts) = scripted_http(|post| match post.body["method"].as_str() {
        Some("server/discover") => discovered(post),
        Some("tools/call") => (200, "application/json", rpc_result(post, created_task())),
        Some("tasks/get") => {
            let result = json!({"result": {"content": [{"type": "text", "text": "over http"}]}});
            (200, "application/json", rpc_result(post, task_state("completed", result)))
        }
        _ => (200, "application/json", rpc_result(post, json!({"resultType": "complete"}))),
    })
    .await;
    let client = within("connect", Client::builder().tasks(true).connect_http(&url(addr))).await.must();
    let result = within("call", client.call_tool("slow", json!({}))).await.must();
    assert_eq!(text_of(&result), "over http");
    within("tasks/update", client.update_task("t1", InputResponses::new())).await.must();
    within("tasks/cancel", client.cancel_task("t1")).await.must();
    let posts = lock(&posts).clone();
    let seen: Vec<(&str, Option<&str>, Option<&str>)> = posts
        .iter()
        .map(|p| {
            let header = |name: &str| p.headers.get(name).map(String::as_str);
            (p.body["method"].as_str().unwrap_or("-"), header("mcp-method"), header("mcp-name"))
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("server/discover", Some("server/discover"), None),
            ("tools/call", Some("tools/call"), Some("slow")),
            ("tasks/get", Some("tasks/get"), Some("t1")),
            ("tasks/update", Some("tasks/update"), Some("t1")),
            ("tasks/cancel", Some("tasks/cancel"), Some("t1")),
        ]
    );
    assert!(posts[1..].iter().all(|p| declares_the_extension(&p.body)), "every request declares the extension");
}

#[tokio::test]
async fn the_client_waits_the_interval_the_server_suggests() {
    use super::scripted_peer::connect_peer;
    let (client, mut peer) = connect_peer(Client::builder().tasks(true), true).await;
    let call = tokio::spawn(async move { client.call_tool("x", json!({})).await });
    let request = peer.expect("tools/call").await;
    let mut created = object(created_task());
    created.insert("pollIntervalMs".into(), json!(150));
    peer.answer(&request, Value::Object(created)).await;
    let answered = std::time::Instant::now();
    let get = peer.expect("tasks/get").await;
    let first = answered.elapsed();
    assert!(first >= Duration::from_millis(140), "polled after {first:?}, not the 150 ms suggested");
    // The interval is refreshed from each answer.
    peer.answer(&get, task_state("working", json!({"pollIntervalMs": 300}))).await;
    let answered = std::time::Instant::now();
    let get = peer.expect("tasks/get").await;
    let second = answered.elapsed();
    assert!(second >= Duration::from_millis(290), "polled after {second:?}, not the 300 ms suggested");
    peer.answer(&get, task_state("completed", json!({"result": {"content": []}}))).await;
    let result = within("the call", call).await.expect("the call's task panicked").must();
    assert!(result.content.is_empty());
}

#[tokio::test]
async fn answers_refused_by_a_task_that_ended_meanwhile_do_not_fail_the_call() {
    use super::scripted_peer::connect_peer;
    let (client, mut peer) = connect_peer(tasks_client(&Asked::default()), true).await;
    let call = tokio::spawn(async move { client.call_tool("x", json!({})).await });
    let request = peer.expect("tools/call").await;
    peer.answer(&request, created_task()).await;
    let get = peer.expect("tasks/get").await;
    peer.answer(&get, task_state("input_required", json!({"inputRequests": {"q1": elicit_request("First?")}}))).await;
    let update = peer.expect("tasks/update").await;
    peer.send(json!({"jsonrpc": "2.0", "id": update["id"], "error": {"code": -32602, "message": "Task is terminal"}}))
        .await;
    let get = peer.expect("tasks/get").await;
    let result = json!({"result": {"content": [{"type": "text", "text": "finished anyway"}]}});
    peer.answer(&get, task_state("completed", result)).await;
    let result = within("the call", call).await.expect("the call's task panicked").must();
    assert_eq!(text_of(&result), "finished anyway");
}
