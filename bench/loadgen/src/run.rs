//! The run: set up the slots, measure the window, drain, and print the result line.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::args::{Config, Era, Mode, Target};
use crate::call::{Conn, slot};
use crate::http::{HttpConn, connect, delete_session, http_endpoint};
use crate::procfs::{clock_ticks_per_sec, cpu_ticks, peak_rss_kb};
use crate::state::{Ctx, capabilities};
use crate::stdio::{spawn_stdio, stdio_handshake};

/// How long in-flight calls may take to finish once the window has closed.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a spawned server gets to exit after its stdin closes before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

#[derive(serde::Serialize)]
pub(crate) struct Line<'a> {
    pub(crate) label: &'a str,
    pub(crate) transport: &'static str,
    pub(crate) era: &'static str,
    pub(crate) mode: &'static str,
    pub(crate) concurrency: usize,
    pub(crate) calls: u64,
    pub(crate) errors: u64,
    pub(crate) seconds: f64,
    pub(crate) calls_per_sec: f64,
    pub(crate) p50_us: Option<u64>,
    pub(crate) p99_us: Option<u64>,
    pub(crate) server_cpu_us_per_call: Option<f64>,
    pub(crate) server_peak_rss_kb: Option<u64>,
    pub(crate) all_calls: u64,
    pub(crate) all_errors: u64,
}

/// The nearest-rank percentile `p` (0..=100) of sorted values.
pub(crate) fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

pub(crate) fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

/// Wait `duration`, or until a slot reports a fatal failure (then `Err`).
pub(crate) async fn wait(ctx: &Ctx, duration: Duration) -> Result<(), String> {
    if let Some(text) = ctx.fatal.get() {
        return Err(text.clone());
    }
    tokio::select! {
        () = tokio::time::sleep(duration) => Ok(()),
        () = ctx.fatal_notify.notified() => Err(ctx.fatal.get().cloned().unwrap_or_default()),
    }
}

