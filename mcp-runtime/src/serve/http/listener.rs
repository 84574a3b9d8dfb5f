//! [`Serve`]: the accept loop, one hyper connection per client, and graceful shutdown.

use std::future::Future;
use std::time::Duration;

use tokio::net::TcpListener;

use super::connection_slots::ConnectionSlots;
use super::{HttpConfig, McpHttpService};
use crate::Server;

/// Serves Streamable HTTP on a bound listener. Made by [`serve::http`](fn@crate::serve::http);
/// await it. It serves until the shutdown signal completes, then stops gracefully: stops
/// accepting, lets every connection finish the requests it is serving (idle keep-alive
/// connections close at once), and returns when they are done or after the grace period,
/// whichever comes first (requests still running then are dropped, which cancels them).
///
/// On a non-loopback address (`0.0.0.0`, `[::]`, a LAN address) the future returns an
/// `InvalidInput` error at once unless the [`HttpConfig`] sets
/// [`allowed_hosts`](HttpConfig::allowed_hosts), a
/// [`token_verifier`](HttpConfig::token_verifier), or
/// [`allow_public_unauthenticated`](HttpConfig::allow_public_unauthenticated). (A
/// [`McpHttpService`] mounted in another server is not bound by this crate, so it is not
/// checked.)
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
        Serve {
            listener,
            server,
            config: HttpConfig::default(),
            grace: crate::serve::DEFAULT_GRACE,
            shutdown: std::future::pending(),
        }
    }
}

impl<S> Serve<S> {
    /// The endpoint's limits and policies (replaces the default).
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
        let exposed = self.listener.local_addr().and_then(|addr| super::exposure::check(addr, &self.config));
        let exposed = exposed.and_then(|()| super::check_config(&self.config));
        let mut http1 = hyper::server::conn::http1::Builder::new();
        http1.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(self.config.header_read_timeout);
        let slots = ConnectionSlots::new(self.config.max_connections);
        let service = exposed.map(|()| McpHttpService::new(self.server, self.config));
        let (listener, shutdown, grace) = (self.listener, self.shutdown, self.grace);
        Box::pin(async move {
            let service = service?;
            run(listener, Connections { service, http1, slots }, shutdown, grace).await
        })
    }
}

/// What each accepted connection is served with.
struct Connections {
    service: McpHttpService,
    /// hyper's HTTP/1 settings, with its timer on (the header-read timeout needs it).
    http1: hyper::server::conn::http1::Builder,
    slots: ConnectionSlots,
}

/// Accept connections and serve them until `shutdown`, then drain within `grace`.
async fn run(
    listener: TcpListener,
    mut serving: Connections,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        // A slot first: over the cap, connections wait in the listen backlog.
        let slot = tokio::select! {
            () = &mut shutdown => break,
            slot = serving.slots.take() => slot,
        };
        let Some(slot) = slot else { break };
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
        let service = serving.service.clone();
        let http1 = serving.http1.clone();
        let mut stop = stop_rx.clone();
        connections.spawn(async move {
            let _slot = slot;
            let io = hyper_util::rt::TokioIo::new(stream);
            let hyper_service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
                // The peer's address, for the per-client cap on long-lived streams.
                request.extensions_mut().insert(peer);
                let mut service = service.clone();
                tower_service::Service::call(&mut service, request)
            });
            let connection = http1.serve_connection(io, hyper_service);
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
