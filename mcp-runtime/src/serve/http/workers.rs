//! [`Serve::workers`](super::Serve::workers): threads that each run a single-threaded
//! runtime, with every accepted connection pinned to one of them for its life.
//!
//! On the caller's multi-threaded runtime a connection's task may move between worker
//! threads, and idle workers are woken to steal work: on a small machine those wakeups
//! cost more CPU per request than the request itself. A worker here serves its
//! connections alone, so a request and its response never cross threads.

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::oneshot;

/// The worker threads, each with its runtime's handle; stopped when dropped.
pub(super) struct Workers {
    handles: Vec<tokio::runtime::Handle>,
    /// Dropping these tells each worker to let its runtime go.
    stops: Vec<oneshot::Sender<()>>,
    next: AtomicUsize,
}

impl Workers {
    /// Start `count` workers (at least one).
    pub(super) fn start(count: usize) -> std::io::Result<Self> {
        let count = count.max(1);
        let mut handles = Vec::with_capacity(count);
        let mut stops = Vec::with_capacity(count);
        for index in 0..count {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            handles.push(runtime.handle().clone());
            let (stop, stopped) = oneshot::channel::<()>();
            stops.push(stop);
            std::thread::Builder::new().name(format!("mcp-http-{index}")).spawn(move || {
                // Serves the tasks spawned onto it until told to stop (or the pool is dropped).
                let _ = runtime.block_on(stopped);
                // Whatever is still spawned there (only detached work: the connections were
                // drained or dropped) is cancelled with the runtime.
                runtime.shutdown_background();
            })?;
        }
        Ok(Workers { handles, stops, next: AtomicUsize::new(0) })
    }

    /// The runtime the next connection goes to (round robin).
    pub(super) fn next(&self) -> &tokio::runtime::Handle {
        let index = self.next.fetch_add(1, Ordering::Relaxed) % self.handles.len();
        &self.handles[index]
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        for stop in self.stops.drain(..) {
            let _ = stop.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn connections_go_round_robin_and_run_on_their_worker() {
        let workers = Workers::start(2).expect("test value");
        let mut set = tokio::task::JoinSet::new();
        let names = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        for _ in 0..4 {
            let names = std::sync::Arc::clone(&names);
            set.spawn_on(
                async move {
                    let name = std::thread::current().name().unwrap_or_default().to_owned();
                    names.lock().expect("test value").push(name);
                },
                workers.next(),
            );
            // One at a time, so the order of the names is the order of the spawns.
            set.join_next().await.expect("test value").expect("test value");
        }
        let names = names.lock().expect("test value").clone();
        assert_eq!(names, ["mcp-http-0", "mcp-http-1", "mcp-http-0", "mcp-http-1"]);
    }

    #[tokio::test]
    async fn dropping_the_pool_stops_its_threads() {
        let workers = Workers::start(1).expect("test value");
        let handle = workers.next().clone();
        let (tx, rx) = oneshot::channel::<()>();
        // A task that never ends on its own: stopping the worker must cancel it.
        handle.spawn(async move {
            let _tx = tx;
            std::future::pending::<()>().await;
        });
        drop(workers);
        // The sender is dropped when the runtime shuts down and cancels the task.
        assert!(tokio::time::timeout(std::time::Duration::from_secs(5), rx).await.expect("test value").is_err());
    }
}
