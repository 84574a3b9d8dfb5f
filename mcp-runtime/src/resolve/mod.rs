//! Resolvers: tool parameters that ask the client for something.
//!
//! A resolver is a function marked `#[mcp::resolver]`. It takes tool arguments by name,
//! the [`Context`](crate::Context), and other resolvers' values (`Resolve<other>`), and
//! returns either a plain value or one question: [`Elicit<T>`], [`Sample`] or
//! [`ListRoots`]. A tool parameter `x: Resolve<my_resolver>` receives the answer.
//!
//! ```
//! use mcp::resolve::{Answer, Elicit, Refusable};
//! use mcp::Resolve;
//!
//! #[derive(serde::Deserialize, mcp::ElicitForm)]
//! struct Region {
//!     /// Cloud region, e.g. eu-west-1.
//!     region: String,
//! }
//!
//! #[derive(serde::Deserialize, mcp::ElicitForm)]
//! struct Confirm {
//!     ok: bool,
//! }
//!
//! /// Which region the database goes to.
//! #[mcp::resolver]
//! fn ask_region(name: &str) -> Elicit<Region> {
//!     Elicit::new(format!("Which region should {name} live in?"))
//! }
//!
//! /// Only big databases need a confirmation.
//! #[mcp::resolver]
//! fn confirm(size_gb: u32, region: Resolve<ask_region>) -> Elicit<Confirm> {
//!     if size_gb < 100 {
//!         return Elicit::answered(Confirm { ok: true });
//!     }
//!     Elicit::new(format!("Provision {size_gb} GB in {}: sure?", region.region))
//! }
//!
//! /// Provision a database.
//! #[mcp::tool]
//! async fn provision(
//!     name: String,
//!     size_gb: u32,
//!     region: Resolve<ask_region>,
//!     confirm: Resolve<confirm, Refusable>,
//! ) -> Result<String, String> {
//!     match &*confirm {
//!         Answer::Accept(c) if c.ok => Ok(format!("Provisioned '{name}' ({size_gb} GB) in {}.", region.region)),
//!         _ => Err("Not confirmed.".to_owned()),
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! Under 2026-07-28 the tool's first call answers with an `InputRequiredResult` holding
//! every question that can be asked now (here the region); the client retries with the
//! answers and the sealed `requestState`, and questions that need earlier answers (here the
//! confirmation) go out in the next round. Each question is asked once per call; resolver
//! bodies run again on every round, so they must build their questions deterministically.
//! In a 2025-11-25 session the same resolvers send `elicitation/create`,
//! `sampling/createMessage` and `roots/list` requests and wait for the answers.

mod answer;
#[cfg(feature = "macros")]
pub(crate) mod cycle;
pub(crate) mod form;
mod question;
mod round;
mod state;

use std::marker::PhantomData;
use std::sync::Arc;

pub use answer::Answer;
pub use form::{ElicitChoice, ElicitField, ElicitForm};
pub use question::{Elicit, ListRoots, Question, QuestionKind, Rendered, Sample};

#[doc(hidden)]
pub use round::{FromRound, Graph, Plan, ResolveWith, Round, RoundFuture, Stop, Visit};
#[doc(hidden)]
pub use state::question_digest;

/// A resolver declared with `#[mcp::resolver]` (implemented by the macro on the
/// resolver's companion type).
pub trait Resolver: Send + Sync + 'static {
    /// The value a `Resolve<Self>` parameter receives.
    type Value: Send + Sync + 'static;
    /// The resolver's base wire key: its module path and name, or `key = "..."`.
    const KEY: &'static str;
    /// One more than the longest chain of resolvers below it, counted up to 12 levels (a
    /// cycle fails to compile, naming the resolvers in it).
    const DEPTH: usize;
    /// Add this resolver and its dependencies to a tool's plan, in discovery order.
    fn collect(graph: &mut Graph);
}

/// Marker for `Resolve<R, Value>` (the default): the resolved value itself. A declined or
/// cancelled question ends the call with an `isError` result naming the parameter.
#[derive(Debug, Clone, Copy)]
pub enum Value {}

/// Marker for `Resolve<R, Refusable>`: the [`Answer`] (accept, decline or cancel), for a
/// consumer that handles a refusal itself. (With the default [`Value`], a declined or
/// cancelled question ends the call instead.)
#[derive(Debug, Clone, Copy)]
pub enum Refusable {}

/// What a consumer wants from a resolver: [`Value`] or [`Refusable`].
pub trait Want: Send + Sync + 'static {
    /// What the parameter holds for a resolver value `T`.
    type Hold<T: Send + Sync + 'static>: Send + Sync;
    /// Take the answer, or `None` when it was refused and the consumer wants the value.
    fn take<T: Send + Sync + 'static>(answer: Answer<Arc<T>>) -> Option<Self::Hold<T>>;
}

impl Want for Value {
    type Hold<T: Send + Sync + 'static> = Arc<T>;

    fn take<T: Send + Sync + 'static>(answer: Answer<Arc<T>>) -> Option<Arc<T>> {
        match answer {
            Answer::Accept(value) => Some(value),
            Answer::Decline | Answer::Cancel => None,
        }
    }
}

impl Want for Refusable {
    type Hold<T: Send + Sync + 'static> = Answer<Arc<T>>;

    fn take<T: Send + Sync + 'static>(answer: Answer<Arc<T>>) -> Option<Answer<Arc<T>>> {
        Some(answer)
    }
}

/// A parameter filled by the resolver `R` rather than by the client's arguments. It is not
/// part of the tool's input schema; a client-supplied value under its name is ignored.
///
/// `Resolve<R>` dereferences to `R`'s value; `Resolve<R, Refusable>` dereferences to the
/// [`Answer`]. A value shared by several consumers is computed once per round and shared
/// (hence the `Arc`).
pub struct Resolve<R: Resolver, W: Want = Value> {
    held: W::Hold<R::Value>,
    _resolver: PhantomData<fn() -> R>,
}

impl<R: Resolver, W: Want> Resolve<R, W> {
    pub(crate) fn new(held: W::Hold<R::Value>) -> Self {
        Resolve { held, _resolver: PhantomData }
    }
}

impl<R: Resolver> Resolve<R, Value> {
    /// The value, cloned out if another consumer still shares it.
    pub fn into_inner(self) -> R::Value
    where
        R::Value: Clone,
    {
        Arc::unwrap_or_clone(self.held)
    }

    /// The shared value.
    pub fn into_arc(self) -> Arc<R::Value> {
        self.held
    }
}

impl<R: Resolver> Resolve<R, Refusable> {
    /// The answer.
    pub fn into_answer(self) -> Answer<Arc<R::Value>> {
        self.held
    }
}

impl<R: Resolver> std::ops::Deref for Resolve<R, Value> {
    type Target = R::Value;

    fn deref(&self) -> &R::Value {
        &self.held
    }
}

impl<R: Resolver> std::ops::Deref for Resolve<R, Refusable> {
    type Target = Answer<Arc<R::Value>>;

    fn deref(&self) -> &Answer<Arc<R::Value>> {
        &self.held
    }
}

impl<R: Resolver, W: Want> std::fmt::Debug for Resolve<R, W>
where
    W::Hold<R::Value>: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Resolve").field(&self.held).finish()
    }
}
