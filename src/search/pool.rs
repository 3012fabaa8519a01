//! The persistent pool of search threads: made when `Threads` is set, each thread owning its
//! `ThreadData` across searches and parked on a channel between them.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};

use super::thread::ThreadData;

/// Stack for search threads: recursion to the maximum ply copies a position per ply.
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

/// Work for one pool thread, run with that thread's own state.
pub type Work = Box<dyn FnOnce(&mut ThreadData) + Send>;

/// The helpers' job queues, which the main thread's work uses to start them.
pub type Helpers = Arc<Vec<Sender<Work>>>;

struct Worker {
    jobs: Sender<Work>,
    handle: JoinHandle<()>,
}

/// Starts a thread that runs the work it is sent, one at a time, until its queue closes.
/// Work that panics leaves the thread alive with fresh state (the work itself reports).
fn spawn(name: String) -> Result<Worker, String> {
    let (jobs, queue) = crossbeam_channel::unbounded::<Work>();
    let handle = std::thread::Builder::new()
        .name(name.clone())
        .stack_size(SEARCH_STACK_BYTES)
        .spawn(move || park(&queue))
        .map_err(|e| format!("cannot start thread {name}: {e}"))?;
    Ok(Worker { jobs, handle })
}

fn park(queue: &Receiver<Work>) {
    let mut td = ThreadData::default();
    while let Ok(work) = queue.recv() {
        if catch_unwind(AssertUnwindSafe(|| work(&mut td))).is_err() {
            log::error!("a search thread's work panicked; its state is reset");
            td = ThreadData::default();
        }
    }
}

pub struct Pool {
    main: Sender<Work>,
    helpers: Helpers,
    /// Every thread's handle, the main one first.
    handles: Vec<JoinHandle<()>>,
}

impl Pool {
    /// A main thread and `threads - 1` helpers; a helper that cannot be started is left out
    /// (with a warning), the main thread must start.
    pub fn new(threads: usize) -> Result<Pool, String> {
        let main = spawn("search".to_string())?;
        let mut pool = Pool {
            main: main.jobs,
            helpers: Arc::new(Vec::new()),
            handles: vec![main.handle],
        };
        pool.set_threads(threads);
        Ok(pool)
    }

    /// Replaces the helpers by `threads - 1` new ones (the pool must be idle). The main
    /// thread stays, and with it what it learnt of the game.
    pub fn set_threads(&mut self, threads: usize) {
        self.helpers = Arc::new(Vec::new());
        for h in self.handles.drain(1..) {
            if h.join().is_err() {
                log::error!("a helper thread ended abnormally");
            }
        }
        let mut senders = Vec::new();
        for id in 1..threads.max(1) {
            match spawn(format!("helper {id}")) {
                Ok(w) => {
                    senders.push(w.jobs);
                    self.handles.push(w.handle);
                }
                Err(e) => log::warn!("{e}"),
            }
        }
        self.helpers = Arc::new(senders);
    }

