//! One request's life over HTTP: the handler runs in its own task, its notifications
//! and final response flow out as events, and the task stops (cancelling the handler)
//! as soon as nobody is listening any more.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::mpsc;

use super::body::Event;
use crate::handler::{CAPACITY, Caller, CatchUnwind, Outbound, Payload, Session, outcome_frame};
use crate::protocol::{JsonRpcRequest, Params, RequestId};
use crate::{Error, Server};

/// How a request served in line ended: a whole answer, or a stream that began with a
/// notification (the rest arrives on the receiver).
pub(crate) enum Served {
    /// The final frame and its JSON-RPC error code, if it is an error.
    Done(String, Option<i32>),
    /// The first event, and the rest.
    Streaming(Event, mpsc::Receiver<Event>),
}

/// Serve a 2026-07-28 request in the caller's task: most handlers finish without a
/// notification, and their answer needs no task, no channel of events and no SSE framing
/// (and no channel for notifications either: it is made if the handler sends one).
/// If the handler sends a notification first, the rest continues in a task, as [`start`].
/// Dropping the returned future (the client went away) drops the handler.
pub(crate) async fn serve_inline(
    server: Server,
    session: Arc<Session>,
    request: JsonRpcRequest<Params>,
    permit: impl Send + 'static,
    caller: Caller,
) -> Served {
    let id = request.id.clone();
    let (outbound, notifications) = Outbound::deferred();
    let mut handler = Box::pin(async move {
        let _permit = permit;
        CatchUnwind::new(server.dispatch_from(&session, request, outbound, caller)).await
    });
    let mut notify_rx = tokio::select! {
        biased;
        outcome = &mut handler => return finished(&id, outcome, notifications.take()),
        notify_rx = notifications.opened() => notify_rx,
    };
    // The handler made the channel to send its first message, which is in it by now.
    let first = tokio::select! {
        biased;
        Some(first) = notify_rx.recv() => first,
        outcome = &mut handler => return finished(&id, outcome, Some(notify_rx)),
    };
    let (events, receiver) = mpsc::channel(CAPACITY);
    tokio::spawn(async move {
        let Some(outcome) = forward(&mut handler, &mut notify_rx, &events, &id).await else { return };
        let (frame, code) = outcome_frame(&id, outcome);
        let _ = events.send(Event::Last(frame, code)).await;
    });
    Served::Streaming(Event::Message(first), receiver)
}

/// What a handler's future ends with: its answer, or `Err` if it panicked.
type Outcome = Result<Result<Payload, Error>, ()>;

/// Forward the notifications `handler` sends as events until it finishes, then those
/// still waiting: its outcome, or `None` if the client went away first (whoever holds
/// `handler` then drops it, cancelling the request).
async fn forward(
    handler: &mut (impl Future<Output = Outcome> + Unpin),
    notify_rx: &mut mpsc::Receiver<String>,
    events: &mpsc::Sender<Event>,
    id: &RequestId,
) -> Option<Outcome> {
    let outcome = loop {
        tokio::select! {
            biased;
            () = events.closed() => {
                tracing::debug!(%id, "client went away; cancelling the request");
                return None;
            }
            Some(frame) = notify_rx.recv() => {
                if events.send(Event::Message(frame)).await.is_err() {
                    return None;
                }
            }
            outcome = &mut *handler => break outcome,
        }
    };
    forward_waiting(notify_rx, events).await.then_some(outcome)
}

/// Forward the notifications already waiting in `notify_rx` as events: false if the
/// client went away.
async fn forward_waiting(notify_rx: &mut mpsc::Receiver<String>, events: &mpsc::Sender<Event>) -> bool {
    while let Ok(frame) = notify_rx.try_recv() {
        if events.send(Event::Message(frame)).await.is_err() {
            return false;
        }
    }
    true
}

/// How an inline request that finished ends: its answer alone, or, when notifications
/// raced it (still in `notify_rx`), a stream of them and then the answer.
fn finished(id: &RequestId, outcome: Outcome, notify_rx: Option<mpsc::Receiver<String>>) -> Served {
    let (frame, code) = outcome_frame(id, outcome);
    let Some(mut notify_rx) = notify_rx else { return Served::Done(frame, code) };
    let Ok(first) = notify_rx.try_recv() else { return Served::Done(frame, code) };
    let (events, receiver) = mpsc::channel(CAPACITY);
    tokio::spawn(async move {
        if forward_waiting(&mut notify_rx, &events).await {
            let _ = events.send(Event::Last(frame, code)).await;
        }
    });
    Served::Streaming(Event::Message(first), receiver)
}

/// Start serving `request`; events arrive on the returned receiver. Dropping the
/// receiver (the client went away) drops the handler.
pub(crate) fn start(
    server: Server,
    session: Arc<Session>,
    request: JsonRpcRequest<Params>,
    legacy: bool,
    permit: impl Send + 'static,
    caller: Caller,
) -> mpsc::Receiver<Event> {
    let (events, receiver) = mpsc::channel(CAPACITY);
    let id = request.id.clone();
    let task_session = Arc::clone(&session);
    let task_id = id.clone();
    let work = async move {
        let _permit = permit;
        let (notify_tx, mut notify_rx) = mpsc::channel::<String>(CAPACITY);
        let handler = CatchUnwind::new(server.dispatch_from(&task_session, request, notify_tx.into(), caller));
        tokio::pin!(handler);
        let outcome = forward(&mut handler, &mut notify_rx, &events, &task_id).await;
        task_session.finish_request(&task_id);
        let Some(outcome) = outcome else { return };
        let (frame, code) = outcome_frame(&task_id, outcome);
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
