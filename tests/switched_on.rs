//! The search changes that passed their SPRTs, each switched off through a tuning build's
//! parameters: each must change the search (its wiring is live), and with all of them on
//! the search keeps what it must do: a legal best move, and mates found with their exact
//! scores.
#![cfg(feature = "tune")]

use ferrum::basics::position::Game;
use ferrum::search::driver;
use ferrum::search::params;
use ferrum::search::score::MATE;
use ferrum::search::time::{Clock, Limits, StopToken};
use ferrum::search::tt::TranspositionTable;
use shakmaty::Position;

fn search(game: &Game, depth: u32) -> driver::SearchResult {
    let tt = TranspositionTable::new(16).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    driver::search(game, &limits, &tt, &clock, &mut |_| {})
}

/// Nodes of depth-9 searches of the first bench positions, each best move checked legal.
fn bench_nodes() -> u64 {
    let mut nodes = 0;
    for fen in &ferrum::measure::bench::POSITIONS[..6] {
        let game = Game::from_fen(fen, false).unwrap();
        let r = search(&game, 9);
        let best = r.best.expect("a best move");
        assert!(game.pos.is_legal(best), "{fen}: {best:?}");
        nodes += r.last.nodes;
    }
    nodes
}

/// The default of the search parameter `name`.
fn default_of(name: &str) -> i32 {
    params::TABLE
        .iter()
        .find(|q| q.name == name)
        .unwrap()
        .default
}

fn mates_are_found_with_their_scores(name: &str) {
    for (fen, depth, score) in [
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 9, MATE - 1),
        ("k7/8/2K5/8/8/8/8/7R w - - 0 1", 9, MATE - 3),
        ("k5r1/8/8/8/5p2/8/8/5q1K w - - 0 1", 8, -MATE + 2),
    ] {
        let game = Game::from_fen(fen, false).unwrap();
        assert_eq!(search(&game, depth).last.score, score, "{name}: {fen}");
    }
}

#[test]
fn each_change_that_is_on_is_wired_to_its_parameters_and_keeps_mates_exact() {
    let on = bench_nodes();
    // Set to the values that switch it off, each changes the search; the mates are found
    // with their exact scores with each of them on.
    for (name, settings) in [
        ("singular extensions", vec![("singular_min_depth", 64)]),
        ("exchange pruning", vec![("see_prune_max_depth", 0)]),
        (
            "history bonus",
            vec![
                ("history_bonus_quadratic", 1),
                ("history_bonus_linear", 0),
                ("history_bonus_cap", 16384),
            ],
        ),
        ("history LMR", vec![("lmr_history_divisor", 0)]),
    ] {
        for &(p, off_value) in &settings {
            assert_ne!(default_of(p), off_value, "{name}: {p} is off by default");
            params::set(p, off_value).unwrap();
        }
        let without = bench_nodes();
        for &(p, _) in &settings {
            params::set(p, default_of(p)).unwrap();
        }
        assert_ne!(without, on, "{name} off: the same nodes as with it on");
    }
    mates_are_found_with_their_scores("every change on");
    assert_eq!(bench_nodes(), on, "the parameters did not go back");
}
