//! Routing one request: which era it belongs to, whether it is well formed, which
//! handler serves it.
//!
//! - A request whose `_meta` names a protocol version is served statelessly under
//!   2026-07-28, whatever happened before on the connection.
//! - `initialize` without that `_meta` opens a legacy (2025-11-25) session on the connection;
//!   later requests without modern `_meta` are served under it.
//! - Anything else is validated as a modern request and fails with `-32602`.

use std::sync::Arc;

use serde_json::{Value, json};
use tracing::Instrument;

use super::Server;
use super::results::{finish_legacy, finish_modern, finish_modern_value};
use super::routes::{Route, parse};
use crate::Error;
use crate::handler::{
    AuthInfo, Caller, ContextInner, Handler, LegacyState, Outbound, Payload, Reply, Request, RequestContext, Session,
};
use crate::items::ListKind;
use crate::protocol::{
    ClientCapabilities, Implementation, InitializeParams, InitializeResult, JsonRpcRequest, LoggingLevel, Params,
    ProgressToken, Revision, SUPPORTED_LEGACY_VERSIONS, SUPPORTED_MODERN_VERSIONS, SetLevelParams, downgrade_result,
    keys, meta_version, methods,
};
use crate::telemetry::server::{ServerSpan, Transport};
use crate::wire::untrusted::Untrusted;

#[cfg(feature = "test-util")]
impl Server {
    /// Serve one request on `session` with no transport, as the caller `auth`; for this
    /// workspace's tests (`test-util`, not covered by semver).
    #[doc(hidden)]
    pub async fn handle_request_as(
        &self,
        session: &Arc<Session>,
        request: JsonRpcRequest<impl Into<Params>>,
        notifications: tokio::sync::mpsc::Sender<String>,
        auth: Option<Arc<AuthInfo>>,
    ) -> Result<Value, Error> {
        match self.dispatch(session, with_params(request), notifications.into(), auth).await? {
            Payload::Value(value) => Ok(value),
            Payload::Encoded(text) => serde_json::from_str(&text).map_err(|e| Error::internal(e.to_string())),
            Payload::Result { json, .. } => serde_json::from_str(&json).map_err(|e| Error::internal(e.to_string())),
        }
    }

    /// Serve one request and encode its response line, as the transports do; for the
    /// dispatch benchmark (`test-util`, not covered by semver).
    #[doc(hidden)]
    pub async fn respond(
        &self,
        session: &Arc<Session>,
        request: JsonRpcRequest<impl Into<Params>>,
        notifications: tokio::sync::mpsc::Sender<String>,
    ) -> String {
        let id = request.id.clone();
        let request = with_params(request);
        crate::handler::outcome_frame(&id, Ok(self.dispatch(session, request, notifications.into(), None).await)).0
    }
}

/// `request` with its params as a request read from the wire holds them.
#[cfg(feature = "test-util")]
fn with_params(request: JsonRpcRequest<impl Into<Params>>) -> JsonRpcRequest<Params> {
    let JsonRpcRequest { jsonrpc, id, method, params } = request;
    JsonRpcRequest { jsonrpc, id, method, params: params.map(Into::into) }
}

