//! [`Serve`]: the accept loop, one hyper connection per client, and graceful shutdown.

use std::future::Future;
use std::time::Duration;

use tokio::net::TcpListener;

use super::{HttpConfig, McpHttpService};
use crate::Server;

/// Serves Streamable HTTP on a bound listener. Made by [`serve::http`](fn@crate::serve::http);
/// await it. It serves until the shutdown signal completes, then stops gracefully: stops
/// accepting, lets every connection finish the requests it is serving (idle keep-alive
/// connections close at once), and returns when they are done or after the grace period,
/// whichever comes first (requests still running then are dropped, which cancels them).
#[must_use = "an HTTP server does nothing until awaited"]
pub struct Serve<S = std::future::Pending<()>> {
    listener: TcpListener,
    server: Server,
    config: HttpConfig,
    grace: Duration,
    shutdown: S,
}

impl<S> std::fmt::Debug for Serve<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serve").field("config", &self.config).field("grace", &self.grace).finish_non_exhaustive()
    }
}

impl Serve {
    pub(crate) fn new(listener: TcpListener, server: Server) -> Self {
        let config = match listener.local_addr() {
            Ok(addr) => HttpConfig::for_addr(addr),
            Err(_) => HttpConfig::default(),
        };
        Serve { listener, server, config, grace: crate::serve::DEFAULT_GRACE, shutdown: std::future::pending() }
    }
}

impl<S> Serve<S> {
    /// The endpoint's limits and policies (replaces the default for the listener's address).
    pub fn config(mut self, config: HttpConfig) -> Self {
        self.config = config;
        self
    }

    /// How long requests in flight may still run once shutdown starts (default 5 s).
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Stop accepting when `signal` completes, then finish in-flight requests within the
    /// grace period.
    pub fn with_graceful_shutdown<F>(self, signal: F) -> Serve<F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        Serve { listener: self.listener, server: self.server, config: self.config, grace: self.grace, shutdown: signal }
    }
}

impl<S> std::future::IntoFuture for Serve<S>
where
    S: Future<Output = ()> + Send + 'static,
{
    type Output = std::io::Result<()>;
    type IntoFuture = crate::serve::Shutdown;

    fn into_future(self) -> crate::serve::Shutdown {
        let service = McpHttpService::new(self.server, self.config);
        Box::pin(run(self.listener, service, self.shutdown, self.grace))
    }
}

/// Accept connections and serve them until `shutdown`, then drain within `grace`.
async fn run(
    listener: TcpListener,
    service: McpHttpService,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        while connections.try_join_next().is_some() {}
        let (stream, peer) = match accepted {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed; retrying");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let service = service.clone();
        let mut stop = stop_rx.clone();
        connections.spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let hyper_service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
                // The peer's address, for the per-client cap on long-lived streams.
                request.extensions_mut().insert(peer);
                let mut service = service.clone();
                tower_service::Service::call(&mut service, request)
            });
            let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, hyper_service);
            tokio::pin!(connection);
            let finished = tokio::select! {
                ended = connection.as_mut() => Some(ended),
                stopping = stop.wait_for(|stop| *stop) => stopping.map(|_| None).unwrap_or(None),
            };
            let ended = match finished {
                Some(ended) => ended,
                None => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(e) = ended {
                tracing::debug!(%peer, error = %e, "HTTP connection ended with an error");
            }
        });
    }
    drop(listener);
    let in_flight = connections.len();
    tracing::info!(connections = in_flight, "shutting down: no new connections; finishing in-flight requests");
    let _ = stop_tx.send(true);
    let drained = tokio::time::timeout(grace, async { while connections.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tracing::warn!(remaining = connections.len(), "shutdown grace period over; dropping the remaining requests");
        connections.shutdown().await;
    }
    Ok(())
}
