//! Request hooks: code that runs before and after each request, with its method, target,
//! principal, duration and outcome.
//!
//! Layer 4: implement [`RequestHooks`] and add it with
//! [`ServerBuilder::hooks`](crate::server::ServerBuilder::hooks). The server wraps its
//! handler stack in a [`HooksLayer`], outside the built-in limits and sealing layers and
//! outside the layers added with [`ServerBuilder::layer`](crate::server::ServerBuilder::layer),
//! so `after` also sees the requests those refuse (an oversized `requestState`, a forged
//! state, a handler timeout).
//!
//! - [`RequestHooks::before`] runs before the handler; an `Err` refuses the request with
//!   that JSON-RPC error and the handler is not called (a rate limit answers this way).
//! - [`RequestHooks::after`] runs once the reply (or error) is known, with a
//!   [`RequestOutcome`]: how long the request took and what kind of answer it got.
//!
//! Hooks see neither the arguments nor the answers: only the method, the target (the
//! tool, prompt or resource named), the verified caller and the outcome's kind.
//!
//! **What the hooks see.** Every request that reaches the handler stack: `tools/*`,
//! `prompts/*`, `resources/*` (lists included), `completion/complete`, `server/discover`,
//! `subscriptions/listen` (its `after` runs when the stream ends), `tasks/*` and custom
//! methods. Not seen: what the server answers before the stack, namely `initialize`,
//! `ping`, the 2025-11-25 `resources/subscribe`, `resources/unsubscribe` and
//! `logging/setLevel`, and requests refused while being routed (an unknown method,
//! missing or invalid `_meta`, an unsupported protocol version), nor messages refused by a
//! transport (too large, malformed, too many in flight). Notifications are not requests.
//! So that the hooks see them, the lists of `#[mcp::tool]` and other macro items are
//! built for each request on a server with hooks, rather than sent from their cached
//! encoding.
//!
//! **Several hooks.** Each call to `ServerBuilder::hooks` adds one. `before` runs in the
//! order they were added and stops at the first `Err`; `after` runs in the reverse order,
//! for every hook, whether or not its own `before` ran (so an audit log added after a rate
//! limit still records the requests the rate limit refused).
//!
//! **Panics.** A hook that panics does not take the server down: a panic in `before`
//! refuses the request with `-32603` "Internal error", a panic in `after` is ignored (the
//! client still gets its answer); either logs a WARN without the panic's message. A panic
//! below the hooks (in a handler, or in a layer's `call` itself or in its future) gets
//! `after` with [`OutcomeKind::Error`] `-32603`, then goes on unwinding to the transport,
//! which answers `-32603` "Internal error" as it does without hooks. A
//! request whose future is dropped before it finishes (the client cancelled it, the
//! connection closed, a shutdown's grace period ran out) gets `after` with
//! [`OutcomeKind::Cancelled`].
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use mcp::hooks::{OutcomeKind, RequestHooks, RequestInfo, RequestOutcome};
//!
//! /// Counts the tool calls that failed, by JSON-RPC error or by a tool error.
//! #[derive(Default)]
//! struct FailedCalls(AtomicU64);
//!
//! impl RequestHooks for FailedCalls {
//!     fn after(&self, request: &RequestInfo<'_>, outcome: &RequestOutcome) {
//!         let failed = matches!(outcome.kind(), OutcomeKind::ToolError | OutcomeKind::Error { .. });
//!         if request.method() == "tools/call" && failed {
//!             self.0.fetch_add(1, Ordering::Relaxed);
//!         }
//!     }
//! }
//!
//! let server = mcp::Server::builder("counted", "1.0.0").hooks(FailedCalls::default()).build();
//! # let _ = server;
//! ```

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, OnceLock};
use std::task::Poll;
use std::time::{Duration, Instant};

use crate::Error;
use crate::handler::{AuthInfo, BoxFuture, Handler, Layer, Reply, Request, RequestContext};
use crate::protocol::{RequestId, methods};

