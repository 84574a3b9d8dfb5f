//! The server side, mostly without a network: dispatch over the in-memory pairing and over
//! a newline-delimited connection (and how it frames its writes), the macros, error shapes,
//! limits, the spec's wire examples, the schemas tools publish, state, completions, custom
//! methods (one test also over loopback HTTP), older protocol revisions, scopes per item
//! and the inputs the fuzzers once failed on.

#[path = "../support/mod.rs"]
mod support;

mod architecture;
mod completions;
mod connection;
mod error_codes;
mod extending;
mod fuzz_regressions;
mod hooks;
mod layers;
mod limits;
mod macros;
mod memory_pairing;
mod revisions;
mod schemas;
mod scopes;
mod spec_examples;
mod state;
mod tasks;
