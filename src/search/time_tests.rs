//! Tests of `time.rs`: the allotment at low clocks, the clock's start, pondering, signals.
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

#[test]
fn a_measured_lag_replaces_the_overhead_for_the_moves_ahead() {
    // 1 s of sudden death: 50 moves of 30 ms are more than the clock, 50 of 5 ms are not.
    assert_eq!(allot(1000, 0, None, 30), (0, 0));
    assert_eq!(allot_with_lag(1000, 0, None, 30, 5), (29, 116));
    // A lag beyond the overhead keeps more back: 50 moves of 150 ms are more than 6 s.
    assert!(allot(6000, 0, None, 30).0 > 0);
    assert_eq!(allot_with_lag(6000, 0, None, 30, 150), (0, 0));
    // This move keeps the overhead however small the lag: no move takes the clock less it.
    assert_eq!(allot_with_lag(1000, 0, Some(1), 200, 0), (720, 720));
}
