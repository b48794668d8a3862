//! A queue between one I/O thread and its consumer that is bounded in
//! **bytes**, not in entries.
//!
//! A queue of N entries of up to M bytes each holds N × M bytes; with the
//! stdio line limit (16 MiB) and 256 entries that was 4 GiB a hostile server
//! could make us buffer just by writing faster than we parse. Here every item
//! carries a cost (the bytes it owns, plus a fixed per-item overhead, see
//! [`item_overhead`]) and [`Sender::send`] blocks while the queue holds more
//! than its budget, so the producer thread stops reading and the server is
//! back-pressured through its pipe or socket.
//!
//! The bound: the queue holds at most `budget` bytes of items, or a single
//! item when that item alone costs more (an item is always admitted into an
//! empty queue, so nothing can deadlock on an item larger than the budget).
//! The per-item overhead makes that a bound on memory for small items too:
//! without it, a flood of empty or one-byte lines (cost 0 or 8) filled the
//! queue with millions of entries of some 40 bytes each.
//!
//! One producer ([`Sender`], not `Clone`) and one consumer ([`Receiver`]).
//! Dropping the receiver (or [`Receiver::close`]) makes every blocked and
//! later `send` fail at once and frees what was queued; dropping the sender
//! lets the consumer take what is left and then see
//! [`RecvTimeoutError::Disconnected`].

use std::collections::VecDeque;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

struct State<T> {
    items: VecDeque<(T, usize)>,
    /// Sum of the costs of `items`.
    bytes: usize,
    sender_alive: bool,
    receiver_alive: bool,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// Signalled when an item arrives or the sender goes away.
    readable: Condvar,
    /// Signalled when bytes are taken out or the receiver goes away.
    writable: Condvar,
    budget: usize,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic while holding this lock cannot leave the state inconsistent
        // (every update is a single push/pop plus a counter), so poisoning is
        // ignored rather than turned into a second panic.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The producer half.
pub(crate) struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// The consumer half.
pub(crate) struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

/// Why [`Sender::send_until`] gave the item back.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SendError<T> {
    /// The receiver is gone: nobody will ever take it.
    Closed(T),
    /// The queue stayed over budget until the deadline.
    Timeout(T),
}

/// What an item costs on top of the bytes it says it owns: its slot in the
/// deque, counted twice (a `VecDeque` may have up to twice the slots it
/// uses), and 32 bytes for the allocator's header and rounding of the heap
/// block the item owns (glibc's smallest block is 32 bytes). At least 1, so
/// that no item is free.
pub(crate) const fn item_overhead<T>() -> usize {
    2 * core::mem::size_of::<(T, usize)>() + 32
}

/// A queue holding at most about `budget` bytes (see the module docs).
pub(crate) fn byte_queue<T>(budget: usize) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            items: VecDeque::new(),
            bytes: 0,
            sender_alive: true,
            receiver_alive: true,
        }),
        readable: Condvar::new(),
        writable: Condvar::new(),
        budget,
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

impl<T> Sender<T> {
    /// Queues `item`, which owns `cost` bytes (charged with
    /// [`item_overhead`] on top), waiting as long as the queue is over
    /// budget. Gives the item back when the receiver is gone.
    pub fn send(&self, item: T, cost: usize) -> Result<(), T> {
        match self.send_until(item, cost, None) {
            Ok(()) => Ok(()),
            Err(SendError::Closed(t) | SendError::Timeout(t)) => Err(t),
        }
    }

