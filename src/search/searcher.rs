//! One thread's view of one search: the shared table and clock, its own `ThreadData`, the
//! node count (shared between threads, exact under a node limit) and the stop flag. The
//! search itself is in `negamax.rs` (interior and quiescence) and `root.rs`.

use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::Move;

use super::syzygy::Probe;
use super::thread::ThreadData;
use super::time::Clock;
use super::tt::TranspositionTable;

/// Poll the clock and stop signals once per this many nodes (a power of two).
const POLL_INTERVAL: u64 = 1024;
/// One thread's view of one search: the shared tables and clock, and its own `ThreadData`.
pub struct Searcher<'a> {
    pub tt: &'a TranspositionTable,
    pub clock: &'a Clock,
    pub td: &'a mut ThreadData,
    pub stopped: bool,
    /// Nodes of every thread of this search, when threads share the count.
    shared_nodes: Option<&'a AtomicU64>,
    /// Nodes counted here but not yet added to `shared_nodes`.
    unshared: u64,
    /// Best root move found by the iteration in progress, with its score.
    pub root_best: Option<(Move, i32)>,
    /// Off only in tests that compare against the reference search.
    pub use_tt: bool,
    /// Selectivity that can change the result (pruning, reductions, extensions); off for the
    /// oracle comparison.
    pub prune: bool,
    /// The previous iteration's best move, searched first at the root whatever the table
    /// holds, so an unfinished iteration can only replace it with a move that beat it.
    pub root_hint: Option<Move>,
    /// Syzygy tables to probe below the root, when loaded.
    pub tb: Option<Probe<'a>>,
    /// The depth of the root's current search: extensions stop twice as deep.
    pub root_depth: i32,
    /// The moves the root's current search searches (`search_root`'s candidates).
    pub(super) root_candidates: Vec<Move>,
    /// Whether they are every legal move, so that the root's result may be stored.
    pub(super) root_whole: bool,
}

impl<'a> Searcher<'a> {
    /// `keys` are the game's repetition keys, ending with the root position's.
    pub fn new(
        tt: &'a TranspositionTable,
        clock: &'a Clock,
        td: &'a mut ThreadData,
        keys: Vec<u64>,
    ) -> Searcher<'a> {
        td.start_search(keys);
        Searcher {
            tt,
            clock,
            td,
            stopped: false,
            shared_nodes: None,
            unshared: 0,
            root_best: None,
            use_tt: true,
            prune: true,
            root_hint: None,
            tb: None,
            root_depth: 0,
            root_candidates: Vec::new(),
            root_whole: false,
        }
    }

    pub fn pv(&self) -> Vec<Move> {
        self.td.pv.line(0)
    }

    /// Nodes searched by this thread.
    pub fn nodes(&self) -> u64 {
        self.td.nodes
    }

    /// Lazy SMP: every thread adds its nodes to one counter, now and then.
    pub fn share_nodes(&mut self, counter: &'a AtomicU64) {
        self.shared_nodes = Some(counter);
    }

    /// Adds the nodes not yet counted to the shared count (at the end of a search).
    pub fn flush_nodes(&mut self) {
        if let Some(c) = self.shared_nodes {
            c.fetch_add(self.unshared, Ordering::Relaxed);
            self.unshared = 0;
        }
    }

    /// Nodes of all threads of this search (this thread's alone when it runs alone).
    pub fn total_nodes(&self) -> u64 {
        match self.shared_nodes {
            Some(c) => c.load(Ordering::Relaxed) + self.unshared,
            None => self.td.nodes,
        }
    }

    /// Counts a node and, now and then, asks the clock whether to stop. Threads that share
    /// a node limit claim each node from the shared count, so that together they search
    /// exactly the limit: a node that finds none left is not searched (`stopped`).
    pub(super) fn visit(&mut self) {
        let ply = self.td.stack.ply();
        if let (Some(shared), Some(limit)) = (self.shared_nodes, self.clock.node_limit()) {
            let claim = |n: u64| (n < limit).then_some(n + 1);
            if shared
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, claim)
                .is_err()
            {
                self.stopped = true;
                return;
            }
            self.td.nodes += 1;
            self.td.seldepth = self.td.seldepth.max(ply);
            if self.td.nodes.is_multiple_of(POLL_INTERVAL) && self.clock.must_stop(0) {
                self.stopped = true;
            }
            return;
        }
        self.td.nodes += 1;
        self.unshared += 1;
        self.td.seldepth = self.td.seldepth.max(ply);
        if self.td.nodes.is_multiple_of(POLL_INTERVAL) {
            if let Some(c) = self.shared_nodes {
                c.fetch_add(self.unshared, Ordering::Relaxed);
                self.unshared = 0;
            }
            if self.clock.must_stop(self.total_nodes()) {
                self.stopped = true;
            }
        } else if self.clock.node_limit_reached(self.total_nodes())
            && self.clock.must_stop(self.total_nodes())
        {
            self.stopped = true;
        }
    }
}
