//! One request's life over HTTP: the handler runs in its own task, its notifications
//! and final response flow out as events, and the task stops (cancelling the handler)
//! as soon as nobody is listening any more.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::body::Event;
use crate::Server;
use crate::protocol::{ErrorCode, ErrorObject, JsonRpcRequest};
use crate::server::{CatchUnwind, Session, error_frame, payload_frame};

/// Start serving `request`; events arrive on the returned receiver. Dropping the
/// receiver (the client went away) drops the handler.
pub(crate) fn start(
    server: Server,
    session: Arc<Session>,
    request: JsonRpcRequest,
    legacy: bool,
    permit: OwnedSemaphorePermit,
    auth: Option<Arc<crate::auth::AuthInfo>>,
) -> mpsc::Receiver<Event> {
    let (events, receiver) = mpsc::channel(64);
    let id = request.id.clone();
    let task_session = Arc::clone(&session);
    let task_id = id.clone();
    let work = async move {
        let _permit = permit;
        let (notify_tx, mut notify_rx) = mpsc::channel::<String>(64);
        let handler = CatchUnwind::new(server.dispatch(&task_session, request, notify_tx, auth));
        tokio::pin!(handler);
        let outcome = loop {
            tokio::select! {
                biased;
                () = events.closed() => {
                    tracing::debug!(id = %task_id, "client went away; cancelling the request");
                    task_session.finish_request(&task_id);
                    return;
                }
                Some(frame) = notify_rx.recv() => {
                    if events.send(Event::Message(frame)).await.is_err() {
                        task_session.finish_request(&task_id);
                        return;
                    }
                }
                outcome = &mut handler => break outcome,
            }
        };
        while let Ok(frame) = notify_rx.try_recv() {
            if events.send(Event::Message(frame)).await.is_err() {
                task_session.finish_request(&task_id);
                return;
            }
        }
        let (frame, code) = match outcome {
            Ok(Ok(result)) => (payload_frame(task_id.clone(), result), None),
            Ok(Err(error)) => {
                let error: ErrorObject = error.into();
                let code = error.code;
                (error_frame(Some(task_id.clone()), error), Some(code))
            }
            Err(()) => {
                tracing::error!(id = %task_id, "a handler panicked; answering -32603");
                let error =
                    ErrorObject { code: ErrorCode::INTERNAL_ERROR, message: "Internal error".into(), data: None };
                (error_frame(Some(task_id.clone()), error), Some(ErrorCode::INTERNAL_ERROR))
            }
        };
        task_session.finish_request(&task_id);
        let _ = events.send(Event::Last(frame, code)).await;
    };
    if legacy {
        // Registered under the session's lock before the task can finish and deregister.
        let mut work = Some(work);
        let started = session.start_request(&id, || match work.take() {
            Some(work) => tokio::spawn(work).abort_handle(),
            None => tokio::spawn(async {}).abort_handle(),
        });
        if !started {
            tracing::debug!(%id, "a request with this id is already running in the session");
            if let Some(work) = work {
                tokio::spawn(work);
            }
        }
    } else {
        tokio::spawn(work);
    }
    receiver
}
