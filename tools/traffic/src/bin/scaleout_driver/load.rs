//! Calls in a loop for a while (through the balancer), so that the script can stop and
//! restart Redis under them: a plain call (the provisioner's `provision`, round 1, which
//! needs no store) and a task (`backup_database` created, then read back with `tasks/get`)
//! each turn. Every call is bounded; the summary says what failed, how, and when (Unix ms),
//! so the script can check that failures fall inside the window Redis was down.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcp::client::{CallOptions, Client};
use mcp::protocol::Outcome;
use serde_json::json;

use crate::{CALL_TIMEOUT, Report, bounded, connect, unix_ms};

#[derive(Debug, clap::Args)]
pub(crate) struct Load {
    /// Where the calls go (the balancer), `http://HOST:PORT/mcp`.
    #[arg(long)]
    url: String,
    /// How long to keep calling, in seconds.
    #[arg(long)]
    seconds: u64,
    /// A pause between turns, in ms.
    #[arg(long = "pause-ms", default_value_t = 50)]
    pause_ms: u64,
    /// Write every call (Unix ms, kind, latency, error) here, one JSON line each.
    #[arg(long)]
    trace: Option<PathBuf>,
}

/// What the calls of one kind did.
#[derive(Default, serde::Serialize)]
struct Tally {
    ok: u64,
    failed: u64,
    /// Unix ms of the first and last failure.
    first_failure_ms: Option<u64>,
    last_failure_ms: Option<u64>,
    /// Unix ms of the last success.
    last_ok_ms: Option<u64>,
    max_latency_ms: u64,
    /// Failures by message.
    errors: BTreeMap<String, u64>,
}

impl Tally {
    fn record(&mut self, at_ms: u64, latency: Duration, outcome: &Result<(), String>) {
        self.max_latency_ms = self.max_latency_ms.max(u64::try_from(latency.as_millis()).unwrap_or(u64::MAX));
        match outcome {
            Ok(()) => {
                self.ok += 1;
                self.last_ok_ms = Some(at_ms);
            }
            Err(why) => {
                self.failed += 1;
                self.first_failure_ms.get_or_insert(at_ms);
                self.last_failure_ms = Some(at_ms);
                *self.errors.entry(why.clone()).or_default() += 1;
            }
        }
    }
}

/// Round 1 of `provision`: it must ask for the region.
async fn plain(client: &Client) -> Result<(), String> {
    let call = client.call_tool_once("provision", json!({"name": "load"}), CallOptions::default());
    match bounded(call, "provision").await? {
        Outcome::InputRequired(_) => Ok(()),
        _ => Err("provision did not ask for the region".into()),
    }
}

/// A one-second backup as a task, read back at once.
async fn task(client: &Client) -> Result<(), String> {
    let call = client.call_tool_once("backup_database", json!({"name": "load", "seconds": 1}), CallOptions::default());
    let Outcome::Task(created) = bounded(call, "backup_database").await? else {
        return Err("backup_database did not become a task".into());
    };
    bounded(client.get_task(&created.task.task_id), "tasks/get").await.map(|_| ())
}

pub(crate) async fn run(args: Load) -> Report {
    let mut report = Report::new("load");
    let client = match connect(&args.url, true).await {
        Ok(client) => client,
        Err(why) => {
            report.fail(why);
            return report;
        }
    };
    let mut trace = match &args.trace {
        Some(path) => match std::fs::File::create(path) {
            Ok(file) => Some(std::io::BufWriter::new(file)),
            Err(e) => {
                report.fail(format!("{}: {e}", path.display()));
                return report;
            }
        },
        None => None,
    };
    let (mut plains, mut tasks) = (Tally::default(), Tally::default());
    let mut unbounded = 0u64;
    let until = Instant::now() + Duration::from_secs(args.seconds);
    report.set("started_ms", unix_ms());
    while Instant::now() < until {
        for kind in ["plain", "task"] {
            let at_ms = unix_ms();
            let started = Instant::now();
            let outcome = if kind == "plain" { plain(&client).await } else { task(&client).await };
            let latency = started.elapsed();
            // `bounded` gives up at CALL_TIMEOUT per request: a call that long hung.
            if latency >= CALL_TIMEOUT {
                unbounded += 1;
            }
            if let Some(trace) = trace.as_mut() {
                let line = json!({"at_ms": at_ms, "kind": kind, "latency_ms": u64::try_from(latency.as_millis()).unwrap_or(u64::MAX),
                    "error": outcome.as_ref().err()});
                let _ = writeln!(trace, "{line}");
            }
            if kind == "plain" { &mut plains } else { &mut tasks }.record(at_ms, latency, &outcome);
        }
        tokio::time::sleep(Duration::from_millis(args.pause_ms)).await;
    }
    if let Some(mut trace) = trace {
        let _ = trace.flush();
    }
    report.set("ended_ms", unix_ms());
    report.set("hung", unbounded);
    report.set("plain", &plains);
    report.set("task", &tasks);
    if unbounded > 0 {
        report.fail(format!("{unbounded} calls took {CALL_TIMEOUT:?} or more (a hang, not an error)"));
    }
    report
}
