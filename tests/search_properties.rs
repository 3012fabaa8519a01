//! Properties of the search through its public seam (a position, limits and how selective
//! to be in; the result and each iteration's line out): agreement with the plain-negamax
//! oracle, draw rules, mate scores, threads and the time and node limits. (The root's
//! bounds for windows off the truth are unit tests: `search/oracle_tests.rs`.)

use std::sync::Arc;

use ferrum::basics::position::Game;
use ferrum::basics::rng::Lcg;
use ferrum::search::driver::{self, Iteration, Job, SearchResult, Selectivity};
use ferrum::search::pool::Pool;
use ferrum::search::reference;
use ferrum::search::score::MATE;
use ferrum::search::time::{Clock, Limits, StopToken};
use ferrum::search::tt::TranspositionTable;
use shakmaty::Position;

/// Positions reached by random legal moves from varied starts: openings, middlegames with
/// captures available, endgames.
fn sample_positions(count: usize) -> Vec<Game> {
    let starts = ferrum::measure::bench::POSITIONS;
    let mut rng = Lcg(0x00C0_FFEE);
    let mut out = Vec::new();
    while out.len() < count {
        let fen = starts[out.len() % starts.len()];
        let mut game = Game::from_fen(fen, false).unwrap();
        let plies = rng.next_u31() % 4;
        for _ in 0..plies {
            let moves = game.pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[(rng.next_u31() as usize) % moves.len()];
            game.play(m);
        }
        out.push(game);
    }
    out
}

/// The oracle's value of `game` at `depth`, within a node budget (None past it: positions
/// whose unpruned quiescence explodes are left out).
fn oracle(game: &Game, depth: u32, mut budget: u64) -> Option<i32> {
    reference::negamax(
        &game.pos,
        depth as i32,
        0,
        &mut game.repetition_keys(),
        &mut budget,
    )
}

/// `game` searched to `depth` through the seam with a fresh 1 MB table.
fn seam(game: &Game, depth: u32, selectivity: Selectivity) -> (SearchResult, Vec<Iteration>) {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let tt = Arc::new(TranspositionTable::new(1).unwrap());
    let job = Job {
        selectivity,
        ..Job::new(game.clone(), limits, tt)
    };
    driver::run(job).unwrap()
}

#[test]
fn alpha_beta_without_table_equals_plain_negamax_on_200_positions() {
    let mut compared = [0; 4];
    let mut skipped = 0;
    for (i, game) in sample_positions(600).iter().enumerate() {
        let depth = 1 + (i % 3) as u32;
        let Some(slow) = oracle(game, depth, 200_000) else {
            skipped += 1;
            continue;
        };
        let (fast, _) = seam(game, depth, Selectivity::UnprunedWithoutTable);
        assert_eq!(
            fast.last.score, slow,
            "position {i} depth {depth}: {:?}",
            game.pos
        );
        compared[depth as usize] += 1;
    }
    assert!(
        compared.iter().sum::<usize>() >= 200,
        "compared {compared:?}, skipped {skipped}"
    );
    assert!(
        compared[1..].iter().all(|&n| n >= 60),
        "compared {compared:?}"
    );
}

#[test]
fn iterative_deepening_through_the_table_equals_plain_negamax() {
    // Depths 1 to 4 on one table per position, as the driver runs them: moves and bounds
    // stored by shallower iterations and by transpositions (at depth 4, a ply-3 node reached
    // by two move orders) are read back. Without pruning, every cutoff the table allows must
    // leave each iteration's value exact.
    let mut compared = [0; 5];
    let (mut nodes_with, mut nodes_without) = (0, 0);
    for (i, game) in sample_positions(160).iter().enumerate() {
        // The depths whose oracle fits its budget (a smaller one than the other test's:
        // positions whose quiescence explodes are left out sooner).
        let truths: Vec<i32> = (1..=4).map_while(|d| oracle(game, d, 60_000)).collect();
        if truths.is_empty() {
            continue;
        }
        let depth = truths.len() as u32;
        let (with_table, lines) = seam(game, depth, Selectivity::Unpruned);
        let scores: Vec<i32> = lines
            .iter()
            .filter(|it| it.multipv == 1)
            .map(|it| it.score)
            .collect();
        // A root without moves reports no line, only its result (mate or stalemate); a mate
        // found early ends the search before its depth: the lines it has agree.
        if scores.is_empty() {
            assert!(game.pos.legal_moves().is_empty(), "{i}");
            assert_eq!(with_table.last.score, truths[0], "{i}");
            continue;
        }
        assert!(scores.len() <= truths.len(), "{i}");
        assert_eq!(
            scores,
            truths[..scores.len()],
            "position {i}: {:?}",
            game.pos
        );
        for counted in &mut compared[1..=scores.len()] {
            *counted += 1;
        }
        nodes_with += with_table.last.nodes;
        nodes_without += seam(game, depth, Selectivity::UnprunedWithoutTable)
            .0
            .last
            .nodes;
    }
    assert!(compared[4] >= 30, "compared {compared:?}");
    // The table was in play: its moves and cutoffs saved work (87% of the nodes without it;
    // bounds read the wrong way round save almost nothing at these depths).
    assert!(
        nodes_with * 10 < nodes_without * 9,
        "{nodes_with} nodes with the table, {nodes_without} without"
    );
}

