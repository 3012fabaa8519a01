//! Plain negamax without pruning, ordering or table: slow and obviously right, it is the
//! oracle the alpha-beta search is tested against. Same draw rules, same evaluation.

use shakmaty::{Chess, Position};

use super::ordering::is_tactical;
use super::score::{DRAW, MAX_PLY, mated_in};
use crate::eval::evaluate;
use crate::position::{is_repetition_draw, zobrist};

/// Exact minimax value of `pos` searched `depth` plies full-width, then captures and
/// promotions (all evasions in check) to the end. `keys` end with the key of `pos`.
/// Without pruning, quiescence can explode in wild positions: `budget` counts nodes down and
/// the answer is None when it runs out.
pub fn negamax(
    pos: &Chess,
    depth: i32,
    ply: usize,
    keys: &mut Vec<u64>,
    budget: &mut u64,
) -> Option<i32> {
    if ply > 0 && is_draw(pos, keys, ply) {
        return Some(DRAW);
    }
    if depth <= 0 || ply >= MAX_PLY {
        return quiescence(pos, ply, budget);
    }
    *budget = budget.checked_sub(1)?;
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return Some(if pos.is_check() { mated_in(ply) } else { DRAW });
    }
    let mut best = i32::MIN;
    for m in moves {
        let mut child = pos.clone();
        child.play_unchecked(m);
        keys.push(zobrist(&child));
        let score = negamax(&child, depth - 1, ply + 1, keys, budget);
        keys.pop();
        best = best.max(-score?);
    }
    Some(best)
}

fn is_draw(pos: &Chess, keys: &[u64], ply: usize) -> bool {
    is_repetition_draw(keys, pos.halfmoves(), ply)
        || pos.is_insufficient_material()
        || (pos.halfmoves() >= 100 && !pos.is_checkmate())
}

fn quiescence(pos: &Chess, ply: usize, budget: &mut u64) -> Option<i32> {
    *budget = budget.checked_sub(1)?;
    if pos.is_insufficient_material() {
        return Some(DRAW);
    }
    let in_check = pos.is_check();
    if ply >= MAX_PLY {
        return Some(if in_check { DRAW } else { evaluate(pos) });
    }
    let moves = pos.legal_moves();
    if in_check && moves.is_empty() {
        return Some(mated_in(ply));
    }
    let mut best = if in_check { i32::MIN } else { evaluate(pos) };
    for m in moves {
        if !in_check && !is_tactical(m) {
            continue;
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        best = best.max(-quiescence(&child, ply + 1, budget)?);
    }
    Some(best)
}
