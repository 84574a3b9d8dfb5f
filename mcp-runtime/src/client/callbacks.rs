//! The client's callbacks: how it answers the server's questions (elicitation, sampling,
//! roots) in both eras, and where progress and log notifications go.
//!
//! The same callbacks serve a 2026-07-28 `InputRequiredResult` (one call per input
//! request, concurrently) and a 2025-11-25 server-to-client request. Capabilities are
//! declared from the callbacks present.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use super::ClientError;
use crate::protocol::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationCapability, Error, ErrorCode, InputRequest, InputResponse, JsonObject, ListRootsResult,
    LoggingMessageParams, ProgressParams, RequestId, RootsCapability, SamplingCapability, methods,
};
use crate::wire::untrusted::Untrusted;

/// A boxed, sendable future.
pub type CallbackFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Which question a callback is answering.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Asker {
    /// An input request of a 2026-07-28 `InputRequiredResult`, under this key.
    InputRequest(String),
    /// A 2025-11-25 server-to-client request with this id.
    ServerRequest(RequestId),
    /// An input request of a running task (its `inputRequests`, tasks extension), under
    /// this key. Task keys are their own namespace, apart from the call's rounds.
    TaskInput(String),
}

/// Answers `elicitation/create`.
pub trait ElicitationHandler: Send + Sync + 'static {
    /// Ask the user; an `Err` abandons the call.
    fn elicit(&self, asker: Asker, params: ElicitRequestParams) -> CallbackFuture<Result<ElicitResult, Error>>;
}

/// Answers `sampling/createMessage`.
pub trait SamplingHandler: Send + Sync + 'static {
    /// Run the model; an `Err` abandons the call.
    fn sample(&self, asker: Asker, params: CreateMessageParams) -> CallbackFuture<Result<CreateMessageResult, Error>>;
}

/// Answers `roots/list`.
pub trait RootsHandler: Send + Sync + 'static {
    /// List the roots; an `Err` abandons the call.
    fn list_roots(&self, asker: Asker) -> CallbackFuture<Result<ListRootsResult, Error>>;
}

impl<F, Fut> ElicitationHandler for F
where
    F: Fn(Asker, ElicitRequestParams) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ElicitResult, Error>> + Send + 'static,
{
    fn elicit(&self, asker: Asker, params: ElicitRequestParams) -> CallbackFuture<Result<ElicitResult, Error>> {
        Box::pin(self(asker, params))
    }
}

impl<F, Fut> SamplingHandler for F
where
    F: Fn(Asker, CreateMessageParams) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CreateMessageResult, Error>> + Send + 'static,
{
    fn sample(&self, asker: Asker, params: CreateMessageParams) -> CallbackFuture<Result<CreateMessageResult, Error>> {
        Box::pin(self(asker, params))
    }
}

impl<F, Fut> RootsHandler for F
where
    F: Fn(Asker) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ListRootsResult, Error>> + Send + 'static,
{
    fn list_roots(&self, asker: Asker) -> CallbackFuture<Result<ListRootsResult, Error>> {
        Box::pin(self(asker))
    }
}

/// Everything the client calls back.
#[derive(Clone, Default)]
pub(crate) struct Callbacks {
    pub(crate) elicitation: Option<Arc<dyn ElicitationHandler>>,
    pub(crate) sampling: Option<Arc<dyn SamplingHandler>>,
    pub(crate) sampling_tools: bool,
    pub(crate) roots: Option<Arc<dyn RootsHandler>>,
    pub(crate) progress: Option<Arc<dyn Fn(ProgressParams) + Send + Sync>>,
    pub(crate) logging: Option<Arc<dyn Fn(LoggingMessageParams) + Send + Sync>>,
}

impl std::fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callbacks")
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .field("progress", &self.progress.is_some())
            .field("logging", &self.logging.is_some())
            .finish()
    }
}

fn unsupported(what: &str) -> Error {
    Error { code: ErrorCode::INVALID_REQUEST, message: format!("{what} not supported"), data: None }
}

impl Callbacks {
    /// The capabilities the callbacks present stand for.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        let mut caps = ClientCapabilities::default();
        if self.elicitation.is_some() {
            caps.elicitation = Some(ElicitationCapability { form: Some(JsonObject::new()), url: None });
        }
        if self.sampling.is_some() {
            caps.sampling =
                Some(SamplingCapability { tools: self.sampling_tools.then(JsonObject::new), ..Default::default() });
        }
        if self.roots.is_some() {
            caps.roots = Some(RootsCapability { list_changed: Some(true) });
        }
        caps
    }

    /// Answer one question.
    pub(crate) fn answer(&self, asker: Asker, request: InputRequest) -> CallbackFuture<Result<InputResponse, Error>> {
        match request {
            InputRequest::Elicit(params) => match &self.elicitation {
                Some(h) => {
                    let f = h.elicit(asker, params);
                    Box::pin(async move { f.await.map(InputResponse::Elicit) })
                }
                None => Box::pin(async { Err(unsupported("Elicitation")) }),
            },
            InputRequest::Sample(params) => match &self.sampling {
                Some(h) => {
                    let f = h.sample(asker, params);
                    Box::pin(async move { f.await.map(InputResponse::Sample) })
                }
                None => Box::pin(async { Err(unsupported("Sampling")) }),
            },
            InputRequest::ListRoots(_) => match &self.roots {
                Some(h) => {
                    let f = h.list_roots(asker);
                    Box::pin(async move { f.await.map(InputResponse::ListRoots) })
                }
                None => Box::pin(async { Err(unsupported("List roots")) }),
            },
        }
    }

    /// Answer a 2025-11-25 server-to-client request: the result, or the error to send back.
    pub(crate) async fn serve_request(
        &self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, Error> {
        if method == methods::PING {
            return Ok(Value::Object(JsonObject::new()));
        }
        if ![methods::ELICITATION_CREATE, methods::SAMPLING_CREATE_MESSAGE, methods::ROOTS_LIST].contains(&method) {
            return Err(Error {
                code: ErrorCode::METHOD_NOT_FOUND,
                message: format!("Method not found: {method}"),
                data: None,
            });
        }
        let request = InputRequest::from_method(method, params).map_err(|why| Error {
            code: ErrorCode::INVALID_PARAMS,
            message: why,
            data: None,
        })?;
        let response = self.answer(Asker::ServerRequest(id), request).await?;
        serde_json::to_value(response).map_err(|e| Error {
            code: ErrorCode::INTERNAL_ERROR,
            message: e.to_string(),
            data: None,
        })
    }

    /// Route a notification from the server.
    pub(crate) fn notify(&self, method: &str, params: Option<Value>) {
        match method {
            methods::NOTIFICATION_PROGRESS => {
                if let (Some(cb), Some(p)) = (&self.progress, params.and_then(|p| serde_json::from_value(p).ok())) {
                    cb(p);
                }
            }
            methods::NOTIFICATION_MESSAGE => {
                if let (Some(cb), Some(p)) = (&self.logging, params.and_then(|p| serde_json::from_value(p).ok())) {
                    cb(p);
                }
            }
            other => tracing::debug!(method = ?Untrusted(other), "notification ignored"),
        }
    }
}

/// A callback's error as the call's error.
pub(crate) fn callback_error(key: &str, error: Error) -> ClientError {
    ClientError::Callback { key: key.to_owned(), error }
}
