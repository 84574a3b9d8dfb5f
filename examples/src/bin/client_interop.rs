//! Interop check, the other way round: our client (`mcp::client::Client`) drives the MCP
//! Python SDK's server (`interop/python_server.py`, "PyProvisioner", mcp==2.3.0).
//!
//! `client_interop --python PATH/TO/VENV/bin/python --server interop/python_server.py`
//!
//! Four combinations: stdio (the client spawns `PYTHON SERVER stdio`) and Streamable HTTP
//! (`PYTHON SERVER http 127.0.0.1:PORT`, started here and killed at the end), each in
//! [`Mode::Auto`] (must negotiate 2026-07-28: the questions come back as
//! `InputRequiredResult`s and the client retries) and [`Mode::Legacy`] (2025-11-25: the
//! questions arrive as server-to-client requests). The same callbacks answer both; they
//! record what they were asked, and the run compares the exact texts. One line per check;
//! the first failure stops the run with exit code 1.

use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp::client::{Asker, CallOptions, Client, ClientBuilder, ClientError, Mode};
use mcp::protocol::{
    CallToolResult, ContentBlock, CreateMessageParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    InputRequest, InputResponse, InputResponses, JsonObject, ListRootsResult, OneOrMany, Outcome, Role, Root,
    SamplingContent, TextContent,
};
use serde_json::{Value, json};
use tokio::process::{Child, Command};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const REGION: &str = "eu-west-1";
const REGION_QUESTION: &str = "Which region should orders live in?";
const SAMPLING_PROMPT: &str = "Suggest a database name for billing.";
const SAMPLED_NAME: &str = "orders_db";
const ROOTS: [&str; 2] = ["file:///ws/alpha", "file:///ws/beta"];
const TOOLS: [&str; 4] = ["list_workspaces", "plain_echo", "provision", "suggest_name"];

/// A limit for each call and for connecting (a hang fails the run instead of stalling CI).
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the HTTP server may take to accept connections.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// A failed check: what was expected and what came back.
type Checked<T> = Result<T, String>;

static PASSED: AtomicUsize = AtomicUsize::new(0);

fn ok(combo: &str, what: &str) {
    let n = PASSED.fetch_add(1, Ordering::Relaxed) + 1;
    println!("ok {n} [{combo}] {what}");
}

/// Pass (and print) the check when `holds`, else fail it with `detail`.
fn check(holds: bool, combo: &str, what: &str, detail: impl FnOnce() -> String) -> Checked<()> {
    if holds {
        ok(combo, what);
        Ok(())
    } else {
        Err(format!("[{combo}] {what}: {}", detail()))
    }
}

/// Await a client call; an error (or the timeout) fails the check.
async fn attempt<T>(combo: &str, what: &str, call: impl Future<Output = Result<T, ClientError>>) -> Checked<T> {
    match tokio::time::timeout(CALL_TIMEOUT, call).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(format!("[{combo}] {what}: client error: {e}")),
        Err(_) => Err(format!("[{combo}] {what}: no answer within {CALL_TIMEOUT:?}")),
    }
}

// --- the callbacks -------------------------------------------------------------------------

/// What the callbacks were asked, in order.
#[derive(Debug, Default)]
struct Seen {
    /// Who asked, the message, and the form's field names.
    elicitations: Vec<(Asker, String, Vec<String>)>,
    /// Who asked, the user messages' text, and `maxTokens`.
    samplings: Vec<(Asker, String, u64)>,
    roots: Vec<Asker>,
}

impl Seen {
    fn total(&self) -> usize {
        self.elicitations.len() + self.samplings.len() + self.roots.len()
    }
}

/// The callbacks' shared state: what they saw, and whether to decline the next elicitation.
#[derive(Default)]
struct Recorder {
    decline: AtomicBool,
    seen: Mutex<Seen>,
}