impl Server {
    /// Serve one request, the result possibly already encoded (transports write it as is).
    ///
    /// Not an `async fn`: it would be a future holding its arguments around
    /// [`dispatch_from`](Self::dispatch_from)'s, which holds them again (a stdio request's
    /// future is allocated whole, and past about a kilobyte glibc no longer serves it from
    /// its per-thread cache).
    pub(crate) fn dispatch<'a>(
        &'a self,
        session: &'a Arc<Session>,
        request: JsonRpcRequest<Params>,
        notifications: Outbound,
        auth: Option<Arc<AuthInfo>>,
    ) -> impl Future<Output = Result<Payload, Error>> + Send + 'a {
        self.dispatch_from(session, request, notifications, Caller::authenticated(auth))
    }

    /// [`dispatch`](Self::dispatch) for a request whose transport knows more about it
    /// than the caller's identity (over HTTP: the request's parts).
    pub(crate) async fn dispatch_from(
        &self,
        session: &Arc<Session>,
        request: JsonRpcRequest<Params>,
        notifications: Outbound,
        caller: Caller,
    ) -> Result<Payload, Error> {
        let modern = meta_version(request.params.as_ref()).is_some();
        // Asked only when the span or the metrics want the method's name.
        let known = |method: &str| {
            matches!(
                method,
                methods::INITIALIZE
                    | methods::PING
                    | methods::LOGGING_SET_LEVEL
                    | methods::RESOURCES_SUBSCRIBE
                    | methods::RESOURCES_UNSUBSCRIBE
            ) || self.inner().routes.find(method, modern || !session.is_legacy()).is_some()
        };
        #[cfg(feature = "http")]
        let transport = if caller.http.is_some() { Transport::Http } else { Transport::Pipe };
        #[cfg(not(feature = "http"))]
        let transport = Transport::Pipe;
        let span = ServerSpan::start(&request, session, transport, known);
        let result =
            self.dispatch_in_era(session, request, notifications, caller, modern).instrument(span.span().clone()).await;
        span.finish(&result);
        result
    }

    /// Serve `request` in its era: modern (stateless) or in its legacy session.
    async fn dispatch_in_era(
        &self,
        session: &Arc<Session>,
        request: JsonRpcRequest<Params>,
        notifications: Outbound,
        caller: Caller,
        modern: bool,
    ) -> Result<Payload, Error> {
        let JsonRpcRequest { id, method, params, .. } = request;
        if !modern {
            if method == methods::INITIALIZE {
                return self.initialize(session, params).map(Payload::Value);
            }
            if method == methods::PING {
                return Ok(Payload::Value(json!({})));
            }
            if session.is_legacy() {
                return self.legacy_request(session, id, method, params, notifications, caller).await;
            }
        }
        self.modern_request(session, id, method, params, notifications, caller).await
    }

    async fn modern_request(
        &self,
        session: &Arc<Session>,
        id: crate::protocol::RequestId,
        method: String,
        params: Option<Params>,
        notifications: Outbound,
        caller: Caller,
    ) -> Result<Payload, Error> {
        let server = self.inner();
        let Some(route) = server.routes.find(&method, true) else {
            return Err(Error::method_not_found(&method));
        };
        // Built in a block that consumes `meta`: a partly moved local stays in the future's
        // state across the `.await` below (624 bytes of it), a block's locals do not.
        let ctx = {
            let meta = ModernMeta::validate(params.as_ref())?;
            let client = Client {
                id,
                protocol_version: meta.version.into(),
                legacy: false,
                capabilities: meta.capabilities,
                info: meta.client_info,
                progress_token: meta.progress_token,
                log_level: meta.log_level,
            };
            self.request_context(client, session, notifications, caller, &method)
        };
        // With hooks, lists go through the stack too, so that the hooks see them.
        if !server.hooked
            && let Some(text) = self.encoded_list(route, params.as_ref(), false)?
        {
            return Ok(Payload::Encoded(text));
        }
        let reply = server.stack.call(Request::with_params(ctx.clone(), method, params)).await?;
        finish_modern(server, reply, ctx.client_capabilities())
    }

    /// A list served by the macro items, finished and encoded once (no cursor: the item
    /// lists are not paginated).
    fn encoded_list(&self, route: Route, params: Option<&Params>, legacy: bool) -> Result<Option<Arc<str>>, Error> {
        let (kind, method) = match route {
            Route::ListTools => (ListKind::Tools, methods::TOOLS_LIST),
            Route::ListPrompts => (ListKind::Prompts, methods::PROMPTS_LIST),
            Route::ListResources => (ListKind::Resources, methods::RESOURCES_LIST),
            Route::ListResourceTemplates => (ListKind::ResourceTemplates, methods::RESOURCES_TEMPLATES_LIST),
            _ => return Ok(None),
        };
        let server = self.inner();
        // Lists filtered by the caller's scopes differ per caller: never shared.
        let shared = |items: &&Arc<crate::items::SharedItems>| items.serves(kind) && !items.hide_unauthorized;
        let Some(items) = server.items.as_ref().filter(shared) else { return Ok(None) };
        if params.and_then(|p| p.field("cursor")).is_some_and(|c| !c.is_null()) {
            return Ok(None);
        }
        items
            .encoded_list(kind, legacy, |items| {
                let result = match items.list(kind)? {
                    Value::Object(map) => map,
                    _ => return Err(Error::internal("Handler returned an invalid result")),
                };
                let reply = Reply::Complete { result: result.into(), cacheable: true };
                let value = if legacy {
                    // Only 2025-11-25 sessions share the cached list; older ones are trimmed.
                    finish_legacy(reply, method, Revision::V2025_11_25)?
                } else {
                    finish_modern_value(server, reply, &crate::protocol::ClientCapabilities::default())?
                };
                serde_json::to_string(&value).map_err(|e| Error::internal(e.to_string()))
            })
            .map(Some)
    }

    async fn legacy_request(
        &self,
        session: &Arc<Session>,
        id: crate::protocol::RequestId,
        method: String,
        params: Option<Params>,
        notifications: Outbound,
        caller: Caller,
    ) -> Result<Payload, Error> {
        let method = method.as_str();
        if method == methods::RESOURCES_SUBSCRIBE || method == methods::RESOURCES_UNSUBSCRIBE {
            let supported = self.capabilities().resources.as_ref().and_then(|r| r.subscribe).unwrap_or(false);
            if !supported {
                return Err(Error::method_not_found(method));
            }
            let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
            let Some(uri) = uri else {
                return Err(Error::invalid_params("Invalid params: uri must be a string"));
            };
            session.set_subscribed(
                uri,
                method == methods::RESOURCES_SUBSCRIBE,
                self.limits().max_subscriptions_per_session,
            )?;
            return Ok(Payload::Value(json!({})));
        }
        if method == methods::LOGGING_SET_LEVEL {
            let p: SetLevelParams = parse(params)?;
            session.set_log_level(p.level);
            return Ok(Payload::Value(json!({})));
        }
        let Some(route) = self.inner().routes.find(method, false) else {
            return Err(Error::method_not_found(method));
        };
        let progress_token = params
            .as_ref()
            .and_then(|p| p.meta_fields(&[keys::PROGRESS_TOKEN])[0])
            .and_then(|t| t.decode::<ProgressToken>().ok());
        // As in `modern_request`: the session's state is read in a block, not kept in the
        // future's state across the `.await` below (608 bytes of it).
        let (ctx, revision) = {
            let Some(state) = session.legacy() else {
                return Err(Error::internal("Internal error"));
            };
            // `initialize` only accepts the versions `Revision` names.
            let revision = Revision::parse(state.version).unwrap_or(Revision::V2025_11_25);
            let client = Client {
                id,
                protocol_version: state.version.into(),
                legacy: true,
                capabilities: state.client_capabilities,
                info: Some(state.client_info),
                progress_token,
                log_level: state.log_level,
            };
            let ctx = self.request_context(client, session, notifications, caller, method);
            (ctx, revision)
        };
        // Legacy sessions are never handed a sealed state (an `InputRequiredResult` is an
        // error there), but a client can still send `requestState`: verify it like a modern
        // one, so that no handler ever sees state this server did not seal.
        if revision == Revision::V2025_11_25
            && !self.inner().hooked
            && let Some(text) = self.encoded_list(route, params.as_ref(), true)?
        {
            return Ok(Payload::Encoded(text));
        }
        let reply = self.inner().stack.call(Request::with_params(ctx, method, params)).await?;
        finish_legacy(reply, method, revision).map(Payload::Value)
    }

    fn initialize(&self, session: &Session, params: Option<Params>) -> Result<Value, Error> {
        let p: InitializeParams = parse(params)?;
        // As this crate spells it: each request's context borrows it, no copy of the client's.
        let version: &'static str = SUPPORTED_LEGACY_VERSIONS
            .iter()
            .find(|supported| **supported == p.protocol_version)
            .unwrap_or(&SUPPORTED_LEGACY_VERSIONS[0]);
        tracing::debug!(
            client = ?Untrusted(&p.client_info.name),
            client_version = ?Untrusted(&p.client_info.version),
            client_title = ?p.client_info.title.as_deref().map(Untrusted),
            %version,
            "legacy session initialized"
        );
        session.set_legacy(LegacyState {
            version,
            client_capabilities: Arc::new(p.capabilities),
            client_info: Arc::new(p.client_info),
            log_level: None,
        });
        let server = self.inner();
        let revision = Revision::parse(version).unwrap_or(Revision::V2025_11_25);
        let result = InitializeResult {
            protocol_version: version.to_owned(),
            capabilities: server.capabilities.clone(),
            server_info: server.info.clone(),
            instructions: server.instructions.clone(),
            meta: None,
        };
        let mut result = match serde_json::to_value(result) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(Error::internal("Internal error")),
            Err(e) => return Err(Error::internal(e.to_string())),
        };
        downgrade_result(methods::INITIALIZE, &mut result, revision);
        Ok(Value::Object(result))
    }
}

