//! The Streamable HTTP transport on a real socket (127.0.0.1): the protocol rules over
//! HTTP, bearer-token authentication, the request parts handlers see, and hostile input.

#[path = "../support/mod.rs"]
mod support;

mod auth;
mod hostile;
mod log_escaping;
mod parts;
mod protected_resource;
mod transport;
mod verifier_hook;
