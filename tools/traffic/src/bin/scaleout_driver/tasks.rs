//! The task checks: polled and cancelled across instances, and the status of a task whose
//! instance was killed. Tasks are the provisioner's `backup_database`, whose instance logs
//! each 500 ms step with the task's id.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp::client::{CallOptions, Client};
use mcp::protocol::{CallToolResult, DetailedTask, Outcome, TaskStatus};
use serde_json::{Value, json};

use crate::{Report, bounded, connect, text_of};

/// The pause between two polls.
const POLL_EVERY: Duration = Duration::from_millis(100);

#[derive(Debug, clap::Args)]
pub(crate) struct Across {
    /// The instance that creates the task, `http://HOST:PORT/mcp`.
    #[arg(long)]
    create: String,
    /// The instance that polls it.
    #[arg(long)]
    poll: String,
    /// How long the backup runs, in seconds.
    #[arg(long, default_value_t = 2)]
    seconds: u64,
    /// The database's name.
    #[arg(long, default_value = "across")]
    name: String,
}

#[derive(Debug, clap::Args)]
pub(crate) struct CancelAcross {
    /// The instance that creates (and runs) the task.
    #[arg(long)]
    create: String,
    /// The instance that cancels it and polls it.
    #[arg(long)]
    cancel: String,
    /// The creating instance's log (RUST_LOG=info), where each step of the work shows.
    #[arg(long)]
    log: PathBuf,
    /// How long the backup would run, in seconds.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// How long the work may take to stop once the task shows `cancelled`, in ms.
    #[arg(long = "grace-ms", default_value_t = 750)]
    grace_ms: u64,
    /// How long after that no step may be logged, in ms (four steps' worth by default).
    #[arg(long = "settle-ms", default_value_t = 2000)]
    settle_ms: u64,
    /// The database's name.
    #[arg(long, default_value = "cancelled")]
    name: String,
}

#[derive(Debug, clap::Args)]
pub(crate) struct Start {
    /// The instance that creates (and runs) the task.
    #[arg(long)]
    url: String,
    /// How long the backup runs, in seconds.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// The database's name.
    #[arg(long, default_value = "long")]
    name: String,
}

#[derive(Debug, clap::Args)]
pub(crate) struct Status {
    /// The instance asked.
    #[arg(long)]
    url: String,
    /// The task's id.
    #[arg(long)]
    id: String,
    /// Poll until the task has this status (`working`, `completed`, `failed`, `cancelled`).
    #[arg(long)]
    until: Option<String>,
    /// How long to poll for it, in ms.
    #[arg(long = "timeout-ms", default_value_t = 10_000)]
    timeout_ms: u64,
    /// A failed task's error message must contain this (case-insensitive).
    #[arg(long = "error-contains")]
    error_contains: Option<String>,
}

/// Start a `backup_database` task; its id.
async fn create(client: &Client, name: &str, seconds: u64) -> Result<String, String> {
    let arguments = json!({ "name": name, "seconds": seconds });
    let call = client.call_tool_once("backup_database", arguments, CallOptions::default());
    match bounded(call, "tools/call backup_database").await? {
        Outcome::Task(created) => Ok(created.task.task_id),
        Outcome::Complete(result) => Err(format!("a result, not a task: {:?}", text_of(&result))),
        Outcome::InputRequired(_) => Err("input_required, not a task".into()),
    }
}

fn status_name(status: TaskStatus) -> String {
    match serde_json::to_value(status) {
        Ok(Value::String(name)) => name,
        _ => format!("{status}"),
    }
}

