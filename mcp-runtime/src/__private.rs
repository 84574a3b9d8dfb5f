//! Support for the code the macros generate. Not a public API: no semver promise.
//!
//! Only re-exports: the logic lives in named modules (`items::args`, `items::schema`,
//! `items::tool_spec`, `items::sync_call`, `items::convert`, `items::probe`,
//! `items::roles`, `items::resolver_args`), each with its tests. Generated code names everything through this module, so those modules can
//! move without breaking it.

pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::handler::{BoxFuture, StateNeeds};
pub use crate::items::args::{
    ArgSpec, ArgSpecs, StrParam, ToolParam, arg, arg_optional, arg_or, arg_unless_absent, decode_args, defaulted,
    missing_arg, optional, prompt_arg, required, template_var,
};
pub use crate::items::completion::run as run_completer;
pub use crate::items::convert::{
    ErrViaDisplay, ErrViaMcp, ErrWrap, Ret, RetType, SchemaViaIntoTool, SchemaViaNeither, SchemaViaStructured,
    ToolErrViaDisplay, ToolErrViaMcp, ViaIntoTool, ViaNeither, ViaStructured, prompt_outcome, resource_outcome,
};
pub use crate::items::inline_refs::inline_tool_refs;
pub use crate::items::probe::{Probe, ProbeFallback, ResolveParam, ResourceProbe};
pub use crate::items::resolver_args::{Ch, ToolArg, ToolArgs, form_field, resolver_error};
pub use crate::items::roles::{ContextViaArgument, ContextViaContext, ResolverArg, Slot, TemplateContext};
pub use crate::items::run_task::run_task;
pub use crate::items::schema::{InputSchema, ToolParamSchema, default_json, meta_object};
pub use crate::items::sync_call::{SyncRun, sync_call};
pub use crate::items::tool_spec::{
    AnnotationsSpec, ParamSpec, SchemaFn, ToolSpec, optional_schema_of, schema_of, tool_definition,
};
pub use crate::resolve::cycle::{
    Depth as ResolverDepth, Links as ResolverLinks, Longest as ResolverLongest, Reach as ResolverReach, assert_no_cycle,
};
pub use crate::resolve::form::{choice_schema, form_schema};
pub use crate::resolve::{
    Answer, ElicitChoice, ElicitField, ElicitForm, FromRound, Graph, Plan, Question, ResolveWith, Resolver, Round,
    RoundFuture, Stop, Visit,
};