impl Recorder {
    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn region_answer() -> JsonObject {
    let mut content = JsonObject::new();
    content.insert("region".into(), Value::String(REGION.into()));
    content
}

fn user_text(params: &CreateMessageParams) -> String {
    params
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| m.content.as_slice())
        .filter_map(|c| if let SamplingContent::Text(t) = c { Some(t.text.as_str()) } else { None })
        .collect()
}

/// A builder whose elicitation, sampling and roots callbacks answer as the checks expect
/// and record every question in `recorder`.
fn builder(recorder: &Arc<Recorder>, mode: Mode) -> ClientBuilder {
    let (for_elicit, for_sample, for_roots) = (Arc::clone(recorder), Arc::clone(recorder), Arc::clone(recorder));
    Client::builder()
        .client_info("client-interop", env!("CARGO_PKG_VERSION"))
        .mode(mode)
        .timeout(CALL_TIMEOUT)
        .elicitation(move |asker: Asker, params: ElicitRequestParams| {
            let recorder = Arc::clone(&for_elicit);
            async move {
                let fields = match &params {
                    ElicitRequestParams::Form(form) => form.requested_schema.properties.keys().cloned().collect(),
                    ElicitRequestParams::Url(_) => Vec::new(),
                };
                recorder.seen().elicitations.push((asker, params.message().to_owned(), fields));
                if recorder.decline.load(Ordering::SeqCst) {
                    Ok(ElicitResult::decline())
                } else {
                    Ok(ElicitResult::accept(region_answer()))
                }
            }
        })
        .sampling(move |asker: Asker, params: CreateMessageParams| {
            let recorder = Arc::clone(&for_sample);
            async move {
                recorder.seen().samplings.push((asker, user_text(&params), params.max_tokens));
                Ok(CreateMessageResult {
                    role: Role::Assistant,
                    content: OneOrMany::One(SamplingContent::Text(TextContent {
                        text: SAMPLED_NAME.into(),
                        ..Default::default()
                    })),
                    model: "client-interop-model".into(),
                    stop_reason: Some("endTurn".into()),
                    meta: None,
                })
            }
        })
        .roots(move |asker: Asker| {
            let recorder = Arc::clone(&for_roots);
            async move {
                recorder.seen().roots.push(asker);
                let roots = ROOTS.iter().map(|uri| Root { uri: (*uri).into(), name: None, meta: None }).collect();
                Ok(ListRootsResult { roots, meta: None })
            }
        })
}

// --- the server processes ------------------------------------------------------------------

/// Where a server process writes its stderr (shown when a check fails).
struct ServerLog {
    path: PathBuf,
}

