//! The provisioner: tools that ask the user through resolvers, a prompt and a resource
//! template that ask with hand-built `InputRequiredResult`s, and a backup that runs as a
//! task (`backup_database`).
//!
//! Under 2026-07-28 every question goes back to the client in an `InputRequiredResult`
//! and the call finishes on the retry, from sealed state; in a 2025-11-25 session the
//! same resolvers ask through server-to-client requests.
//!
//! This server is a contract: the Python interop script, the demo and the multi-instance
//! tests rely on its names, questions and texts exactly.

use std::time::Duration;

use mcp::protocol::{
    ElicitAction, ElicitRequestParams, ElicitationSchema, GetPromptOutcome, GetPromptResult, InputRequest,
    InputRequiredResult, PromptMessage, ReadResourceOutcome, ReadResourceResult, ResourceContents,
    TextResourceContents,
};
use mcp::resolve::{Elicit, ElicitForm, ListRoots, Sample};
use mcp::tasks::TaskConfig;
use mcp::{Context, Error, Resolve, Server};

/// Where a database lives.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
pub struct Region {
    /// Cloud region, e.g. eu-west-1.
    pub region: String,
}

/// How big a cluster is.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
pub struct Size {
    /// Storage in GB.
    pub size_gb: u32,
}

/// A yes or no.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
pub struct Confirm {
    /// Go ahead?
    pub ok: bool,
}

/// Who a briefing is for.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
pub struct Audience {
    /// The readers.
    pub audience: String,
}

/// Clusters at least this big need a confirmation.
pub const CONFIRM_FROM_GB: u32 = 100;

/// Asks where to put the database.
#[mcp::resolver]
pub fn ask_region() -> Elicit<Region> {
    Elicit::new("Which region should the database live in?")
}

/// Provision a database. Asks which region to put it in.
#[mcp::tool(annotations(destructive = false, idempotent = true), scopes = ["db:write"])]
pub fn provision(
    /// The database's name.
    name: String,
    region: Resolve<ask_region>,
) -> String {
    format!("Provisioned '{name}' in {}.", region.region)
}

/// Asks where to put the cluster.
///
/// Resolver bodies run again on every round, so this one also logs (INFO) each round this
/// process serves: the cluster's name and how many answers the request carried (0 on the
/// first round). Nothing else: the answers and the request state stay out of the log.
/// `scripts/lb.sh` counts these lines to see which instance served which round.
#[mcp::resolver]
pub fn ask_cluster_region(name: &str, ctx: &Context) -> Elicit<Region> {
    let answers = ctx.input_responses().map_or(0, |responses| responses.len());
    tracing::info!(cluster = %name, answers, "provision_cluster round");
    Elicit::new(format!("Which region should {name} live in?"))
}

/// Asks how big the cluster should be.
#[mcp::resolver]
pub fn ask_cluster_size(name: &str) -> Elicit<Size> {
    Elicit::new(format!("How many GB should {name} have?"))
}

/// Big clusters need a yes; small ones go ahead without asking.
#[mcp::resolver]
pub fn confirm_cluster(region: Resolve<ask_cluster_region>, size: Resolve<ask_cluster_size>) -> Elicit<Confirm> {
    if size.size_gb < CONFIRM_FROM_GB {
        return Elicit::answered(Confirm { ok: true });
    }
    Elicit::new(format!("Provision {} GB in {}: sure?", size.size_gb, region.region))
}

/// Provision a cluster. Asks for its region and size together, then, for 100 GB or
/// more, for a confirmation.
#[mcp::tool(annotations(destructive = false), scopes = ["db:write"])]
pub fn provision_cluster(
    /// The cluster's name.
    name: String,
    region: Resolve<ask_cluster_region>,
    size: Resolve<ask_cluster_size>,
    confirm: Resolve<confirm_cluster>,
) -> Result<String, String> {
    if !confirm.ok {
        return Err(format!("Not provisioned: {} GB in {} was not confirmed.", size.size_gb, region.region));
    }
    Ok(format!("Provisioned cluster '{name}' ({} GB) in {}.", size.size_gb, region.region))
}

