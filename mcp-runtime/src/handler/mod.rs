//! Layer 2, the handler abstraction: one request in, one reply out, with a request
//! context.
//!
//! Everything above builds on these types, in the spirit of tower's `Service` and
//! axum's "a router is a service":
//!
//! - [`Handler`]: serves a [`Request`] (method, params, [`RequestContext`]) and returns a
//!   [`Reply`], the final result or an `InputRequiredResult`.
//! - [`Layer`]: wraps a handler in another (request-state sealing and the per-request
//!   limits are layers; see [`crate::sealing::SealingLayer`] and
//!   [`crate::limits::LimitsLayer`]).
//! - [`RequestContext`] and [`Context`]: what a handler knows about its request and what
//!   it can send back besides the result.
//! - [`Session`]: one connection's state, and [`ServerHandle`]: what a handler can do to
//!   the server it runs in.
//!
//! The item router (`#[mcp::tool]` and friends) and the low-level per-method handlers of
//! [`Server`](crate::Server) both implement [`Handler`].
//!
//! ```
//! use mcp::handler::{BoxFuture, Handler, Reply, Request};
//! use mcp::protocol::JsonObject;
//!
//! /// Answers every request with an empty result.
//! struct Empty;
//!
//! impl Handler for Empty {
//!     fn call(&self, _request: Request) -> BoxFuture<Result<Reply, mcp::Error>> {
//!         Box::pin(async { Ok(Reply::complete(JsonObject::new())) })
//!     }
//! }
//! # let _ = Empty;
//! ```

mod answers;
mod auth;
mod changes;
mod context;
mod outbound;
mod panic;
mod reply;
mod response;
mod result_object;
mod session;
mod state;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub use answers::Answers;
pub use auth::AuthInfo;
pub(crate) use changes::ItemSwitch;
pub use changes::{Change, ServerHandle};
#[cfg(feature = "http")]
pub(crate) use context::HttpRequest;
pub(crate) use context::{Caller, ContextInner};
pub use context::{Context, RequestContext};
#[cfg(feature = "http")]
pub(crate) use outbound::CAPACITY;
pub(crate) use outbound::Outbound;
pub(crate) use panic::CatchUnwind;
pub use reply::Reply;
pub(crate) use response::{Payload, ResultShape, busy, error_frame, outcome_frame};
pub use result_object::ResultObject;
#[cfg(feature = "http")]
pub(crate) use session::Hold;
pub(crate) use session::LegacyState;
pub use session::Session;
pub(crate) use session::SessionEnd;
pub(crate) use state::StateMap;
pub use state::{State, StateNeeds};

use crate::Error;
use crate::protocol::{JsonObject, Params};

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// One request as a handler sees it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Request {
    /// The request's context: id, era, client capabilities, session, notifications.
    pub ctx: RequestContext,
    /// The JSON-RPC method.
    pub method: String,
    /// The params object, `_meta` included. It reads as a [`JsonObject`]; one read from the
    /// wire builds its members when they are read (see [`Params`]).
    pub params: Option<Params>,
}

impl Request {
    /// A request for `method` with `params`.
    pub fn new(ctx: RequestContext, method: impl Into<String>, params: Option<JsonObject>) -> Self {
        Request::with_params(ctx, method, params.map(Params::from))
    }

    /// A request for `method` with `params` as read from the wire (or built).
    pub fn with_params(ctx: RequestContext, method: impl Into<String>, params: Option<Params>) -> Self {
        Request { ctx, method: method.into(), params }
    }
}

/// Serves requests: one [`Request`] in, one [`Reply`] (or a JSON-RPC error) out.
pub trait Handler: Send + Sync + 'static {
    /// Serve `request`.
    fn call(&self, request: Request) -> BoxFuture<Result<Reply, Error>>;
}

impl<H: Handler + ?Sized> Handler for Arc<H> {
    fn call(&self, request: Request) -> BoxFuture<Result<Reply, Error>> {
        (**self).call(request)
    }
}

impl<H: Handler + ?Sized> Handler for Box<H> {
    fn call(&self, request: Request) -> BoxFuture<Result<Reply, Error>> {
        (**self).call(request)
    }
}

/// Wraps a handler in another, as tower's `Layer` does for services.
pub trait Layer<H: Handler> {
    /// The wrapped handler.
    type Handler: Handler;

    /// Wrap `inner`.
    fn layer(&self, inner: H) -> Self::Handler;
}
