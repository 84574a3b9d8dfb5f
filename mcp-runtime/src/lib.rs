//! # mcp
//!
//! A framework for writing [Model Context Protocol](https://modelcontextprotocol.io) servers
//! and clients in Rust. It serves MCP 2026-07-28 (stateless, per-request `_meta`, multi
//! round-trip requests) and 2025-11-25 (the `initialize` handshake and server-to-client
//! requests) from the same server, and its client speaks both.
//!
//! The modules form a one-way stack; each depends only on the ones below it:
//!
//! | layer | modules | what |
//! |---|---|---|
//! | 6 | [`client`], [`cli`] | the client: retry loop, callbacks, HTTP, stdio and in-process links; the command line |
//! | 5 | [`serve`] | transports: [`serve::stdio`], [`serve::connection`], [`serve::http`](fn@serve::http) |
//! | 4½ | [`server`] | [`Server`]: the builder, era detection, result finishing; composes the stack |
//! | 4 | [`sealing`], [`limits`], [`hooks`], [`auth`] | layers that wrap a handler |
//! | 3 | [`items`], [`resolve`] | the item router: `#[mcp::tool]` and friends, resolvers |
//! | 2 | [`handler`] | the handler abstraction: [`handler::Handler`], [`RequestContext`] |
//! | 1 | [`protocol`], [`wire`], `tls` | the wire model and [`Error`], the one JSON-RPC error type; framing, headers, SSE; rustls configuration (the `tls` feature) |
//!
//! Cargo features (all on by default): `server`, `client`, `stdio`, `http`, `macros` and
//! `cli` ([`cli::run`]: the `stdio | http HOST:PORT | describe` command line).
//! A stdio-only server builds with `default-features = false, features = ["server",
//! "stdio", "macros"]` and pulls in no HTTP stack; a client with `["client", "http"]`
//! builds without the server.
//!
//! Off by default: `tls` (HTTPS with rustls, for the client and the server, see
//! `mcp::tls`) and `oauth` (`mcp::auth`'s OAuth token verifiers; it turns `tls` on).

#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(all(feature = "oauth", any(feature = "server", feature = "client")))]
mod jose;
#[cfg(all(feature = "oauth", any(feature = "server", feature = "client")))]
mod oauth_urls;
pub mod protocol;
#[cfg(feature = "tls")]
#[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
pub mod tls;
pub mod wire;

#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod bus;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod handler;

#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod items;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod resolve;

#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod auth;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod hooks;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod limits;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod sealing;

#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;

#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod tasks;
#[cfg(any(feature = "server", feature = "client"))]
pub mod telemetry;

#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod serve;

#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;

#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub mod cli;

#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use handler::{Context, RequestContext, State};
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use items::{Blob, Json};
#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
pub use mcp_macros::{ElicitForm, prompt, resolver, resource, tool};
pub use protocol::Error;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use resolve::{ElicitForm, Resolve};
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use server::Server;

#[cfg(feature = "macros")]
#[doc(hidden)]
pub mod __private;

/// Re-exported so users need one dependency for JSON values.
pub use serde_json;

/// Re-exported: the `serde` this crate was built with. Deriving through it needs
/// `#[serde(crate = "mcp::serde")]`; depending on `serde` directly is simpler.
pub use serde;

/// Re-exported: the `schemars` (1.x) whose `JsonSchema` tool arguments and results implement.
/// Deriving through it needs `#[schemars(crate = "mcp::schemars")]`.
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use schemars;

/// The README's code blocks, compiled as doctests so they stay true.
#[cfg(all(doctest, feature = "server", feature = "client", feature = "stdio", feature = "http", feature = "macros"))]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