/// What a request's era says about its client: from a modern request's `_meta`, or from
/// the legacy session's handshake.
struct Client {
    id: crate::protocol::RequestId,
    protocol_version: std::borrow::Cow<'static, str>,
    legacy: bool,
    capabilities: Arc<ClientCapabilities>,
    info: Option<Arc<Implementation>>,
    progress_token: Option<ProgressToken>,
    log_level: Option<LoggingLevel>,
}

impl Server {
    /// The context of a request from `client`, in `session`.
    fn request_context(
        &self,
        client: Client,
        session: &Arc<Session>,
        notifications: Outbound,
        caller: Caller,
        method: &str,
    ) -> RequestContext {
        RequestContext::new(ContextInner {
            id: client.id,
            protocol_version: client.protocol_version,
            legacy: client.legacy,
            client_capabilities: client.capabilities,
            client_info: client.info,
            progress_token: client.progress_token,
            log_level: client.log_level,
            session: Arc::clone(session),
            notifications,
            server: self.inner().handle.clone(),
            auth: caller.auth,
            #[cfg(feature = "http")]
            http: caller.http,
            task: std::sync::OnceLock::new(),
            tools_call: method == methods::TOOLS_CALL,
            // `dispatch_from` runs this inside the request's span.
            span: tracing::Span::current(),
        })
    }
}

