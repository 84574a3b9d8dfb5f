//! Test support shared by the workspace's tests (not part of the product):
//!
//! - [`spec`]: where the MCP spec's data lives and a JSON Schema check for any of its
//!   definitions, so tests can validate what our code puts on the wire.
//! - [`stdio`]: a harness that spawns a server binary and speaks raw JSON lines to it.
//! - [`http`]: an HTTP/1.1 test client (whole responses, SSE read incrementally, raw
//!   requests) and a helper that serves a [`mcp::Server`] on `127.0.0.1`.

pub mod http;
pub mod spec;
pub mod stdio;
