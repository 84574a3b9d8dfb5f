//! Routing one request: which era it belongs to, whether it is well formed, which
//! handler serves it.
//!
//! - A request whose `_meta` names a protocol version is served statelessly under
//!   2026-07-28, whatever happened before on the connection.
//! - `initialize` without that `_meta` opens a legacy (2025-11-25) session on the connection;
//!   later requests without modern `_meta` are served under it.
//! - Anything else is validated as a modern request and fails with `-32602`.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::context::{ContextInner, RequestContext};
use super::results::{Reply, finish_legacy, finish_modern};
use super::session::{LegacyState, Session};
use super::{Server, ServerInner};
use crate::Error;
use crate::items::ListKind;
use crate::protocol::{
    ClientCapabilities, DiscoverResult, Implementation, InitializeParams, InitializeResult, JsonObject, JsonRpcRequest,
    LoggingLevel, Outcome, ProgressToken, SUPPORTED_LEGACY_VERSIONS, SUPPORTED_MODERN_VERSIONS, SetLevelParams, keys,
    methods,
};
use crate::sealing::{Binding, Boundary};

/// The methods a handler can serve, in both eras.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Discover,
    ListTools,
    CallTool,
    ListPrompts,
    GetPrompt,
    ListResources,
    ListResourceTemplates,
    ReadResource,
    Complete,
    Listen,
}

impl Route {
    /// The route for `method`, if this server has a handler for it.
    fn find(server: &ServerInner, method: &str, modern: bool) -> Option<Route> {
        let h = &server.handlers;
        let (route, available) = match method {
            methods::SERVER_DISCOVER if modern => (Route::Discover, true),
            methods::TOOLS_LIST => (Route::ListTools, h.list_tools.is_some()),
            methods::TOOLS_CALL => (Route::CallTool, h.call_tool.is_some()),
            methods::PROMPTS_LIST => (Route::ListPrompts, h.list_prompts.is_some()),
            methods::PROMPTS_GET => (Route::GetPrompt, h.get_prompt.is_some()),
            methods::RESOURCES_LIST => (Route::ListResources, h.list_resources.is_some()),
            methods::RESOURCES_TEMPLATES_LIST => (Route::ListResourceTemplates, h.list_resource_templates.is_some()),
            methods::RESOURCES_READ => (Route::ReadResource, h.read_resource.is_some()),
            methods::COMPLETION_COMPLETE => (Route::Complete, h.complete.is_some()),
            methods::SUBSCRIPTIONS_LISTEN if modern => (Route::Listen, server.supports_listen()),
            _ => return None,
        };
        available.then_some(route)
    }

    /// The method this route serves.
    fn method(self) -> &'static str {
        match self {
            Route::Discover => methods::SERVER_DISCOVER,
            Route::ListTools => methods::TOOLS_LIST,
            Route::CallTool => methods::TOOLS_CALL,
            Route::ListPrompts => methods::PROMPTS_LIST,
            Route::GetPrompt => methods::PROMPTS_GET,
            Route::ListResources => methods::RESOURCES_LIST,
            Route::ListResourceTemplates => methods::RESOURCES_TEMPLATES_LIST,
            Route::ReadResource => methods::RESOURCES_READ,
            Route::Complete => methods::COMPLETION_COMPLETE,
            Route::Listen => methods::SUBSCRIPTIONS_LISTEN,
        }
    }
}

/// A request's result: a value, or a finished response body encoded once and shared.
#[derive(Debug, Clone)]
pub(crate) enum Payload {
    Value(Value),
    Encoded(Arc<str>),
}

impl Payload {
    pub(crate) fn into_value(self) -> Value {
        match self {
            Payload::Value(value) => value,
            Payload::Encoded(text) => serde_json::from_str(&text).unwrap_or(Value::Null),
        }
    }
}

fn meta_of(params: Option<&JsonObject>) -> Option<&JsonObject> {
    params.and_then(|p| p.get("_meta")).and_then(Value::as_object)
}

