//! Transports: newline-delimited JSON over stdio or any byte stream, and an
//! in-memory pairing for tests.

pub mod framing;
pub mod memory;
pub mod stdio;
