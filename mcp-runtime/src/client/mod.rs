//! Clients. For now a raw JSON-RPC peer ([`RawClient`]) that sends requests,
//! matches responses by id, and hands the server's own messages to the caller.

mod raw;

pub use raw::RawClient;