fn search(game: &Game, depth: u32) -> driver::SearchResult {
    let tt = TranspositionTable::new(4).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    driver::search(game, &limits, &tt, &clock, &mut |_| {})
}

#[test]
fn a_move_that_makes_threefold_repetition_is_a_draw_that_saves_a_lost_game() {
    // Black is a queen up; knight and queen have shuffled so that Nf3-g1 now brings the
    // position about for the third time.
    let mut game = Game::from_fen("3qk3/8/8/8/8/8/8/4K1N1 b - - 0 1", false).unwrap();
    game.apply_moves(&["d8d7", "g1f3", "d7d8", "f3g1", "d8d7", "g1f3", "d7d8"])
        .unwrap();
    for depth in 1..=4 {
        let r = search(&game, depth);
        assert_eq!(r.last.score, 0, "depth {depth}");
        assert_eq!(r.best.map(|m| game.uci(m)).as_deref(), Some("f3g1"));
    }
}

#[test]
fn a_position_seen_once_before_the_root_is_not_yet_a_draw() {
    let mut game = Game::from_fen("3qk3/8/8/8/8/8/8/4K1N1 w - - 0 1", false).unwrap();
    game.apply_moves(&["g1f3", "d8d7", "f3g1", "d7d8"]).unwrap();
    // Ng1-f3 repeats a position only for the second time: still a queen down.
    assert!(search(&game, 1).last.score < -500);
    // And the side a queen up does not fear a second occurrence either: searched alone,
    // Qd7-d8 (the start position again, for the second time) still scores a queen up.
    let mut ahead = Game::from_fen("3qk3/8/8/8/8/8/8/4K1N1 w - - 0 1", false).unwrap();
    ahead.apply_moves(&["g1f3", "d8d7", "f3g1"]).unwrap();
    let r = search_only(&ahead, 3, "d7d8");
    assert_eq!(r.best.map(|m| ahead.uci(m)).as_deref(), Some("d7d8"));
    assert!(r.last.score > 500, "{}", r.last.score);
    // Once more round the loop, the same move makes it the third time: a draw.
    ahead
        .apply_moves(&["d7d8", "g1f3", "d8d7", "f3g1"])
        .unwrap();
    assert_eq!(search_only(&ahead, 3, "d7d8").last.score, 0);
}

/// A search of `game` to `depth` over the one root move `only`.
fn search_only(game: &Game, depth: u32, only: &str) -> driver::SearchResult {
    let tt = TranspositionTable::new(4).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let job = Job {
        searchmoves: vec![game.parse_move(only).unwrap()],
        ..Job::new(game.clone(), limits, Arc::new(tt))
    };
    driver::search_on(&Pool::new(1).unwrap(), job, clock)
        .unwrap()
        .0
}

#[test]
fn fifty_move_rule_draws_unless_the_last_move_mates() {
    let lost = Game::from_fen("3qk3/8/8/8/8/8/8/4K1N1 w - - 99 80", false).unwrap();
    assert_eq!(search(&lost, 3).last.score, 0);
    let mating = Game::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80", false).unwrap();
    let r = search(&mating, 3);
    assert_eq!(r.last.score, MATE - 1);
    assert_eq!(r.best.map(|m| mating.uci(m)).as_deref(), Some("a1a8"));
}

#[test]
fn insufficient_material_is_a_draw() {
    for fen in [
        "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
        "8/8/4k3/8/8/3KB3/8/8 b - - 0 1",
        "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",
    ] {
        let g = Game::from_fen(fen, false).unwrap();
        assert_eq!(search(&g, 4).last.score, 0, "{fen}");
    }
}

#[test]
fn mate_scores_count_plies_from_the_root_and_shorter_mates_win() {
    // Mate in one (Ra8) and mate in two are both available: the shorter one is chosen.
    let g = Game::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", false).unwrap();
    let r = search(&g, 5);
    assert_eq!(r.last.score, MATE - 1);
    // Two rooks ladder: mate in two moves, three plies.
    let g = Game::from_fen("k7/8/2K5/8/8/8/8/7R w - - 0 1", false).unwrap();
    assert_eq!(search(&g, 5).last.score, MATE - 3);
    // The side to move is mated next move: a negative mate two plies away.
    let g = Game::from_fen("k5r1/8/8/8/5p2/8/8/5q1K w - - 0 1", false).unwrap();
    assert_eq!(search(&g, 4).last.score, -MATE + 2);
}

