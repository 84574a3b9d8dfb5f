//! One request's life over HTTP: the handler runs in its own task, its notifications
//! and final response flow out as events, and the task stops (cancelling the handler)
//! as soon as nobody is listening any more.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::body::Event;
use crate::Server;
use crate::handler::{Caller, CatchUnwind, Session, outcome_frame};
use crate::protocol::JsonRpcRequest;

/// How a request served in line ended: a whole answer, or a stream that began with a
/// notification (the rest arrives on the receiver).
pub(crate) enum Served {
    /// The final frame and its JSON-RPC error code, if it is an error.
    Done(String, Option<i32>),
    /// The first event, and the rest.
    Streaming(Event, mpsc::Receiver<Event>),
}

/// Serve a 2026-07-28 request in the caller's task: most handlers finish without a
/// notification, and their answer needs no task, no channel of events and no SSE framing.
/// If the handler sends a notification first, the rest continues in a task, as [`start`].
/// Dropping the returned future (the client went away) drops the handler.
pub(crate) async fn serve_inline(
    server: Server,
    session: Arc<Session>,
    request: JsonRpcRequest,
    permit: impl Send + 'static,
    caller: Caller,
) -> Served {
    let id = request.id.clone();
    let (notify_tx, mut notify_rx) = mpsc::channel::<String>(64);
    let mut handler = Box::pin(async move {
        let _permit = permit;
        CatchUnwind::new(server.dispatch_from(&session, request, notify_tx, caller)).await
    });
    tokio::select! {
        biased;
        outcome = &mut handler => {
            if let Ok(first) = notify_rx.try_recv() {
                // Notifications raced the answer: stream them, then the answer.
                let (events, receiver) = mpsc::channel(64);
                let (frame, code) = outcome_frame(&id, outcome);
                tokio::spawn(async move {
                    while let Ok(more) = notify_rx.try_recv() {
                        if events.send(Event::Message(more)).await.is_err() {
                            return;
                        }
                    }
                    let _ = events.send(Event::Last(frame, code)).await;
                });
                return Served::Streaming(Event::Message(first), receiver);
            }
            let (frame, code) = outcome_frame(&id, outcome);
            Served::Done(frame, code)
        }
        Some(first) = notify_rx.recv() => {
            let (events, receiver) = mpsc::channel(64);
            tokio::spawn(async move {
                let outcome = loop {
                    tokio::select! {
                        biased;
                        () = events.closed() => {
                            tracing::debug!(%id, "client went away; cancelling the request");
                            return;
                        }
                        Some(frame) = notify_rx.recv() => {
                            if events.send(Event::Message(frame)).await.is_err() {
                                return;
                            }
                        }
                        outcome = &mut handler => break outcome,
                    }
                };
                while let Ok(frame) = notify_rx.try_recv() {
                    if events.send(Event::Message(frame)).await.is_err() {
                        return;
                    }
                }
                let (frame, code) = outcome_frame(&id, outcome);
                let _ = events.send(Event::Last(frame, code)).await;
            });
            Served::Streaming(Event::Message(first), receiver)
        }
    }
}

/// Start serving `request`; events arrive on the returned receiver. Dropping the
/// receiver (the client went away) drops the handler.
pub(crate) fn start(
    server: Server,
    session: Arc<Session>,
    request: JsonRpcRequest,
    legacy: bool,
    permit: impl Send + 'static,
    caller: Caller,
) -> mpsc::Receiver<Event> {
    let (events, receiver) = mpsc::channel(64);
    let id = request.id.clone();
    let task_session = Arc::clone(&session);
    let task_id = id.clone();
    let work = async move {
        let _permit = permit;
        let (notify_tx, mut notify_rx) = mpsc::channel::<String>(64);
        let handler = CatchUnwind::new(server.dispatch_from(&task_session, request, notify_tx, caller));
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
        let (frame, code) = outcome_frame(&task_id, outcome);
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
