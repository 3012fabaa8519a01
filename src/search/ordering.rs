//! Move ordering: the TT move first, then captures and promotions by MVV-LVA, then quiet moves.

use shakmaty::{Move, MoveList, Role};

use super::tt::PackedMove;
use crate::eval::piece_value;

/// Priority classes, far enough apart that no in-class score crosses into the next.
const TT_MOVE: i32 = 1_000_000;
const GOOD_TACTICAL: i32 = 100_000;

/// Most valuable victim first, least valuable attacker breaking ties; a promotion counts as
/// capturing the piece it becomes.
fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, piece_value) + m.promotion().map_or(0, piece_value);
    let attacker = match m.role() {
        Role::King => 1000,
        r => piece_value(r),
    };
    victim * 16 - attacker / 10
}

pub fn is_tactical(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// Scores each move; the picker takes them highest first.
pub fn score_moves(moves: &MoveList, tt_move: PackedMove, scores: &mut [i32]) {
    for (m, s) in moves.iter().zip(scores.iter_mut()) {
        *s = if tt_move.matches(*m) {
            TT_MOVE
        } else if is_tactical(*m) {
            GOOD_TACTICAL + mvv_lva(*m)
        } else {
            0
        };
    }
}

/// Hands out moves best first by selection: cheap when a cutoff comes early.
pub struct Picker {
    moves: MoveList,
    scores: [i32; 256],
    next: usize,
}

impl Picker {
    pub fn new(moves: MoveList, tt_move: PackedMove) -> Picker {
        let mut scores = [0; 256];
        score_moves(&moves, tt_move, &mut scores[..moves.len()]);
        Picker {
            moves,
            scores,
            next: 0,
        }
    }
}

impl Iterator for Picker {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

    #[test]
    fn tt_move_then_captures_by_victim_then_quiets() {
        // White can take the queen with the pawn, or the rook with the pawn or the queen.
        let fen: Fen = "4k3/8/2q1r3/3P4/8/8/4Q3/K7 w - - 0 1".parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let moves = pos.legal_moves();
        let quiet = *moves.iter().find(|m| !m.is_capture()).unwrap();
        let order: Vec<Move> = Picker::new(moves, PackedMove::new(quiet)).collect();
        assert_eq!(order[0], quiet);
        assert_eq!(order[1].capture(), Some(Role::Queen));
        assert_eq!(order[1].role(), Role::Pawn);
        assert_eq!(
            (order[2].capture(), order[2].role()),
            (Some(Role::Rook), Role::Pawn)
        );
        assert_eq!(
            (order[3].capture(), order[3].role()),
            (Some(Role::Rook), Role::Queen)
        );
        assert!(order[4..].iter().all(|m| !m.is_capture()));
    }
}