/// Code run before and after each request the handler stack serves; see the
/// [module](self) for what is seen and in which order.
///
/// Both methods are synchronous and run on the request's task: keep them short (a
/// counter, a log line, sending on a channel), and never block.
pub trait RequestHooks: Send + Sync + 'static {
    /// Runs before the handler. `Err(error)` refuses the request: the client receives
    /// `error` as the JSON-RPC error, the handler is not called, and `after` still runs
    /// with [`OutcomeKind::Error`]. The default lets every request through.
    fn before(&self, request: &RequestInfo<'_>) -> Result<(), Error> {
        let _ = request;
        Ok(())
    }

    /// Runs once the request is answered (or refused, or cancelled). The default does
    /// nothing.
    fn after(&self, request: &RequestInfo<'_>, outcome: &RequestOutcome) {
        let _ = (request, outcome);
    }
}

/// What hooks know about a request: never its arguments.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RequestInfo<'a> {
    method: &'a str,
    target: Option<&'a str>,
    ctx: &'a RequestContext,
    /// [`AuthInfo::principal`], computed the first time a hook asks, once per request.
    principal: &'a OnceLock<Option<String>>,
}

impl<'a> RequestInfo<'a> {
    /// The JSON-RPC method, as `tools/call`.
    pub fn method(&self) -> &'a str {
        self.method
    }

    /// What the request names: the tool of a `tools/call`, the prompt of a `prompts/get`,
    /// the resource URI of a `resources/read`; `None` for other methods, or when the
    /// params carry no such string. It is as the client sent it: it may name nothing
    /// this server has (the request then fails with `-32602`) and may be long or hold
    /// any character, so escape it before printing it.
    pub fn target(&self) -> Option<&'a str> {
        self.target
    }

    /// The verified caller, as [`AuthInfo::principal`]: its client id, issuer and subject
    /// together, the principal request state is sealed to by default. The transport's
    /// [`TokenVerifier`](crate::auth::TokenVerifier) (or a layer in front of the HTTP
    /// endpoint) established it: never something the request itself claims.
    ///
    /// Two callers differing in any of the three have different principals: the same
    /// `sub` from two issuers, or two clients' client-credentials tokens (which have no
    /// `sub`). `None` only when the request is unauthenticated (stdio, in-process, HTTP
    /// without a verifier). It is an opaque key (today a JSON array): compare or hash it,
    /// and read the parts from [`auth`](Self::auth). Computed once per request, the first
    /// time a hook asks.
    pub fn principal(&self) -> Option<&'a str> {
        self.principal.get_or_init(|| self.ctx.auth().map(AuthInfo::principal)).as_deref()
    }

    /// Everything verified about the caller (client id, issuer, subject, scopes); `None`
    /// when the request is unauthenticated.
    pub fn auth(&self) -> Option<&'a AuthInfo> {
        self.ctx.auth()
    }

    /// The JSON-RPC request id.
    pub fn request_id(&self) -> &'a RequestId {
        self.ctx.request_id()
    }

    /// The protocol version the request is served under (`2026-07-28`, or the version of
    /// its 2025-11-25-era session).
    pub fn protocol_version(&self) -> &'a str {
        self.ctx.protocol_version()
    }

    /// Whether the request belongs to a 2025-11-25-era session (opened by `initialize`)
    /// rather than a stateless 2026-07-28 request.
    pub fn is_legacy(&self) -> bool {
        self.ctx.is_legacy()
    }
}

/// How a request ended, as [`RequestHooks::after`] sees it: never the answer itself.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestOutcome {
    duration: Duration,
    kind: OutcomeKind,
}

impl RequestOutcome {
    /// From the moment the request reached the hooks (before the first `before`) to the
    /// moment its reply or error came back from the handler stack.
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// What kind of answer the request got.
    pub fn kind(&self) -> &OutcomeKind {
        &self.kind
    }
}

