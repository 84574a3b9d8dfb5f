//! The example servers driven over stdio as subprocesses, in raw JSON lines: under
//! 2026-07-28, in a 2025-11-25 session, and fed hostile input.

mod hostile;
mod legacy;
mod modern;
mod streams;
