//! The Redis stores against a real `redis-server`, started here on a free port (the
//! Debian package: `apt-get install redis-server`). Without the binary every test says so
//! and passes without checking anything, except under CI (`CI` set), where it fails.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp::protocol::{
    CallToolOutcome, CallToolResult, ElicitRequestParams, ElicitResult, ElicitationSchema, InputRequest,
    InputRequiredResult, InputResponse, TaskStatus,
};
use mcp::sealing::{ConsumedTokens, ConsumedTokensErrorKind, RedisConsumedTokens, RequestStateSecurity};
use mcp::tasks::{Applied, RedisTaskStore, TaskChange, TaskRecord, TaskStore, TaskStoreErrorKind};
use serde_json::{Value, json};

#[path = "support/mod.rs"]
mod support;

/// A `redis-server` of this test's own, killed when dropped.
struct RedisServer {
    port: u16,
    child: Option<Child>,
}

impl RedisServer {
    /// Start one on a free port, or `None` (with a message) when the binary is missing.
    fn start() -> Option<Self> {
        if Command::new("redis-server").arg("--version").stdout(Stdio::null()).status().is_err() {
            // CI must test the stores, not skip them: there a missing binary is a failure.
            assert!(std::env::var_os("CI").is_none(), "CI is set but there is no redis-server binary");
            eprintln!(
                "SKIPPED: no redis-server binary (apt-get install redis-server) to test the Redis stores against"
            );
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let mut server = RedisServer { port, child: None };
        server.restart();
        Some(server)
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Start (again) on the same port, empty, and wait until it answers.
    fn restart(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen within 10 s");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Milliseconds before `key` expires, as Redis says (`PTTL`).
    fn pttl(&self, key: &str) -> i64 {
        let client = redis::Client::open(self.url()).expect("a valid url");
        let mut connection = client.get_connection().expect("redis is up");
        redis::cmd("PTTL").arg(key).query(&mut connection).expect("PTTL answers")
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn question() -> Box<InputRequest> {
    Box::new(InputRequest::Elicit(ElicitRequestParams::form("Sure?", ElicitationSchema::default())))
}

fn decline() -> InputResponse {
    InputResponse::Elicit(ElicitResult::decline())
}

fn store(server: &RedisServer) -> RedisTaskStore {
    RedisTaskStore::with_options(&server.url(), "test:task:", Duration::from_millis(500)).expect("a valid url")
}

#[tokio::test]
async fn create_get_and_apply_follow_the_state_machine() {
    let Some(server) = RedisServer::start() else { return };
    let store = store(&server);
    store.create(TaskRecord::new("t1".into(), Some("owner".into()), Some(60_000), Some(500))).await.expect("created");
    let task = store.get("t1").await.expect("read").expect("found");
    assert_eq!(
        (task.status, task.owner.as_deref(), task.poll_interval_ms),
        (TaskStatus::Working, Some("owner"), Some(500))
    );
    assert!(store.get("t2").await.expect("read").is_none(), "never created");
    assert!(store.apply("t2", TaskChange::Cancel).await.expect("applied").is_none());

    let (applied, task) = store.apply("t1", TaskChange::Ask { request: question() }).await.expect("ok").expect("found");
    let Applied::Asked(key) = applied else { panic!("a question opens: {applied:?}") };
    assert_eq!(task.status, TaskStatus::InputRequired);
    let answers = BTreeMap::from([(key.clone(), decline())]);
    let (applied, _) = store.apply("t1", TaskChange::Answer(answers)).await.expect("ok").expect("found");
    assert_eq!(applied, Applied::Answered(1));
    let (applied, task) = store.apply("t1", TaskChange::Take { key: key.clone() }).await.expect("ok").expect("found");
    assert!(matches!(applied, Applied::Taken(_)));
    assert_eq!(task.status, TaskStatus::Working);
    let (applied, _) = store.apply("t1", TaskChange::Take { key }).await.expect("ok").expect("found");
    assert_eq!(applied, Applied::Ignored, "an answer is taken once");

    store.apply("t1", TaskChange::Complete(Default::default())).await.expect("ok").expect("found");
    let (applied, task) = store.apply("t1", TaskChange::Cancel).await.expect("ok").expect("found");
    assert_eq!((applied, task.status), (Applied::Ignored, TaskStatus::Completed), "terminal states never change");
    assert_eq!(store.get("t1").await.expect("read").expect("found").status, TaskStatus::Completed);

    let duplicate = store.create(TaskRecord::new("t1".into(), None, Some(60_000), None)).await.expect_err("taken id");
    assert_eq!(duplicate.kind(), TaskStoreErrorKind::Unavailable);
    assert_eq!(store.get("t1").await.expect("read").expect("found").status, TaskStatus::Completed, "not overwritten");
}

#[tokio::test]
async fn two_instances_sharing_redis_see_the_same_tasks() {
    let Some(server) = RedisServer::start() else { return };
    let (a, b) = (store(&server), store(&server));
    a.create(TaskRecord::new("shared".into(), None, Some(60_000), None)).await.expect("created");
    assert_eq!(b.get("shared").await.expect("read").expect("created on a, seen on b").id, "shared");
    b.apply("shared", TaskChange::Message("from b".into())).await.expect("ok").expect("found");
    let task = a.get("shared").await.expect("read").expect("found");
    assert_eq!(task.status_message.as_deref(), Some("from b"));
    drop(a);
    let c = store(&server);
    assert!(c.get("shared").await.expect("read").is_some(), "a task outlives the instance that created it");
    let other_prefix = RedisTaskStore::with_options(&server.url(), "other:", Duration::from_secs(1)).expect("url");
    assert!(other_prefix.get("shared").await.expect("read").is_none(), "prefixes separate stores");
}

#[tokio::test]
async fn a_task_expires_in_redis_at_its_ttl() {
    let Some(server) = RedisServer::start() else { return };
    let store = store(&server);
    store.create(TaskRecord::new("short".into(), None, Some(400), None)).await.expect("created");
    store.create(TaskRecord::new("long".into(), None, Some(600_000), None)).await.expect("created");
    let pttl = server.pttl("test:task:long");
    assert!(pttl > 590_000 && pttl <= 600_000, "Redis expires it at the ttl: {pttl}");
    assert!(store.get("short").await.expect("read").is_some());
    store.apply("short", TaskChange::Message("still here".into())).await.expect("ok").expect("found");
    assert!(server.pttl("test:task:short") > 0, "a change keeps the expiry");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(store.get("short").await.expect("read").is_none(), "expired");
    assert!(store.apply("short", TaskChange::Cancel).await.expect("read").is_none());
    assert_eq!(server.pttl("test:task:short"), -2, "Redis dropped the key");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_from_two_instances_lose_nothing() {
    let Some(server) = RedisServer::start() else { return };
    let (a, b) = (Arc::new(store(&server)), Arc::new(store(&server)));
    a.create(TaskRecord::new("busy".into(), None, Some(60_000), None)).await.expect("created");
    let mut asks = Vec::new();
    for i in 0..20 {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        asks.push(tokio::spawn(async move { store.apply("busy", TaskChange::Ask { request: question() }).await }));
    }
    let mut keys = Vec::new();
    for ask in asks {
        let (applied, _) = ask.await.expect("joined").expect("applied").expect("found");
        let Applied::Asked(key) = applied else { panic!("a question opens: {applied:?}") };
        keys.push(key);
    }
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 20, "every question got its own key");
    let mut answers = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        let change = TaskChange::Answer(BTreeMap::from([(key.clone(), decline())]));
        answers.push(tokio::spawn(async move { store.apply("busy", change).await }));
    }
    for answer in answers {
        let (applied, _) = answer.await.expect("joined").expect("applied").expect("found");
        assert_eq!(applied, Applied::Answered(1));
    }
    let task = a.get("busy").await.expect("read").expect("found");
    assert_eq!((task.asked, task.answers.len(), task.pending.len()), (20, 20, 0), "no answer was lost");
    assert_eq!(task.status, TaskStatus::Working);
}

#[tokio::test]
async fn a_stopped_redis_gives_quick_unavailable_errors_and_service_resumes_after_restart() {
    let Some(mut server) = RedisServer::start() else { return };
    let store = store(&server);
    let tokens = RedisConsumedTokens::with_options(&server.url(), "test:used:", Duration::from_millis(500))
        .expect("a valid url");
    store.create(TaskRecord::new("before".into(), None, Some(60_000), None)).await.expect("created");
    server.stop();

    let started = Instant::now();
    let failed = store.get("before").await.expect_err("redis is down");
    assert_eq!(failed.kind(), TaskStoreErrorKind::Unavailable);
    assert!(std::error::Error::source(&failed).is_some(), "the cause is attached");
    assert!(!failed.to_string().contains("before"), "no key in the message: {failed}");
    let failed = store.create(TaskRecord::new("during".into(), None, Some(60_000), None)).await.expect_err("down");
    assert_eq!(failed.kind(), TaskStoreErrorKind::Unavailable);
    let failed = store.apply("before", TaskChange::Cancel).await.expect_err("down");
    assert_eq!(failed.kind(), TaskStoreErrorKind::Unavailable);
    let failed = tokens.consume([1; 16], u64::MAX / 2, now_ms()).await.expect_err("down: the token is refused");
    assert_eq!(failed.kind(), ConsumedTokensErrorKind::Unavailable);
    assert!(std::error::Error::source(&failed).is_some(), "the cause is attached");
    assert!(started.elapsed() < Duration::from_secs(3), "four failed calls took {:?}", started.elapsed());

    server.restart();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match store.create(TaskRecord::new("after".into(), None, Some(60_000), None)).await {
            Ok(()) => break,
            Err(e) => assert!(Instant::now() < deadline, "no recovery within 10 s: {e:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(store.get("after").await.expect("read").is_some());
    assert!(store.get("before").await.expect("read").is_none(), "this redis kept nothing (no persistence)");
    let far = now_ms() + 60_000;
    let deadline = Instant::now() + Duration::from_secs(10);
    let first = loop {
        match tokens.consume([2; 16], far, now_ms()).await {
            Ok(first) => break first,
            Err(e) => assert!(Instant::now() < deadline, "no recovery within 10 s: {e:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(first, "the single-use store recovered too");
}

#[tokio::test]
async fn a_token_is_consumed_once_across_instances_until_it_expires() {
    let Some(server) = RedisServer::start() else { return };
    let open =
        || RedisConsumedTokens::with_options(&server.url(), "test:used:", Duration::from_millis(500)).expect("url");
    let (a, b) = (open(), open());
    let far = now_ms() + 60_000;
    assert!(a.consume([7; 16], far, now_ms()).await.expect("up"), "first use");
    assert!(!b.consume([7; 16], far, now_ms()).await.expect("up"), "a replay on another instance is refused");
    assert!(!a.consume([7; 16], far, now_ms()).await.expect("up"), "and on the same one");
    assert!(b.consume([8; 16], far, now_ms()).await.expect("up"), "another token is its own");
    let pttl = server.pttl("test:used:07070707070707070707070707070707");
    assert!(pttl > 55_000 && pttl <= 60_000, "kept until the token expires: {pttl}");
    let soon = now_ms() + 300;
    assert!(a.consume([9; 16], soon, now_ms()).await.expect("up"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(server.pttl("test:used:09090909090909090909090909090909"), -2, "dropped once expired");
}

/// The request-state key every instance of the single-use tests shares.
const SHARED_KEY: [u8; 32] = [0x5e; 32];

/// One instance: a server whose `deploy` tool asks three rounds, then completes, sealing
/// with [`SHARED_KEY`] and recording used tokens in the Redis of `server`. `runs` counts
/// the tool's invocations.
fn single_use_instance(server: &RedisServer, runs: &Arc<AtomicUsize>) -> mcp::Server {
    let store = RedisConsumedTokens::with_options(&server.url(), "test:used:", Duration::from_millis(500))
        .expect("a valid url");
    let security = RequestStateSecurity::builder().keys([SHARED_KEY]).single_use(store).build().expect("policy");
    let runs = Arc::clone(runs);
    mcp::Server::builder("deployer", "1.0.0")
        .on_call_tool(move |_ctx, params| {
            runs.fetch_add(1, Ordering::SeqCst);
            async move {
                let done = params.request_state.as_deref().and_then(|s| s.strip_prefix("round-"));
                let done: u32 = done.and_then(|n| n.parse().ok()).unwrap_or(0);
                Ok(if done < 3 {
                    let ask = InputRequest::Elicit(ElicitRequestParams::form("Proceed?", ElicitationSchema::default()));
                    CallToolOutcome::from(
                        InputRequiredResult::ask("confirm", ask).with_state(format!("round-{}", done + 1)),
                    )
                } else {
                    CallToolResult::text(format!("deployed after {done} rounds")).into()
                })
            }
        })
        .request_state_security(security)
        .build()
}

/// A 2026-07-28 `tools/call` of `deploy` on `instance`, carrying `state` if any.
async fn deploy(instance: &mcp::Server, state: Option<&str>) -> Result<Value, mcp::Error> {
    let mut params = json!({"name": "deploy", "arguments": {}, "_meta": support::meta(&json!({"elicitation": {}}))});
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    support::within("tools/call", support::dispatch_as(instance, "tools/call", params, None)).await
}

/// The sealed token of a round that asks again.
#[track_caller]
fn token_of(result: Result<Value, mcp::Error>) -> String {
    let result = result.expect("the round is accepted");
    assert_eq!(result["resultType"], "input_required", "{result}");
    result["requestState"].as_str().expect("a string requestState").to_owned()
}

fn error_json(result: Result<Value, mcp::Error>) -> Value {
    match result {
        Ok(value) => panic!("accepted: {value}"),
        Err(error) => serde_json::to_value(error).expect("error serializes"),
    }
}

fn replay_error() -> Value {
    json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}})
}

fn store_down_error() -> Value {
    json!({"code": -32603, "message": "The single-use store is unavailable; try again later"})
}

#[tokio::test]
async fn single_use_rounds_are_shared_by_two_servers_and_fail_clearly_while_redis_is_down() {
    let Some(mut server) = RedisServer::start() else { return };
    let (logs, _guard) = support::logs::capture_logs();
    tracing::callsite::rebuild_interest_cache();
    let runs = Arc::new(AtomicUsize::new(0));
    let (a, b) = (single_use_instance(&server, &runs), single_use_instance(&server, &runs));

    // A multi-round call whose rounds go to either instance, as behind a load balancer.
    let first = token_of(deploy(&a, None).await);
    let second = token_of(deploy(&a, Some(&first)).await);
    let before = runs.load(Ordering::SeqCst);
    assert_eq!(error_json(deploy(&b, Some(&first)).await), replay_error(), "a replay on the other instance");
    assert_eq!(error_json(deploy(&a, Some(&first)).await), replay_error(), "a replay on the same instance");
    assert_eq!(runs.load(Ordering::SeqCst), before, "the tool never ran for a replay");
    let third = token_of(deploy(&b, Some(&second)).await);
    let done = deploy(&a, Some(&third)).await.expect("the last round completes");
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["content"][0]["text"], "deployed after 3 rounds", "{done}");
    assert_eq!(error_json(deploy(&b, Some(&third)).await), replay_error(), "the last round is single-use too");

    // Redis stops: a round in flight cannot be recorded, so it is refused, quickly (the
    // store's 500 ms timeout), with the retryable error, not the replay error.
    let pending = token_of(deploy(&a, None).await);
    server.stop();
    let from = logs.len();
    let started = Instant::now();
    assert_eq!(error_json(deploy(&b, Some(&pending)).await), store_down_error());
    assert_eq!(error_json(deploy(&a, Some(&pending)).await), store_down_error());
    assert!(started.elapsed() < Duration::from_secs(3), "two refusals took {:?}", started.elapsed());
    let warning = logs.assert_warned(from, "an unavailable single-use store");
    assert!(warning.contains("single-use store"), "{warning}");
    assert!(warning.contains("cause"), "the WARN gives the cause: {warning}");
    logs.assert_clean(&[&pending, &first, &second, &third]);
    // A first round needs no store: it still works.
    let fresh = token_of(deploy(&b, None).await);

    // Redis comes back (empty): the refused round goes through once, and new rounds work.
    server.restart();
    let deadline = Instant::now() + Duration::from_secs(10);
    let next = loop {
        match deploy(&b, Some(&pending)).await {
            Ok(result) => break token_of(Ok(result)),
            Err(e) => {
                let error = error_json(Err(e));
                assert_eq!(error, store_down_error(), "only the store error while Redis reconnects");
                assert!(Instant::now() < deadline, "no recovery within 10 s");
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(error_json(deploy(&a, Some(&pending)).await), replay_error(), "recorded once Redis was back");
    let _ = token_of(deploy(&a, Some(&next)).await);
    let _ = token_of(deploy(&a, Some(&fresh)).await);
    assert_eq!(error_json(deploy(&b, Some(&fresh)).await), replay_error());
}

fn now_ms() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("after 1970");
    u64::try_from(now.as_millis()).expect("in range")
}

// --- Several instances: the change bus, leases, cancellation across instances -----------

/// How many steps `grind` took, per instance.
#[derive(Clone, Default)]
struct Steps(Arc<std::sync::atomic::AtomicUsize>);

impl Steps {
    fn count(&self) -> usize {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Works until stopped, counting its steps.
#[mcp::tool(task = "required")]
async fn grind(steps: mcp::State<Steps>) -> String {
    let Steps(count) = &*steps;
    loop {
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// One instance of a server sharing `redis` with the others: its tasks, and its changes
/// when `bus` is set.
fn instance(redis: &RedisServer, worker: &str, lease: Duration, steps: &Steps, bus: bool) -> mcp::Server {
    let store =
        RedisTaskStore::with_options(&redis.url(), "scale:task:", Duration::from_millis(500)).expect("a valid url");
    let tasks = mcp::tasks::TaskConfig::builder().store(store).lease(lease).worker_id(worker).build();
    let mut builder = mcp::Server::builder("scale", "1.0.0").state(steps.clone()).tool::<grind>().tasks(tasks);
    if bus {
        let bus = mcp::bus::RedisChangeBus::with_channel(&redis.url(), "scale:bus").expect("a valid url");
        builder = builder.change_bus(bus);
    }
    builder.build()
}

fn with_tasks() -> serde_json::Value {
    serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

async fn request(
    server: &mcp::Server,
    method: &str,
    mut params: serde_json::Value,
) -> Result<serde_json::Value, mcp::Error> {
    params["_meta"] = support::meta(&with_tasks());
    support::within(method, support::dispatch_as(server, method, params, None)).await
}

/// Start `grind` on `server`: its task id.
async fn start_grinding(server: &mcp::Server) -> String {
    let created =
        request(server, "tools/call", serde_json::json!({"name": "grind", "arguments": {}})).await.expect("a task");
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"].as_str().expect("an id").to_owned()
}

async fn status(server: &mcp::Server, id: &str) -> serde_json::Value {
    request(server, "tasks/get", serde_json::json!({"taskId": id})).await.expect("tasks/get")
}

/// Poll `id` through `server` until `wanted`: the task, and how long it took.
async fn reach(server: &mcp::Server, id: &str, wanted: &str) -> (serde_json::Value, Duration) {
    let started = Instant::now();
    support::within(wanted, async {
        loop {
            let task = status(server, id).await;
            if task["status"] == wanted {
                return (task, started.elapsed());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
}

/// Wait until `steps` stop advancing (the work stopped): false if they still advance
/// after `within`.
async fn stops(steps: &Steps, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut last = steps.count();
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = steps.count();
        if now == last {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        last = now;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_cancelled_through_another_instance_stops_its_work_over_the_bus() {
    let Some(redis) = RedisServer::start() else { return };
    let (steps_a, steps_b) = (Steps::default(), Steps::default());
    // A long lease: only the bus can stop the work quickly.
    let a = instance(&redis, "instance-a", Duration::from_secs(30), &steps_a, true);
    let b = instance(&redis, "instance-b", Duration::from_secs(30), &steps_b, true);
    tokio::time::sleep(Duration::from_millis(300)).await; // the bus subscribes
    let id = start_grinding(&a).await;
    let (task, _) = reach(&b, &id, "working").await;
    assert_eq!(task["taskId"], id.as_str(), "instance B reads instance A's task");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(steps_a.count() > 0, "the work runs on A");
    request(&b, "tasks/cancel", serde_json::json!({"taskId": id})).await.expect("cancelled through B");
    assert!(stops(&steps_a, Duration::from_secs(2)).await, "A's work stopped within 2 s of the cancel through B");
    assert_eq!(status(&a, &id).await["status"], "cancelled");
    assert_eq!(steps_b.count(), 0, "B never ran it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_bus_the_lease_renewal_still_finds_the_cancel() {
    let Some(redis) = RedisServer::start() else { return };
    let steps = Steps::default();
    let a = instance(&redis, "instance-a", Duration::from_millis(600), &steps, false);
    let b = instance(&redis, "instance-b", Duration::from_millis(600), &Steps::default(), false);
    let id = start_grinding(&a).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    request(&b, "tasks/cancel", serde_json::json!({"taskId": id})).await.expect("cancelled through B");
    // A renews every 200 ms; the renewal sees the cancel.
    assert!(stops(&steps, Duration::from_secs(2)).await, "A's work stopped after its next renewal");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_task_keeps_its_lease_and_a_lost_worker_fails_its_task() {
    let Some(redis) = RedisServer::start() else { return };
    let lease = Duration::from_millis(300);
    let steps = Steps::default();
    let a = instance(&redis, "instance-a", lease, &steps, false);
    let b = instance(&redis, "instance-b", lease, &Steps::default(), false);
    let id = start_grinding(&a).await;
    // Five leases later the live worker still holds it: B sees it working.
    tokio::time::sleep(lease * 5).await;
    assert_eq!(status(&b, &id).await["status"], "working", "a renewed lease keeps the task");

    // A worker that died: its task's lease ran out and nobody renews it.
    let store = RedisTaskStore::with_options(&redis.url(), "scale:task:", Duration::from_millis(500)).expect("url");
    let until = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_millis();
    let orphan = TaskRecord::new("orphan-1".into(), None, Some(60_000), Some(100))
        .with_lease("instance-c", u64::try_from(until).expect("ms") + 300);
    store.create(orphan).await.expect("created");
    let (task, after) = reach(&b, "orphan-1", "failed").await;
    assert!(after < lease * 3 + Duration::from_secs(1), "failed within the bound: {after:?}");
    let message = task["error"]["message"].as_str().expect("an error message");
    assert!(message.contains("instance-c"), "the error names the lost worker: {message}");
    assert_eq!(task["error"]["data"]["worker"], "instance-c");
    assert_eq!(task["error"]["code"], -32603);
    // Failing is final: the same answer from either instance.
    assert_eq!(status(&a, "orphan-1").await["status"], "failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_on_one_instance_reaches_listeners_on_another_and_survives_a_redis_restart() {
    let Some(mut redis) = RedisServer::start() else { return };
    let steps = Steps::default();
    let a = instance(&redis, "instance-a", Duration::from_secs(10), &steps, true);
    let b = instance(&redis, "instance-b", Duration::from_secs(10), &steps, true);
    let mut heard = b.subscribe_changes();
    // Announce until B hears it: the bus subscribes in the background.
    let first = support::within("B hears A's change", async {
        loop {
            a.notify_resource_updated("db://orders");
            if let Ok(Ok(change)) = tokio::time::timeout(Duration::from_millis(200), heard.recv()).await {
                return change;
            }
        }
    })
    .await;
    assert_eq!(first, mcp::handler::Change::ResourceUpdated("db://orders".into()));

    // Redis down: A's own listeners still hear A's changes, nothing waits on Redis.
    redis.stop();
    let mut heard_on_a = a.subscribe_changes();
    let started = Instant::now();
    a.notify_prompts_list_changed();
    let change = support::within("A hears itself", async {
        loop {
            match heard_on_a.recv().await {
                // A late copy of one of the announcements above, which the bus had already
                // taken from Redis: it may still arrive after the subscription.
                Ok(mcp::handler::Change::ResourceUpdated(uri)) if uri == "db://orders" => {}
                other => return other,
            }
        }
    })
    .await
    .expect("a change");
    assert_eq!(change, mcp::handler::Change::Prompts);
    assert!(started.elapsed() < Duration::from_secs(5), "the fallback is bounded by the publish timeout");

    // Redis back: B resubscribes, is told every list may have changed, and hears A again.
    redis.restart();
    let mut heard_after = b.subscribe_changes();
    support::within("B hears A after the restart", async {
        loop {
            a.notify_resource_updated("db://after");
            match tokio::time::timeout(Duration::from_millis(300), heard_after.recv()).await {
                Ok(Ok(mcp::handler::Change::ResourceUpdated(uri))) if uri == "db://after" => return,
                _ => {}
            }
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_hears_that_a_task_lost_its_worker_without_anyone_polling() {
    let Some(redis) = RedisServer::start() else { return };
    let lease = Duration::from_millis(300);
    let b = instance(&redis, "instance-b", lease, &Steps::default(), false);
    let store = RedisTaskStore::with_options(&redis.url(), "scale:task:", Duration::from_millis(500)).expect("url");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_millis();
    let orphan = TaskRecord::new("orphan-2".into(), None, Some(60_000), Some(100))
        .with_lease("instance-d", u64::try_from(now).expect("ms") + 400);
    store.create(orphan).await.expect("created");

    let params = serde_json::json!({"notifications": {"taskIds": ["orphan-2"]}, "_meta": support::meta(&with_tasks())});
    let message = serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "subscriptions/listen", "params": params});
    let Ok(mcp::protocol::JsonRpcMessage::Request(listen)) = mcp::protocol::decode_message(&message.to_string()) else {
        panic!("a request")
    };
    let (sender, mut frames) = tokio::sync::mpsc::channel(16);
    let stream = tokio::spawn({
        let b = b.clone();
        async move { b.handle_request_as(&Arc::new(mcp::handler::Session::new()), listen, sender, None).await }
    });
    let started = Instant::now();
    let failed = support::within("the failure is told", async {
        loop {
            let frame = frames.recv().await.expect("a frame");
            let frame: serde_json::Value = serde_json::from_str(&frame).expect("JSON");
            if frame["method"] == "notifications/tasks" && frame["params"]["status"] == "failed" {
                return frame;
            }
        }
    })
    .await;
    assert!(
        started.elapsed() < lease * 3 + Duration::from_millis(400),
        "told within the bound: {:?}",
        started.elapsed()
    );
    let message = failed["params"]["error"]["message"].as_str().expect("an error");
    assert!(message.contains("instance-d"), "{message}");
    stream.abort();
}
