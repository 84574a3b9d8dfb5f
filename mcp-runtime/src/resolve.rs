//! `Resolve<R>`: a tool parameter filled by a resolver rather than by the client's
//! arguments. A resolver may answer directly or interrupt the call, for example with a
//! question for the client.

use crate::Error;
use crate::protocol::{CallToolOutcome, CallToolResult, InputRequiredResult};
use crate::server::{BoxFuture, Context};

/// Why a resolver could not produce its value.
#[derive(Debug, Clone)]
pub enum Interrupt {
    /// Ask the client first (2026-07-28: the call returns this `InputRequiredResult`).
    Ask(InputRequiredResult),
    /// End the call with an `isError` tool result carrying this text.
    Fail(String),
    /// End the call with a JSON-RPC error.
    Error(Error),
}

impl Interrupt {
    /// What the tool call returns instead of running the tool.
    pub fn into_outcome(self) -> Result<CallToolOutcome, Error> {
        match self {
            Interrupt::Ask(ask) => Ok(ask.into()),
            Interrupt::Fail(text) => Ok(CallToolResult::error(text).into()),
            Interrupt::Error(e) => Err(e),
        }
    }
}

/// Something that produces a tool parameter's value from the request.
pub trait Resolver: 'static {
    /// The value it produces.
    type Output: Send + 'static;
    /// Produce it, or interrupt the call.
    fn resolve(ctx: &Context) -> BoxFuture<Result<Self::Output, Interrupt>>;
}

/// A tool parameter whose value comes from the resolver `R`. It is not part of the
/// tool's input schema.
pub struct Resolve<R: Resolver>(pub R::Output);

impl<R: Resolver> Resolve<R> {
    /// The resolved value.
    pub fn into_inner(self) -> R::Output {
        self.0
    }
}

impl<R: Resolver> std::ops::Deref for Resolve<R> {
    type Target = R::Output;

    fn deref(&self) -> &R::Output {
        &self.0
    }
}

impl<R: Resolver> std::fmt::Debug for Resolve<R>
where
    R::Output: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Resolve").field(&self.0).finish()
    }
}