impl ServerLog {
    fn create(name: &str) -> Checked<(Self, std::fs::File)> {
        let path = std::env::temp_dir().join(format!("client-interop-{}-{name}.log", std::process::id()));
        let file = std::fs::File::create(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok((ServerLog { path }, file))
    }

    /// The last lines the server logged, for a failure message.
    fn tail(&self) -> String {
        let text = std::fs::read_to_string(&self.path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.len().saturating_sub(15);
        if lines.is_empty() {
            return "(the server wrote nothing to stderr)".into();
        }
        format!("the server's stderr, last lines:\n    {}", lines[start..].join("\n    "))
    }
}

impl Drop for ServerLog {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Add the server's log to a failure.
fn with_log<T>(result: Checked<T>, log: &ServerLog) -> Checked<T> {
    result.map_err(|e| format!("{e}\n  {}", log.tail()))
}

/// The Python server over HTTP; killed when dropped (also when a check fails).
struct HttpServer {
    child: Child,
    url: String,
    log: ServerLog,
}

fn free_port() -> Checked<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| format!("no free port: {e}"))
}

impl HttpServer {
    async fn start(python: &Path, server: &Path) -> Checked<Self> {
        let port = free_port()?;
        let address = format!("127.0.0.1:{port}");
        let (log, stderr) = ServerLog::create("http")?;
        let child = Command::new(python)
            .arg(server)
            .args(["http", &address])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {} {} http {address}: {e}", python.display(), server.display()))?;
        let mut this = HttpServer { child, url: format!("http://{address}/mcp"), log };
        let started = Instant::now();
        loop {
            if tokio::net::TcpStream::connect(&address).await.is_ok() {
                return Ok(this);
            }
            if let Ok(Some(status)) = this.child.try_wait() {
                return Err(format!("the HTTP server exited before serving ({status})\n  {}", this.log.tail()));
            }
            if started.elapsed() > STARTUP_TIMEOUT {
                return Err(format!(
                    "the HTTP server did not accept connections on {address} within {STARTUP_TIMEOUT:?}\n  {}",
                    this.log.tail()
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

// --- the checks ----------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Era {
    Auto,
    Legacy,
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| if let ContentBlock::Text(t) = c { Some(t.text.as_str()) } else { None })
        .collect()
}

/// Whether `asker` is what the era sends: an input-request key ending in `key_suffix`
/// (2026-07-28), or a server-to-client request (2025-11-25).
fn asked_by(era: Era, asker: &Asker, key_suffix: &str) -> bool {
    match (era, asker) {
        (Era::Auto, Asker::InputRequest(key)) => key.ends_with(key_suffix),
        (Era::Legacy, Asker::ServerRequest(_)) => true,
        _ => false,
    }
}

/// Call a tool (the client answers the questions) and compare the text exactly.
async fn expect_text(client: &Client, combo: &str, tool: &str, arguments: Value, want: &str) -> Checked<()> {
    let what = format!("{tool} {arguments}");
    let result = attempt(combo, &what, client.call_tool(tool, arguments)).await?;
    let got = text_of(&result);
    check(got == want && result.is_error != Some(true), combo, &format!("{what} -> {want:?}"), || {
        format!("expected {want:?}, got {got:?} (isError {:?})", result.is_error)
    })
}

/// Every check of one combination on a connected client.
async fn run_checks(client: &Client, recorder: &Recorder, era: Era, combo: &str) -> Checked<()> {
    let want_version = if era == Era::Auto { MODERN } else { LEGACY };
    let version = client.protocol_version();
    check(version == want_version, combo, &format!("negotiated {want_version}"), || {
        format!("the client negotiated {version}")
    })?;
    let server = client.server_info().map(|i| i.name.clone());
    check(server.as_deref() == Some("PyProvisioner"), combo, "server info names PyProvisioner", || {
        format!("server info {server:?}")
    })?;

    let tools = attempt(combo, "tools/list", client.list_tools()).await?;
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    check(names == TOOLS, combo, &format!("tools/list -> {}", TOOLS.join(", ")), || format!("got {names:?}"))?;

    // provision: one elicitation.
    expect_text(client, combo, "provision", json!({"name": "orders"}), "Provisioned 'orders' in eu-west-1.").await?;
    let seen = recorder.seen().elicitations.clone();
    let holds = matches!(seen.as_slice(), [(asker, message, fields)]
        if asked_by(era, asker, "ask_region") && message == REGION_QUESTION && fields == &["region"]);
    check(holds, combo, &format!("elicitation asked {REGION_QUESTION:?} for `region`"), || {
        format!("the elicitation callback saw {seen:?}")
    })?;

    // suggest_name: one sampling request.
    expect_text(client, combo, "suggest_name", json!({"topic": "billing"}), "Suggested: orders_db").await?;
    let seen = recorder.seen().samplings.clone();
    let holds = matches!(seen.as_slice(), [(asker, text, 50)]
        if asked_by(era, asker, "sample_name") && text == SAMPLING_PROMPT);
    check(holds, combo, &format!("sampling asked {SAMPLING_PROMPT:?} with maxTokens 50"), || {
        format!("the sampling callback saw {seen:?}")
    })?;

    // list_workspaces: one roots/list.
    let want = format!("Roots: {}", ROOTS.join(", "));
    expect_text(client, combo, "list_workspaces", json!({}), &want).await?;
    let seen = recorder.seen().roots.clone();
    let holds = matches!(seen.as_slice(), [asker] if asked_by(era, asker, "client_roots"));
    check(holds, combo, "roots/list asked once", || format!("the roots callback saw {seen:?}"))?;

    // plain_echo: no questions at all.
    let before = recorder.seen().total();
    expect_text(client, combo, "plain_echo", json!({"text": "hi there"}), "Echo: hi there").await?;
    let after = recorder.seen().total();
    check(after == before, combo, "plain_echo asked nothing", || format!("{} callback(s) ran", after - before))?;

    // A declined elicitation is a tool error, not a protocol error.
    recorder.decline.store(true, Ordering::SeqCst);
    let declined =
        attempt(combo, "provision (declined)", client.call_tool("provision", json!({"name": "orders"}))).await;
    recorder.decline.store(false, Ordering::SeqCst);
    let declined = declined?;
    let text = text_of(&declined);
    check(
        declined.is_error == Some(true) && text.contains("decline"),
        combo,
        "provision, elicitation declined -> isError",
        || format!("expected isError with a text naming the decline, got isError {:?}, {text:?}", declined.is_error),
    )?;
    let asked = recorder.seen().elicitations.len();
    check(asked == 2, combo, "the declined call asked once", || format!("{asked} elicitations in all, expected 2"))?;

    if era == Era::Auto {
        manual_rounds(client, recorder, combo).await?;
    } else {
        // In a session the questions travel on the back-channel, so one round completes.
        let outcome = attempt(
            combo,
            "call_tool_once provision",
            client.call_tool_once("provision", json!({"name": "orders"}), CallOptions::default()),
        )
        .await?;
        let got = match &outcome {
            Outcome::Complete(result) => text_of(result),
            Outcome::InputRequired(asked) => format!("input_required {asked:?}"),
            Outcome::Task(task) => format!("a task {}", task.task.status),
        };
        check(
            got == "Provisioned 'orders' in eu-west-1.",
            combo,
            "call_tool_once provision completes in one round",
            || format!("got {got}"),
        )?;
    }
    Ok(())
}

/// The manual API under 2026-07-28: one round at a time, the caller answers.
async fn manual_rounds(client: &Client, recorder: &Recorder, combo: &str) -> Checked<()> {
    let arguments = json!({"name": "orders"});
    let before = recorder.seen().total();
    let first = attempt(
        combo,
        "call_tool_once provision",
        client.call_tool_once("provision", arguments.clone(), CallOptions::default()),
    )
    .await?;
    let asked = match first {
        Outcome::InputRequired(asked) => asked,
        Outcome::Task(task) => {
            return Err(format!(
                "[{combo}] call_tool_once provision: expected input_required, got a task {}",
                task.task.status
            ));
        }
        Outcome::Complete(result) => {
            return Err(format!(
                "[{combo}] call_tool_once provision: expected input_required, got a result {:?}",
                text_of(&result)
            ));
        }
    };
    let state = asked.request_state.clone().unwrap_or_default();
    check(
        state.starts_with("v1."),
        combo,
        "call_tool_once provision -> input_required with a v1. requestState",
        || format!("requestState {:?}", asked.request_state),
    )?;
    let requests = asked.input_requests.clone().unwrap_or_default();
    let key = match requests.iter().next() {
        Some((key, InputRequest::Elicit(params)))
            if requests.len() == 1 && key.ends_with("ask_region") && params.message() == REGION_QUESTION =>
        {
            key.clone()
        }
        _ => String::new(),
    };
    check(!key.is_empty(), combo, &format!("one input request, an elicitation under {key:?}"), || {
        format!("input requests {requests:?}")
    })?;
    let after = recorder.seen().total();
    check(after == before, combo, "call_tool_once left the callbacks alone", || {
        format!("{} callback(s) ran", after - before)
    })?;

    let mut responses = InputResponses::new();
    responses.insert(key, InputResponse::Elicit(ElicitResult::accept(region_answer())));
    let retry = CallOptions { input_responses: Some(responses), request_state: Some(state), ..CallOptions::default() };
    let second =
        attempt(combo, "call_tool_once provision (retry)", client.call_tool_once("provision", arguments, retry))
            .await?;
    let got = match &second {
        Outcome::Complete(result) if result.is_error != Some(true) => text_of(result),
        Outcome::Complete(result) => format!("isError: {}", text_of(result)),
        Outcome::InputRequired(asked) => format!("input_required again: {asked:?}"),
        Outcome::Task(task) => format!("a task {}", task.task.status),
    };
    check(
        got == "Provisioned 'orders' in eu-west-1.",
        combo,
        "retry with the answer and requestState -> complete",
        || format!("got {got}"),
    )
}

async fn connect(builder: ClientBuilder, combo: &str, target: Target<'_>) -> Checked<Client> {
    let what = "connect";
    match target {
        Target::Stdio(command) => attempt(combo, what, builder.connect_stdio(command)).await,
        Target::Http(url) => attempt(combo, what, builder.connect_http(url)).await,
    }
}

enum Target<'a> {
    Stdio(&'a mut Command),
    Http(&'a str),
}

fn era_mode(era: Era) -> (Mode, &'static str) {
    match era {
        Era::Auto => (Mode::Auto, "auto"),
        Era::Legacy => (Mode::Legacy, "legacy"),
    }
}

async fn stdio_combo(python: &Path, server: &Path, era: Era) -> Checked<()> {
    let (mode, name) = era_mode(era);
    let combo = format!("stdio {name}");
    let (log, stderr) = ServerLog::create(&format!("stdio-{name}"))?;
    let mut command = Command::new(python);
    command.arg(server).arg("stdio").stderr(stderr);
    let recorder = Arc::new(Recorder::default());
    let result = async {
        // The client owns the child (killed when the client is dropped).
        let client = connect(builder(&recorder, mode), &combo, Target::Stdio(&mut command)).await?;
        run_checks(&client, &recorder, era, &combo).await
    }
    .await;
    with_log(result, &log)
}

async fn http_combo(server: &HttpServer, era: Era) -> Checked<()> {
    let (mode, name) = era_mode(era);
    let combo = format!("http {name}");
    let recorder = Arc::new(Recorder::default());
    let result = async {
        let client = connect(builder(&recorder, mode), &combo, Target::Http(&server.url)).await?;
        run_checks(&client, &recorder, era, &combo).await
    }
    .await;
    with_log(result, &server.log)
}

async fn run(python: &Path, server: &Path) -> Checked<()> {
    for era in [Era::Auto, Era::Legacy] {
        stdio_combo(python, server, era).await?;
    }
    let http = HttpServer::start(python, server).await?;
    for era in [Era::Auto, Era::Legacy] {
        // On failure `http` is dropped here, which kills the server.
        http_combo(&http, era).await?;
    }
    http.stop().await;
    Ok(())
}

const USAGE: &str = "usage: client_interop --python PATH/TO/VENV/bin/python --server interop/python_server.py";

fn parse_args() -> Result<(PathBuf, PathBuf), String> {
    let (mut python, mut server) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().map(PathBuf::from).ok_or_else(|| format!("{flag} needs a value\n{USAGE}"));
        match flag.as_str() {
            "--python" => python = Some(value()?),
            "--server" => server = Some(value()?),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    match (python, server) {
        (Some(python), Some(server)) => Ok((python, server)),
        _ => Err(USAGE.into()),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    // Logs, and OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set.
    mcp_examples::with_telemetry("client_interop", run_main()).await
}

async fn run_main() -> ExitCode {
    let (python, server) = match parse_args() {
        Ok(paths) => paths,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    if !server.is_file() {
        eprintln!("client_interop: no server script at {}", server.display());
        return ExitCode::from(2);
    }
    match run(&python, &server).await {
        Ok(()) => {
            println!("rust client interop: {} checks passed", PASSED.load(Ordering::Relaxed));
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("FAILED {message}");
            eprintln!("rust client interop: failed after {} checks passed", PASSED.load(Ordering::Relaxed));
            ExitCode::FAILURE
        }
    }
}