fn parse<T: DeserializeOwned>(params: Option<JsonObject>) -> Result<T, Error> {
    serde_json::from_value(Value::Object(params.unwrap_or_default()))
        .map_err(|e| Error::invalid_params(format!("Invalid params: {e}")))
}

impl Server {
    /// Serve one request on `session` and return its result or error.
    ///
    /// Notifications about the request (progress, log messages) go to `notifications`.
    /// Transports call this; most users never do.
    pub async fn handle_request(
        &self,
        session: &Arc<Session>,
        request: JsonRpcRequest,
        notifications: mpsc::Sender<String>,
    ) -> Result<Value, Error> {
        self.handle_request_as(session, request, notifications, None).await
    }

    /// [`handle_request`](Self::handle_request) for a caller the transport authenticated.
    pub async fn handle_request_as(
        &self,
        session: &Arc<Session>,
        request: JsonRpcRequest,
        notifications: mpsc::Sender<String>,
        auth: Option<Arc<crate::auth::AuthInfo>>,
    ) -> Result<Value, Error> {
        self.dispatch(session, request, notifications, auth).await.map(Payload::into_value)
    }

    /// Serve one request and encode its response line (result or error), as the stdio and
    /// HTTP transports do. For custom transports and benchmarks.
    pub async fn respond(
        &self,
        session: &Arc<Session>,
        request: JsonRpcRequest,
        notifications: mpsc::Sender<String>,
    ) -> String {
        let id = request.id.clone();
        match self.dispatch(session, request, notifications, None).await {
            Ok(payload) => super::payload_frame(id, payload),
            Err(error) => super::error_frame(Some(id), error.into()),
        }
    }

    /// Serve one request, the result possibly already encoded (transports write it as is).
    pub(crate) async fn dispatch(
        &self,
        session: &Arc<Session>,
        request: JsonRpcRequest,
        notifications: mpsc::Sender<String>,
        auth: Option<Arc<crate::auth::AuthInfo>>,
    ) -> Result<Payload, Error> {
        let JsonRpcRequest { id, method, params, .. } = request;
        let modern = meta_of(params.as_ref()).is_some_and(|m| m.contains_key(keys::PROTOCOL_VERSION));
        if !modern {
            if method == methods::INITIALIZE {
                return self.initialize(session, params).map(Payload::Value);
            }
            if method == methods::PING {
                return Ok(Payload::Value(json!({})));
            }
            if session.is_legacy() {
                return self.legacy_request(session, id, &method, params, notifications, auth).await;
            }
        }
        self.modern_request(session, id, &method, params, notifications, auth).await
    }

    async fn modern_request(
        &self,
        session: &Arc<Session>,
        id: crate::protocol::RequestId,
        method: &str,
        mut params: Option<JsonObject>,
        notifications: mpsc::Sender<String>,
        auth: Option<Arc<crate::auth::AuthInfo>>,
    ) -> Result<Payload, Error> {
        let server = self.inner();
        let Some(route) = Route::find(server, method, true) else {
            return Err(Error::method_not_found(method));
        };
        let meta = ModernMeta::validate(meta_of(params.as_ref()))?;
        let ctx = RequestContext::new(ContextInner {
            id,
            protocol_version: meta.version,
            legacy: false,
            client_capabilities: meta.capabilities,
            client_info: meta.client_info,
            progress_token: meta.progress_token,
            log_level: meta.log_level,
            session: Arc::clone(session),
            notifications,
            server: self.clone(),
            auth,
        });
        if let Some(text) = self.encoded_list(route, params.as_ref(), false)? {
            return Ok(Payload::Encoded(text));
        }
        server.limits.check_retry_fields(method, params.as_ref())?;
        let sealing = open_request_state(server, &ctx, method, &mut params)?;
        let mut reply = self.run(route, ctx.clone(), params).await?;
        if let (Reply::InputRequired(ir), Some((boundary, binding, principal))) = (&mut reply, &sealing)
            && let Some(state) = ir.request_state.take()
        {
            ir.request_state = Some(boundary.outbound(binding, state, principal.as_deref())?);
        }
        finish_modern(server, reply, ctx.client_capabilities()).map(Payload::Value)
    }

