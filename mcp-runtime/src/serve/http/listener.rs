//! [`Serve`]: the accept loop, one hyper connection per client, and graceful shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::TcpListener;

use super::connection_slots::ConnectionSlots;
use super::open_streams::{OpenStreams, TrackedBody};
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
    workers: usize,
    shutdown: S,
}

impl<S> std::fmt::Debug for Serve<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serve")
            .field("config", &self.config)
            .field("grace", &self.grace)
            .field("workers", &self.workers)
            .finish_non_exhaustive()
    }
}

impl Serve {
    pub(crate) fn new(listener: TcpListener, server: Server) -> Self {
        Serve {
            listener,
            server,
            config: HttpConfig::default(),
            grace: crate::serve::DEFAULT_GRACE,
            workers: 0,
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

    /// Serve connections on `count` threads of their own, each running a single-threaded
    /// runtime, instead of on the runtime that awaits this future (`0`, the default).
    ///
    /// Each accepted connection stays on one of these threads (round robin) for its life,
    /// with the tasks its requests spawn: requests never hop between threads, and no idle
    /// thread is woken to steal work. For a server that mostly answers short requests,
    /// one thread per core usually serves more requests per CPU second than a
    /// multi-threaded runtime; a handler that blocks its thread stalls every connection
    /// on it, though, so keep handlers non-blocking (or use `spawn_blocking`).
    ///
    /// ```no_run
    /// # async fn run(server: mcp::Server) -> std::io::Result<()> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:3931").await?;
    /// let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    /// mcp::serve::http(listener, server).workers(cores).await
    /// # }
    /// ```
    pub fn workers(mut self, count: usize) -> Self {
        self.workers = count;
        self
    }

    /// Stop accepting when `signal` completes, then finish in-flight requests within the
    /// grace period.
    pub fn with_graceful_shutdown<F>(self, signal: F) -> Serve<F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        Serve {
            listener: self.listener,
            server: self.server,
            config: self.config,
            grace: self.grace,
            workers: self.workers,
            shutdown: signal,
        }
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
        #[cfg(feature = "tls")]
        let tls = self.config.tls.as_ref().map(|tls| TlsServing::new(tls, &self.config));
        let slots = ConnectionSlots::new(self.config.max_connections);
        let service = exposed.map(|()| McpHttpService::new(self.server, self.config));
        let (listener, shutdown, grace, workers) = (self.listener, self.shutdown, self.grace, self.workers);
        Box::pin(async move {
            let service = service?;
            let workers = if workers == 0 { None } else { Some(super::workers::Workers::start(workers)?) };
            #[cfg(feature = "tls")]
            let connections = Connections { service, http1, slots, tls, workers };
            #[cfg(not(feature = "tls"))]
            let connections = Connections { service, http1, slots, workers };
            run(listener, connections, shutdown, grace).await
        })
    }
}

/// What each accepted connection is served with.
struct Connections {
    service: McpHttpService,
    /// hyper's HTTP/1 settings, with its timer on (the header-read timeout needs it).
    http1: hyper::server::conn::http1::Builder,
    slots: ConnectionSlots,
    /// The threads connections are served on, when not on the caller's runtime.
    workers: Option<super::workers::Workers>,
    /// TLS in front of HTTP, when configured.
    #[cfg(feature = "tls")]
    tls: Option<TlsServing>,
}

/// The TLS side of each connection: the handshake (within its timeout), then HTTP/2 or
/// HTTP/1.1 as ALPN chose.
#[cfg(feature = "tls")]
#[derive(Clone)]
struct TlsServing {
    acceptor: tokio_rustls::TlsAcceptor,
    handshake_timeout: Duration,
    /// How long an HTTP/2 connection may have no request open (the header-read timeout).
    idle_timeout: Duration,
    http2: hyper::server::conn::http2::Builder<hyper_util::rt::TokioExecutor>,
}

#[cfg(feature = "tls")]
impl TlsServing {
    fn new(tls: &crate::tls::ServerTlsConfig, config: &HttpConfig) -> Self {
        let mut http2 = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new());
        // HTTP/2 has no header-read timeout: `serve_h2` closes connections idle that long
        // (which covers a client that never sends its preface), and pings at the same
        // interval find peers that went away during a long request. One connection may
        // open as many streams as one client may hold long-lived ones, not hyper's 200
        // (which could take every request permit).
        let streams = u32::try_from(config.max_streams_per_client.max(1)).unwrap_or(u32::MAX);
        http2
            .timer(hyper_util::rt::TokioTimer::new())
            .keep_alive_interval(config.header_read_timeout)
            .keep_alive_timeout(config.header_read_timeout)
            .max_concurrent_streams(streams);
        TlsServing {
            acceptor: tls.acceptor(),
            handshake_timeout: config.tls_handshake_timeout,
            idle_timeout: config.header_read_timeout,
            http2,
        }
    }
}

