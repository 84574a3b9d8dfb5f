//! Where a request's own messages go while it is served (notifications, and in a legacy
//! session its requests to the client): a channel the transport reads, or one made only
//! when the first message is sent.
//!
//! Most requests send nothing. A 2026-07-28 request served in line over HTTP answers with
//! one JSON body unless its handler sends something first, so its channel (an allocation
//! with a 128-byte alignment and a block of 32 slots, set up and torn down per request) is
//! made on the first send, and the transport waits for that moment alongside the handler.

#[cfg(feature = "http")]
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

#[cfg(feature = "http")]
use tokio::sync::Notify;
use tokio::sync::mpsc;

/// How many messages wait in a request's channel before a sender waits for room.
#[cfg(feature = "http")]
pub(crate) const CAPACITY: usize = 64;

/// The sending side of a request's messages.
#[derive(Clone)]
pub(crate) struct Outbound(Kind);

#[derive(Clone)]
enum Kind {
    /// A channel the transport made and reads.
    Channel(mpsc::Sender<String>),
    /// A channel made on the first send.
    #[cfg(feature = "http")]
    Deferred(Arc<Deferred>),
}

impl From<mpsc::Sender<String>> for Outbound {
    fn from(sender: mpsc::Sender<String>) -> Self {
        Outbound(Kind::Channel(sender))
    }
}

impl Outbound {
    /// A sink whose channel is made on the first send, and the handle that waits for it.
    #[cfg(feature = "http")]
    pub(crate) fn deferred() -> (Outbound, Arc<Deferred>) {
        let deferred = Arc::new(Deferred::default());
        (Outbound(Kind::Deferred(Arc::clone(&deferred))), deferred)
    }

    /// Send `frame`, waiting while the channel is full. `Err` when nobody reads it any more.
    pub(crate) async fn send(&self, frame: String) -> Result<(), mpsc::error::SendError<String>> {
        match &self.0 {
            Kind::Channel(sender) => sender.send(frame).await,
            #[cfg(feature = "http")]
            Kind::Deferred(deferred) => deferred.sender().send(frame).await,
        }
    }
}

/// The lazily made channel of an [`Outbound::deferred`] sink.
#[cfg(feature = "http")]
#[derive(Default)]
pub(crate) struct Deferred {
    sender: OnceLock<mpsc::Sender<String>>,
    /// The receiving side, from when the channel is made until [`opened`](Self::opened)
    /// or [`take`](Self::take) takes it.
    receiver: Mutex<Option<mpsc::Receiver<String>>>,
    made: Notify,
}

#[cfg(feature = "http")]
impl Deferred {
    fn sender(&self) -> &mpsc::Sender<String> {
        self.sender.get_or_init(|| {
            let (sender, receiver) = mpsc::channel(CAPACITY);
            *self.receiver.lock().unwrap_or_else(PoisonError::into_inner) = Some(receiver);
            // `notify_one` keeps the wakeup for a waiter that comes later.
            self.made.notify_one();
            sender
        })
    }

    /// The receiving side, if the channel was made and not taken yet.
    pub(crate) fn take(&self) -> Option<mpsc::Receiver<String>> {
        self.receiver.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Wait until the channel is made, and take its receiving side. Pending forever once
    /// taken: a caller takes it once.
    pub(crate) async fn opened(&self) -> mpsc::Receiver<String> {
        loop {
            if let Some(receiver) = self.take() {
                return receiver;
            }
            self.made.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "http")]
    #[tokio::test]
    async fn a_deferred_channel_is_made_by_the_first_send_and_keeps_the_order() {
        let (outbound, deferred) = Outbound::deferred();
        assert!(deferred.take().is_none(), "nothing sent, no channel");
        let waiting = tokio::spawn({
            let deferred = Arc::clone(&deferred);
            async move {
                let mut receiver = deferred.opened().await;
                let mut seen = Vec::new();
                for _ in 0..3 {
                    seen.extend(receiver.recv().await);
                }
                seen
            }
        });
        tokio::task::yield_now().await;
        for frame in ["one", "two", "three"] {
            assert!(outbound.send(frame.to_owned()).await.is_ok());
        }
        let seen = waiting.await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(seen, ["one", "two", "three"]);
    }

    #[cfg(feature = "http")]
    #[tokio::test]
    async fn a_send_before_anyone_waits_is_found_by_take_and_by_opened() {
        let (outbound, deferred) = Outbound::deferred();
        assert!(outbound.send("early".to_owned()).await.is_ok());
        let mut receiver = deferred.opened().await;
        assert_eq!(receiver.try_recv().ok().as_deref(), Some("early"));
        assert!(deferred.take().is_none(), "taken once");
        drop(receiver);
        assert!(outbound.send("late".to_owned()).await.is_err(), "nobody reads any more");
    }

    #[tokio::test]
    async fn a_transport_channel_is_used_as_is() {
        let (sender, mut receiver) = mpsc::channel(1);
        let outbound = Outbound::from(sender);
        assert!(outbound.send("x".to_owned()).await.is_ok());
        assert_eq!(receiver.recv().await.as_deref(), Some("x"));
    }
}