    /// A list served by the macro items, finished and encoded once (no cursor: the item
    /// lists are not paginated).
    fn encoded_list(&self, route: Route, params: Option<&JsonObject>, legacy: bool) -> Result<Option<Arc<str>>, Error> {
        let kind = match route {
            Route::ListTools => ListKind::Tools,
            Route::ListPrompts => ListKind::Prompts,
            Route::ListResources => ListKind::Resources,
            Route::ListResourceTemplates => ListKind::ResourceTemplates,
            _ => return Ok(None),
        };
        let server = self.inner();
        let Some(items) = server.items.as_ref().filter(|items| items.serves(kind)) else { return Ok(None) };
        if params.is_some_and(|p| p.get("cursor").is_some_and(|c| !c.is_null())) {
            return Ok(None);
        }
        items
            .encoded_list(kind, legacy, |items| {
                let result = match items.list(kind)? {
                    Value::Object(map) => map,
                    _ => return Err(Error::internal("Handler returned an invalid result")),
                };
                let reply = Reply::Complete { result, cacheable: true };
                let value = if legacy {
                    finish_legacy(reply)?
                } else {
                    finish_modern(server, reply, &crate::protocol::ClientCapabilities::default())?
                };
                serde_json::to_string(&value).map_err(|e| Error::internal(e.to_string()))
            })
            .map(Some)
    }

    async fn legacy_request(
        &self,
        session: &Arc<Session>,
        id: crate::protocol::RequestId,
        method: &str,
        mut params: Option<JsonObject>,
        notifications: mpsc::Sender<String>,
        auth: Option<Arc<crate::auth::AuthInfo>>,
    ) -> Result<Payload, Error> {
        let Some(state) = session.legacy() else {
            return Err(Error::internal("Internal error"));
        };
        if method == methods::RESOURCES_SUBSCRIBE || method == methods::RESOURCES_UNSUBSCRIBE {
            let supported = self.capabilities().resources.as_ref().and_then(|r| r.subscribe).unwrap_or(false);
            if !supported {
                return Err(Error::method_not_found(method));
            }
            let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
            let Some(uri) = uri else {
                return Err(Error::invalid_params("Invalid params: uri must be a string"));
            };
            session.set_subscribed(uri, method == methods::RESOURCES_SUBSCRIBE);
            return Ok(Payload::Value(json!({})));
        }
        if method == methods::LOGGING_SET_LEVEL {
            let p: SetLevelParams = parse(params)?;
            session.set_log_level(p.level);
            return Ok(Payload::Value(json!({})));
        }
        let Some(route) = Route::find(self.inner(), method, false) else {
            return Err(Error::method_not_found(method));
        };
        let progress_token = meta_of(params.as_ref())
            .and_then(|m| m.get(keys::PROGRESS_TOKEN))
            .and_then(|t| serde_json::from_value::<ProgressToken>(t.clone()).ok());
        let ctx = RequestContext::new(ContextInner {
            id,
            protocol_version: state.version,
            legacy: true,
            client_capabilities: state.client_capabilities,
            client_info: Some(state.client_info),
            progress_token,
            log_level: state.log_level,
            session: Arc::clone(session),
            notifications,
            server: self.clone(),
            auth,
        });
        // Legacy sessions are never handed a sealed state (an `InputRequiredResult` is an
        // error there), but a client can still send `requestState`: verify it like a modern
        // one, so that no handler ever sees state this server did not seal.
        if let Some(text) = self.encoded_list(route, params.as_ref(), true)? {
            return Ok(Payload::Encoded(text));
        }
        self.inner().limits.check_retry_fields(method, params.as_ref())?;
        open_request_state(self.inner(), &ctx, method, &mut params)?;
        let reply = self.run(route, ctx, params).await?;
        finish_legacy(reply).map(Payload::Value)
    }

