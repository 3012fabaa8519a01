//! What the search's selective parts do, checked on a tuning build (`--features tune`), which
//! counts each part's actions (`search::stats`) and lets a test switch a part off through its
//! parameter: each part acts where it should (and not where it must not), a part switched off
//! does nothing, and with every part on the search keeps what it must: a legal best move and
//! mates found with their exact scores.
#![cfg(feature = "tune")]

use ferrum::basics::position::Game;
use ferrum::search::driver;
use ferrum::search::history::history_bonus;
use ferrum::search::params;
use ferrum::search::score::MATE;
use ferrum::search::stats::{Event, Stats};
use ferrum::search::time::{Clock, Limits, StopToken};
use ferrum::search::tt::TranspositionTable;
use shakmaty::Position;
use std::sync::{Mutex, MutexGuard};

/// The parameters are global: one test at a time here, so that a part one test switches off
/// is not off in another's search.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn search(game: &Game, depth: u32) -> driver::SearchResult {
    let tt = TranspositionTable::new(16).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    driver::search(game, &limits, &tt, &clock, &mut |_| {})
}

/// The best move of a search of `fen` to `depth` with the net n5b (`nets/n5b.bin`, the
/// embedded net when the positions below were chosen; another net finds other moves at other
/// depths), in UCI notation.
fn best_with_net(fen: &str, depth: u32) -> Option<String> {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/n5b.bin");
    let net = ferrum::eval::net_file::load(file).unwrap().net;
    let game = game(fen);
    let tt = TranspositionTable::new(16).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let r = driver::search_with_net(&game, &limits, &tt, &clock, Some(&net), &mut |_| {});
    r.best.map(|m| game.uci(m))
}

fn game(fen: &str) -> Game {
    Game::from_fen(fen, false).unwrap()
}

/// Depth-9 searches of the first bench positions, each best move checked legal: their
/// nodes and what the selective parts did, summed.
fn bench_searches() -> (u64, Vec<Stats>) {
    let mut nodes = 0;
    let mut stats = Vec::new();
    for fen in &ferrum::measure::bench::POSITIONS[..6] {
        let game = game(fen);
        let r = search(&game, 9);
        let best = r.best.expect("a best move");
        assert!(game.pos.is_legal(best), "{fen}: {best:?}");
        nodes += r.last.nodes;
        stats.push(r.stats);
    }
    (nodes, stats)
}

fn total(stats: &[Stats], event: Event) -> u64 {
    stats.iter().map(|s| s.count(event)).sum()
}

/// The default of the search parameter `name`.
fn default_of(name: &str) -> i32 {
    params::TABLE
        .iter()
        .find(|q| q.name == name)
        .unwrap()
        .default
}

/// Sets each parameter it holds back to the value beside it (its default) when dropped, also
/// when the test holding it fails: the next test (the lock is taken over from a failed one)
/// then searches with the defaults, not with what the failed test had switched off.
struct Restore<'a>(Vec<(&'a str, i32)>);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        for &(p, default) in &self.0 {
            let _ = params::set(p, default);
        }
    }
}

/// Runs `f` with the parameters set to the values given, then sets them back.
fn with_params<T>(settings: &[(&str, i32)], f: impl FnOnce() -> T) -> T {
    let _restore = Restore(settings.iter().map(|&(p, _)| (p, default_of(p))).collect());
    for &(p, v) in settings {
        params::set(p, v).unwrap();
    }
    f()
}

fn mates_are_found_with_their_scores() {
    for (fen, depth, score) in [
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 9, MATE - 1),
        ("k7/8/2K5/8/8/8/8/7R w - - 0 1", 9, MATE - 3),
        ("k5r1/8/8/8/5p2/8/8/5q1K w - - 0 1", 8, -MATE + 2),
    ] {
        assert_eq!(search(&game(fen), depth).last.score, score, "{fen}");
    }
}

