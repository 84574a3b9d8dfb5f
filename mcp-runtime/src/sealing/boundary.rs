//! Where sealing meets the handler stack: [`SealingLayer`] verifies and unwraps
//! `requestState` on the way in and seals it on the way out, for `tools/call`,
//! `prompts/get` and `resources/read` only.

use std::cell::RefCell;
use std::sync::Arc;

use ring::rand::SystemRandom;
use serde_json::Value;

use super::consumed::ConsumedTokensError;
use super::envelope::{Binding, Claims, Rejection, args_digest, principal_claim};
use super::policy::{PrincipalBinding, RequestStateSecurity};
use crate::Error;
use crate::handler::{BoxFuture, Handler, Layer, Reply, Request, RequestContext};
use crate::protocol::recent::Recent;
use crate::protocol::{ErrorCode, Params, methods, param, param_str};
use crate::wire::untrusted::Untrusted;

/// The one error every inbound failure gets, whatever the cause.
pub fn invalid_request_state() -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, "Invalid or expired requestState")
        .with_data(serde_json::json!({"reason": "invalid_request_state"}))
}

/// The sealing boundary of one server.
pub(crate) struct Boundary {
    security: RequestStateSecurity,
    audience: Option<String>,
    rng: SystemRandom,
}

thread_local! {
    /// The digests of the arguments texts (up to 1 KiB) this thread bound lately: a call's
    /// next round repeats its arguments, and is often served on the thread that served the
    /// one before, a few calls later.
    static ARGUMENTS_DIGESTS: RefCell<Recent<String, 8>> = const { RefCell::new(Recent::new()) };
}

/// The digest of the request's arguments (see [`args_digest`]): remembered for the text
/// they arrived as, since the digest depends on nothing else.
fn arguments_digest(params: Option<&Params>) -> String {
    let digest = || args_digest(param(params, "arguments").filter(|a| !a.is_null()));
    let Some(text) = params.and_then(|params| params.arrived_text("arguments")) else {
        return digest();
    };
    if let Ok(Some(known)) = ARGUMENTS_DIGESTS.try_with(|kept| kept.borrow().find(text.as_bytes(), |_| true).cloned()) {
        return known;
    }
    let fresh = digest();
    // `try_with`: a thread whose locals are being torn down keeps nothing.
    let _ = ARGUMENTS_DIGESTS.try_with(|kept| kept.borrow_mut().keep(text.as_bytes(), fresh.clone()));
    fresh
}

fn reject(span: &tracing::Span, method: &str, reason: &str) -> Error {
    tracing::warn!(method = ?Untrusted(method), reason, "requestState rejected");
    crate::telemetry::record_request_state(span, reason);
    invalid_request_state()
}

/// The error a request gets when the single-use store cannot tell whether its
/// `requestState` was used: JSON-RPC `-32603`, to retry later (not the fixed `-32602`,
/// which says the token itself is bad).
pub fn single_use_store_unavailable() -> Error {
    Error::new(ErrorCode::INTERNAL_ERROR, "The single-use store is unavailable; try again later")
}

fn store_failed(span: &tracing::Span, method: &str, error: &ConsumedTokensError) -> Error {
    crate::telemetry::record_request_state(span, "single-use store unavailable");
    let cause = std::error::Error::source(error).map(ToString::to_string);
    tracing::warn!(
        method = ?Untrusted(method),
        %error,
        cause,
        "single-use store call failed: refusing the requestState for now"
    );
    single_use_store_unavailable()
}

impl Boundary {
    pub(crate) fn new(security: RequestStateSecurity, server_name: &str) -> Self {
        let audience = security.audience.clone().or_else(|| Some(server_name.to_owned()));
        Boundary { security, audience, rng: SystemRandom::new() }
    }

    /// Whether `method` carries request state.
    pub(crate) fn applies_to(method: &str) -> bool {
        matches!(method, methods::TOOLS_CALL | methods::PROMPTS_GET | methods::RESOURCES_READ)
    }

    /// The principal of this request, per the policy.
    pub(crate) fn principal(&self, ctx: &RequestContext) -> Option<String> {
        match &self.security.principal {
            PrincipalBinding::Authenticated => ctx.auth().map(crate::handler::AuthInfo::principal),
            PrincipalBinding::Disabled => None,
            PrincipalBinding::Custom(f) => f(ctx),
        }
    }

    /// What a token for this request is bound to.
    pub(crate) fn binding(method: &str, params: Option<&Params>) -> Binding {
        let field = |name: &str| param_str(params, name).unwrap_or_default().into_owned();
        let (target, args_digest) = match method {
            methods::RESOURCES_READ => (field("uri"), args_digest(None)),
            _ => (field("name"), arguments_digest(params)),
        };
        Binding { method: method.to_owned(), target, args_digest }
    }

