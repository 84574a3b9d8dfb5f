//! Helpers shared by the test crates of `mcp-examples`, included by each with
//! `#[path = "../support/mod.rs"] mod support;`.
//!
//! Not every crate uses every helper, hence the `dead_code` allowance, here only.
#![allow(dead_code)]

/// A TCP port on 127.0.0.1 that was free a moment ago, for a server process to bind.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
    listener.local_addr().unwrap_or_else(|e| panic!("addr: {e}")).port()
}