pub(crate) async fn run(config: Config) -> Result<(), String> {
    let ctx = Arc::new(Ctx::new(&config));
    let capabilities = capabilities(config.mode);

    // Connect and set up the slots' connections.
    let mut spawned = None;
    let mut endpoint = None;
    let mut conns = Vec::with_capacity(config.concurrency);
    let pid: Option<String> = match &config.target {
        Target::Stdio { command } => {
            let s = spawn_stdio(command, &ctx)?;
            let pid = s.child.id().map(|p| p.to_string());
            if config.era == Era::Legacy {
                tokio::select! {
                    done = stdio_handshake(&s.pipe, &ctx, capabilities) => done?,
                    () = ctx.fatal_notify.notified() => return Err(ctx.fatal.get().cloned().unwrap_or_default()),
                }
            }
            for _ in 0..config.concurrency {
                conns.push(Conn::Stdio(Arc::clone(&s.pipe)));
            }
            spawned = Some(s);
            pid
        }
        Target::Http { url, pid, bearer } => {
            if let Some(pid) = pid
                && cpu_ticks(&pid.to_string()).is_none()
            {
                return Err(format!("cannot read /proc/{pid}/stat: is --pid the server's process id?"));
            }
            let e = Arc::new(http_endpoint(url, bearer.as_ref(), &ctx, &config, capabilities).await?);
            for _ in 0..config.concurrency {
                let sender = connect(e.addr).await?;
                conns.push(Conn::Http(Box::new(HttpConn::new(Arc::clone(&e), config.era, sender))));
            }
            endpoint = Some(e);
            pid.map(|p| p.to_string())
        }
    };

    let slots: Vec<_> = conns.into_iter().map(|conn| tokio::spawn(slot(conn, Arc::clone(&ctx)))).collect();

    let measured = async {
        wait(&ctx, config.warmup).await?;
        let t0 = Instant::now();
        let server0 = pid.as_deref().and_then(cpu_ticks);
        let self0 = cpu_ticks("self");
        wait(&ctx, config.duration).await?;
        let t1 = Instant::now();
        let server1 = pid.as_deref().and_then(cpu_ticks);
        let self1 = cpu_ticks("self");
        let rss = pid.as_deref().and_then(peak_rss_kb);
        Ok::<_, String>((t0, t1, server0.zip(server1), self0.zip(self1), rss))
    }
    .await;
    ctx.stop.store(true, Ordering::Relaxed);

    // Let in-flight calls finish, then collect.
    let mut records = Vec::new();
    let mut stuck = false;
    let deadline = tokio::time::Instant::now() + DRAIN_TIMEOUT;
    for handle in slots {
        let abort = handle.abort_handle();
        match tokio::time::timeout_at(deadline, handle).await {
            Ok(Ok(slot_records)) => records.extend(slot_records),
            Ok(Err(e)) => return Err(format!("a slot failed: {e}")),
            Err(_) => {
                abort.abort();
                stuck = true;
            }
        }
    }

    // Let the server go.
    if let Some(mut s) = spawned {
        s.writer.abort(); // drops the child's stdin: EOF
        let _ = s.writer.await;
        if tokio::time::timeout(EXIT_GRACE, s.child.wait()).await.is_err() {
            let _ = s.child.start_kill();
            let _ = s.child.wait().await;
        }
        s.reader.abort();
    }
    if let Some(e) = &endpoint {
        delete_session(e).await;
    }

    let (t0, t1, server_cpu, self_cpu, rss) = measured?;
    if stuck {
        return Err(format!("calls were still in flight {} s after the window closed", DRAIN_TIMEOUT.as_secs()));
    }

    // Only calls that finished inside the window count.
    let from = t0.duration_since(ctx.origin).as_micros() as u64;
    let to = t1.duration_since(ctx.origin).as_micros() as u64;
    let mut latencies = Vec::with_capacity(records.len());
    let mut errors = 0u64;
    let mut ok_total = 0u64;
    for record in &records {
        ok_total += u64::from(record.ok);
        if record.end_us < from || record.end_us > to {
            continue;
        }
        if record.ok {
            latencies.push(record.latency_us);
        } else {
            errors += 1;
        }
    }
    latencies.sort_unstable();
    let calls = latencies.len() as u64;
    let seconds = t1.duration_since(t0).as_secs_f64();
    let tick_us = 1e6 / clock_ticks_per_sec() as f64;
    let handled = calls + errors;
    let per_call =
        |(a, b): (u64, u64)| (handled > 0).then(|| round(b.saturating_sub(a) as f64 * tick_us / handled as f64, 2));

    if config.era == Era::Legacy && config.mode == Mode::Mrtr {
        let asked = ctx.elicitations.load(Ordering::Relaxed);
        if asked < ok_total {
            return Err(format!(
                "{ok_total} calls succeeded but the server asked only {asked} elicitations: not an MRTR run"
            ));
        }
    }
    if config.mode == Mode::Task && ok_total > 0 {
        let polls = ctx.task_polls.load(Ordering::Relaxed);
        tracing::info!("{:.2} tasks/get per task ({polls} in all)", polls as f64 / records.len() as f64);
    }
    if let Some(own) = self_cpu.and_then(per_call) {
        tracing::info!(
            "own CPU {own} µs per call ({} runtime thread{})",
            config.threads,
            if config.threads == 1 { "" } else { "s" }
        );
    }

    let line = Line {
        label: &config.label,
        transport: match config.target {
            Target::Stdio { .. } => "stdio",
            Target::Http { .. } => "http",
        },
        era: match config.era {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        },
        mode: match config.mode {
            Mode::Plain => "plain",
            Mode::Mrtr => "mrtr",
            Mode::Task => "task",
        },
        concurrency: config.concurrency,
        calls,
        errors,
        seconds: round(seconds, 3),
        calls_per_sec: round(calls as f64 / seconds, 1),
        p50_us: percentile(&latencies, 50.0),
        p99_us: percentile(&latencies, 99.0),
        server_cpu_us_per_call: server_cpu.and_then(per_call),
        server_peak_rss_kb: rss,
        all_calls: records.len() as u64,
        all_errors: records.len() as u64 - ok_total,
    };
    let text = serde_json::to_string(&line).map_err(|e| e.to_string())?;
    println!("{text}");
    Ok(())
}
