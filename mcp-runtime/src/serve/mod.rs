//! Layer 5, transports: free functions that serve a [`Server`] (the handler stack), all of
//! one shape. Each returns a builder whose methods are the transport's settings, and
//! which runs when awaited; `.with_graceful_shutdown(signal)` stops it cleanly.
//!
//! - [`stdio`]: this process's stdin and stdout (the client spawned the server); the
//!   `stdio` feature.
//! - [`connection`]: any byte stream of newline-delimited JSON.
//! - [`http`](fn@http): Streamable HTTP on a bound listener, both eras on one endpoint (the `http`
//!   feature); its
//!   [`McpHttpService`](http::McpHttpService) is a `tower` service that mounts in axum.
//!
//! ```no_run
//! # async fn run(server: mcp::Server) -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
//! let ctrl_c = async { let _ = tokio::signal::ctrl_c().await; };
//! mcp::serve::http(listener, server).with_graceful_shutdown(ctrl_c).await
//! # }
//! ```

mod connection;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http;
mod output;
#[cfg(feature = "stdio")]
mod stdio;
mod woken;

pub use connection::{Connection, DEFAULT_GRACE, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_LISTEN_STREAMS};
#[cfg(feature = "stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
pub use stdio::Stdio;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::Server;

/// What awaiting a transport builder runs.
pub type Shutdown = crate::handler::BoxFuture<std::io::Result<()>>;

/// Serve `server` on this process's stdin and stdout until stdin closes. Needs the
/// `stdio` feature. Requests are served as on a [`Connection`]: each in the reading task
/// until its handler first waits, then in a task of its own.
#[cfg(feature = "stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
pub fn stdio(server: Server) -> Stdio {
    Stdio::new(server)
}

/// Serve `server` on a byte stream of newline-delimited JSON until `reader` closes.
pub fn connection<R, W>(server: Server, reader: R, writer: W) -> Connection<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    Connection::new(server, reader, writer)
}

/// Serve `server` over Streamable HTTP at `/mcp` on `listener`.
///
/// DNS-rebinding protection is on: only the loopback host names are accepted by default.
/// On a non-loopback address (`0.0.0.0`, `[::]`, a LAN address) the server refuses to start
/// (an `InvalidInput` error) unless its [`HttpConfig`](http::HttpConfig) lists your public
/// host names with [`allowed_hosts`](http::HttpConfig::allowed_hosts), requires tokens with
/// [`token_verifier`](http::HttpConfig::token_verifier), or opts in with
/// [`allow_public_unauthenticated`](http::HttpConfig::allow_public_unauthenticated).
/// Needs the `http` feature.
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub fn http(listener: tokio::net::TcpListener, server: Server) -> http::Serve {
    http::Serve::new(listener, server)
}