/// Poll `id` through `client` until `done` says so, for `timeout` at most: the task, and
/// every status message seen on the way.
async fn poll_until(
    client: &Client,
    id: &str,
    timeout: Duration,
    done: impl Fn(&DetailedTask) -> bool,
) -> Result<(DetailedTask, Vec<String>), String> {
    let started = Instant::now();
    let mut messages: Vec<String> = Vec::new();
    loop {
        let task = bounded(client.get_task(id), "tasks/get").await?;
        if let Some(message) = &task.task.status_message
            && messages.last() != Some(message)
        {
            messages.push(message.clone());
        }
        if done(&task) {
            return Ok((task, messages));
        }
        if started.elapsed() > timeout {
            return Err(format!(
                "still {} ({:?}) after {} ms",
                status_name(task.task.status),
                task.task.status_message.unwrap_or_default(),
                timeout.as_millis()
            ));
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
}

fn result_text(task: &DetailedTask) -> Result<String, String> {
    let result = task.result.clone().ok_or("a completed task without a result")?;
    let result: CallToolResult =
        serde_json::from_value(Value::Object(result)).map_err(|e| format!("malformed result: {e}"))?;
    Ok(text_of(&result))
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

pub(crate) async fn across(args: Across) -> Report {
    let mut report = Report::new("task-across");
    if let Err(why) = run_across(&args, &mut report).await {
        report.fail(why);
    }
    report
}

async fn run_across(args: &Across, report: &mut Report) -> Result<(), String> {
    let a = connect(&args.create, true).await?;
    let b = connect(&args.poll, true).await?;
    let started = Instant::now();
    let id = create(&a, &args.name, args.seconds).await?;
    report.set("task_id", &id);
    let timeout = Duration::from_secs(args.seconds + 10);
    let (task, messages) = poll_until(&b, &id, timeout, |t| t.task.status.is_terminal()).await?;
    report.set("status", status_name(task.task.status));
    report.set("elapsed_ms", ms(started.elapsed()));
    report.set("progress_seen", messages.len());
    report.set("last_message", &task.task.status_message);
    if task.task.status != TaskStatus::Completed {
        return Err(format!("ended {}: {:?}", status_name(task.task.status), task.error.map(|e| e.message)));
    }
    let text = result_text(&task)?;
    report.set("text", &text);
    let want = format!("Backed up '{}' in {}s.", args.name, args.seconds);
    if text != want {
        return Err(format!("result {text:?}, want {want:?}"));
    }
    Ok(())
}

/// Remove ANSI escape sequences (a colored log).
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// How many steps of task `id` the log shows.
fn steps_logged(log: &Path, id: &str) -> Result<usize, String> {
    let bytes = std::fs::read(log).map_err(|e| format!("reading {}: {e}", log.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let tag = format!("task={id}");
    Ok(text.lines().map(plain).filter(|line| line.contains("backup step") && line.contains(&tag)).count())
}

pub(crate) async fn cancel_across(args: CancelAcross) -> Report {
    let mut report = Report::new("cancel-across");
    if let Err(why) = run_cancel_across(&args, &mut report).await {
        report.fail(why);
    }
    report
}

async fn run_cancel_across(args: &CancelAcross, report: &mut Report) -> Result<(), String> {
    let a = connect(&args.create, true).await?;
    let b = connect(&args.cancel, true).await?;
    let id = create(&a, &args.name, args.seconds).await?;
    report.set("task_id", &id);
    // Running: its second step shows (through the cancelling instance, from the store).
    let running = |t: &DetailedTask| t.task.status_message.as_deref().is_some_and(|m| !m.contains("step 1/"));
    poll_until(&b, &id, Duration::from_secs(5), |t| running(t) || t.task.status.is_terminal()).await?;
    let before = steps_logged(&args.log, &id)?;
    if before == 0 {
        return Err(format!("no step of the task in {} (is RUST_LOG=info set?)", args.log.display()));
    }
    report.set("steps_before_cancel", before);
    let cancelled_at = Instant::now();
    bounded(b.cancel_task(&id), "tasks/cancel").await?;
    let (task, _) = poll_until(&b, &id, Duration::from_secs(5), |t| t.task.status.is_terminal()).await?;
    report.set("status", status_name(task.task.status));
    report.set("cancelled_after_ms", ms(cancelled_at.elapsed()));
    if task.task.status != TaskStatus::Cancelled {
        return Err(format!("ended {}, not cancelled", status_name(task.task.status)));
    }
    let seen_by_a = bounded(a.get_task(&id), "tasks/get on the creating instance").await?;
    report.set("status_on_creator", status_name(seen_by_a.task.status));
    if seen_by_a.task.status != TaskStatus::Cancelled {
        return Err(format!("the creating instance says {}", status_name(seen_by_a.task.status)));
    }
    tokio::time::sleep(Duration::from_millis(args.grace_ms)).await;
    let at_grace = steps_logged(&args.log, &id)?;
    tokio::time::sleep(Duration::from_millis(args.settle_ms)).await;
    let after = steps_logged(&args.log, &id)?;
    report.set("steps_within_grace", at_grace.saturating_sub(before));
    report.set("steps_after_grace", after.saturating_sub(at_grace));
    if after > at_grace {
        return Err(format!(
            "the work kept running on the creating instance: {} more steps logged in the {} ms after the cancel took \
             effect (+{} ms grace)",
            after - at_grace,
            args.settle_ms,
            args.grace_ms
        ));
    }
    Ok(())
}

pub(crate) async fn start(args: Start) -> Report {
    let mut report = Report::new("start-task");
    let started = async {
        let client = connect(&args.url, true).await?;
        create(&client, &args.name, args.seconds).await
    };
    match started.await {
        Ok(id) => report.set("task_id", id),
        Err(why) => report.fail(why),
    }
    report
}

pub(crate) async fn status(args: Status) -> Report {
    let mut report = Report::new("task-status");
    if let Err(why) = run_status(&args, &mut report).await {
        report.fail(why);
    }
    report
}

async fn run_status(args: &Status, report: &mut Report) -> Result<(), String> {
    let started = Instant::now();
    let client = connect(&args.url, true).await?;
    let task = match &args.until {
        None => bounded(client.get_task(&args.id), "tasks/get").await?,
        Some(want) => {
            let timeout = Duration::from_millis(args.timeout_ms);
            let polled = poll_until(&client, &args.id, timeout, |t| t.task.status.is_terminal()).await;
            report.set("elapsed_ms", ms(started.elapsed()));
            let (task, _) = polled?;
            if status_name(task.task.status) != *want {
                report.set("status", status_name(task.task.status));
                return Err(format!("ended {}, not {want}", status_name(task.task.status)));
            }
            task
        }
    };
    report.set("status", status_name(task.task.status));
    report.set("status_message", &task.task.status_message);
    if let Some(error) = &task.error {
        report.set("error", json!({ "code": error.code, "message": error.message }));
    }
    if let Some(needle) = &args.error_contains {
        let message = task.error.as_ref().map(|e| e.message.to_lowercase()).unwrap_or_default();
        if !message.contains(&needle.to_lowercase()) {
            return Err(format!("the error {message:?} does not mention {needle:?}"));
        }
    }
    Ok(())
}