/// The kind of answer a request got.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutcomeKind {
    /// A final result (for `tools/call`, one without `isError`).
    Complete,
    /// A `tools/call` answered with a `CallToolResult` whose `isError` is true: the tool
    /// ran and failed, and the model is told why.
    ToolError,
    /// An `InputRequiredResult`: the server asks the client for input before it answers.
    #[non_exhaustive]
    InputRequired {
        /// The keys of the input requests, sorted.
        keys: Vec<String>,
    },
    /// A `tools/call` that became a task: the answer is a `CreateTaskResult`; the task's
    /// work goes on after the request.
    Task,
    /// A JSON-RPC error, including one returned by a `before` hook, a limit, the sealing
    /// layer or a handler timeout (`-32001`), and `-32603` for a panicking handler or layer.
    #[non_exhaustive]
    Error {
        /// The JSON-RPC error code.
        code: i32,
    },
    /// The request was dropped before it finished: cancelled by the client, its
    /// connection closed, or cut off by a shutdown.
    Cancelled,
}

impl OutcomeKind {
    fn of(method: &str, result: &Result<Reply, Error>) -> OutcomeKind {
        match result {
            Ok(Reply::Complete { result, .. }) => {
                let tool_error = method == methods::TOOLS_CALL && result.is_tool_error();
                if tool_error { OutcomeKind::ToolError } else { OutcomeKind::Complete }
            }
            Ok(Reply::InputRequired(input)) => OutcomeKind::InputRequired {
                keys: input
                    .input_requests
                    .as_ref()
                    .map(|requests| requests.keys().cloned().collect())
                    .unwrap_or_default(),
            },
            Ok(Reply::Task(_)) => OutcomeKind::Task,
            Err(error) => OutcomeKind::Error { code: error.code },
        }
    }
}

/// The hooks of a server, in the order they were added.
#[derive(Clone, Default)]
pub(crate) struct HookChain {
    hooks: Vec<Arc<dyn RequestHooks>>,
}

impl HookChain {
    pub(crate) fn push(&mut self, hooks: Arc<dyn RequestHooks>) {
        self.hooks.push(hooks);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Every `before` in order, up to the first refusal; a panic is a `-32603` refusal.
    fn before(&self, info: &RequestInfo<'_>) -> Result<(), Error> {
        for hooks in &self.hooks {
            match catch_unwind(AssertUnwindSafe(|| hooks.before(info))) {
                Ok(Ok(())) => {}
                Ok(Err(error)) => return Err(error),
                Err(_) => {
                    tracing::warn!("a request hook panicked in `before`; refusing the request with -32603");
                    return Err(Error::internal("Internal error"));
                }
            }
        }
        Ok(())
    }

    /// Every `after` in reverse order; a panic is logged and the next hook still runs.
    fn after(&self, info: &RequestInfo<'_>, outcome: &RequestOutcome) {
        for hooks in self.hooks.iter().rev() {
            if catch_unwind(AssertUnwindSafe(|| hooks.after(info, outcome))).is_err() {
                tracing::warn!("a request hook panicked in `after`; the request's answer is unaffected");
            }
        }
    }
}

/// Wraps a handler in [`RequestHooks`]. Servers add it themselves when
/// [`ServerBuilder::hooks`](crate::server::ServerBuilder::hooks) is called; it is public
/// for handler stacks composed by hand.
///
/// ```
/// use mcp::handler::{BoxFuture, Handler, Layer, Reply, Request};
/// use mcp::hooks::{HooksLayer, RequestHooks};
/// use mcp::protocol::JsonObject;
///
/// struct Empty;
///
/// impl Handler for Empty {
///     fn call(&self, _request: Request) -> BoxFuture<Result<Reply, mcp::Error>> {
///         Box::pin(async { Ok(Reply::complete(JsonObject::new())) })
///     }
/// }
///
/// struct Nothing;
/// impl RequestHooks for Nothing {}
///
/// let hooked = HooksLayer::new(Nothing).layer(Empty);
/// # let _ = hooked;
/// ```
#[derive(Clone, Default)]
pub struct HooksLayer {
    chain: Arc<HookChain>,
}

impl std::fmt::Debug for HooksLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HooksLayer").field("hooks", &self.chain.hooks.len()).finish()
    }
}

