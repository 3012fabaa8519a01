//! Plain negamax without pruning, ordering or table: slow and obviously right, it is the
//! oracle the alpha-beta search is tested against. Same draw rules, same evaluation.

use shakmaty::{Chess, Position};

use super::ordering::is_tactical;
use super::score::{DRAW, MAX_PLY, mated_in};
use crate::eval::evaluate;
use crate::position::zobrist;

/// Exact minimax value of `pos` searched `depth` plies full-width, then captures and
/// promotions (all evasions in check) to the end. `keys` end with the key of `pos`.
pub fn negamax(pos: &Chess, depth: i32, ply: usize, keys: &mut Vec<u64>) -> i32 {
    if ply > 0 && is_draw(pos, keys) {
        return DRAW;
    }
    if depth <= 0 || ply >= MAX_PLY {
        return quiescence(pos, ply);
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return if pos.is_check() { mated_in(ply) } else { DRAW };
    }
    let mut best = i32::MIN;
    for m in moves {
        let mut child = pos.clone();
        child.play_unchecked(m);
        keys.push(zobrist(&child));
        best = best.max(-negamax(&child, depth - 1, ply + 1, keys));
        keys.pop();
    }
    best
}

fn is_draw(pos: &Chess, keys: &[u64]) -> bool {
    let n = keys.len();
    let reach = (pos.halfmoves() as usize).min(n - 1);
    let repeated = (4..=reach)
        .step_by(2)
        .any(|back| keys[n - 1 - back] == keys[n - 1]);
    repeated || pos.is_insufficient_material() || (pos.halfmoves() >= 100 && !pos.is_checkmate())
}

fn quiescence(pos: &Chess, ply: usize) -> i32 {
    if pos.is_insufficient_material() {
        return DRAW;
    }
    let in_check = pos.is_check();
    if ply >= MAX_PLY {
        return if in_check { DRAW } else { evaluate(pos) };
    }
    let moves = pos.legal_moves();
    if in_check && moves.is_empty() {
        return mated_in(ply);
    }
    let mut best = if in_check { i32::MIN } else { evaluate(pos) };
    for m in moves {
        if !in_check && !is_tactical(m) {
            continue;
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        best = best.max(-quiescence(&child, ply + 1));
    }
    best
}