/// The parts that passed their SPRTs, each with the parameters that switch it off and the
/// events only it causes: on, each event happens in the bench positions; off, none does and
/// the search is another (fewer or more nodes). The parts kept on stay sound meanwhile.
#[test]
fn each_part_that_passed_its_sprt_acts_when_on_and_not_when_off() {
    let _one = one_at_a_time();
    assert!(Stats::counting());
    let (nodes, stats) = bench_searches();
    for (name, settings, events) in [
        (
            "singular extensions and multi-cut",
            vec![("singular_min_depth", 64)],
            vec![Event::SingularExtension, Event::MultiCut],
        ),
        (
            "exchange pruning",
            vec![("see_prune_max_depth", 0)],
            vec![Event::ExchangePruned],
        ),
        (
            "history LMR",
            vec![("lmr_history_divisor", 0)],
            vec![Event::ReducedLessByHistory],
        ),
    ] {
        for &event in &events {
            assert!(total(&stats, event) > 0, "{name}: no {event:?} when on");
        }
        for &(p, off) in &settings {
            assert_ne!(default_of(p), off, "{name}: {p} is off by default");
        }
        let (off_nodes, off_stats) = with_params(&settings, bench_searches);
        for &event in &events {
            assert_eq!(total(&off_stats, event), 0, "{name}: {event:?} when off");
        }
        assert_ne!(off_nodes, nodes, "{name} off: the same nodes as with it on");
        // Late moves are still reduced without history; only the adjustment is gone.
        assert!(total(&off_stats, Event::Reduced) > 0, "{name}");
        assert_eq!(total(&off_stats, Event::ReducedMoreByHistory), 0, "{name}");
    }
    mates_are_found_with_their_scores();
    assert_eq!(bench_searches().0, nodes, "the parameters did not go back");
}

/// WAC.018: Rh8 wins the rook (Rxa7 Rh7+). With singular extensions (n5b evaluating) the
/// search finds it at depth 9; without them, not before depth 12 (depth 10 until correction
/// history landed). (WAC.049 showed two plies until a fail-low node kept the table's move;
/// now both searches find Qxh7+ at depth 12.)
#[test]
fn singular_extensions_find_a_forced_win_three_plies_sooner() {
    let _one = one_at_a_time();
    let wac18 = "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1";
    assert_eq!(best_with_net(wac18, 9).as_deref(), Some("a8h8"));
    with_params(&[("singular_min_depth", 64)], || {
        assert_ne!(best_with_net(wac18, 11).as_deref(), Some("a8h8"));
        assert_eq!(best_with_net(wac18, 12).as_deref(), Some("a8h8"));
    });
}

/// WAC.133: Bh4 wins. Exchange pruning skips the moves that lose material by exchange near
/// the leaves, and the search finds the win at depth 6; without it, not before depth 7.
/// (WAC.130 showed this until a fail-low node kept the table's move, WAC.248 until
/// correction history landed; the search without exchange pruning no longer finds Qc5+
/// there by depth 11.)
#[test]
fn exchange_pruning_finds_a_win_a_ply_sooner() {
    let _one = one_at_a_time();
    let wac133 = "r1b1k2r/1pp1q2p/p1n3p1/3QPp2/8/1BP3B1/P5PP/3R1RK1 w kq - 0 1";
    assert_eq!(best_with_net(wac133, 6).as_deref(), Some("g3h4"));
    with_params(&[("see_prune_max_depth", 0)], || {
        assert_ne!(best_with_net(wac133, 6).as_deref(), Some("g3h4"));
        assert_eq!(best_with_net(wac133, 7).as_deref(), Some("g3h4"));
    });
}

/// WAC.210: Rh1 wins. With history LMR (quiet moves that cut before are reduced less) the
/// search finds it at depth 10; without, not before depth 11. (WAC.270 showed it until
/// quiescence probed the table, WAC.283 until correction history landed; now both searches
/// find Ng5 there at depth 13.)
#[test]
fn history_lmr_finds_a_win_a_ply_sooner() {
    let _one = one_at_a_time();
    let wac210 = "3r1rk1/pp1q1ppp/3pn3/2pN4/5PP1/P5PQ/1PP1B3/1K1R4 w - - 0 1";
    assert_eq!(best_with_net(wac210, 10).as_deref(), Some("d1h1"));
    with_params(&[("lmr_history_divisor", 0)], || {
        assert_ne!(best_with_net(wac210, 10).as_deref(), Some("d1h1"));
        assert_eq!(best_with_net(wac210, 11).as_deref(), Some("d1h1"));
    });
}

/// The history bonus (on since its SPRT): `16 d² + 128 (d - 1)`, at most 1536, instead of
/// the old `d²`; it decides the order of quiet moves, so the search changes with it.
#[test]
fn the_history_bonus_grows_by_its_formula_and_changes_the_search() {
    let _one = one_at_a_time();
    let bonuses = [1, 2, 4, 8, 12].map(history_bonus);
    assert_eq!(bonuses, [16, 192, 640, 1536, 1536]);
    let old = [
        ("history_bonus_quadratic", 1),
        ("history_bonus_linear", 0),
        ("history_bonus_cap", 16384),
    ];
    let (old_bonuses, old_nodes) = with_params(&old, || {
        ([1, 2, 4, 8, 12].map(history_bonus), bench_searches().0)
    });
    assert_eq!(old_bonuses, [1, 4, 16, 64, 144]);
    assert_ne!(old_nodes, bench_searches().0);
}