#[test]
fn helper_threads_search_and_their_nodes_reach_the_shared_count() {
    let game = Game::default();
    let tt = TranspositionTable::new(16).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let limits = Limits {
        depth: Some(9),
        ..Limits::default()
    };
    let job = Job {
        threads: 3,
        ..Job::new(game.clone(), limits.clone(), Arc::new(tt))
    };
    let (r, _) = driver::search_on(&Pool::new(3).unwrap(), job, clock).unwrap();
    assert_eq!(r.thread_nodes.len(), 3, "{:?}", r.thread_nodes);
    // Every helper searched, and the reported count is every thread's nodes, no more, no less.
    assert!(
        r.thread_nodes.iter().all(|&n| n > 0),
        "{:?}",
        r.thread_nodes
    );
    assert_eq!(r.last.nodes, r.thread_nodes.iter().sum::<u64>());
    // Alone, the count is the main thread's.
    let tt = TranspositionTable::new(16).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let r = driver::search(&game, &limits, &tt, &clock, &mut |_| {});
    assert_eq!(r.thread_nodes, vec![r.last.nodes]);
}

#[test]
fn each_iteration_scales_the_soft_limit_by_best_move_stability_and_score_drop() {
    // The clock is long enough never to stop these depth-limited searches; what the driver
    // set last must follow from its own reports: how many iterations the best move has
    // stood, and how far the score fell in the last one.
    let mut seen = std::collections::BTreeSet::new();
    for fen in &ferrum::measure::bench::POSITIONS[..12] {
        let game = Game::from_fen(fen, false).unwrap();
        let tt = TranspositionTable::new(4).unwrap();
        let limits = Limits {
            wtime: Some(100_000_000),
            btime: Some(100_000_000),
            depth: Some(9),
            ..Limits::default()
        };
        let clock = Clock::new(
            &limits,
            game.pos.turn().is_white(),
            0,
            StopToken::detached(),
        );
        let mut reports: Vec<(Option<shakmaty::Move>, i32)> = Vec::new();
        driver::search(&game, &limits, &tt, &clock, &mut |it| {
            reports.push((it.pv.first().copied(), it.score))
        });
        let mut stable = 0;
        for pair in reports.windows(2) {
            stable = if pair[1].0 == pair[0].0 {
                stable + 1
            } else {
                0
            };
        }
        let [.., (_, before), (_, last)] = reports[..] else {
            panic!("{fen}: {reports:?}");
        };
        let expected = ferrum::search::time::soft_time_percent(stable, before - last);
        assert_eq!(clock.soft_percent(), expected, "{fen}: {reports:?}");
        seen.insert(expected);
    }
    // The positions reach several branches of the rule, not one.
    assert!(seen.len() >= 3, "{seen:?}");
}

/// A soft node limit (data generation's) starts no iteration once the search has that many
/// nodes: the search is the depth-limited one of the first depth that reaches the limit,
/// node for node, and one depth less stays below it.
#[test]
fn a_soft_node_limit_ends_with_the_iteration_that_passes_it() {
    let game = Game::from_fen(
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
        false,
    )
    .unwrap();
    for soft in [1_000, 20_000, 150_000] {
        let tt = TranspositionTable::new(4).unwrap();
        let limits = Limits {
            // A hard limit far past every soft one here, which a search ignoring the soft
            // limit would stop at, mid-iteration.
            nodes: Some(3_000_000),
            soft_nodes: Some(soft),
            ..Limits::default()
        };
        let clock = Clock::new(&limits, true, 0, StopToken::detached());
        let r = driver::search(&game, &limits, &tt, &clock, &mut |_| {});
        assert!(
            r.last.nodes < 3_000_000,
            "soft {soft}: stopped by the hard limit"
        );
        let depth = r.last.depth;
        assert!(depth >= 2, "soft {soft}: depth {depth}");
        let at_depth = search(&game, depth);
        assert_eq!(
            r.last.nodes, at_depth.last.nodes,
            "soft {soft}, depth {depth}"
        );
        assert_eq!(r.best, at_depth.best);
        assert!(r.last.nodes >= soft, "soft {soft}: {} nodes", r.last.nodes);
        let shallower = search(&game, depth - 1);
        assert!(
            shallower.last.nodes < soft,
            "soft {soft}: depth {} already had {} nodes",
            depth - 1,
            shallower.last.nodes
        );
    }
}
