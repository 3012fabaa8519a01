//! Time and limits: how long a `go` may think, and when the search must stop.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::params;

/// Everything a `go` can ask for. Times are in milliseconds; clocks may be negative.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u32>,
    pub movetime: Option<i64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// No iteration is started once the search has this many nodes (a soft node limit, for
    /// data generation; no UCI parameter sets it). `nodes` stays the hard one.
    pub soft_nodes: Option<u64>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
    /// Lines to report (the MultiPV option; 0 or 1 means one).
    pub multipv: usize,
}

impl Limits {
    /// One side's clock and increment as the GUI sent them (White's when `white`).
    pub fn side(&self, white: bool) -> (Option<i64>, Option<i64>) {
        if white {
            (self.wtime, self.winc)
        } else {
            (self.btime, self.binc)
        }
    }
}

/// Counters the protocol thread bumps on `stop` and `ponderhit`. A search remembers their
/// values when its `go` was read, so a `stop` sent before that `go` cannot stop it. A search
/// holding its `bestmove` sleeps on the condition variable until one of them moves.
#[derive(Default)]
pub struct Signals {
    stops: AtomicU64,
    /// Bumped when the input ends: a search stops (as on `quit`), a `perft` finishes.
    closes: AtomicU64,
    ponderhits: AtomicU64,
    /// When the last `ponderhit` was read: the clock of the search it wakes counts from there.
    ponderhit_at: Mutex<Option<Instant>>,
    lock: Mutex<()>,
    changed: Condvar,
}

impl Signals {
    pub fn stop(&self) {
        self.bump(&self.stops);
    }

    /// The end of input: stops searches, but lets a `perft` print its count.
    pub fn input_closed(&self) {
        self.bump(&self.closes);
    }

    pub fn ponderhit(&self) {
        *self
            .ponderhit_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        self.bump(&self.ponderhits);
    }

    // Under the lock, so a waiter between its check and its sleep cannot miss the change.
    fn bump(&self, counter: &AtomicU64) {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        counter.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_all();
    }
}

/// Made when a command's line is read: the counters as they were then, and the moment, from
/// which a `go`'s clock counts (the GUI's clock was running while the command waited).
#[derive(Clone)]
pub struct StopToken {
    signals: Arc<Signals>,
    stops_at_go: u64,
    closes_at_go: u64,
    ponderhits_at_go: u64,
    read_at: Instant,
    /// Whether the end of the input stops the work too (not for UCI's `bench` and `perft`:
    /// `echo bench | ferrum` must run to the end).
    stops_at_close: bool,
}

impl StopToken {
    pub fn new(signals: Arc<Signals>) -> StopToken {
        let stops_at_go = signals.stops.load(Ordering::SeqCst);
        let closes_at_go = signals.closes.load(Ordering::SeqCst);
        let ponderhits_at_go = signals.ponderhits.load(Ordering::SeqCst);
        StopToken {
            signals,
            stops_at_go,
            closes_at_go,
            ponderhits_at_go,
            read_at: Instant::now(),
            stops_at_close: true,
        }
    }

    /// This token, stopped by `stop` and `quit` only, not by the end of the input.
    pub fn commands_only(self) -> StopToken {
        StopToken {
            stops_at_close: false,
            ..self
        }
    }

    /// When the command this token came with was read.
    pub fn read_at(&self) -> Instant {
        self.read_at
    }

