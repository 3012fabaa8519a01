//! The root's fail-soft bounds against the plain-negamax oracle (`reference`): a search whose
//! window lies above the true value fails low with an upper bound between the truth and
//! alpha, one below it fails high with a lower bound between beta and the truth, without the
//! table and through a table that earlier iterations and windows filled. (The exact values
//! of whole searches are checked through the public seam, `tests/search_properties.rs`.)

use super::reference;
use super::root::RootMoves;
use super::score::INFINITY;
use super::searcher::Searcher;
use super::thread::ThreadData;
use super::time::{Clock, StopToken};
use super::tt::TranspositionTable;
use crate::basics::position::Game;
use crate::basics::positions::POSITIONS;
use crate::basics::rng::Lcg;
use shakmaty::Position;

/// Positions a few random moves from the varied starts.
fn sample_positions(count: usize) -> Vec<Game> {
    let mut rng = Lcg(0x00C0_FFEE);
    let mut out = Vec::new();
    while out.len() < count {
        let mut game = Game::from_fen(POSITIONS[out.len() % POSITIONS.len()], false).unwrap();
        for _ in 0..rng.next_u31() % 4 {
            let moves = game.pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            game.play(moves[(rng.next_u31() as usize) % moves.len()]);
        }
        out.push(game);
    }
    out
}

/// The oracle's value of `game` at `depth`, within a node budget (None past it).
fn oracle(game: &Game, depth: i32, mut budget: u64) -> Option<i32> {
    reference::negamax(
        &game.pos,
        depth,
        0,
        &mut game.repetition_keys(),
        &mut budget,
    )
}

/// The root searched over every legal move with the window (`alpha`, `beta`).
fn root(s: &mut Searcher, game: &Game, depth: i32, alpha: i32, beta: i32) -> i32 {
    let moves = RootMoves::new(&game.pos, &[]);
    s.search_root(&game.pos, moves.moves(), true, depth, alpha, beta)
}

#[test]
fn windows_above_and_below_the_truth_fail_soft_on_its_side_without_the_table() {
    let tt = TranspositionTable::new(1).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let mut compared = 0;
    for game in sample_positions(40) {
        let Some(truth) = oracle(&game, 2, 200_000) else {
            continue;
        };
        let mut td = ThreadData::default();
        let mut s = Searcher::new(&tt, &clock, &mut td, game.repetition_keys());
        (s.use_tt, s.prune) = (false, false);
        let high = root(&mut s, &game, 2, truth + 1, truth + 50);
        assert!(
            truth <= high && high <= truth + 1,
            "fail-low {high}, true {truth}"
        );
        let low = root(&mut s, &game, 2, truth - 50, truth - 1);
        assert!(
            truth - 1 <= low && low <= truth,
            "fail-high {low}, true {truth}"
        );
        compared += 1;
    }
    assert!(compared >= 12, "{compared}");
}

#[test]
fn windows_through_a_table_filled_by_earlier_iterations_keep_their_bounds() {
    // Depths 1 to 4 on one table per position, each searched whole, then above and below
    // the truth: moves and bounds stored by shallower iterations, by the other windows and
    // by transpositions are read back, and must keep every result on its side.
    let clock = Clock::unlimited(StopToken::detached());
    let mut compared = 0;
    for (i, game) in sample_positions(160).iter().enumerate() {
        let tt = TranspositionTable::new(1).unwrap();
        let mut td = ThreadData::default();
        let mut s = Searcher::new(&tt, &clock, &mut td, game.repetition_keys());
        s.prune = false;
        for depth in 1..=4 {
            let Some(truth) = oracle(game, depth, 60_000) else {
                break;
            };
            assert_eq!(root(&mut s, game, depth, -INFINITY, INFINITY), truth, "{i}");
            let high = root(&mut s, game, depth, truth + 1, truth + 30);
            let low = root(&mut s, game, depth, truth - 30, truth - 1);
            assert!(
                (truth..=truth + 1).contains(&high) && (truth - 1..=truth).contains(&low),
                "position {i} depth {depth}: {low} {truth} {high}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 120, "{compared}");
}
