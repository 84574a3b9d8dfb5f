//! What one request may carry and how long it may run, whatever the transport.
//!
//! Layer 4: a [`LimitsLayer`] wraps a handler. Transport limits (the size of a message,
//! concurrent requests, SSE keep-alive) are settings of the transports in
//! [`serve`](crate::serve).

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use serde_json::Value;

use crate::Error;
use crate::handler::{BoxFuture, Handler, Layer, Reply, Request};
use crate::protocol::{DEFAULT_MAX_JSON_DEPTH, ErrorCode, Params, methods};
use crate::wire::untrusted::Untrusted;

/// Per-request limits of a [`Server`](crate::Server), set with
/// [`ServerBuilder::limits`](crate::server::ServerBuilder::limits).
///
/// ```
/// use std::time::Duration;
///
/// let limits = mcp::limits::Limits::default().handler_timeout(Some(Duration::from_secs(30)));
/// let server = mcp::Server::builder("demo", "1.0.0").limits(limits).build();
/// # let _ = server;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// How deeply a message may nest, counting every `{` and `[` (the message object is
    /// level 1). Deeper: `-32600`. Values above 127 are capped by `serde_json`'s own limit
    /// (a `-32700` there). Default 64.
    pub(crate) max_json_depth: usize,
    /// How many `inputResponses` entries one request may carry. More: `-32602`. Default 64.
    pub(crate) max_input_responses: usize,
    /// The largest `inputResponses` entry, as compact JSON. Larger: `-32602`. Default 256 KiB.
    pub(crate) max_input_response_bytes: usize,
    /// The longest `requestState` accepted, before any unsealing. Longer: `-32602`.
    /// Default 64 KiB.
    pub(crate) max_request_state_bytes: usize,
    /// How long a handler may run before the request fails with `-32001` and the handler is
    /// cancelled (`None`: no limit). `subscriptions/listen` streams are exempt. Default 300 s.
    pub(crate) handler_timeout: Option<Duration>,
    /// How many resources one 2025-11-25 session may subscribe to (`resources/subscribe`).
    /// More: `-32602`. Default 256.
    pub(crate) max_subscriptions_per_session: usize,
}

/// Default [`Limits::max_input_responses`].
pub const DEFAULT_MAX_INPUT_RESPONSES: usize = 64;
/// Default [`Limits::max_input_response_bytes`].
pub const DEFAULT_MAX_INPUT_RESPONSE_BYTES: usize = 256 * 1024;
/// Default [`Limits::max_request_state_bytes`].
pub const DEFAULT_MAX_REQUEST_STATE_BYTES: usize = 64 * 1024;
/// Default [`Limits::handler_timeout`].
pub const DEFAULT_HANDLER_TIMEOUT: Duration = Duration::from_secs(300);
/// Default [`Limits::max_subscriptions_per_session`].
pub const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION: usize = 256;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_json_depth: DEFAULT_MAX_JSON_DEPTH,
            max_input_responses: DEFAULT_MAX_INPUT_RESPONSES,
            max_input_response_bytes: DEFAULT_MAX_INPUT_RESPONSE_BYTES,
            max_request_state_bytes: DEFAULT_MAX_REQUEST_STATE_BYTES,
            handler_timeout: Some(DEFAULT_HANDLER_TIMEOUT),
            max_subscriptions_per_session: DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
        }
    }
}

macro_rules! limit {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: $ty) -> Self {
            self.$name = value;
            self
        }
    };
}

/// Setters, in the style of hyper's builders: `Limits::default().max_json_depth(32)`.
impl Limits {
    limit!(
        /// How deeply a message may nest, counting every `{` and `[` (the message object is
        /// level 1). Deeper: `-32600`. Values above 127 are capped by `serde_json`'s own
        /// limit (a `-32700` there). Default 64.
        max_json_depth: usize
    );
    limit!(
        /// How many `inputResponses` entries one request may carry. More: `-32602`. Default 64.
        max_input_responses: usize
    );
    limit!(
        /// The largest `inputResponses` entry, as compact JSON. Larger: `-32602`. Default 256 KiB.
        max_input_response_bytes: usize
    );
    limit!(
        /// The longest `requestState` accepted, before any unsealing. Longer: `-32602`.
        /// Default 64 KiB.
        max_request_state_bytes: usize
    );
    limit!(
        /// How long a handler may run before the request fails with `-32001` and the handler
        /// is cancelled (`None`: no limit), counted from the end of its first poll (a handler
        /// that finishes there is never timed). `subscriptions/listen` streams are exempt.
        /// Default 300 s.
        handler_timeout: Option<Duration>
    );
    limit!(
        /// How many resources one 2025-11-25 session (stdio, in-memory or HTTP) may
        /// subscribe to with `resources/subscribe`. A subscription past it is refused with
        /// `-32602` "Invalid params: a session may subscribe to at most N resources";
        /// subscribing again to a resource already subscribed to always succeeds.
        /// Default 256.
        max_subscriptions_per_session: usize
    );
}

