//! The search changes that are on main but off by default (README: "Search changes waiting
//! for their SPRT"), each switched on as its SPRT's dev build has it, through a tuning
//! build's parameters: each must change the search (its wiring is live) and keep what every
//! search must do: a legal best move, and mates found with their exact scores.
#![cfg(feature = "tune")]

use ferrum::basics::position::Game;
use ferrum::search::driver;
use ferrum::search::params;
use ferrum::search::score::MATE;
use ferrum::search::time::{Clock, Limits, StopToken};
use ferrum::search::tt::TranspositionTable;
use shakmaty::Position;

/// Parameters and the values that switch a change on.
type Settings = Vec<(&'static str, i32)>;

fn changes() -> Vec<(&'static str, Settings)> {
    vec![
        // Inside singular extensions, on by default since their SPRT.
        (
            "singular negative extension",
            vec![("singular_negative_extension", 1)],
        ),
        ("correction history", vec![("correction_limit", 96)]),
        (
            "non-pawn correction history",
            vec![("correction_limit", 96), ("correction_nonpawn_weight", 50)],
        ),
        ("capture history", vec![("capture_history_divisor", 16)]),
        (
            "capture history in exchange pruning",
            vec![
                ("capture_history_divisor", 16),
                ("see_capture_history_divisor", 64),
            ],
        ),
        ("null-move margin", vec![("null_eval_max_reduction", 3)]),
        (
            "fewer late moves when not improving",
            vec![("lmp_not_improving_percent", 50)],
        ),
        ("continuation history", vec![("continuation_history", 1)]),
        (
            "history pruning",
            vec![
                ("history_prune_max_depth", 3),
                ("history_prune_margin", 2048),
            ],
        ),
        ("cut-node LMR", vec![("lmr_cut_node", 1)]),
        ("ProbCut", vec![("probcut_margin", 100)]),
        ("no null move at PV nodes", vec![("null_skip_pv", 1)]),
        ("quiescence uses the table", vec![("qsearch_tt", 1)]),
        (
            "fail-low nodes keep the stored move",
            vec![("tt_upper_keeps_move", 1)],
        ),
    ]
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
fn each_switched_off_change_changes_the_search_and_keeps_it_sound() {
    let off = bench_nodes();
    let mut seen: Vec<(&str, Settings, u64)> = Vec::new();
    for (name, settings) in changes() {
        for &(p, v) in &settings {
            params::set(p, v).unwrap();
        }
        let on = bench_nodes();
        assert_ne!(on, off, "{name}: the same {off} nodes as without it");
        seen.push((name, settings.clone(), on));
        mates_are_found_with_their_scores(name);
        for &(p, _) in &settings {
            params::set(p, default_of(p)).unwrap();
        }
        assert_eq!(bench_nodes(), off, "{name}: its parameters did not go back");
    }
    // A change built on another (its settings include all of the other's, and more) must
    // change the search that the other already changed, too.
    for (name, settings, nodes) in &seen {
        for (base, base_settings, base_nodes) in &seen {
            if base_settings.len() < settings.len()
                && base_settings.iter().all(|s| settings.contains(s))
            {
                assert_ne!(nodes, base_nodes, "{name}: the same nodes as {base} alone");
            }
        }
    }
    // The changes on by default since their SPRTs are still wired to their parameters:
    // set to the values that switch it off, each changes the search.
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
        assert_ne!(without, off, "{name} off: the same nodes as with it on");
    }
    assert_eq!(bench_nodes(), off, "the parameters did not go back");
}

/// Node-share time management (`node_share_base = 150`) changes no fixed-depth search, so it
/// is checked here by what it does to the soft limit: a best move that took all the root's
/// nodes gets two thirds of it, one that took half 135%, one that took none about twice, and
/// a share past 100 (impossible) counts as 100. Off again, 100% whatever the share.
#[test]
fn node_share_scales_the_soft_limit_when_switched_on() {
    use ferrum::search::time::node_share_percent;
    params::set("node_share_base", 150).unwrap();
    let percents = [100, 50, 0, 1000].map(node_share_percent);
    params::set("node_share_base", 0).unwrap();
    assert_eq!(percents, [67, 135, 202, 67]);
    assert!((0..=100).all(|s| node_share_percent(s) == 100));
}