    /// Verify an incoming `requestState` (and, in single-use mode, record it) and replace
    /// it with the plaintext. A `null` one counts as none. `binding` is `None` only for a
    /// request that carries no state ([`Sealed`] binds every other); a state that comes
    /// without one is refused.
    pub(crate) async fn inbound(
        &self,
        method: &str,
        binding: Option<&Binding>,
        params: &mut Option<Params>,
        principal: Option<&str>,
        span: &tracing::Span,
    ) -> Result<(), Error> {
        let Some(params) = params.as_mut() else {
            crate::telemetry::record_request_state(span, "absent");
            return Ok(());
        };
        // Read in place where it arrived as text (a token never needs escapes): building
        // its value copied it, a few hundred bytes, only to open it.
        let token = match params.field("requestState") {
            None => {
                crate::telemetry::record_request_state(span, "absent");
                return Ok(());
            }
            Some(field) if field.is_null() => {
                params.set("requestState", None);
                crate::telemetry::record_request_state(span, "absent");
                return Ok(());
            }
            Some(field) => field.as_str().ok_or_else(|| reject(span, method, "non-string requestState"))?,
        };
        let Some(binding) = binding else {
            return Err(reject(span, method, "no binding for the request"));
        };
        let bytes = self.security.codec.unseal(&token).map_err(|e| reject(span, &binding.method, e.0))?;
        let now = self.security.clock.now_ms();
        let claims = Claims::open(&bytes, now, binding, self.audience.as_deref(), principal)
            .map_err(|r| reject(span, &binding.method, r.reason()))?;
        // `open` checked the expiry minted into the token; the ttl in force now bounds it
        // too, so that lowering the ttl shortens tokens already issued.
        let expires = claims.exp.min(claims.iat.saturating_add(self.security.ttl_ms));
        if now >= expires {
            return Err(reject(span, &binding.method, Rejection::Expired.reason()));
        }
        if let Some(store) = &self.security.single_use {
            let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
            let mut id = [0u8; 16];
            id.copy_from_slice(&digest.as_ref()[..16]);
            match store.consume(id, expires, now).await {
                Ok(true) => {}
                Ok(false) => return Err(reject(span, &binding.method, Rejection::Replayed.reason())),
                Err(error) => return Err(store_failed(span, &binding.method, &error)),
            }
        }
        // Set in place: params kept as text keep it for their other members.
        params.set("requestState", Some(Value::String(claims.s.to_owned())));
        crate::telemetry::record_request_state(span, "ok");
        Ok(())
    }

    /// Seal a handler's plaintext state for the client.
    pub(crate) fn outbound(&self, binding: &Binding, state: &str, principal: Option<&str>) -> Result<String, Error> {
        let refuse = |why: &str| {
            tracing::error!(method = ?Untrusted(&binding.method), why, "refusing to seal requestState");
            Error::internal("Internal error")
        };
        let claim = match principal {
            Some(p) => {
                Some(principal_claim(&self.rng, p).ok_or_else(|| refuse("no randomness for the principal salt"))?)
            }
            None => None,
        };
        let now = self.security.clock.now_ms();
        let claims =
            Claims::minted(now, self.security.ttl_ms, binding, state, self.audience.as_deref(), claim.as_deref());
        let payload = claims.to_payload();
        self.security.codec.seal(&payload).map_err(|e| refuse(&e.0))
    }
}

/// Request-state sealing as a [`Layer`]: on `tools/call`, `prompts/get` and
/// `resources/read`, verify and unwrap an inbound `requestState` before the inner handler
/// sees it, and seal the state of an `InputRequiredResult` on the way out. Anything that
/// does not verify gets [`invalid_request_state`]; in single-use mode, a token whose use
/// the store cannot record (the store is down) gets [`single_use_store_unavailable`].
#[derive(Clone)]
pub struct SealingLayer {
    boundary: Arc<Boundary>,
    tools: Option<ToolHint>,
}

/// Whether a call of the named tool may answer `input_required` (from the item router).
pub(crate) type ToolHint = Arc<dyn Fn(&str) -> bool + Send + Sync>;

impl std::fmt::Debug for SealingLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealingLayer").field("audience", &self.boundary.audience).finish_non_exhaustive()
    }
}

impl SealingLayer {
    /// A layer sealing with `security`; `default_audience` (the server's name) is the
    /// audience unless the policy sets one.
    pub fn new(security: RequestStateSecurity, default_audience: &str) -> Self {
        SealingLayer { boundary: Arc::new(Boundary::new(security, default_audience)), tools: None }
    }