    /// Threads in the pool, the main one included.
    pub fn size(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Runs `work` on the main thread, which may start helpers through the given queues;
    /// the returned channel closes when the work is done (or has panicked).
    pub fn run(&self, work: impl FnOnce(&mut ThreadData, &Helpers) + Send + 'static) -> Done {
        let (tx, rx) = crossbeam_channel::bounded::<()>(1);
        let helpers = Arc::clone(&self.helpers);
        let boxed: Work = Box::new(move |td| {
            work(td, &helpers);
            drop(tx);
        });
        if self.main.send(boxed).is_err() {
            log::error!("the main search thread is gone");
        }
        Done(rx)
    }

    /// Every thread forgets what it learnt (`ucinewgame`); returns once all have.
    pub fn clear(&self) {
        let mut done = Vec::new();
        for queue in std::iter::once(&self.main).chain(self.helpers.iter()) {
            let (tx, rx) = crossbeam_channel::bounded::<()>(1);
            let reset: Work = Box::new(move |td| {
                *td = ThreadData::default();
                drop(tx);
            });
            if queue.send(reset).is_ok() {
                done.push(Done(rx));
            }
        }
        for d in done {
            d.wait();
        }
    }
}

impl Drop for Pool {
    /// Closes every queue and joins the threads (a search must have ended first).
    fn drop(&mut self) {
        self.helpers = Arc::new(Vec::new());
        let (closed, _) = crossbeam_channel::bounded(0);
        drop(std::mem::replace(&mut self.main, closed));
        for h in self.handles.drain(..) {
            if h.join().is_err() {
                log::error!("a search thread ended abnormally");
            }
        }
    }
}

/// Closes when a piece of pool work has ended.
pub struct Done(Receiver<()>);

impl Done {
    /// Blocks until the work has ended, however it ended.
    pub fn wait(&self) {
        let _ = self.0.recv();
    }
}

/// Runs `work` on each of the first `n` helpers; each sends its result, or its panic's
/// message, on the returned channel.
pub fn start_helpers<T: Send + 'static>(
    helpers: &Helpers,
    n: usize,
    work: impl Fn(usize, &mut ThreadData) -> T + Send + Sync + 'static,
) -> Receiver<Result<T, String>> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let work = Arc::new(work);
    for (i, queue) in helpers.iter().take(n).enumerate() {
        let (tx, work) = (tx.clone(), Arc::clone(&work));
        let job: Work = Box::new(move |td| {
            let r = catch_unwind(AssertUnwindSafe(|| work(i + 1, td)));
            let _ = tx.send(r.map_err(|p| panic_message(p.as_ref())));
        });
        if queue.send(job).is_err() {
            log::warn!("helper {} is gone", i + 1);
        }
    }
    rx
}

pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn work_runs_on_threads_that_keep_their_state_between_runs() {
        let mut pool = Pool::new(3).unwrap();
        assert_eq!(pool.size(), 3);
        for round in 1..=2u64 {
            let seen = Arc::new(AtomicU64::new(0));
            let s = Arc::clone(&seen);
            pool.run(move |td, helpers| {
                td.nodes += 1;
                let rx = start_helpers(helpers, 2, |id, td| {
                    td.nodes += 10;
                    td.nodes + id as u64
                });
                let mut sum = td.nodes;
                for r in rx.iter().take(2) {
                    sum += r.unwrap();
                }
                s.store(sum, Ordering::SeqCst);
            })
            .wait();
            // Main: `round`; helpers 1 and 2: 10 * round plus their id.
            assert_eq!(seen.load(Ordering::SeqCst), round + 2 * 10 * round + 3);
        }
        // New helpers start afresh; the main thread keeps its state.
        pool.set_threads(2);
        assert_eq!(pool.size(), 2);
        let seen = Arc::new(AtomicU64::new(0));
        let s = Arc::clone(&seen);
        pool.run(move |td, helpers| {
            let rx = start_helpers(helpers, 1, |_, td| td.nodes);
            s.store(
                td.nodes * 100 + rx.recv().unwrap().unwrap(),
                Ordering::SeqCst,
            );
        })
        .wait();
        assert_eq!(seen.load(Ordering::SeqCst), 200);
        pool.clear();
        let seen = Arc::new(AtomicU64::new(0));
        let s = Arc::clone(&seen);
        pool.run(move |td, _| s.store(td.nodes, Ordering::SeqCst))
            .wait();
        assert_eq!(seen.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_panic_in_a_helper_reaches_the_main_thread_and_the_pool_survives() {
        let pool = Pool::new(2).unwrap();
        let message = Arc::new(std::sync::Mutex::new(String::new()));
        let m = Arc::clone(&message);
        pool.run(move |_, helpers| {
            let rx = start_helpers(helpers, 1, |_, _| -> u64 { panic!("helper failed") });
            if let Ok(Err(e)) = rx.recv() {
                *m.lock().unwrap() = e;
            }
        })
        .wait();
        assert_eq!(*message.lock().unwrap(), "helper failed");
        // A panic in the main thread's work ends that work, not the thread.
        pool.run(|_, _| panic!("main failed")).wait();
        let ran = Arc::new(AtomicU64::new(0));
        let r = Arc::clone(&ran);
        pool.run(move |_, _| r.store(7, Ordering::SeqCst)).wait();
        assert_eq!(ran.load(Ordering::SeqCst), 7);
    }
}
