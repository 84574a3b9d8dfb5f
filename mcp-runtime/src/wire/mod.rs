//! Layer 1, codecs shared by the server transports and the client: newline-delimited
//! JSON framing, the request-metadata headers of Streamable HTTP, and Server-Sent Events.
//!
//! The header and SSE codecs are pure: bytes in, values out, no I/O and no runtime. The
//! transports and the client drive them from their own readers; the workspace's test
//! support and load tools use them the same way.

#[cfg(any(feature = "server", feature = "client"))]
pub(crate) mod framing;
pub mod headers;
pub mod sse;
#[cfg(any(feature = "server", feature = "client"))]
pub(crate) mod untrusted;
