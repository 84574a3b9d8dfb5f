//! Test support shared by the workspace's tests (not part of the product):
//!
//! - [`spec`]: where the MCP spec's data lives and a JSON Schema check for any of its
//!   definitions, so tests can validate what our code puts on the wire.
//! - [`stdio`]: a harness that spawns a server binary and speaks raw JSON lines to it.

pub mod spec;
pub mod stdio;
