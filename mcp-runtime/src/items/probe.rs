//! Compile-time questions the generated code asks about a concrete type, where syntax
//! cannot see the answer (type aliases, user enums): may a return type carry an
//! `InputRequiredResult`, is it a resolver question or a `protocol::Outcome`, is it
//! `mcp::Context`, and which resolver fills a `Resolve<R, W>` parameter.
//!
//! Each probe is an inherent constant on `Probe<T>` for the types it applies to, with
//! [`ProbeFallback`] supplying `false` for every other type (an inherent constant wins
//! over a trait's).

use std::marker::PhantomData;

use super::{IntoResourceOutcome, IntoToolOutcome};
use crate::Context;
use crate::protocol::{InputRequiredResult, Outcome};
use crate::resolve::{Question, Resolver};

/// Whether a tool return type may carry an `InputRequiredResult` (true only when it
/// converts through `IntoToolOutcome` and says so), or is a resolver question.
pub struct Probe<T>(PhantomData<T>);

/// Fallback: types that convert as structured output never ask for input.
pub trait ProbeFallback {
    /// False.
    const TOOL_MAY_REQUIRE_INPUT: bool = false;
    /// False.
    const RESOURCE_MAY_REQUIRE_INPUT: bool = false;
    /// False.
    const IS_QUESTION: bool = false;
    /// False.
    const IS_CONTEXT: bool = false;
    /// False.
    const IS_INPUT_REQUIRED: bool = false;
}

impl<T> ProbeFallback for Probe<T> {}

impl<T: IntoToolOutcome> Probe<T> {
    /// What the return type says.
    pub const TOOL_MAY_REQUIRE_INPUT: bool = T::MAY_REQUIRE_INPUT;
}

impl<T: Question> Probe<T> {
    /// A resolver's return type that asks a question.
    pub const IS_QUESTION: bool = true;
}

impl Probe<Context> {
    /// The request context (a parameter type spelled `Context` may be a user's own).
    pub const IS_CONTEXT: bool = true;
}

impl<T> Probe<crate::State<T>> {
    /// Application state, lent from the request context like the context itself (a
    /// parameter type spelled `State<..>` may be a user's own).
    pub const IS_CONTEXT: bool = true;
}

impl<T> Probe<Outcome<T>> {
    /// A `protocol::Outcome` (`CallToolOutcome` and the others are aliases of it), which
    /// a resolver may not return under any spelling.
    pub const IS_INPUT_REQUIRED: bool = true;
}

impl Probe<InputRequiredResult> {
    /// The question set itself, which a resolver may not return either.
    pub const IS_INPUT_REQUIRED: bool = true;
}

/// Resource returns, probed separately.
pub struct ResourceProbe<T>(PhantomData<T>);

impl<T> ProbeFallback for ResourceProbe<T> {}

impl<T: IntoResourceOutcome> ResourceProbe<T> {
    /// What the return type says.
    pub const RESOURCE_MAY_REQUIRE_INPUT: bool = T::MAY_REQUIRE_INPUT;
}

/// The resolver behind a `Resolve<R, W>` parameter.
pub trait ResolveParam {
    /// `R`.
    type Resolver: Resolver;
}

impl<R: Resolver, W: crate::resolve::Want> ResolveParam for crate::Resolve<R, W> {
    type Resolver = R;
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use super::ProbeFallback as _;
    use super::*;
    use crate::protocol::{CallToolOutcome, CallToolResult};

    #[test]
    fn only_outcomes_may_require_input() {
        const { assert!(Probe::<CallToolOutcome>::TOOL_MAY_REQUIRE_INPUT) };
        const { assert!(!Probe::<CallToolResult>::TOOL_MAY_REQUIRE_INPUT) };
        const { assert!(!Probe::<u32>::TOOL_MAY_REQUIRE_INPUT) };
        const { assert!(!Probe::<u32>::IS_QUESTION) };
        const { assert!(Probe::<crate::resolve::Sample>::IS_QUESTION) };
    }

    #[test]
    fn only_mcp_context_is_the_context() {
        struct Context;
        let _ = Context;
        const { assert!(Probe::<crate::Context>::IS_CONTEXT) };
        const { assert!(!Probe::<Context>::IS_CONTEXT) };
        const { assert!(Probe::<crate::State<String>>::IS_CONTEXT) };
    }

    #[test]
    fn outcomes_under_any_name_require_input() {
        use crate::protocol::{InputRequiredResult, Outcome as Imported};
        type Alias = Imported<u32>;
        const { assert!(Probe::<CallToolOutcome>::IS_INPUT_REQUIRED) };
        const { assert!(Probe::<Alias>::IS_INPUT_REQUIRED) };
        const { assert!(Probe::<InputRequiredResult>::IS_INPUT_REQUIRED) };
        const { assert!(!Probe::<CallToolResult>::IS_INPUT_REQUIRED) };
    }
}