    /// Like [`send`](Self::send), but gives up at `deadline` (`None`: never).
    pub fn send_until(
        &self,
        item: T,
        cost: usize,
        deadline: Option<Instant>,
    ) -> Result<(), SendError<T>> {
        let sh = &*self.shared;
        let cost = cost.saturating_add(item_overhead::<T>());
        let mut st = sh.lock();
        loop {
            if !st.receiver_alive {
                return Err(SendError::Closed(item));
            }
            if st.items.is_empty() || st.bytes.saturating_add(cost) <= sh.budget {
                break;
            }
            st = match deadline {
                None => sh.writable.wait(st).unwrap_or_else(|p| p.into_inner()),
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(SendError::Timeout(item));
                    }
                    sh.writable
                        .wait_timeout(st, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
        st.bytes += cost;
        st.items.push_back((item, cost));
        drop(st);
        sh.readable.notify_one();
        Ok(())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.shared.lock().sender_alive = false;
        self.shared.readable.notify_all();
    }
}

impl<T> Receiver<T> {
    /// Takes the next item, waiting at most `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        self.recv_until(Instant::now().checked_add(timeout))
    }

    /// Takes the next item, waiting as long as it takes (until the sender is gone).
    pub fn recv(&self) -> Result<T, RecvTimeoutError> {
        self.recv_until(None)
    }

    fn recv_until(&self, deadline: Option<Instant>) -> Result<T, RecvTimeoutError> {
        let sh = &*self.shared;
        let mut st = sh.lock();
        loop {
            if let Some((item, cost)) = st.items.pop_front() {
                st.bytes -= cost;
                drop(st);
                sh.writable.notify_one();
                return Ok(item);
            }
            if !st.sender_alive {
                return Err(RecvTimeoutError::Disconnected);
            }
            st = match deadline {
                None => sh.readable.wait(st).unwrap_or_else(|p| p.into_inner()),
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(RecvTimeoutError::Timeout);
                    }
                    sh.readable
                        .wait_timeout(st, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
    }

    /// Stops taking items: what is queued is freed and every `send` fails
    /// from now on (a blocked one at once). Idempotent.
    pub fn close(&self) {
        let dropped = {
            let mut st = self.shared.lock();
            st.receiver_alive = false;
            st.bytes = 0;
            core::mem::take(&mut st.items)
        };
        self.shared.writable.notify_all();
        // The items are freed outside the lock.
        drop(dropped);
    }

    /// Bytes queued right now, per-item overheads included (for tests).
    #[cfg(test)]
    pub fn queued_bytes(&self) -> usize {
        self.shared.lock().bytes
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::vec::Vec;

    #[test]
    fn fifo_and_disconnect_after_the_last_item() {
        let (tx, rx) = byte_queue::<u32>(1000);
        for i in 0..5 {
            tx.send(i, 10).unwrap();
        }
        drop(tx);
        let got: Vec<u32> = core::iter::from_fn(|| rx.recv().ok()).collect();
        assert_eq!(got, [0, 1, 2, 3, 4]);
        assert_eq!(rx.recv(), Err(RecvTimeoutError::Disconnected));
    }

    #[test]
    fn the_producer_blocks_at_the_budget() {
        let unit = 300 + item_overhead::<Vec<u8>>();
        let (tx, rx) = byte_queue::<Vec<u8>>(3 * unit + unit / 2);
        let sent = Arc::new(AtomicUsize::new(0));
        let s = sent.clone();
        let producer = std::thread::spawn(move || {
            for _ in 0..50 {
                if tx.send(std::vec![0u8; 300], 300).is_err() {
                    return;
                }
                s.fetch_add(1, Ordering::SeqCst);
            }
        });
        std::thread::sleep(Duration::from_millis(100));
        // Three items fit in 3.5 units; a fourth would not.
        assert_eq!(sent.load(Ordering::SeqCst), 3);
        assert_eq!(rx.queued_bytes(), 3 * unit);
        let mut n = 0;
        while rx.recv_timeout(Duration::from_secs(5)).is_ok() {
            assert!(rx.queued_bytes() <= 3 * unit + unit / 2);
            n += 1;
        }
        producer.join().unwrap();
        assert_eq!(n, 50);
    }

    #[test]
    fn items_that_own_nothing_still_count() {
        // Empty lines cost 0 bytes of their own, but each takes a slot: a
        // flood of them must stop at the budget too.
        let (tx, rx) = byte_queue::<Vec<u8>>(10_000);
        let sent = Arc::new(AtomicUsize::new(0));
        let s = sent.clone();
        let producer = std::thread::spawn(move || {
            for _ in 0..100_000 {
                if tx.send(Vec::new(), 0).is_err() {
                    return;
                }
                s.fetch_add(1, Ordering::SeqCst);
            }
        });
        std::thread::sleep(Duration::from_millis(100));
        let n = sent.load(Ordering::SeqCst);
        assert_eq!(n, 10_000 / item_overhead::<Vec<u8>>(), "{n} items queued");
        assert!(rx.queued_bytes() <= 10_000);
        rx.close();
        producer.join().unwrap();
    }

    #[test]
    fn an_item_over_the_budget_passes_alone() {
        let (tx, rx) = byte_queue::<u8>(10);
        tx.send(1, 50).unwrap();
        let r = tx.send_until(2, 1, Some(Instant::now() + Duration::from_millis(50)));
        assert_eq!(r, Err(SendError::Timeout(2)));
        assert_eq!(rx.recv(), Ok(1));
        tx.send(2, 1).unwrap();
        assert_eq!(rx.recv(), Ok(2));
    }

    #[test]
    fn closing_releases_a_blocked_producer_and_frees_the_items() {
        let (tx, rx) = byte_queue::<Vec<u8>>(10);
        tx.send(std::vec![1; 10], 10).unwrap();
        let producer = std::thread::spawn(move || tx.send(std::vec![2; 10], 10));
        std::thread::sleep(Duration::from_millis(50));
        rx.close();
        assert_eq!(rx.queued_bytes(), 0);
        assert_eq!(producer.join().unwrap(), Err(std::vec![2; 10]));
        assert_eq!(
            rx.recv_timeout(Duration::from_millis(10)),
            Err(RecvTimeoutError::Disconnected)
        );
    }

    #[test]
    fn recv_times_out() {
        let (_tx, rx) = byte_queue::<u8>(10);
        let t0 = Instant::now();
        assert_eq!(
            rx.recv_timeout(Duration::from_millis(50)),
            Err(RecvTimeoutError::Timeout)
        );
        assert!(t0.elapsed() >= Duration::from_millis(50));
    }
}
