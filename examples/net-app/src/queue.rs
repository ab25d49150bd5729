//! A queue that any number of tasks wait on at once: the sockets on their way round
//! and the connection tasks' free tokens ([`crate::conn`]).
//!
//! embassy-sync's `Channel` keeps one waker for its receivers: of two tasks waiting
//! on one at once, each that registers displaces the other's waker and wakes it, so
//! they wake each other in turn for ever. With the connection tasks all waiting for
//! a connection and the listeners for a socket, the executor never slept and
//! polled them at every pass, however idle the device. Here every waiter's waker is
//! kept (up to `W`), and an item sent wakes them all: one takes it, the others wait
//! again. embassy-sync's `MultiWakerRegistration` keeps wakers the same way, but
//! its `register` links a `panic!` (a push after making room, unreachable but not
//! provably so) into every image; this one links none.

use core::cell::RefCell;
use core::future::poll_fn;
use core::task::{Poll, Waker};

use embassy_sync::blocking_mutex::raw::NoopRawMutex;
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::channel::{Channel, TrySendError};

/// Up to `N` items of `T`, received by up to `W` tasks waiting at once.
pub struct Queue<T, const N: usize, const W: usize> {
    items: Channel<NoopRawMutex, T, N>,
    waiting: Mutex<NoopRawMutex, RefCell<[Option<Waker>; W]>>,
}

impl<T, const N: usize, const W: usize> Queue<T, N, W> {
    /// An empty queue.
    pub const fn new() -> Self {
        Queue {
            items: Channel::new(),
            waiting: Mutex::new(RefCell::new([const { None }; W])),
        }
    }

    /// Add `item` and wake every waiter, or give `item` back if `N` are queued.
    pub fn send(&self, item: T) -> Result<(), T> {
        self.items
            .try_send(item)
            .map_err(|TrySendError::Full(item)| item)?;
        self.with_waiting(wake_all);
        Ok(())
    }

    /// The next item, once there is one.
    pub async fn receive(&self) -> T {
        poll_fn(|cx| match self.items.try_receive() {
            Ok(item) => Poll::Ready(item),
            Err(_) => {
                self.with_waiting(|waiting| register(waiting, cx.waker()));
                Poll::Pending
            }
        })
        .await
    }

    /// `f` on the wakers. Nothing here calls back into the queue while they are
    /// borrowed (waking a task only schedules it), so the borrow never fails.
    fn with_waiting(&self, f: impl FnOnce(&mut [Option<Waker>])) {
        self.waiting.lock(|waiting| {
            if let Ok(mut waiting) = waiting.try_borrow_mut() {
                f(&mut *waiting);
            }
        });
    }
}

/// Keep `waker` among the waiting, unless its task's is kept already. With more
/// waiters than room (not with the queues' `W`), all are woken to wait again.
fn register(waiting: &mut [Option<Waker>], waker: &Waker) {
    if waiting.iter().flatten().any(|w| w.will_wake(waker)) {
        return;
    }
    if waiting.iter().all(Option::is_some) {
        wake_all(waiting);
    }
    if let Some(slot) = waiting.iter_mut().find(|slot| slot.is_none()) {
        *slot = Some(waker.clone());
    }
}

/// Wake every waiter (each waits again if it still needs to).
fn wake_all(waiting: &mut [Option<Waker>]) {
    for waker in waiting.iter_mut().filter_map(Option::take) {
        waker.wake();
    }
}
