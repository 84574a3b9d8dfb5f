//! Transports: newline-delimited JSON over stdio or any byte stream, Streamable HTTP,
//! and an in-memory pairing for tests.

pub mod framing;
pub mod http;
pub mod memory;
pub mod stdio;