impl Limits {
    /// Check the client-supplied retry fields of a request (`requestState`,
    /// `inputResponses`) before anything reads them.
    pub(crate) fn check_retry_fields(&self, method: &str, params: Option<&Params>) -> Result<(), Error> {
        let Some(params) = params else { return Ok(()) };
        if let Some(state) = params.field("requestState").and_then(|state| state.as_str())
            && state.len() > self.max_request_state_bytes
        {
            tracing::warn!(method = ?Untrusted(method), limit = self.max_request_state_bytes, "rejecting an oversized requestState");
            return Err(Error::invalid_params(format!(
                "Invalid params: requestState exceeds {} bytes",
                self.max_request_state_bytes
            )));
        }
        let responses = match params.get("inputResponses") {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Object(responses)) => responses,
            Some(_) => return Err(Error::invalid_params("Invalid params: inputResponses must be an object")),
        };
        if responses.len() > self.max_input_responses {
            tracing::warn!(method = ?Untrusted(method), limit = self.max_input_responses, "rejecting too many inputResponses");
            return Err(Error::invalid_params(format!(
                "Invalid params: more than {} inputResponses",
                self.max_input_responses
            )));
        }
        // No value's compact JSON is more than 4.5 times its text (a number such as `1e15`
        // is written `1000000000000000.0`; strings, literals and structure never grow), so
        // answers whose whole text is a fifth of the limit need not be encoded to be measured.
        let arrived = params.arrived_text("inputResponses").map(str::len);
        if arrived.is_some_and(|len| len.saturating_mul(5) <= self.max_input_response_bytes) {
            return Ok(());
        }
        for response in responses.values() {
            if encoded_len_exceeds(response, self.max_input_response_bytes) {
                tracing::warn!(
                    method = ?Untrusted(method),
                    limit = self.max_input_response_bytes,
                    "rejecting an oversized inputResponses entry"
                );
                return Err(Error::invalid_params(format!(
                    "Invalid params: an inputResponses entry exceeds {} bytes",
                    self.max_input_response_bytes
                )));
            }
        }
        Ok(())
    }

    /// Run a handler under [`handler_timeout`](Self::handler_timeout).
    pub(crate) async fn timed<T>(
        &self,
        method: &str,
        handler: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        let Some(limit) = self.handler_timeout else { return handler.await };
        match within(limit, handler).await {
            Ok(outcome) => outcome,
            Err(_) => {
                tracing::warn!(method = ?Untrusted(method), limit_ms = limit.as_millis() as u64, "a handler timed out; cancelling it");
                Err(Error::new(ErrorCode::REQUEST_TIMEOUT, "Request timed out"))
            }
        }
    }
}

/// `future`, given at most `limit` to finish, counted from its first poll. Most futures
/// here (a handler, a body already read with its head) finish in that poll, and are never
/// timed: arming a timer reads the clock and registers an entry with the runtime's driver.
pub(crate) async fn within<F: Future>(limit: Duration, future: F) -> Result<F::Output, tokio::time::error::Elapsed> {
    let mut future = std::pin::pin!(future);
    if let Poll::Ready(output) = std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await {
        return Ok(output);
    }
    tokio::time::timeout(limit, future).await
}