/// Null-move pruning passes only with pieces other than pawns: with king and pawns alone a
/// pass may be the best move (zugzwang), so it never cuts there, while it cuts often in a
/// middlegame.
#[test]
fn null_move_cuts_in_a_middlegame_but_never_with_only_king_and_pawns() {
    let _one = one_at_a_time();
    let middlegame = search(
        &game("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"),
        9,
    );
    assert!(middlegame.stats.count(Event::NullMoveCut) > 0);
    // Both sides have only king and pawns, all blocked: no pawn can queen within the
    // search's reach, so no node has another piece.
    let pawns = search(&game("8/8/3k4/p1p1p3/P1P1P3/3K4/8/8 w - - 0 1"), 10);
    assert_eq!(pawns.stats.count(Event::NullMoveCut), 0);
    assert!(pawns.stats.count(Event::ReverseFutilityCut) > 0);
}

/// A node in check is searched a ply deeper: in a position full of checks the extension
/// happens, and a mate in three is found at the depth of the three moves.
#[test]
fn checks_are_extended_and_a_checking_mate_is_found_in_time() {
    let _one = one_at_a_time();
    let r = search(&game("k7/8/2K5/8/8/8/8/7R w - - 0 1"), 5);
    assert!(r.stats.count(Event::CheckExtension) > 0);
    assert_eq!(r.last.score, MATE - 3);
}

/// Late move and futility pruning act only near the leaves of non-PV nodes, which the
/// bench positions have plenty of; the table cuts transpositions; a node without a table
/// move is searched a ply shallower.
#[test]
fn pruning_near_the_leaves_and_table_cuts_happen_in_the_bench_positions() {
    let _one = one_at_a_time();
    let (_, stats) = bench_searches();
    for event in [
        Event::LateMovePruned,
        Event::FutilityPruned,
        Event::ReverseFutilityCut,
        Event::NullMoveCut,
        Event::TableCut,
        Event::InternalReduction,
        Event::Reduced,
    ] {
        assert!(total(&stats, event) > 0, "no {event:?}");
    }
}

/// Each selective part is counted at the depths it acts at and at no other: in the bench
/// positions each acts at some depth within its bound (the `*_max_depth` or `*_min_depth`
/// parameter) and at none beyond it; nodes are counted from depth 1 up.
#[test]
fn each_part_is_counted_only_at_the_depths_its_parameter_allows() {
    let _one = one_at_a_time();
    let (_, stats) = bench_searches();
    let mut all = Stats::default();
    for s in &stats {
        all.merge(s);
    }
    let by_depth = |event: Event| -> Vec<u64> {
        (0..ferrum::search::stats::DEPTHS)
            .map(|d| all.count_at(event, d))
            .collect()
    };
    // (event, parameter, whether the parameter is the deepest depth it acts at or the
    // shallowest)
    for (event, param, at_most) in [
        (Event::LateMovePruned, "lmp_max_depth", true),
        (Event::FutilityPruned, "futility_max_depth", true),
        (Event::ReverseFutilityCut, "rfp_max_depth", true),
        (Event::ExchangePruned, "see_prune_max_depth", true),
        (Event::NullMoveCut, "null_min_depth", false),
        (Event::InternalReduction, "iir_min_depth", false),
    ] {
        let bound = default_of(param) as usize;
        let counts = by_depth(event);
        let (within, beyond): (Vec<_>, Vec<_>) = counts
            .iter()
            .enumerate()
            .partition(|&(d, _)| if at_most { d <= bound } else { d >= bound });
        assert!(
            within.iter().any(|&(_, &c)| c > 0),
            "{event:?} never within {param} = {bound}: {counts:?}"
        );
        assert!(
            beyond.iter().all(|&(_, &c)| c == 0),
            "{event:?} beyond {param} = {bound}: {counts:?}"
        );
    }
    // A node left with no depth is quiescence's, which is not counted.
    assert_eq!(all.count_at(Event::Node, 0), 0);
    assert!(all.count_at(Event::Node, 1) > 0);
}