/// The MCP service for one connection's requests: it tells the service the peer's address
/// (for the per-client cap on long-lived streams and
/// [`RequestContext::peer_addr`](crate::RequestContext::peer_addr)) and, for HTTP/2, turns
/// `:authority` into `Host` (RFC 9113 section 8.3.1) so that the host check sees it.
/// On HTTP/2 it also counts the connection's open requests, for its idle timeout.
#[derive(Clone)]
struct PeerService {
    service: McpHttpService,
    peer: SocketAddr,
    authority_as_host: bool,
    open: Option<OpenStreams>,
}

impl hyper::service::Service<hyper::Request<hyper::body::Incoming>> for PeerService {
    type Response = hyper::Response<TrackedBody>;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn call(&self, mut request: hyper::Request<hyper::body::Incoming>) -> Self::Future {
        if self.authority_as_host
            && !request.headers().contains_key(http::header::HOST)
            && let Some(authority) = request.uri().authority()
            && let Ok(host) = http::HeaderValue::from_str(authority.as_str())
        {
            request.headers_mut().insert(http::header::HOST, host);
        }
        let open = self.open.as_ref().map(OpenStreams::start);
        let mut service = self.service.clone().with_peer(self.peer);
        let response = tower_service::Service::call(&mut service, request);
        Box::pin(async move {
            let response = response.await?;
            Ok(response.map(|body| TrackedBody::new(body, open)))
        })
    }
}

/// Serve one connection until it ends, or until `stop` says to shut down: then shut it
/// down gracefully (finishing the requests it is serving) and wait for that.
macro_rules! drive {
    ($connection:expr, $stop:expr, $peer:expr) => {{
        let mut stop = $stop;
        let connection = $connection;
        tokio::pin!(connection);
        // `select!` polls both futures whenever the task wakes (a few times a request); the
        // signal has news only once its waker fired (see `Woken`).
        let mut stopped = crate::serve::woken::Woken::new(stop.wait_for(|stop| *stop));
        let finished = tokio::select! {
            ended = connection.as_mut() => Some(ended),
            stopping = &mut stopped => stopping.map(|_| None).unwrap_or(None),
        };
        drop(stopped);
        let ended = match finished {
            Some(ended) => ended,
            None => {
                connection.as_mut().graceful_shutdown();
                connection.await
            }
        };
        if let Err(e) = ended {
            tracing::debug!(peer = %$peer, error = %e, "HTTP connection ended with an error");
        }
    }};
}

/// A TLS connection: the handshake within its timeout (a client that stalls is
/// dropped), then HTTP/2 if ALPN chose `h2`, else HTTP/1.1.
#[cfg(feature = "tls")]
async fn serve_tls(
    stream: tokio::net::TcpStream,
    mut service: PeerService,
    http1: &hyper::server::conn::http1::Builder,
    tls: &TlsServing,
    stop: tokio::sync::watch::Receiver<bool>,
) {
    let peer = service.peer;
    let stream = match tokio::time::timeout(tls.handshake_timeout, tls.acceptor.accept(stream)).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(e)) => {
            tracing::debug!(%peer, error = %e, "TLS handshake failed");
            return;
        }
        Err(_) => {
            tracing::debug!(%peer, timeout = ?tls.handshake_timeout, "TLS handshake not finished in time");
            return;
        }
    };
    let h2 = stream.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
    let io = hyper_util::rt::TokioIo::new(stream);
    if h2 {
        service.authority_as_host = true;
        let open = OpenStreams::new();
        service.open = Some(open.clone());
        serve_h2(tls.http2.serve_connection(io, service), &open, tls.idle_timeout, stop, peer).await;
    } else {
        drive!(http1.serve_connection(io, service), stop, peer);
    }
}

