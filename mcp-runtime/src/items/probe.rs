//! Compile-time questions the generated code asks about a concrete type, where syntax
//! cannot see the answer (type aliases, user enums): may a return type carry an
//! `InputRequiredResult`, is it a resolver question, and which resolver fills a
//! `Resolve<R, W>` parameter.
//!
//! Each probe is an inherent constant on `Probe<T>` for the types it applies to, with
//! [`ProbeFallback`] supplying `false` for every other type (an inherent constant wins
//! over a trait's).

use std::marker::PhantomData;

use super::{IntoResourceOutcome, IntoToolOutcome};
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
}
