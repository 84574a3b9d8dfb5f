//! Layer 1, codecs shared by the server transports and the client: newline-delimited
//! JSON framing, and the request-metadata headers of Streamable HTTP.

pub mod framing;
pub mod headers;
