//! # mcp
//!
//! A framework for writing [Model Context Protocol](https://modelcontextprotocol.io) servers
//! (and, soon, clients) in Rust. It serves MCP 2026-07-28 (stateless, per-request `_meta`,
//! multi round-trip requests) and 2025-11-25 (the `initialize` handshake and
//! server-to-client requests) from the same server.
//!
//! - [`protocol`]: the wire model.
//! - [`server`]: the low-level [`Server`] and its dispatcher.
//! - [`transport`]: stdio and an in-memory pairing.
//! - [`client`]: a raw JSON-RPC peer for driving a server (tests, tools).

pub mod auth;
pub mod client;
pub mod error;
pub mod items;
pub mod protocol;
pub mod resolve;
pub mod sealing;
pub mod server;
pub mod transport;
pub mod wire;

pub use error::Error;
pub use items::{Blob, Json};
pub use mcp_macros::{ElicitForm, prompt, resolver, resource, tool};
pub use resolve::{ElicitForm, Resolve};
pub use server::{Context, RequestContext, Server};

#[doc(hidden)]
pub mod __private;

/// Re-exported so users need one dependency.
pub use serde_json;

/// The README's code blocks, compiled as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