    fn initialize(&self, session: &Session, params: Option<JsonObject>) -> Result<Value, Error> {
        let p: InitializeParams = parse(params)?;
        let version = if SUPPORTED_LEGACY_VERSIONS.contains(&p.protocol_version.as_str()) {
            p.protocol_version.clone()
        } else {
            SUPPORTED_LEGACY_VERSIONS[0].to_owned()
        };
        tracing::debug!(client = %p.client_info.name, %version, "legacy session initialized");
        session.set_legacy(LegacyState {
            version: version.clone(),
            client_capabilities: p.capabilities,
            client_info: p.client_info,
            log_level: None,
        });
        let server = self.inner();
        let result = InitializeResult {
            protocol_version: version,
            capabilities: server.capabilities.clone(),
            server_info: server.info.clone(),
            instructions: server.instructions.clone(),
            meta: None,
        };
        serde_json::to_value(result).map_err(|e| Error::internal(e.to_string()))
    }

    /// Run the route's handler, under the handler timeout (listen streams excepted).
    async fn run(&self, route: Route, ctx: RequestContext, params: Option<JsonObject>) -> Result<Reply, Error> {
        if route == Route::Listen {
            return self.run_untimed(route, ctx, params).await;
        }
        self.inner().limits.timed(route.method(), self.run_untimed(route, ctx, params)).await
    }

    async fn run_untimed(&self, route: Route, ctx: RequestContext, params: Option<JsonObject>) -> Result<Reply, Error> {
        let server = self.inner();
        let h = &server.handlers;
        // `Route::find` only returns routes whose handler is set.
        let missing = || Error::internal("handler missing");
        match route {
            Route::Discover => {
                let result = DiscoverResult {
                    supported_versions: SUPPORTED_MODERN_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
                    capabilities: server.capabilities.clone(),
                    instructions: server.instructions.clone(),
                    ..Default::default()
                };
                Reply::cacheable(&result)
            }
            Route::ListTools => {
                Reply::cacheable(&h.list_tools.as_ref().ok_or_else(missing)?(ctx, parse(params)?).await?)
            }
            Route::ListPrompts => {
                Reply::cacheable(&h.list_prompts.as_ref().ok_or_else(missing)?(ctx, parse(params)?).await?)
            }
            Route::ListResources => {
                Reply::cacheable(&h.list_resources.as_ref().ok_or_else(missing)?(ctx, parse(params)?).await?)
            }
            Route::ListResourceTemplates => {
                Reply::cacheable(&h.list_resource_templates.as_ref().ok_or_else(missing)?(ctx, parse(params)?).await?)
            }
            Route::Complete => Reply::plain(&h.complete.as_ref().ok_or_else(missing)?(ctx, parse(params)?).await?),
            Route::Listen => Ok(Reply::Complete { result: self.listen(ctx, parse(params)?).await?, cacheable: false }),
            Route::CallTool => match h.call_tool.as_ref().ok_or_else(missing)?(ctx, parse(params)?).await? {
                Outcome::Complete(result) => Reply::plain(&result),
                Outcome::InputRequired(ir) => Ok(Reply::InputRequired(ir)),
            },
            Route::GetPrompt => match h.get_prompt.as_ref().ok_or_else(missing)?(ctx, parse(params)?).await? {
                Outcome::Complete(result) => Reply::plain(&result),
                Outcome::InputRequired(ir) => Ok(Reply::InputRequired(ir)),
            },
            Route::ReadResource => match h.read_resource.as_ref().ok_or_else(missing)?(ctx, parse(params)?).await? {
                Outcome::Complete(result) => {
                    if result.contents.is_empty() {
                        tracing::warn!("resources/read handler returned no contents");
                        return Err(Error::internal("Handler returned an invalid result"));
                    }
                    Reply::cacheable(&result)
                }
                Outcome::InputRequired(ir) => Ok(Reply::InputRequired(ir)),
            },
        }
    }
}

