//! Plain negamax without pruning, ordering or table: slow and obviously right, it is the
//! oracle the alpha-beta search is tested against. Chess as an instance of the generic
//! negamax (`crate::negamax`), with the same draw rules and evaluation as the search.

use shakmaty::san::San;
use shakmaty::{Chess, Move, MoveList, Position};

use super::ordering::is_tactical;
use super::score::{DRAW, INFINITY, MAX_PLY, mated_in};
use crate::basics::position::{is_draw_by_rule, zobrist};
use crate::eval::evaluate;
use crate::negamax::{Effort, Game, Silent};

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
    // The line ends at MAX_PLY as the search's does: there the horizon comes early.
    let depth = depth.clamp(0, MAX_PLY.saturating_sub(ply) as i32) as u32;
    let mut effort = Effort::with_budget(*budget);
    let mut line = ChessLine::new(pos, ply, keys);
    let value = crate::negamax::negamax(&mut line, depth, &mut effort, &mut Silent);
    *budget = effort.budget_left();
    value
}

/// A chess game line for the generic searches: the positions from the root (copy-make),
/// their repetition keys, and the ply, for mate distances and in-tree repetitions.
pub struct ChessLine<'a> {
    stack: Vec<Chess>,
    keys: &'a mut Vec<u64>,
    ply: usize,
    /// Moves best-first by the static evaluation after them (for pictures of the tree,
    /// where only the first few are searched); the oracle takes them as generated.
    pub order_moves: bool,
    /// Quiescence with alpha-beta from the full window: the same value, found with far
    /// fewer nodes (pictures); the oracle keeps the unpruned one.
    pub prune_quiescence: bool,
}

impl<'a> ChessLine<'a> {
    /// `keys` end with the key of `pos`, which is `ply` plies from the root.
    pub fn new(pos: &Chess, ply: usize, keys: &'a mut Vec<u64>) -> ChessLine<'a> {
        ChessLine {
            stack: vec![pos.clone()],
            keys,
            ply,
            order_moves: false,
            prune_quiescence: false,
        }
    }

    pub fn position(&self) -> &Chess {
        &self.stack[self.stack.len() - 1]
    }
}

impl Game for ChessLine<'_> {
    type Move = Move;
    type Moves = MoveList;

    fn moves(&self) -> MoveList {
        let pos = self.position();
        let mut moves = pos.legal_moves();
        if self.order_moves {
            // The child's evaluation is the opponent's: lowest first.
            moves.sort_by_cached_key(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                evaluate(&child)
            });
        }
        moves
    }

    fn play(&mut self, m: Move) {
        let mut child = self.position().clone();
        child.play_unchecked(m);
        self.keys.push(zobrist(&child));
        self.stack.push(child);
        self.ply += 1;
    }

    fn undo(&mut self, _m: Move) {
        self.stack.pop();
        self.keys.pop();
        self.ply -= 1;
    }

    fn terminal(&self) -> Option<i32> {
        (self.ply > 0 && is_draw_by_rule(self.position(), self.keys, self.ply)).then_some(DRAW)
    }

    fn value_without_moves(&self) -> i32 {
        if self.position().is_check() {
            mated_in(self.ply)
        } else {
            DRAW
        }
    }

    fn heuristic(&mut self, effort: &mut Effort) -> Option<i32> {
        if self.prune_quiescence {
            pruned_quiescence(self.position(), -INFINITY, INFINITY, self.ply, effort)
        } else {
            quiescence(self.position(), self.ply, effort)
        }
    }

    fn key(&self) -> u64 {
        self.keys[self.keys.len() - 1]
    }

    fn move_name(&self, m: Move) -> String {
        San::from_move(self.position(), m).to_string()
    }
}

fn quiescence(pos: &Chess, ply: usize, effort: &mut Effort) -> Option<i32> {
    effort.spend()?;
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
        best = best.max(-quiescence(&child, ply + 1, effort)?);
    }
    Some(best)
}

/// `quiescence` with fail-soft alpha-beta: from the full window it returns the same value.
fn pruned_quiescence(
    pos: &Chess,
    mut alpha: i32,
    beta: i32,
    ply: usize,
    effort: &mut Effort,
) -> Option<i32> {
    effort.spend()?;
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
    let mut best = if in_check { -INFINITY } else { evaluate(pos) };
    if best >= beta {
        return Some(best);
    }
    alpha = alpha.max(best);
    for m in moves {
        if !in_check && !is_tactical(m) {
            continue;
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        let value = -pruned_quiescence(&child, -beta, -alpha, ply + 1, effort)?;
        best = best.max(value);
        if best >= beta {
            break;
        }
        alpha = alpha.max(best);
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::position::Game as ChessGame;

    #[test]
    fn pruned_quiescence_finds_the_unpruned_value_with_fewer_nodes() {
        let (mut compared, mut saved) = (0, 0);
        for fen in crate::basics::positions::POSITIONS {
            let pos = ChessGame::from_fen(fen, false).unwrap().pos;
            let mut all = Effort::with_budget(100_000);
            let Some(slow) = quiescence(&pos, 0, &mut all) else {
                continue;
            };
            let mut few = Effort::unlimited();
            let fast = pruned_quiescence(&pos, -INFINITY, INFINITY, 0, &mut few);
            assert_eq!(fast, Some(slow), "{fen}");
            compared += 1;
            saved += usize::from(few.budget_left() > all.budget_left());
        }
        // 24 of the 40 fit the budget unpruned, and pruning saves nodes in all of them.
        assert!(
            compared >= 20 && saved * 4 >= compared * 3,
            "{compared} {saved}"
        );
    }
}
