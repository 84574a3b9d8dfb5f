//! Procedural macros for the `mcp` crate.
//!
//! This crate is re-exported by `mcp` (the `mcp-runtime` package); users write
//! `#[mcp::tool]` and never depend on it directly. The macros themselves land
//! with the macro work; for now the crate only reserves its place in the
//! workspace so the runtime can re-export it.
