//! The search of a node without one of its moves (the singular extension's search): it
//! scores the other moves exactly, fails low when no other move is left, stores nothing of
//! its own, and ignores the score the table holds for the whole node.

use shakmaty::{Chess, Move, Position};

use super::node::{NonPv, Pv};
use super::score::INFINITY;
use super::searcher::Searcher;
use super::thread::ThreadData;
use super::time::{Clock, StopToken};
use super::tt::TranspositionTable;
use crate::basics::position::Game;
use crate::basics::rng::Lcg;

/// Roots with captures, checks and quiet moves, each a ply and a few random moves before the
/// node searched (so that the node is below the root).
const STARTS: &[&str] = &[
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "4k3/8/2q1r3/3P4/8/8/4Q3/K7 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
];

fn find(pos: &Chess, uci: &str) -> Move {
    pos.legal_moves()
        .into_iter()
        .find(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string() == uci)
        .unwrap()
}

/// The root `game` and the node after its move `m`, entered: the searcher's current node.
fn enter(s: &mut Searcher, game: &Game, m: Move) -> Chess {
    s.td.stack.at_mut(0).in_check = game.pos.is_check();
    s.td.push_move(&game.pos, m)
}

/// The node `pos` (the current one) searched with a full window without `left_out`.
fn search_without(s: &mut Searcher, pos: &Chess, left_out: Move, depth: i32) -> i32 {
    let ply = s.td.stack.ply();
    s.td.stack.at_mut(ply).excluded = Some(left_out);
    let score = s.negamax::<Pv>(pos, -INFINITY, INFINITY, depth);
    s.td.stack.at_mut(ply).excluded = None;
    score
}

#[test]
fn a_node_searched_without_a_move_scores_the_others_and_stores_nothing() {
    let clock = Clock::unlimited(StopToken::detached());
    let mut rng = Lcg(0x5EED);
    let mut compared = 0;
    for i in 0..24 {
        let mut game = Game::from_fen(STARTS[i % STARTS.len()], false).unwrap();
        for _ in 0..=rng.next_u31() % 3 {
            let moves = game.pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            game.play(moves[rng.next_u31() as usize % moves.len()]);
        }
        let root_moves = game.pos.legal_moves();
        if root_moves.is_empty() {
            continue;
        }
        let first = root_moves[rng.next_u31() as usize % root_moves.len()];
        let mut after = game.pos.clone();
        after.play_unchecked(first);
        let moves = after.legal_moves();
        if moves.len() < 2 {
            continue;
        }
        let depth = 1 + (i % 3) as i32;
        let left_out = moves[i % moves.len()];

        // Each other move searched on its own, exactly (no table, no pruning).
        let unused = TranspositionTable::new(1).unwrap();
        let mut td = ThreadData::default();
        let mut s = Searcher::new(&unused, &clock, &mut td, game.repetition_keys());
        (s.use_tt, s.prune) = (false, false);
        let node = enter(&mut s, &game, first);
        let mut best = -INFINITY;
        for &m in moves.iter().filter(|&&m| m != left_out) {
            let child = s.td.push_move(&node, m);
            let score = -s.negamax::<Pv>(&child, -INFINITY, INFINITY, depth - 1);
            s.td.pop_move();
            best = best.max(score);
        }
        assert_eq!(search_without(&mut s, &node, left_out, depth), best, "{i}");
        assert!(s.td.pv.line(1).first() != Some(&left_out), "{i}");

        // With the table, the node's own entry is left alone (its children's are not).
        let tt = TranspositionTable::new(1).unwrap();
        let mut td = ThreadData::default();
        let mut s = Searcher::new(&tt, &clock, &mut td, game.repetition_keys());
        s.prune = false;
        let node = enter(&mut s, &game, first);
        let key = s.td.stack.key();
        assert_eq!(search_without(&mut s, &node, left_out, depth), best, "{i}");
        assert!(
            tt.probe(key, 1).is_none(),
            "{i}: the node without a move was stored"
        );
        let stored_children = moves
            .iter()
            .filter(|&&m| {
                s.td.push_move(&node, m);
                let stored = tt.probe(s.td.stack.key(), 2).is_some();
                s.td.pop_move();
                stored
            })
            .count();
        // Children of depth 1 or more are stored; the left-out move's child is not searched
        // (quiescence stores its nodes too, so at depth 1 some of the others are stored).
        if depth >= 2 {
            assert_eq!(stored_children, moves.len() - 1, "{i}");
        } else {
            assert!(stored_children < moves.len(), "{i}");
        }
        compared += 1;
    }
    assert!(compared >= 20, "{compared}");
}

#[test]
fn a_node_whose_only_move_is_left_out_fails_low() {
    // After Rf7, Black's king has one move, Kh8: the rook holds f8 and the seventh, the king
    // f7 to h7.
    let game = Game::from_fen("6k1/8/6K1/8/8/8/8/5R2 w - - 0 1", false).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let tt = TranspositionTable::new(1).unwrap();
    let mut td = ThreadData::default();
    let mut s = Searcher::new(&tt, &clock, &mut td, game.repetition_keys());
    let node = enter(&mut s, &game, find(&game.pos, "f1f7"));
    let moves = node.legal_moves();
    assert_eq!(moves.len(), 1);
    s.td.stack.at_mut(1).excluded = Some(moves[0]);
    let score = s.negamax::<NonPv>(&node, -120, -119, 4);
    assert_eq!(score, -120);
    assert!(tt.probe(s.td.stack.key(), 1).is_none());
}

#[test]
fn a_node_searched_without_its_best_move_ignores_the_stored_score() {
    // Black's queen steps to d5, where White's pawn takes it; without that capture White
    // stays a queen down. The node is first searched whole and stored, then searched without
    // the capture by a null window at the stored score, with pruning on: the stored score
    // (the capture's) must not decide it.
    let game = Game::from_fen("r2qk3/pp6/8/8/4P3/8/PP6/R3K3 b - - 0 1", false).unwrap();
    let clock = Clock::unlimited(StopToken::detached());
    let tt = TranspositionTable::new(1).unwrap();
    let mut td = ThreadData::default();
    let mut s = Searcher::new(&tt, &clock, &mut td, game.repetition_keys());
    let node = enter(&mut s, &game, find(&game.pos, "d8d5"));
    let takes = find(&node, "e4d5");
    let whole = s.negamax::<Pv>(&node, -INFINITY, INFINITY, 5);
    assert!(whole > 0, "{whole}");
    let stored = tt.probe(s.td.stack.key(), 1).unwrap();
    // Stored a ply shallower: without a table move the node was reduced (IIR).
    assert_eq!((stored.score, stored.depth), (whole, 4));
    s.td.stack.at_mut(1).excluded = Some(takes);
    let without = s.negamax::<NonPv>(&node, whole - 1, whole, 4);
    s.td.stack.at_mut(1).excluded = None;
    assert!(without < whole - 500, "{without} (whole {whole})");
}