    /// When the last `ponderhit` was read, if any was.
    fn ponderhit_at(&self) -> Option<Instant> {
        *self
            .signals
            .ponderhit_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A token nothing can stop, for bench, EPD runs and tests.
    pub fn detached() -> StopToken {
        StopToken::new(Arc::new(Signals::default()))
    }

    /// Has a `stop` or `quit` come, or the input ended, since the command was read?
    pub fn stop_requested(&self) -> bool {
        self.stop_command_received()
            || (self.stops_at_close
                && self.signals.closes.load(Ordering::Relaxed) != self.closes_at_go)
    }

    /// Has a `stop` or `quit` come since the command was read (the end of input aside)?
    pub fn stop_command_received(&self) -> bool {
        self.signals.stops.load(Ordering::Relaxed) != self.stops_at_go
    }

    pub fn ponderhit(&self) -> bool {
        self.signals.ponderhits.load(Ordering::Relaxed) != self.ponderhits_at_go
    }

    /// Sleeps while `waiting` holds, waking each time a `stop` or `ponderhit` arrives.
    pub fn wait_while(&self, mut waiting: impl FnMut() -> bool) {
        let signals = &self.signals;
        let mut guard = signals.lock.lock().unwrap_or_else(PoisonError::into_inner);
        while waiting() {
            guard = signals
                .changed
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Times beyond this (about 35 years, in ms) are taken as this, so arithmetic cannot overflow.
pub const MAX_TIME_MS: i64 = 1 << 40;

/// Soft limit (do not start another iteration after it) and hard limit (stop at once), in ms,
/// from our clock, increment and moves to go. `overhead` is the lag our clock cannot see (the
/// GUI, the pipe, a busy machine): every move costs it, so it is kept back for each move the
/// clock must still pay for before it is refilled (the moves to go, or `max_moves_to_go` in
/// sudden death), less what each of those moves' increments pays. The rest is shared among
/// the moves to go; a clock below the reserve moves at once, and no move may take more than
/// a share of what is left after the reserve.
pub fn allot(time_left: i64, inc: i64, movestogo: Option<u32>, overhead: i64) -> (u64, u64) {
    allot_with_lag(time_left, inc, movestogo, overhead, overhead)
}

/// `allot` with the lag kept back for the moves ahead measured apart from `overhead`, the
/// margin this move keeps (see `lag.rs`): this move keeps the larger of the two.
pub fn allot_with_lag(
    time_left: i64,
    inc: i64,
    movestogo: Option<u32>,
    overhead: i64,
    lag: i64,
) -> (u64, u64) {
    let time_left = time_left.clamp(-MAX_TIME_MS, MAX_TIME_MS);
    let overhead = overhead.clamp(0, MAX_TIME_MS);
    let lag = lag.clamp(0, MAX_TIME_MS);
    let inc = inc.clamp(0, MAX_TIME_MS);
    let max_mtg = i64::from(params::max_moves_to_go());
    let given = movestogo.map(|m| i64::from(m).clamp(1, max_mtg));
    let mtg = given.unwrap_or(i64::from(params::default_moves_to_go()));
    let horizon = given.unwrap_or(max_mtg);
    let reserve = overhead.max(lag) + (lag - inc).max(0) * (horizon - 1);
    let usable = (time_left - reserve).max(0);
    let hard_cap = if mtg == 1 {
        usable * i64::from(params::last_move_share_of_clock()) / 100
    } else {
        usable * i64::from(params::hard_share_of_clock()) / 100
    };
    let soft = (usable / mtg + inc * 3 / 4).min(hard_cap);
    let hard = (soft * i64::from(params::hard_per_soft())).min(hard_cap);
    (soft as u64, hard as u64)
}

/// How much of the soft time limit to use after an iteration, in percent: more while the best
/// move keeps changing (by how many iterations it has stood) and when the score falls.
pub fn soft_time_percent(stable_iterations: u32, score_drop: i32) -> u32 {
    let stability = match stable_iterations {
        0 => params::stability_0(),
        1 => params::stability_1(),
        2 => params::stability_2(),
        3 => params::stability_3(),
        _ => params::stability_4(),
    };
    let drop = match score_drop {
        d if d > params::score_drop_large() => params::score_drop_large_percent(),
        d if d > params::score_drop_small() => params::score_drop_small_percent(),
        _ => 100,
    };
    (stability * drop / 100) as u32
}

/// The search's view of its limits while it runs (one per search thread).
pub struct Clock {
    go_start: Instant,
    /// Where the time limits count from: `go`, or `ponderhit` when pondering.
    limit_start: Cell<Instant>,
    pondering: Cell<bool>,
    infinite: bool,
    soft: Option<Duration>,
    hard: Option<Duration>,
    node_limit: Option<u64>,
    token: StopToken,
    /// Set by the main thread when a helper thread must stop.
    abort: Option<Arc<AtomicBool>>,
    /// The soft limit stretched or shrunk by the search's own judgement, in percent.
    soft_percent: Cell<u32>,
}

impl Clock {
    pub fn new(limits: &Limits, white_to_move: bool, overhead: i64, token: StopToken) -> Clock {
        Clock::with_lag(limits, white_to_move, overhead, None, token)
    }

    /// A clock that keeps back `lag` (when the game's clocks have measured it) instead of
    /// `overhead` for each move ahead; `overhead` stays this move's margin.
    pub fn with_lag(
        limits: &Limits,
        white_to_move: bool,
        overhead: i64,
        lag: Option<i64>,
        token: StopToken,
    ) -> Clock {
        let (own, own_inc) = limits.side(white_to_move);
        let (other, other_inc) = limits.side(!white_to_move);
        let inc = own_inc.or(other_inc);
        // A GUI that sends only the other side's clock, or only increments, still means
        // "play on a clock": borrow what was given rather than think forever.
        let time = own.or(other).or(inc);
        let (soft, hard) = if let Some(mt) = limits.movetime {
            let t = (mt.clamp(0, MAX_TIME_MS) - overhead.clamp(0, MAX_TIME_MS)).max(1) as u64;
            (Some(t), Some(t))
        } else if let Some(t) = time {
            let lag = lag.unwrap_or(overhead);
            let (s, h) = allot_with_lag(t, inc.unwrap_or(0), limits.movestogo, overhead, lag);
            (Some(s), Some(h))
        } else {
            (None, None)
        };
        let read_at = token.read_at();
        Clock {
            go_start: read_at,
            limit_start: Cell::new(read_at),
            pondering: Cell::new(limits.ponder),
            infinite: limits.infinite,
            soft: soft.map(Duration::from_millis),
            hard: hard.map(Duration::from_millis),
            node_limit: limits.nodes,
            token,
            abort: None,
            soft_percent: Cell::new(100),
        }
    }

    /// A helper thread's clock: no time limits of its own; it stops on `stop`, when told, or
    /// when the node count of all threads reaches the node limit.
    pub fn helper(token: StopToken, abort: Arc<AtomicBool>, node_limit: Option<u64>) -> Clock {
        let mut clock = Clock::unlimited(token);
        clock.abort = Some(abort);
        clock.node_limit = node_limit;
        clock
    }

    /// No limit but the ones given: depth, nodes, or an outside stop.
    pub fn unlimited(token: StopToken) -> Clock {
        Clock::new(&Limits::default(), true, 0, token)
    }

    pub fn elapsed(&self) -> Duration {
        self.go_start.elapsed()
    }

    pub fn token(&self) -> &StopToken {
        &self.token
    }

    /// While pondering, time does not count; a `ponderhit` (seen at `now`) starts the clock.
    fn still_pondering(&self, now: Instant) -> bool {
        if self.pondering.get() {
            if !self.token.ponderhit() {
                return true;
            }
            self.pondering.set(false);
            // From the moment the `ponderhit` was read, not when the search saw it.
            let hit = self.token.ponderhit_at().map_or(now, |t| t.min(now));
            self.limit_start.set(hit.max(self.go_start));
        }
        false
    }

    /// Time counted against the limits at `now`.
    fn used(&self, now: Instant) -> Duration {
        now.saturating_duration_since(self.limit_start.get())
    }

    pub fn node_limit(&self) -> Option<u64> {
        self.node_limit
    }

    pub fn node_limit_reached(&self, nodes: u64) -> bool {
        self.node_limit.is_some_and(|n| nodes >= n)
    }

    /// Polled every few thousand nodes: must the search stop now?
    pub fn must_stop(&self, nodes: u64) -> bool {
        self.must_stop_at(nodes, Instant::now())
    }

    fn must_stop_at(&self, nodes: u64, now: Instant) -> bool {
        if self.token.stop_requested()
            || self.node_limit_reached(nodes)
            || self
                .abort
                .as_ref()
                .is_some_and(|a| a.load(Ordering::Relaxed))
        {
            return true;
        }
        if self.still_pondering(now) || self.infinite {
            return false;
        }
        self.hard.is_some_and(|h| self.used(now) >= h)
    }

    /// Checked after each iteration: is another one worth starting?
    pub fn iteration_allowed(&self) -> bool {
        self.iteration_allowed_at(Instant::now())
    }

    fn iteration_allowed_at(&self, now: Instant) -> bool {
        if self.still_pondering(now) || self.infinite {
            return true;
        }
        self.soft.is_none_or(|s| {
            let mut s = s * self.soft_percent.get() / 100;
            if let Some(h) = self.hard {
                s = s.min(h);
            }
            self.used(now) < s
        })
    }

    /// Scales the soft limit (not the hard one): more time when the best move keeps changing
    /// or the score falls, less when the search has settled. A fixed `movetime` stays fixed.
    pub fn set_soft_percent(&self, percent: u32) {
        if self.soft != self.hard {
            self.soft_percent.set(percent);
        }
    }

    /// The scaling last set by the search (100 until then).
    pub fn soft_percent(&self) -> u32 {
        self.soft_percent.get()
    }

    /// `go infinite` and an unanswered `go ponder` hold their `bestmove` until told.
    pub fn must_wait_for_bestmove(&self) -> bool {
        (self.infinite || self.still_pondering(Instant::now())) && !self.token.stop_requested()
    }

    /// Returns when the `bestmove` may be sent (at once unless it must be held).
    pub fn wait_for_bestmove(&self) {
        self.token.wait_while(|| self.must_wait_for_bestmove());
    }
}

#[cfg(test)]
#[path = "time_tests.rs"]
mod tests;
