//! Compile-pass and compile-fail tests for the `mcp` macros live in `tests/`.
