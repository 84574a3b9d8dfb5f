//! The client: connect to a server over Streamable HTTP, a child process's stdio, or
//! in process; negotiate the era; call tools, prompts and resources while callbacks
//! answer the server's questions.
//!
//! - [`Client`], built with [`Client::builder`]: callbacks ([`ElicitationHandler`],
//!   [`SamplingHandler`], [`RootsHandler`], progress, logging) and options, then
//!   `connect_http`, `connect_stdio`, `connect_in_process` or `connect_raw`.
//! - Under 2026-07-28, `call_tool`, `get_prompt` and `read_resource` run the retry loop
//!   (the driver); the `*_once` forms return one round for callers that drive it themselves.
//! - With [`ClientBuilder::tasks`], a `tools/call` the server runs as a task is polled
//!   to its end by `call_tool`; [`Client::get_task`], [`Client::update_task`] and
//!   [`Client::cancel_task`] drive a persisted task by hand.
//! - In a 2025-11-25 session, the same callbacks answer the server's requests.
//! - [`Client::complete`] asks for completions of a prompt argument or a resource
//!   template variable.
//! - [`RawClient`]: a bare JSON-RPC peer over a byte stream, for tests and tools.

mod callbacks;
mod completion;
#[cfg(feature = "http")]
mod connector;
#[cfg(feature = "test-util")]
#[doc(hidden)]
pub mod driver;
#[cfg(not(feature = "test-util"))]
mod driver;
mod error;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "server")]
mod in_process;
mod link;
mod negotiate;
#[cfg(all(feature = "oauth", feature = "client", feature = "http"))]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub mod oauth;
mod raw;
mod session;
mod spans;
#[cfg(feature = "http")]
mod sse;
mod tasks;

pub use callbacks::{Asker, CallbackFuture, ElicitationHandler, RootsHandler, SamplingHandler};
pub use error::{CertificateProblem, ClientError, TransportError, TransportErrorKind};
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use in_process::in_process;
pub use raw::RawClient;
pub use session::{CallOptions, Client, ClientBuilder, Mode};