/// The longest backup `backup_database` runs, in seconds.
pub const MAX_BACKUP_SECONDS: u64 = 600;
/// How long a backup runs when the call does not say, in seconds.
pub const DEFAULT_BACKUP_SECONDS: u64 = 3;
/// One backup step: progress is reported, and logged, once a step.
pub const BACKUP_STEP: Duration = Duration::from_millis(500);

/// Back up a database: `seconds` of work, step by step. A task when the client supports
/// them (an ordinary call otherwise): each step shows in the task's status message
/// (`backing up NAME: step K/N`), and a cancelled backup stops before its next step. A
/// `seconds` out of range is a tool error (`isError`), which the model can correct.
///
/// Each step is also logged (INFO: the database, the task and the step), so that
/// `scripts/scaleout.sh` can tell that a cancelled backup's work really stopped.
#[mcp::tool(task = "optional", annotations(destructive = false), scopes = ["db:write"])]
pub async fn backup_database(
    /// The database's name.
    name: String,
    /// How long the backup takes, in seconds: 1 to 600, 3 when not given.
    seconds: Option<u64>,
    ctx: Context,
) -> Result<String, String> {
    let seconds = seconds.unwrap_or(DEFAULT_BACKUP_SECONDS);
    if !(1..=MAX_BACKUP_SECONDS).contains(&seconds) {
        return Err(format!("seconds must be 1 to {MAX_BACKUP_SECONDS}, not {seconds}."));
    }
    let steps = Duration::from_secs(seconds).as_millis().div_ceil(BACKUP_STEP.as_millis());
    let task = ctx.task();
    let id = task.map_or("", |task| task.id());
    for step in 1..=steps {
        match task {
            Some(task) => {
                tokio::select! {
                    () = task.cancelled() => break,
                    () = tokio::time::sleep(BACKUP_STEP) => {}
                }
                if task.is_cancelled() {
                    break;
                }
                task.set_status_message(format!("backing up {name}: step {step}/{steps}")).await;
            }
            None => tokio::time::sleep(BACKUP_STEP).await,
        }
        tracing::info!(database = %name, task = %id, step, steps, "backup step");
    }
    if task.is_some_and(|task| task.is_cancelled()) {
        tracing::info!(database = %name, task = %id, "backup cancelled");
        return Err(format!("The backup of '{name}' was cancelled."));
    }
    Ok(format!("Backed up '{name}' in {seconds}s."))
}

/// Asks the client's model for a name.
#[mcp::resolver]
pub fn sample_name(topic: &str) -> Sample {
    Sample::user(format!("Suggest a database name for {topic}."), 50)
}

/// Suggest a database name for a topic, asking the client's model.
#[mcp::tool(annotations(read_only = true), scopes = ["db:read"])]
pub fn suggest_name(
    /// What the database is about.
    topic: String,
    suggestion: Resolve<sample_name>,
) -> String {
    let _ = topic;
    format!("Suggested: {}", suggestion.text())
}

/// Asks for the client's roots.
#[mcp::resolver]
pub fn workspace_roots() -> ListRoots {
    ListRoots::new()
}

/// List the workspaces (the client's roots).
#[mcp::tool(annotations(read_only = true), scopes = ["db:read"])]
pub fn list_workspaces(roots: Resolve<workspace_roots>) -> String {
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    format!("Roots: {}", uris.join(", "))
}

/// The answer to the hand-built question `key`: from this retry's answers to the questions
/// its sealed state asked (2026-07-28; `None` on the first round, and for an answer nobody
/// asked for), or asked over the back-channel right away in a 2025-11-25 session, which
/// has no `InputRequiredResult`.
async fn answer<T: ElicitForm>(
    ctx: &Context,
    key: &str,
    message: &str,
) -> Result<Option<Result<T, ElicitAction>>, Error> {
    let params = ElicitRequestParams::form(message, ElicitationSchema::clone(T::schema()));
    let answer = if ctx.is_legacy() {
        ctx.elicit(params).await?
    } else {
        match ctx.answers().get(key).and_then(|a| a.as_elicit()) {
            Some(answer) => answer.clone(),
            None => return Ok(None),
        }
    };
    Ok(Some(match (answer.action, answer.content) {
        (ElicitAction::Accept, Some(content)) => T::deserialize(serde_json::Value::Object(content))
            .map(Ok)
            .map_err(|_| Error::invalid_params("The answer does not match the question's schema."))?,
        (action, _) => Err(action),
    }))
}