/// hyper's HTTP/2 connection over TLS, serving [`PeerService`].
#[cfg(feature = "tls")]
type H2Connection = hyper::server::conn::http2::Connection<
    hyper_util::rt::TokioIo<tokio_rustls::server::TlsStream<tokio::net::TcpStream>>,
    PeerService,
    hyper_util::rt::TokioExecutor,
>;

/// One HTTP/2 connection, like `drive!`, and also closed once no request has been open for
/// `idle`: dropped at once if the client never sent a request (it may not even have sent
/// its preface, which hyper would wait for forever), else shut down gracefully (GOAWAY),
/// and dropped if that does not finish within `idle` either.
#[cfg(feature = "tls")]
async fn serve_h2(
    connection: H2Connection,
    open: &OpenStreams,
    idle: Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
    peer: SocketAddr,
) {
    tokio::pin!(connection);
    let ended = tokio::select! {
        ended = connection.as_mut() => ended,
        // Polled only after its waker fired, as in `drive!`.
        () = crate::serve::woken::Woken::new(async { drop(stop.wait_for(|stop| *stop).await) }) => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
        streams = open.idle_for(idle) => {
            if !streams.any {
                tracing::debug!(%peer, timeout = ?idle, "HTTP/2 connection sent no request in time; closing it");
                return;
            }
            tracing::debug!(%peer, timeout = ?idle, "HTTP/2 connection idle; closing it");
            connection.as_mut().graceful_shutdown();
            match tokio::time::timeout(idle, connection).await {
                Ok(ended) => ended,
                Err(_) => return,
            }
        }
    };
    if let Err(e) = ended {
        tracing::debug!(%peer, error = %e, "HTTP connection ended with an error");
    }
}

/// What one accepted connection is served with.
struct ServeOne {
    /// Held while the connection lives.
    slot: tokio::sync::OwnedSemaphorePermit,
    service: PeerService,
    http1: hyper::server::conn::http1::Builder,
    #[cfg(feature = "tls")]
    tls: Option<TlsServing>,
    stop: tokio::sync::watch::Receiver<bool>,
    peer: SocketAddr,
}

impl ServeOne {
    /// Serve the connection until it ends (or shutdown finishes it).
    async fn run(self, stream: tokio::net::TcpStream) {
        let ServeOne { slot, service, http1, stop, peer, .. } = self;
        let _slot = slot;
        #[cfg(feature = "tls")]
        if let Some(tls) = self.tls {
            serve_tls(stream, service, &http1, &tls, stop).await;
            return;
        }
        drive!(http1.serve_connection(hyper_util::rt::TokioIo::new(stream), service), stop, peer);
    }
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
        let service = PeerService { service: serving.service.clone(), peer, authority_as_host: false, open: None };
        let http1 = serving.http1.clone();
        #[cfg(feature = "tls")]
        let tls = serving.tls.clone();
        let stop = stop_rx.clone();
        let served = ServeOne {
            slot,
            service,
            http1,
            #[cfg(feature = "tls")]
            tls,
            stop,
            peer,
        };
        match &serving.workers {
            None => {
                connections.spawn(served.run(stream));
            }
            // The stream is registered with this runtime's reactor: move it to the
            // worker's, so that its readiness wakes the worker and nothing else.
            Some(workers) => match stream.into_std() {
                Ok(stream) => {
                    connections.spawn_on(
                        async move {
                            match tokio::net::TcpStream::from_std(stream) {
                                Ok(stream) => served.run(stream).await,
                                Err(e) => tracing::debug!(error = %e, "could not move a connection to its worker"),
                            }
                        },
                        workers.next(),
                    );
                }
                Err(e) => tracing::debug!(error = %e, "could not move a connection to its worker"),
            },
        }
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