/// Whether `value`'s compact JSON encoding is longer than `limit` bytes (stops counting
/// once it is).
fn encoded_len_exceeds(value: &Value, limit: usize) -> bool {
    struct Counter {
        left: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            match self.left.checked_sub(buf.len()) {
                Some(left) => {
                    self.left = left;
                    Ok(buf.len())
                }
                None => Err(std::io::Error::other("limit reached")),
            }
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(Counter { left: limit }, value).is_err()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A ready future is not timed; one that is not gets its limit.
    #[tokio::test]
    async fn within_times_only_what_does_not_finish_at_once() {
        assert_eq!(within(Duration::ZERO, async { 7 }).await, Ok(7));
        let late = async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            8
        };
        assert!(within(Duration::from_millis(20), late).await.is_err());
        let soon = async {
            tokio::time::sleep(Duration::from_millis(10)).await;
            9
        };
        assert_eq!(within(Duration::from_secs(30), soon).await, Ok(9));
        assert!(within(Duration::from_millis(20), std::future::pending::<()>()).await.is_err());
    }

    fn params(value: &Value) -> crate::protocol::Params {
        match value {
            Value::Object(map) => map.clone().into(),
            _ => crate::protocol::Params::new(),
        }
    }

    fn small() -> Limits {
        Limits::default().max_input_responses(2).max_input_response_bytes(20).max_request_state_bytes(8)
    }

    fn check(value: Value) -> Result<(), String> {
        // Params built, and params kept as the text they arrived as: the same answer.
        let built = small().check_retry_fields("tools/call", Some(&params(&value))).map_err(|e| e.message);
        let text = crate::protocol::read_params_text(&value.to_string()).expect("valid params");
        let read = small().check_retry_fields("tools/call", Some(&text)).map_err(|e| e.message);
        assert_eq!(built, read, "{value}");
        built
    }

    #[test]
    fn request_state_length_is_bounded() {
        assert_eq!(check(json!({"requestState": "12345678"})), Ok(()));
        assert_eq!(
            check(json!({"requestState": "123456789"})),
            Err("Invalid params: requestState exceeds 8 bytes".to_owned())
        );
    }

    #[test]
    fn input_responses_are_counted_and_measured() {
        assert_eq!(check(json!({"inputResponses": {"a": {}, "b": {}}})), Ok(()));
        assert_eq!(check(json!({"inputResponses": null})), Ok(()));
        assert_eq!(
            check(json!({"inputResponses": {"a": {}, "b": {}, "c": {}}})),
            Err("Invalid params: more than 2 inputResponses".to_owned())
        );
        // {"action":"accept"} is 19 bytes; {"action":"accepted"} is 21.
        assert_eq!(check(json!({"inputResponses": {"a": {"action": "accept"}}})), Ok(()));
        assert_eq!(
            check(json!({"inputResponses": {"a": {"action": "accepted"}}})),
            Err("Invalid params: an inputResponses entry exceeds 20 bytes".to_owned())
        );
        assert_eq!(
            check(json!({"inputResponses": ["a"]})),
            Err("Invalid params: inputResponses must be an object".to_owned())
        );
    }

    /// Short answers pass without being encoded, by a bound on how much their encoding can
    /// grow: numbers in exponent form grow up to 4.5 times (`1e15`), so answers whose text is
    /// over a fifth of the limit are still measured.
    #[test]
    fn answers_short_of_the_bound_pass_and_longer_ones_are_measured() {
        let numbers = vec!["1e15"; 20].join(",");
        let responses = format!(r#"{{"a":{{"n":[{numbers}]}}}}"#);
        let text = format!(r#"{{"inputResponses":{responses}}}"#);
        let params = crate::protocol::read_params_text(&text).expect("valid params");
        let entry = params.get("inputResponses").and_then(|r| r.get("a")).cloned().expect("an answer");
        let encoded = serde_json::to_string(&entry).expect("encodes").len();
        // Under three times the answers' text, though the entry's encoding is longer.
        let limit = 3 * responses.len();
        assert!(encoded > limit, "{encoded} > {limit}");
        let limits = Limits::default().max_input_response_bytes(limit);
        assert_eq!(
            limits.check_retry_fields("tools/call", Some(&params)).map_err(|e| e.message),
            Err(format!("Invalid params: an inputResponses entry exceeds {limit} bytes"))
        );
        let limits = Limits::default().max_input_response_bytes(encoded);
        assert_eq!(limits.check_retry_fields("tools/call", Some(&params)).map_err(|e| e.message), Ok(()));
    }

    #[test]
    fn encoded_length_is_exact() {
        let value = json!({"k": [1, "é", null]});
        let len = serde_json::to_string(&value).map(|s| s.len()).unwrap_or(0);
        assert!(!encoded_len_exceeds(&value, len));
        assert!(encoded_len_exceeds(&value, len - 1));
    }
}

/// The per-request [`Limits`] as a [`Layer`]: checks the retry fields
/// (`inputResponses`, `requestState`) before the inner handler sees them, and runs it
/// under the handler timeout (`subscriptions/listen` streams are exempt).
#[derive(Debug, Clone)]
pub struct LimitsLayer {
    limits: Arc<Limits>,
}

impl LimitsLayer {
    /// A layer enforcing `limits`.
    pub fn new(limits: Limits) -> Self {
        LimitsLayer { limits: Arc::new(limits) }
    }
}

impl<H: Handler> Layer<H> for LimitsLayer {
    type Handler = Limited<H>;

    fn layer(&self, inner: H) -> Limited<H> {
        Limited { inner, limits: Arc::clone(&self.limits) }
    }
}

/// A handler wrapped by [`LimitsLayer`].
#[derive(Debug, Clone)]
pub struct Limited<H> {
    inner: H,
    limits: Arc<Limits>,
}

impl<H: Handler> Handler for Limited<H> {
    fn call(&self, request: Request) -> BoxFuture<Result<Reply, Error>> {
        if let Err(e) = self.limits.check_retry_fields(&request.method, request.params.as_ref()) {
            if request.params.as_ref().and_then(|p| p.field("requestState")).is_some() {
                crate::telemetry::record_request_state(
                    request.ctx.span(),
                    "not checked: the request is over the limits",
                );
            }
            return Box::pin(std::future::ready(Err(e)));
        }
        if request.method == methods::SUBSCRIPTIONS_LISTEN || self.limits.handler_timeout.is_none() {
            return self.inner.call(request);
        }
        let limits = Arc::clone(&self.limits);
        // Named only if the handler times out: the methods of the hot path are not copied.
        let method = match request.method.as_str() {
            methods::TOOLS_CALL => Cow::Borrowed(methods::TOOLS_CALL),
            methods::RESOURCES_READ => Cow::Borrowed(methods::RESOURCES_READ),
            methods::PROMPTS_GET => Cow::Borrowed(methods::PROMPTS_GET),
            other => Cow::Owned(other.to_owned()),
        };
        let inner = self.inner.call(request);
        Box::pin(async move { limits.timed(&method, inner).await })
    }
}