fn ask<T: ElicitForm>(message: &str) -> InputRequest {
    InputRequest::Elicit(ElicitRequestParams::form(message, ElicitationSchema::clone(T::schema())))
}

/// A database's configuration as served (field order kept).
#[derive(serde::Serialize)]
struct DbConfig<'a> {
    name: &'a str,
    engine: &'a str,
}

const ASK_AUDIENCE: &str = "Who is the briefing for?";

/// A briefing, for an audience the prompt asks for.
#[mcp::prompt(scopes = ["db:read"])]
pub async fn briefing(ctx: Context) -> Result<GetPromptOutcome, Error> {
    match answer::<Audience>(&ctx, "audience", ASK_AUDIENCE).await? {
        Some(Ok(a)) => {
            Ok(GetPromptResult::new(vec![PromptMessage::user(format!("Write a briefing for {}.", a.audience))]).into())
        }
        Some(Err(_)) => Err(Error::invalid_params("The briefing needs an audience.")),
        None => {
            let ask = InputRequiredResult::ask("audience", ask::<Audience>(ASK_AUDIENCE)).with_state("briefing-v1");
            Ok(ctx.record_questions(ask).into())
        }
    }
}

/// A database's configuration, revealed only after the user agrees.
#[mcp::resource("db://{name}/config", mime_type = "application/json", scopes = ["db:read"])]
pub async fn db_config(ctx: Context, name: String) -> Result<ReadResourceOutcome, Error> {
    let uri = format!("db://{name}/config");
    let question = format!("Reveal the config of {name}?");
    match answer::<Confirm>(&ctx, "reveal", &question).await? {
        Some(Ok(Confirm { ok: true })) => {
            let text = serde_json::to_string(&DbConfig { name: &name, engine: "postgres" })
                .map_err(|e| Error::internal(e.to_string()))?;
            let contents = ResourceContents::Text(TextResourceContents {
                uri,
                mime_type: Some("application/json".into()),
                text,
                meta: None,
            });
            Ok(ReadResourceResult::new(vec![contents]).into())
        }
        Some(_) => Err(Error::invalid_params(format!("The config of {name} was not revealed."))),
        None => {
            let ask = InputRequiredResult::ask("reveal", ask::<Confirm>(&question)).with_state("db-config-v1");
            Ok(ctx.record_questions(ask).into())
        }
    }
}

/// The provisioner server without authentication (shared keys from
/// `MCP_REQUEST_STATE_KEYS` and the ttl from `MCP_REQUEST_STATE_TTL` when set, tasks in
/// Redis when `MCP_REDIS_URL` is set): its scoped items are open to unauthenticated
/// requests, as they were before scopes.
pub fn server() -> Server {
    build(false)
}

/// The provisioner server behind a token verifier: `provision`, `provision_cluster` and
/// `backup_database` need `db:write`; `suggest_name`, `list_workspaces`, `briefing` and `db://{name}/config`
/// need `db:read`, and a request without a token may use none of them.
pub fn authenticated_server() -> Server {
    build(true)
}

fn build(authenticated: bool) -> Server {
    let builder = Server::builder("Provisioner", env!("CARGO_PKG_VERSION"));
    crate::with_env_redis("provisioner", crate::with_env_keys(builder))
        .allow_scoped_items_without_auth(!authenticated)
        .tool::<provision>()
        .tool::<provision_cluster>()
        .tool::<suggest_name>()
        .tool::<list_workspaces>()
        .tool::<backup_database>()
        .tasks(crate::task_config_from_env(
            "provisioner",
            TaskConfig::builder().ttl(Duration::from_secs(600)).poll_interval(Duration::from_millis(250)),
        ))
        .prompt::<briefing>()
        .resource::<db_config>()
        .build()
}