/// What an outbound `requestState` of a request is sealed with: the boundary, the
/// request's binding and its principal (the inbound ones, reused).
type Sealing<'a> = (&'a Boundary, Binding, Option<String>);

/// Verify an inbound `requestState` on a carrier method and replace it with the plaintext
/// it seals; returns what an outbound state of this request is sealed with.
fn open_request_state<'a>(
    server: &'a ServerInner,
    ctx: &RequestContext,
    method: &str,
    params: &mut Option<JsonObject>,
) -> Result<Option<Sealing<'a>>, Error> {
    match &server.boundary {
        Some(boundary) if Boundary::applies_to(method) => {
            let binding = Boundary::binding(method, params.as_ref());
            let principal = boundary.principal(ctx);
            boundary.inbound(&binding, params, principal.as_deref())?;
            Ok(Some((boundary, binding, principal)))
        }
        _ => Ok(None),
    }
}

/// The reserved `_meta` fields of a modern request, validated.
struct ModernMeta {
    version: String,
    capabilities: ClientCapabilities,
    client_info: Option<Implementation>,
    progress_token: Option<ProgressToken>,
    log_level: Option<LoggingLevel>,
}

impl ModernMeta {
    fn validate(meta: Option<&JsonObject>) -> Result<ModernMeta, Error> {
        let Some(meta) = meta else {
            return Err(Error::invalid_params("Invalid params: missing required _meta"));
        };
        let version = match meta.get(keys::PROTOCOL_VERSION) {
            Some(Value::String(v)) => v.clone(),
            Some(_) => {
                return Err(Error::invalid_params(format!(
                    "Invalid params: _meta[\"{}\"] must be a string",
                    keys::PROTOCOL_VERSION
                )));
            }
            None => {
                return Err(Error::invalid_params(format!(
                    "Invalid params: missing _meta[\"{}\"]",
                    keys::PROTOCOL_VERSION
                )));
            }
        };
        if !SUPPORTED_MODERN_VERSIONS.contains(&version.as_str()) {
            return Err(Error::unsupported_protocol_version(&version));
        }
        let capabilities = match meta.get(keys::CLIENT_CAPABILITIES) {
            Some(caps) => serde_json::from_value(caps.clone()).map_err(|e| {
                Error::invalid_params(format!("Invalid params: _meta[\"{}\"]: {e}", keys::CLIENT_CAPABILITIES))
            })?,
            None => {
                return Err(Error::invalid_params(format!(
                    "Invalid params: missing _meta[\"{}\"]",
                    keys::CLIENT_CAPABILITIES
                )));
            }
        };
        let client_info = match meta.get(keys::CLIENT_INFO) {
            Some(info) => Some(serde_json::from_value(info.clone()).map_err(|e| {
                Error::invalid_params(format!("Invalid params: _meta[\"{}\"]: {e}", keys::CLIENT_INFO))
            })?),
            None => None,
        };
        let log_level =
            match meta.get(keys::LOG_LEVEL) {
                Some(level) => Some(serde_json::from_value(level.clone()).map_err(|e| {
                    Error::invalid_params(format!("Invalid params: _meta[\"{}\"]: {e}", keys::LOG_LEVEL))
                })?),
                None => None,
            };
        let progress_token = match meta.get(keys::PROGRESS_TOKEN) {
            Some(token) => Some(serde_json::from_value(token.clone()).map_err(|_| {
                Error::invalid_params("Invalid params: _meta.progressToken must be a string or a number")
            })?),
            None => None,
        };
        Ok(ModernMeta { version, capabilities, client_info, progress_token, log_level })
    }
}
