//! The protocol model: every message of MCP 2026-07-28 and the legacy 2025-11-25
//! lifecycle, as serde types that round-trip the spec's canonical examples.
//!
//! Results carry `resultType`; for legacy sessions the server strips it on the way out.

/// A `with_*` setter for an `Option` field: `with_title(impl Into<String>)` sets
/// `Some(title.into())`; without `into`, the field's own type is taken as is.
macro_rules! optional_setter {
    ($(#[$doc:meta])* $name:ident => $field:ident: into $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: impl Into<$ty>) -> Self {
            self.$field = Some(value.into());
            self
        }
    };
    ($(#[$doc:meta])* $name:ident => $field:ident: $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: $ty) -> Self {
            self.$field = Some(value);
            self
        }
    };
}

mod capabilities;
mod common;
mod completion;
mod content;
mod discover;
mod elicitation;
mod envelope;
mod error;
mod jsonrpc;
mod member;
mod meta;
pub mod methods;
mod mrtr;
mod notifications;
pub(crate) mod number;
mod params;
mod passed;
mod prompts;
pub(crate) mod recent;
mod resources;
mod revision;
mod roots;
mod sampling;
mod strict;
mod tag;
pub mod tasks;
mod tools;

pub use capabilities::*;
pub use common::*;
pub use completion::*;
pub use content::*;
pub use discover::*;
pub use elicitation::*;
pub use error::Error;
pub use jsonrpc::*;
#[cfg(feature = "server")]
pub(crate) use member::{meta_version, param, param_str};
pub use meta::*;
pub use mrtr::*;
pub use notifications::*;
#[cfg(feature = "server")]
pub(crate) use params::Field;
pub use params::Params;
#[cfg(test)]
pub(crate) use params::read_text as read_params_text;
pub use prompts::*;
pub use resources::*;
pub use revision::Revision;
#[cfg(feature = "server")]
pub(crate) use revision::downgrade_result;
pub use roots::*;
pub use sampling::*;
pub use strict::{DEFAULT_MAX_JSON_DEPTH, StrictJsonError, parse_strict};
pub use tasks::{
    CreateTaskResult, DetailedTask, TASKS_EXTENSION, Task, TaskIdParams, TaskStatus, UpdateTaskParams, declares_tasks,
    tasks_capability,
};
pub use tools::*;

/// An opaque pagination cursor.
pub type Cursor = String;