/// The reserved `_meta` fields of a modern request, validated.
struct ModernMeta {
    /// The supported version named, as this crate spells it (no copy of the client's).
    version: &'static str,
    capabilities: Arc<ClientCapabilities>,
    client_info: Option<Arc<Implementation>>,
    progress_token: Option<ProgressToken>,
    log_level: Option<LoggingLevel>,
}

impl ModernMeta {
    fn validate(params: Option<&Params>) -> Result<ModernMeta, Error> {
        let Some(params) = params.filter(|params| params.has_meta_object()) else {
            return Err(Error::invalid_params("Invalid params: missing required _meta"));
        };
        // One pass over `_meta`'s text (or lookups in its tree, if it was built).
        let [version, capabilities, client_info, log_level, progress_token] = params.meta_fields(&[
            keys::PROTOCOL_VERSION,
            keys::CLIENT_CAPABILITIES,
            keys::CLIENT_INFO,
            keys::LOG_LEVEL,
            keys::PROGRESS_TOKEN,
        ]);
        let version = match version.map(|v| v.as_str()) {
            Some(Some(v)) => v,
            Some(None) => {
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
        let Some(version) = SUPPORTED_MODERN_VERSIONS.iter().find(|supported| **supported == version) else {
            return Err(Error::unsupported_protocol_version(&version));
        };
        let capabilities = match capabilities {
            Some(caps) => super::client_meta::capabilities(caps).map_err(|e| {
                Error::invalid_params(format!("Invalid params: _meta[\"{}\"]: {e}", keys::CLIENT_CAPABILITIES))
            })?,
            None => {
                return Err(Error::invalid_params(format!(
                    "Invalid params: missing _meta[\"{}\"]",
                    keys::CLIENT_CAPABILITIES
                )));
            }
        };
        let client_info = match client_info {
            Some(info) => Some(super::client_meta::client_info(info).map_err(|e| {
                Error::invalid_params(format!("Invalid params: _meta[\"{}\"]: {e}", keys::CLIENT_INFO))
            })?),
            None => None,
        };
        let log_level =
            match log_level {
                Some(level) => Some(level.decode().map_err(|e| {
                    Error::invalid_params(format!("Invalid params: _meta[\"{}\"]: {e}", keys::LOG_LEVEL))
                })?),
                None => None,
            };
        let progress_token = match progress_token {
            Some(token) => Some(token.decode().map_err(|_| {
                Error::invalid_params("Invalid params: _meta.progressToken must be a string or a number")
            })?),
            None => None,
        };
        Ok(ModernMeta { version, capabilities, client_info, progress_token, log_level })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::protocol::read_params_text;

    /// `ModernMeta::validate` of params `params`, read from text as a request's are and
    /// built as a tree: the two agree, and the outcome is returned.
    fn validate(params: &Value) -> Result<(String, Option<LoggingLevel>, Option<String>), String> {
        let outcome = |params: &Params| {
            ModernMeta::validate(Some(params))
                .map(|meta| (meta.version.to_owned(), meta.log_level, meta.client_info.map(|info| info.name.clone())))
                .map_err(|e| format!("{} {}", e.code, e.message))
        };
        let text = read_params_text(&params.to_string()).expect("valid params");
        let tree = Params::from(params.as_object().cloned().unwrap_or_default());
        let (read, built) = (outcome(&text), outcome(&tree));
        assert_eq!(read, built, "{params}");
        read
    }

    fn meta(extra: Value) -> Value {
        let mut meta = json!({
            keys::PROTOCOL_VERSION: SUPPORTED_MODERN_VERSIONS[0],
            keys::CLIENT_CAPABILITIES: {"elicitation": {"form": {}}},
        });
        if let (Some(meta), Value::Object(extra)) = (meta.as_object_mut(), extra) {
            meta.extend(extra);
        }
        json!({"name": "echo", "_meta": meta})
    }

    #[test]
    fn meta_is_read_alike_from_text_and_tree() {
        let version = SUPPORTED_MODERN_VERSIONS[0].to_owned();
        assert_eq!(validate(&meta(json!({}))), Ok((version.clone(), None, None)));
        let info = json!({keys::CLIENT_INFO: {"name": "c\u{e9}", "version": "1"}, keys::LOG_LEVEL: "debug"});
        assert_eq!(validate(&meta(info)), Ok((version, Some(LoggingLevel::Debug), Some("c\u{e9}".to_owned()))));
        let refused = [
            (json!({"name": "echo"}), "-32602 Invalid params: missing required _meta"),
            (json!({"_meta": "x"}), "-32602 Invalid params: missing required _meta"),
            (json!({"_meta": {}}), "-32602 Invalid params: missing _meta[\"io.modelcontextprotocol/protocolVersion\"]"),
            (
                meta(json!({keys::PROTOCOL_VERSION: 7})),
                "-32602 Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] must be a string",
            ),
            (
                json!({"_meta": {keys::PROTOCOL_VERSION: SUPPORTED_MODERN_VERSIONS[0]}}),
                "-32602 Invalid params: missing _meta[\"io.modelcontextprotocol/clientCapabilities\"]",
            ),
            (
                meta(json!({keys::CLIENT_CAPABILITIES: "all"})),
                "-32602 Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"]: invalid type: string \"all\", expected a client capabilities object",
            ),
            (
                meta(json!({keys::CLIENT_INFO: {"name": 1}})),
                "-32602 Invalid params: _meta[\"io.modelcontextprotocol/clientInfo\"]: invalid type: integer `1`, expected a string",
            ),
            (
                meta(json!({keys::LOG_LEVEL: "loud"})),
                "-32602 Invalid params: _meta[\"io.modelcontextprotocol/logLevel\"]: unknown variant `loud`, expected one of `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert`, `emergency`",
            ),
            (
                meta(json!({keys::PROGRESS_TOKEN: [1]})),
                "-32602 Invalid params: _meta.progressToken must be a string or a number",
            ),
        ];
        for (params, expected) in refused {
            assert_eq!(validate(&params).map(|_| ()), Err(expected.to_owned()), "{params}");
        }
        let unsupported = validate(&meta(json!({keys::PROTOCOL_VERSION: "1999-01-01"}))).map(|_| ());
        assert!(unsupported.is_err_and(|e| e.starts_with("-32022 ")));
    }
}