impl HooksLayer {
    /// A layer running `hooks`.
    pub fn new(hooks: impl RequestHooks) -> Self {
        let mut chain = HookChain::default();
        chain.push(Arc::new(hooks));
        HooksLayer { chain: Arc::new(chain) }
    }

    pub(crate) fn from_chain(chain: HookChain) -> Self {
        HooksLayer { chain: Arc::new(chain) }
    }
}

impl<H: Handler> Layer<H> for HooksLayer {
    type Handler = Hooked<H>;

    fn layer(&self, inner: H) -> Hooked<H> {
        Hooked { inner, chain: Arc::clone(&self.chain) }
    }
}

/// A handler wrapped by a [`HooksLayer`].
pub struct Hooked<H> {
    inner: H,
    chain: Arc<HookChain>,
}

impl<H> std::fmt::Debug for Hooked<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooked").finish_non_exhaustive()
    }
}

impl<H: Handler> Handler for Hooked<H> {
    fn call(&self, request: Request) -> BoxFuture<Result<Reply, Error>> {
        let started = Instant::now();
        let mut watch = Watch {
            chain: Arc::clone(&self.chain),
            ctx: request.ctx.clone(),
            principal: OnceLock::new(),
            target: target_of(&request),
            method: request.method.clone(),
            started,
            reported: false,
        };
        if let Err(error) = watch.chain.before(&watch.info()) {
            watch.report(OutcomeKind::Error { code: error.code });
            return Box::pin(std::future::ready(Err(error)));
        }
        // A panicking handler or layer still gets its `after` (as the -32603 the transport
        // answers), then the panic goes on to the transport as before: whether it panics
        // in `call` itself or in the future `call` returns.
        let mut reply = match catch_unwind(AssertUnwindSafe(|| self.inner.call(request))) {
            Ok(reply) => reply,
            Err(panic) => {
                watch.report(OutcomeKind::Error { code: crate::protocol::ErrorCode::INTERNAL_ERROR });
                resume_unwind(panic)
            }
        };
        Box::pin(async move {
            let result = std::future::poll_fn(|cx| match catch_unwind(AssertUnwindSafe(|| reply.as_mut().poll(cx))) {
                Ok(poll) => poll.map(Ok),
                Err(panic) => Poll::Ready(Err(panic)),
            })
            .await;
            match result {
                Ok(result) => {
                    watch.report(OutcomeKind::of(&watch.method, &result));
                    result
                }
                Err(panic) => {
                    watch.report(OutcomeKind::Error { code: crate::protocol::ErrorCode::INTERNAL_ERROR });
                    resume_unwind(panic)
                }
            }
        })
    }
}

/// One request on its way through the hooks: reports `after` exactly once, as
/// [`OutcomeKind::Cancelled`] if the request is dropped unanswered.
struct Watch {
    chain: Arc<HookChain>,
    ctx: RequestContext,
    principal: OnceLock<Option<String>>,
    method: String,
    target: Option<String>,
    started: Instant,
    reported: bool,
}

impl Watch {
    fn info(&self) -> RequestInfo<'_> {
        RequestInfo { method: &self.method, target: self.target.as_deref(), ctx: &self.ctx, principal: &self.principal }
    }

    fn report(&mut self, kind: OutcomeKind) {
        self.reported = true;
        let outcome = RequestOutcome { duration: self.started.elapsed(), kind };
        self.chain.after(&self.info(), &outcome);
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // Never run user code while a panic unwinds: a second panic would abort.
        if !self.reported && !std::thread::panicking() {
            self.report(OutcomeKind::Cancelled);
        }
    }
}

/// The tool, prompt or resource a request names.
fn target_of(request: &Request) -> Option<String> {
    let field = match request.method.as_str() {
        methods::TOOLS_CALL | methods::PROMPTS_GET => "name",
        methods::RESOURCES_READ => "uri",
        _ => return None,
    };
    request.params.as_ref()?.get(field)?.as_str().map(str::to_owned)
}
