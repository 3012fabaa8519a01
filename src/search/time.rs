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
            || self.signals.closes.load(Ordering::Relaxed) != self.closes_at_go
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
    let time_left = time_left.clamp(-MAX_TIME_MS, MAX_TIME_MS);
    let overhead = overhead.clamp(0, MAX_TIME_MS);
    let inc = inc.clamp(0, MAX_TIME_MS);
    let max_mtg = i64::from(params::max_moves_to_go());
    let given = movestogo.map(|m| i64::from(m).clamp(1, max_mtg));
    let mtg = given.unwrap_or(i64::from(params::default_moves_to_go()));
    let horizon = given.unwrap_or(max_mtg);
    let reserve = overhead + (overhead - inc).max(0) * (horizon - 1);
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
        let (own, other, inc) = if white_to_move {
            (limits.wtime, limits.btime, limits.winc.or(limits.binc))
        } else {
            (limits.btime, limits.wtime, limits.binc.or(limits.winc))
        };
        // A GUI that sends only the other side's clock, or only increments, still means
        // "play on a clock": borrow what was given rather than think forever.
        let time = own.or(other).or(inc);
        let (soft, hard) = if let Some(mt) = limits.movetime {
            let t = (mt.clamp(0, MAX_TIME_MS) - overhead.clamp(0, MAX_TIME_MS)).max(1) as u64;
            (Some(t), Some(t))
        } else if let Some(t) = time {
            let (s, h) = allot(t, inc.unwrap_or(0), limits.movestogo, overhead);
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
mod tests {
    use super::*;

    #[test]
    fn allotment_divides_clock_and_adds_most_of_the_increment() {
        assert_eq!(allot(10_000, 100, None, 0), (475, 1900));
        assert_eq!(allot(60_000, 0, Some(40), 0), (1500, 6000));
    }

    #[test]
    fn last_move_before_time_control_may_use_almost_all_of_it() {
        let (soft, hard) = allot(1000, 0, Some(1), 50);
        assert_eq!((soft, hard), (855, 855));
    }

    #[test]
    fn extreme_values_do_not_overflow() {
        let (soft, hard) = allot(i64::MIN, i64::MAX, Some(u32::MAX), i64::MAX);
        assert_eq!((soft, hard), (0, 0));
        let (soft, hard) = allot(i64::MAX, i64::MAX, None, 0);
        assert!(soft <= hard && hard as i64 <= MAX_TIME_MS);
    }

    #[test]
    fn missing_own_clock_borrows_the_other_one() {
        let limits = Limits {
            btime: Some(100),
            ..Limits::default()
        };
        let clock = Clock::new(&limits, true, 0, StopToken::detached());
        assert!(clock.hard.is_some_and(|h| h <= Duration::from_millis(100)));
    }

    #[test]
    fn negative_or_zero_clock_gets_no_time() {
        assert_eq!(allot(-170, 0, None, 10), (0, 0));
        assert_eq!(allot(0, 1000, None, 10), (0, 0));
    }

    #[test]
    fn low_clock_never_exceeds_its_share() {
        for t in [1, 50, 200, 1000] {
            let (soft, hard) = allot(t, 5000, None, 10);
            assert!(soft <= hard);
            assert!(hard as i64 <= (t - 10).max(0) * 60 / 100);
        }
    }

    #[test]
    fn the_soft_limit_scales_within_the_hard_one_but_movetime_is_fixed() {
        let clocked = Limits {
            wtime: Some(10_000),
            ..Limits::default()
        };
        let clock = Clock::new(&clocked, true, 0, StopToken::detached());
        assert!(clock.iteration_allowed());
        // A soft limit scaled to nothing allows no further iteration.
        clock.set_soft_percent(0);
        assert!(!clock.iteration_allowed());
        let fixed = Limits {
            movetime: Some(10_000),
            ..Limits::default()
        };
        let clock = Clock::new(&fixed, true, 0, StopToken::detached());
        clock.set_soft_percent(0);
        assert!(clock.iteration_allowed());
    }

    #[test]
    fn the_end_of_input_stops_a_search_but_is_no_stop_command() {
        let signals = Arc::new(Signals::default());
        let token = StopToken::new(signals.clone());
        signals.input_closed();
        assert!(token.stop_requested());
        assert!(!token.stop_command_received());
        signals.stop();
        assert!(token.stop_command_received());
    }

    #[test]
    fn a_stop_before_go_does_not_stop_the_search() {
        let signals = Arc::new(Signals::default());
        signals.stop();
        let token = StopToken::new(signals.clone());
        assert!(!token.stop_requested());
        signals.stop();
        assert!(token.stop_requested());
    }

    /// `ms` milliseconds after the clock's `go`.
    fn at(clock: &Clock, ms: u64) -> Instant {
        clock.go_start + Duration::from_millis(ms)
    }

    #[test]
    fn pondering_ignores_time_and_ponderhit_restarts_the_clock() {
        let signals = Arc::new(Signals::default());
        let limits = Limits {
            movetime: Some(100),
            ponder: true,
            ..Limits::default()
        };
        let clock = Clock::new(&limits, true, 0, StopToken::new(signals.clone()));
        // Ten seconds of pondering, far past the movetime: nothing counts yet.
        assert!(!clock.must_stop_at(0, at(&clock, 10_000)));
        assert!(clock.iteration_allowed_at(at(&clock, 10_000)));
        assert!(clock.must_wait_for_bestmove());
        signals.ponderhit();
        let hit = clock.token.ponderhit_at().unwrap();
        // The search sees the ponderhit later; the 100 ms count from when it was read.
        let after_hit = |ms| hit + Duration::from_millis(ms);
        assert!(!clock.must_stop_at(0, after_hit(50)));
        assert!(clock.iteration_allowed_at(after_hit(99)));
        assert!(!clock.must_stop_at(0, after_hit(99)));
        assert!(clock.must_stop_at(0, after_hit(100)));
        assert!(!clock.iteration_allowed_at(after_hit(100)));
        assert!(!clock.must_wait_for_bestmove());
    }

    #[test]
    fn the_clock_counts_from_when_go_was_read() {
        let token = StopToken::detached();
        let read = token.read_at();
        std::thread::sleep(Duration::from_millis(5));
        let limits = Limits {
            movetime: Some(100),
            ..Limits::default()
        };
        let clock = Clock::new(&limits, true, 0, token);
        assert_eq!(clock.go_start, read);
        assert!(clock.elapsed() >= Duration::from_millis(5));
    }

    #[test]
    fn sudden_death_keeps_the_overhead_back_for_every_expected_move() {
        // 50 moves of 100 ms: below 5 s the move is made at once.
        assert_eq!(allot(5000, 0, None, 100), (0, 0));
        assert_eq!(allot(4000, 0, None, 100), (0, 0));
        // 2.5 s above the reserve: a 25th of it, and at most four times that.
        assert_eq!(allot(7500, 0, None, 100), (100, 400));
        // Without overhead nothing is kept back.
        assert_eq!(allot(7500, 0, None, 0), (300, 1200));
    }

    #[test]
    fn an_increment_that_pays_the_overhead_leaves_only_this_moves_in_reserve() {
        // 100 ms a move is paid by the increment: 100 ms kept back, 900 ms shared.
        assert_eq!(allot(1000, 100, None, 100), (111, 444));
        // 40 ms a move is not: 100 + 60 x 49 ms kept back, 1 s shared, plus 30 of the 40.
        assert_eq!(allot(4040, 40, None, 100), (70, 280));
    }

    #[test]
    fn movestogo_keeps_back_only_the_moves_before_the_clock_is_refilled() {
        // 5 moves of 100 ms kept back; 1.5 s shared by 5, at most 60% of it.
        assert_eq!(allot(2000, 0, Some(5), 100), (300, 900));
        // The last move before the control: 90% of what is left after its own lag.
        assert_eq!(allot(1100, 0, Some(1), 100), (900, 900));
    }

    #[test]
    fn no_move_may_take_more_than_the_clock_less_its_overhead() {
        for t in [
            0, 1, 10, 99, 100, 101, 150, 500, 1000, 5000, 30_000, 600_000,
        ] {
            for inc in [0, 10, 100, 2000] {
                for mtg in [None, Some(1), Some(2), Some(10), Some(40)] {
                    for overhead in [0, 10, 30, 100, 1000] {
                        let (soft, hard) = allot(t, inc, mtg, overhead);
                        assert!(soft <= hard, "{t} {inc} {mtg:?} {overhead}");
                        assert!(
                            hard as i64 <= (t - overhead).max(0),
                            "{t} {inc} {mtg:?} {overhead}: hard {hard}"
                        );
                    }
                }
            }
        }
    }

    /// Plays `moves` moves on a clock, each taking its whole hard limit (the worst case)
    /// plus `lag` the engine cannot see; the clock is refilled by `control` every `period`
    /// moves when there is a period. Returns the lowest the clock fell, or None on a loss.
    fn worst_case_clock(
        start: i64,
        inc: i64,
        period: Option<u32>,
        control: i64,
        overhead: i64,
        lag: i64,
        moves: u32,
    ) -> Option<i64> {
        let mut clock = start;
        let mut lowest = start;
        for n in 0..moves {
            let mtg = period.map(|p| p - n % p);
            let (_, hard) = allot(clock, inc, mtg, overhead);
            clock -= hard as i64 + lag;
            if clock < 0 {
                return None;
            }
            lowest = lowest.min(clock);
            clock += inc;
            if mtg == Some(1) {
                clock += control;
            }
        }
        Some(lowest)
    }

    #[test]
    fn a_lag_within_the_overhead_never_flags_the_clock() {
        for (start, inc, period, control) in [
            (1_000, 0, None, 0),
            (10_000, 0, None, 0),
            (30_000, 0, None, 0),
            (180_000, 0, None, 0),
            (10_000, 100, None, 0),
            (3_000, 20, None, 0),
            (10_000, 0, Some(40), 10_000),
            (2_000, 0, Some(20), 2_000),
            (60_000, 0, Some(1), 1_000),
        ] {
            for (overhead, lag) in [(30, 30), (100, 80), (100, 100), (300, 250)] {
                // What the lag alone costs must fit in the clock: in a period of moves, or
                // for 49 moves of sudden death beyond what increments pay (a clock below its
                // reserve moves at once, so it lasts as long as the lag lets it).
                let moves = match period {
                    Some(p) if i64::from(p) * lag >= start.min(control) => continue,
                    Some(_) => 400,
                    None if inc >= lag => 400,
                    None => ((start - inc) / (lag - inc)).min(49) as u32,
                };
                let fell_to = worst_case_clock(start, inc, period, control, overhead, lag, moves);
                assert!(
                    fell_to.is_some(),
                    "{start}+{inc} {period:?} overhead {overhead} lag {lag}: lost on time \
                     within {moves} moves"
                );
            }
        }
    }

    #[test]
    fn the_search_scales_the_soft_limit_up_to_the_hard_one() {
        let limits = Limits {
            wtime: Some(10_000),
            ..Limits::default()
        };
        let clock = Clock::new(&limits, true, 0, StopToken::detached());
        // allot(10 s) is a soft limit of 400 ms and a hard one of 1600 ms.
        assert!(clock.iteration_allowed_at(at(&clock, 399)));
        assert!(!clock.iteration_allowed_at(at(&clock, 400)));
        clock.set_soft_percent(80);
        assert_eq!(clock.soft_percent(), 80);
        assert!(clock.iteration_allowed_at(at(&clock, 319)));
        assert!(!clock.iteration_allowed_at(at(&clock, 320)));
        clock.set_soft_percent(196);
        assert!(clock.iteration_allowed_at(at(&clock, 783)));
        assert!(!clock.iteration_allowed_at(at(&clock, 784)));
        // However unsettled the search, the hard limit bounds the soft one ...
        clock.set_soft_percent(1000);
        assert!(clock.iteration_allowed_at(at(&clock, 1599)));
        assert!(!clock.iteration_allowed_at(at(&clock, 1600)));
        // ... and stops the search inside an iteration.
        assert!(!clock.must_stop_at(0, at(&clock, 1599)));
        assert!(clock.must_stop_at(0, at(&clock, 1600)));
    }

    #[test]
    fn soft_time_grows_while_the_best_move_changes_and_when_the_score_falls() {
        // ((iterations the best move has stood, score drop in cp), percent of the soft limit)
        let cases = [
            ((0, 0), 140),
            ((1, 0), 120),
            ((2, 0), 105),
            ((3, 0), 95),
            ((4, 0), 80),
            ((30, 0), 80),
            ((4, 25), 80),
            ((4, 26), 96),
            ((4, 60), 96),
            ((4, 61), 112),
            ((0, 61), 196),
            // A rising score is no reason to think longer.
            ((0, -300), 140),
            ((4, -300), 80),
        ];
        for ((stable, drop), percent) in cases {
            assert_eq!(
                soft_time_percent(stable, drop),
                percent,
                "stable {stable}, drop {drop}"
            );
        }
    }
}