    /// Skip the binding of `tools/call` requests without a `requestState` to tools that
    /// `may_ask` says never answer `input_required`: there is nothing to check on the way
    /// in nor to seal on the way out, and the binding hashes all of the arguments.
    pub(crate) fn with_tool_hint(mut self, may_ask: ToolHint) -> Self {
        self.tools = Some(may_ask);
        self
    }
}

impl<H: Handler> Layer<H> for SealingLayer {
    type Handler = Sealed<H>;

    fn layer(&self, inner: H) -> Sealed<H> {
        Sealed { inner: Arc::new(inner), boundary: Arc::clone(&self.boundary), tools: self.tools.clone() }
    }
}

/// A handler wrapped by [`SealingLayer`].
pub struct Sealed<H> {
    /// Shared with each call's future, which runs the inner handler once the inbound
    /// `requestState` is checked (single-use stores answer asynchronously).
    inner: Arc<H>,
    boundary: Arc<Boundary>,
    tools: Option<ToolHint>,
}

impl<H> Sealed<H> {
    /// Whether the request needs its binding: it carries a `requestState` to check, or
    /// its reply may carry one to seal.
    fn needs_binding(&self, request: &Request) -> bool {
        let params = request.params.as_ref();
        if params.and_then(|p| p.field("requestState")).is_some_and(|state| !state.is_null()) {
            return true;
        }
        match (&self.tools, request.method.as_str()) {
            (Some(may_ask), methods::TOOLS_CALL) => may_ask(&param_str(params, "name").unwrap_or_default()),
            _ => true,
        }
    }
}

impl<H> std::fmt::Debug for Sealed<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealed").finish_non_exhaustive()
    }
}

impl<H: Handler> Handler for Sealed<H> {
    fn call(&self, mut request: Request) -> BoxFuture<Result<Reply, Error>> {
        if !Boundary::applies_to(&request.method) {
            return self.inner.call(request);
        }
        let binding = self.needs_binding(&request).then(|| Boundary::binding(&request.method, request.params.as_ref()));
        let principal = binding.as_ref().and_then(|_| self.boundary.principal(&request.ctx));
        let inner = Arc::clone(&self.inner);
        let boundary = Arc::clone(&self.boundary);
        Box::pin(async move {
            let span = request.ctx.span().clone();
            let method = request.method.as_str();
            boundary.inbound(method, binding.as_ref(), &mut request.params, principal.as_deref(), &span).await?;
            let mut reply = inner.call(request).await?;
            if let Reply::InputRequired(ir) = &mut reply
                && let Some(state) = ir.request_state.take()
            {
                let Some(binding) = &binding else {
                    tracing::error!(
                        "a tool that declares it never asks for input (ToolDef::MAY_REQUIRE_INPUT = false) \
                         answered input_required; refusing the answer"
                    );
                    return Err(Error::internal("Handler returned an invalid result"));
                };
                ir.request_state = Some(boundary.outbound(binding, &state, principal.as_deref())?);
            }
            Ok(reply)
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::read_params_text;

    /// The binding of a `tools/call` whose params are `text`, read as from the wire.
    fn bound(text: &str) -> Binding {
        let params = read_params_text(text).expect("valid params");
        Boundary::binding(methods::TOOLS_CALL, Some(&params))
    }

    #[test]
    fn arguments_bind_by_their_content_however_written_and_however_often() {
        let canonical = args_digest(Some(&json!({"a": 1, "b": "\u{e9}"})));
        let texts = [
            r#"{"name":"t","arguments":{"a":1,"b":"é"}}"#,
            r#"{"name":"t","arguments":{ "b" : "\u00e9", "a" : 1 }}"#,
            r#"{"name":"t","arguments":{"b":"é","a":1}}"#,
        ];
        // Twice over: the second time, each text's digest is the one this thread kept.
        for text in texts.iter().chain(&texts) {
            assert_eq!(bound(text).args_digest, canonical, "{text}");
        }
        let other = bound(r#"{"name":"t","arguments":{"a":2,"b":"é"}}"#);
        assert_ne!(other.args_digest, canonical);
        assert_eq!(bound(r#"{"name":"t","arguments":null}"#).args_digest, args_digest(None));
        assert_eq!(bound(r#"{"name":"t"}"#).args_digest, args_digest(None));
    }

    #[test]
    fn arguments_set_since_they_arrived_bind_as_set() {
        let text = r#"{"name":"t","arguments":{"a":1}}"#;
        assert_eq!(bound(text).args_digest, args_digest(Some(&json!({"a": 1}))));
        let mut params = read_params_text(text).expect("valid params");
        params.set("arguments", Some(json!({"a": 2})));
        let binding = Boundary::binding(methods::TOOLS_CALL, Some(&params));
        assert_eq!(binding.args_digest, args_digest(Some(&json!({"a": 2}))), "not the digest kept for the text");
    }
}
