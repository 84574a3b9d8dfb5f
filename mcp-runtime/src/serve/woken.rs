//! A future polled only after it asked to be: [`Woken`] wraps a shutdown signal that a
//! connection's loop checks before every message. A signal's own poll is not free (tokio's
//! `ctrl_c` goes through a boxed future and a watch channel: about 600 instructions, a
//! fiftieth of serving a small call), and it has nothing new to say until its waker fires.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

/// `F`, polled again only once the waker it was last polled with fires (or on its first
/// poll); in between, a poll returns `Pending` after noting the caller's waker. So `F` must
/// keep the future contract: a future that returns `Pending` without arranging a wake is
/// never polled again. Not to be polled once it completed (it then stays pending).
pub(crate) struct Woken<F> {
    inner: Pin<Box<F>>,
    signal: Arc<Signal>,
    /// `signal` as a waker, made once.
    waker: Waker,
}

/// What the inner future's waker does: note that it fired, and wake the current caller.
#[derive(Default)]
struct Signal {
    /// Set when the inner future's waker fires; starts set, for the first poll.
    fired: AtomicBool,
    /// The waker of the task polling the [`Woken`], as of its last poll.
    caller: Mutex<Option<Waker>>,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.fired.store(true, Ordering::Release);
        let caller = self.caller.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if let Some(caller) = caller {
            caller.wake();
        }
    }
}

impl<F: Future> Woken<F> {
    pub(crate) fn new(inner: F) -> Self {
        let signal = Arc::new(Signal { fired: AtomicBool::new(true), caller: Mutex::default() });
        let waker = Waker::from(Arc::clone(&signal));
        Woken { inner: Box::pin(inner), signal, waker }
    }
}

impl<F: Future> Future for Woken<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        // The caller's waker is noted before the flag is read: a wake in between then
        // either shows in the flag or wakes the waker just noted.
        {
            let mut caller = this.signal.caller.lock().unwrap_or_else(PoisonError::into_inner);
            if !caller.as_ref().is_some_and(|known| known.will_wake(cx.waker())) {
                *caller = Some(cx.waker().clone());
            }
        }
        if !this.signal.fired.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        this.inner.as_mut().poll(&mut Context::from_waker(&this.waker))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// Counts its polls; ready once `open` is set (and wakes the waker it was handed when
    /// `open` is set through [`Door::open`]).
    #[derive(Default)]
    struct Door {
        polls: AtomicUsize,
        open: AtomicBool,
        waker: Mutex<Option<Waker>>,
    }

    impl Door {
        fn open(&self) {
            self.open.store(true, Ordering::Release);
            if let Some(waker) = self.waker.lock().unwrap_or_else(PoisonError::into_inner).take() {
                waker.wake();
            }
        }
    }

    struct Wait(Arc<Door>);

    impl Future for Wait {
        type Output = ();

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.0.polls.fetch_add(1, Ordering::Relaxed);
            if self.0.open.load(Ordering::Acquire) {
                return Poll::Ready(());
            }
            *self.0.waker.lock().unwrap_or_else(PoisonError::into_inner) = Some(cx.waker().clone());
            Poll::Pending
        }
    }

    /// Counts the wakes of the caller's task.
    #[derive(Default)]
    struct Caller(AtomicUsize);

    impl Wake for Caller {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn polls_the_inner_future_only_after_its_waker_fired() {
        let door = Arc::new(Door::default());
        let mut woken = Box::pin(Woken::new(Wait(Arc::clone(&door))));
        let caller = Arc::new(Caller::default());
        let waker = Waker::from(Arc::clone(&caller));
        let mut cx = Context::from_waker(&waker);

        assert!(woken.as_mut().poll(&mut cx).is_pending());
        assert_eq!(door.polls.load(Ordering::Relaxed), 1, "the first poll reaches the inner future");
        for _ in 0..10 {
            assert!(woken.as_mut().poll(&mut cx).is_pending());
        }
        assert_eq!(door.polls.load(Ordering::Relaxed), 1, "not woken: not polled again");

        door.open();
        assert_eq!(caller.0.load(Ordering::Relaxed), 1, "the inner wake reaches the caller");
        assert!(woken.as_mut().poll(&mut cx).is_ready());
        assert_eq!(door.polls.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_wake_goes_to_the_latest_caller() {
        let door = Arc::new(Door::default());
        let mut woken = Box::pin(Woken::new(Wait(Arc::clone(&door))));
        let (first, second) = (Arc::new(Caller::default()), Arc::new(Caller::default()));
        let first_waker = Waker::from(Arc::clone(&first));
        assert!(woken.as_mut().poll(&mut Context::from_waker(&first_waker)).is_pending());
        let second_waker = Waker::from(Arc::clone(&second));
        assert!(woken.as_mut().poll(&mut Context::from_waker(&second_waker)).is_pending());
        door.open();
        assert_eq!((first.0.load(Ordering::Relaxed), second.0.load(Ordering::Relaxed)), (0, 1));
        assert!(woken.as_mut().poll(&mut Context::from_waker(&second_waker)).is_ready());
    }

    #[tokio::test]
    async fn a_real_signal_still_completes() {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let woken = Woken::new(async move {
            let _ = rx.await;
        });
        tokio::spawn(async move {
            tokio::task::yield_now().await;
            let _ = tx.send(());
        });
        tokio::time::timeout(std::time::Duration::from_secs(5), woken).await.expect("completes once signalled");
    }
}
