//! Codecs shared by the server transports and the client.
//!
//! Everything here is pure: bytes in, values out, no I/O and no runtime. The transports
//! and the client drive these codecs from their own readers; the workspace's test support
//! and load tools use them the same way.

pub mod sse;
