//! What the threads of an HTTP upstream share: the [`Sink`] that hands
//! messages to the pump (from any thread, `Closed` once and last), the
//! [`Stop`] flag every wait watches, and the [`Slots`] that cap the POSTs
//! in flight.

use std::string::String;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use std::vec::Vec;

use crate::proxy::upstream::{Deliver, FromServer};

/// Locks, ignoring poisoning: a panic in the pump's callback must not turn
/// into a second panic here, and every guarded state stays consistent.
pub(in crate::proxy) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The pump's `deliver`, callable from several threads.
///
/// Messages of one thread arrive in the order that thread hands them over
/// (the lock is held during the call, so the pump sees one at a time). After
/// [`close`](Self::close) or [`silence`](Self::silence), or once `deliver`
/// returned `false`, nothing more is delivered; a delivery already inside
/// the callback finishes.
pub(in crate::proxy) struct Sink {
    deliver: Mutex<Option<Deliver>>,
    closed: AtomicBool,
    why: Mutex<Option<String>>,
}

impl Sink {
    /// A sink with no callback yet (everything is dropped until [`set`](Self::set)).
    pub fn new() -> Sink {
        Sink {
            deliver: Mutex::new(None),
            closed: AtomicBool::new(false),
            why: Mutex::new(None),
        }
    }

    /// Installs the pump's callback.
    pub fn set(&self, deliver: Deliver) {
        *lock(&self.deliver) = Some(deliver);
    }

    /// Hands one message over; `false` once nothing is delivered any more.
    pub fn message(&self, bytes: Vec<u8>) -> bool {
        if self.is_closed() {
            return false;
        }
        let mut d = lock(&self.deliver);
        if self.is_closed() {
            return false;
        }
        let Some(deliver) = d.as_mut() else {
            return false;
        };
        if deliver(FromServer::Message(bytes)) {
            return true;
        }
        *d = None;
        self.end(String::from("the proxy stopped reading"));
        false
    }

    /// Delivers `Closed(why)` (redacted by the caller), once; nothing follows.
    pub fn close(&self, why: String) {
        if !self.end(why.clone()) {
            return;
        }
        if let Some(mut deliver) = lock(&self.deliver).take() {
            deliver(FromServer::Closed(why));
        }
    }

    /// Stops delivering without a word (our own shutdown), without waiting
    /// for a delivery in progress.
    pub fn silence(&self) {
        self.end(String::from("the connection was shut down"));
    }

    /// Marks the end; `false` when it had already ended.
    fn end(&self, why: String) -> bool {
        if self.closed.swap(true, Ordering::AcqRel) {
            return false;
        }
        *lock(&self.why) = Some(why);
        true
    }

    /// Whether delivering has ended.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Why delivering ended, if it did.
    pub fn why(&self) -> Option<String> {
        lock(&self.why).clone()
    }
}

/// A stop flag whose waits end as soon as it is set.
pub(in crate::proxy) struct Stop {
    set: Mutex<bool>,
    cv: Condvar,
}

impl Stop {
    pub fn new() -> Stop {
        Stop {
            set: Mutex::new(false),
            cv: Condvar::new(),
        }
    }

    pub fn set(&self) {
        *lock(&self.set) = true;
        self.cv.notify_all();
    }

    pub fn is_set(&self) -> bool {
        *lock(&self.set)
    }

    /// Sleeps `d`; `false` (at once) when stopped.
    pub fn sleep(&self, d: Duration) -> bool {
        let until = Instant::now().checked_add(d);
        let mut set = lock(&self.set);
        loop {
            if *set {
                return false;
            }
            let left = until.map_or(Duration::from_secs(3600), |u| {
                u.saturating_duration_since(Instant::now())
            });
            if left.is_zero() {
                return true;
            }
            set = self
                .cv
                .wait_timeout(set, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

/// A counting semaphore: at most `max` POSTs in flight.
pub(in crate::proxy) struct Slots {
    busy: Mutex<usize>,
    freed: Condvar,
    max: usize,
}

impl Slots {
    pub fn new(max: usize) -> Slots {
        Slots {
            busy: Mutex::new(0),
            freed: Condvar::new(),
            max,
        }
    }

    /// Takes a slot, waiting for one to free (every POST ends within its
    /// timeouts); `false` when `stop` is set first.
    pub fn acquire(&self, stop: &Stop) -> bool {
        let mut busy = lock(&self.busy);
        while *busy >= self.max {
            if stop.is_set() {
                return false;
            }
            busy = self
                .freed
                .wait_timeout(busy, Duration::from_millis(200))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        *busy += 1;
        true
    }

    pub fn release(&self) {
        let mut busy = lock(&self.busy);
        *busy = busy.saturating_sub(1);
        drop(busy);
        self.freed.notify_one();
    }

    /// POSTs in flight now.
    pub fn busy(&self) -> usize {
        *lock(&self.busy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::boxed::Box;
    use std::sync::mpsc;

    #[test]
    fn closed_is_last_and_once() {
        let (tx, rx) = mpsc::channel();
        let sink = Sink::new();
        sink.set(Box::new(move |m| tx.send(m).is_ok()));
        assert!(sink.message(b"1".to_vec()));
        sink.close(String::from("gone"));
        sink.close(String::from("again"));
        assert!(!sink.message(b"2".to_vec()));
        let got: Vec<FromServer> = rx.try_iter().collect();
        assert_eq!(
            got,
            [
                FromServer::Message(b"1".to_vec()),
                FromServer::Closed(String::from("gone"))
            ]
        );
        assert_eq!(sink.why().as_deref(), Some("gone"));
    }

    #[test]
    fn a_pump_that_is_gone_ends_delivery() {
        let sink = Sink::new();
        sink.set(Box::new(|_| false));
        assert!(!sink.message(b"1".to_vec()));
        assert!(sink.is_closed());
    }

    #[test]
    fn slots_cap_and_stop() {
        let slots = std::sync::Arc::new(Slots::new(2));
        let stop = std::sync::Arc::new(Stop::new());
        assert!(slots.acquire(&stop) && slots.acquire(&stop));
        assert_eq!(slots.busy(), 2);
        let (s, st) = (slots.clone(), stop.clone());
        let t = std::thread::spawn(move || s.acquire(&st));
        std::thread::sleep(Duration::from_millis(50));
        slots.release();
        assert!(t.join().unwrap(), "a freed slot is taken");
        let (s, st) = (slots.clone(), stop.clone());
        let t = std::thread::spawn(move || s.acquire(&st));
        std::thread::sleep(Duration::from_millis(50));
        stop.set();
        assert!(!t.join().unwrap(), "stop ends the wait");
    }

    #[test]
    fn stop_cuts_a_sleep_short() {
        let stop = std::sync::Arc::new(Stop::new());
        let s = stop.clone();
        let t = std::thread::spawn(move || s.sleep(Duration::from_secs(30)));
        std::thread::sleep(Duration::from_millis(50));
        stop.set();
        assert!(!t.join().unwrap());
        assert!(Stop::new().sleep(Duration::from_millis(1)));
    }
}
