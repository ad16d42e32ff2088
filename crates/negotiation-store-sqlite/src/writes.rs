//! This process's writes, one at a time: the first runs where it was
//! asked, the ones that arrive meanwhile queue for a writer thread.
//!
//! SQLite takes one writer at a time. Writers that wait on a lock each
//! hold a thread (and, under `block_in_place`, hand their executor's core to
//! a new one on every write), which under load costs more than the writes.
//! Here a write that finds no other running goes straight through on the
//! caller's thread, which is as fast as it gets for a lone writer; a write
//! that finds one running is queued and its caller waits as a future, and
//! the writer thread runs the queue back to back until it is empty. Other
//! processes still serialize through SQLite itself.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use index_negotiation_store::StoreError;

/// A write: it runs its work and hands the result to its waiter.
pub(crate) type Write = Box<dyn FnOnce() + Send>;

/// Where a submitted write goes.
pub(crate) enum Submitted {
    /// Nothing else is writing: run it here, then call [`Writes::finished`].
    RunHere(Write),
    /// Queued behind a running write; the writer thread will run it.
    Queued,
}

/// The queue and the writer thread that drains it.
pub(crate) struct Writes {
    state: Mutex<State>,
    /// Wakes the writer thread when the queue is handed to it or the store
    /// closes.
    wake: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Write>,
    /// A write is running, here or on the writer thread. Whenever the queue
    /// holds writes, this is set.
    busy: bool,
    /// The queue is the writer thread's to run.
    handed: bool,
    /// The writer thread has run the queue dry and waits a moment for
    /// more before it hands writing back: a write queued now wakes it.
    lingering: bool,
    /// The store is gone: the thread ends once the queue is empty.
    closed: bool,
}

/// How long the writer thread waits for another write once the queue is
/// empty. Under a steady load of writers the next one is queued within it,
/// so the thread keeps writing instead of handing writing back to the next
/// caller (and that caller's thread having to start).
const LINGER: std::time::Duration = std::time::Duration::from_micros(200);

impl std::fmt::Debug for Writes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writes").finish_non_exhaustive()
    }
}

impl Writes {
    /// Starts the writer thread.
    pub(crate) fn start() -> Result<Arc<Self>, StoreError> {
        let writes = Arc::new(Writes {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let thread = Arc::clone(&writes);
        std::thread::Builder::new()
            .name("index-sqlite-writer".to_owned())
            .spawn(move || thread.run_handed())
            .map_err(StoreError::backend)?;
        Ok(writes)
    }

    /// Runs `write` here if nothing else is writing, else queues it.
    pub(crate) fn submit(&self, write: Write) -> Submitted {
        let mut state = self.state();
        if state.busy {
            state.queue.push_back(write);
            if state.lingering {
                self.wake.notify_one();
            }
            Submitted::Queued
        } else {
            state.busy = true;
            Submitted::RunHere(write)
        }
    }

    /// Runs a write [`submit`](Self::submit) gave back, then hands whatever
    /// queued meanwhile to the writer thread.
    pub(crate) fn run_here(&self, write: Write) {
        run(write);
        let mut state = self.state();
        if state.queue.is_empty() {
            state.busy = false;
        } else {
            state.handed = true;
            self.wake.notify_one();
        }
    }

    /// Lets the writer thread end once it has run what is queued.
    pub(crate) fn close(&self) {
        self.state().closed = true;
        self.wake.notify_one();
    }

    /// The writer thread: waits to be handed the queue, runs it until it is
    /// empty, and waits again.
    fn run_handed(&self) {
        loop {
            let mut state = self.state();
            while !state.handed && !state.closed {
                state = self
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if !state.handed {
                return;
            }
            state.handed = false;
            loop {
                if let Some(write) = state.queue.pop_front() {
                    drop(state);
                    run(write);
                    state = self.state();
                    continue;
                }
                state.lingering = true;
                state = self
                    .wake
                    .wait_timeout(state, LINGER)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
                state.lingering = false;
                if state.queue.is_empty() {
                    state.busy = false;
                    break;
                }
            }
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is only changed in whole steps under the lock, so a
        // poisoned one is still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Runs one write. One that panics drops its result's sender, so its waiter
/// hears of it, and the writes queued behind it still run.
fn run(write: Write) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(write));
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Submits a write that records how many writes ran at once and its own
    /// place in the order they ran; runs it here when told to.
    fn write(
        writes: &Arc<Writes>,
        running: &Arc<AtomicUsize>,
        most: &Arc<AtomicUsize>,
        order: &Arc<Mutex<Vec<usize>>>,
        n: usize,
    ) -> tokio::sync::oneshot::Receiver<()> {
        let (done, finished) = tokio::sync::oneshot::channel();
        let (running, most, order) = (running.clone(), most.clone(), order.clone());
        let job: Write = Box::new(move || {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_micros(50));
            order.lock().unwrap().push(n);
            running.fetch_sub(1, Ordering::SeqCst);
            let _ = done.send(());
        });
        if let Submitted::RunHere(job) = writes.submit(job) {
            let writes = writes.clone();
            std::thread::spawn(move || writes.run_here(job));
        }
        finished
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_from_many_callers_run_one_at_a_time_and_all_finish() {
        let writes = Writes::start().unwrap();
        let (running, most) = (Arc::default(), Arc::default());
        let order = Arc::new(Mutex::new(Vec::new()));
        let waiters: Vec<_> = (0..200)
            .map(|n| write(&writes, &running, &most, &order, n))
            .collect();
        for waiter in waiters {
            waiter.await.expect("every write runs");
        }
        assert_eq!(most.load(Ordering::SeqCst), 1, "never two writes at once");
        let mut ran = order.lock().unwrap().clone();
        ran.sort_unstable();
        assert_eq!(ran, (0..200).collect::<Vec<_>>(), "each write ran once");
        // Idle again: the next write runs where it was asked.
        std::thread::sleep(LINGER * 4);
        assert!(matches!(
            writes.submit(Box::new(|| {})),
            Submitted::RunHere(_)
        ));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_that_panics_does_not_stop_the_ones_behind_it() {
        let writes = Writes::start().unwrap();
        let (gate, opened) = std::sync::mpsc::channel::<()>();
        // Hold writing here so the next writes queue for the thread.
        let Submitted::RunHere(first) = writes.submit(Box::new(move || {
            let _ = opened.recv();
        })) else {
            panic!("an idle queue runs the first write here")
        };
        let held = std::thread::spawn({
            let writes = writes.clone();
            move || writes.run_here(first)
        });
        let (panicked, lost) = tokio::sync::oneshot::channel::<()>();
        assert!(matches!(
            writes.submit(Box::new(move || {
                let _keep = panicked;
                panic!("a write that fails hard")
            })),
            Submitted::Queued
        ));
        let (done, after) = tokio::sync::oneshot::channel();
        assert!(matches!(
            writes.submit(Box::new(move || {
                let _ = done.send(());
            })),
            Submitted::Queued
        ));
        gate.send(()).unwrap();
        held.join().unwrap();
        assert!(
            lost.await.is_err(),
            "the panicking write's waiter hears of it"
        );
        tokio::time::timeout(std::time::Duration::from_secs(10), after)
            .await
            .expect("the write behind it runs, not left queued")
            .expect("the write behind it runs to its end");
    }
}
