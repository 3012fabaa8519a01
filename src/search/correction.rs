//! Correction history: what the search found against the static evaluation, kept per side
//! and pawn structure, and added to later evaluations of positions with that structure.
//! The evaluation misjudges some structures the same way again and again; the search's
//! scores show by how much.

use shakmaty::{Board, Color};

use super::params;
use super::score::INFINITY;
use crate::eval::pawn_key;

/// Entries per side (a power of two); a pawn structure's key picks one.
pub const ENTRIES: usize = 16384;
/// Entries are kept in 1/GRAIN cp, so that small weighted steps are not lost to rounding.
const GRAIN: i32 = 256;
/// The weight of one update, out of 256, grows with the search's depth up to this.
const MAX_WEIGHT: i32 = 16;

/// The entry of a pawn structure's key (`eval::pawn_key`): its high bits.
fn index(key: u64) -> usize {
    (key >> (64 - ENTRIES.trailing_zeros())) as usize
}

pub struct Correction {
    table: Box<[[i32; ENTRIES]; 2]>,
}

impl Default for Correction {
    fn default() -> Correction {
        Correction {
            table: Box::new([[0; ENTRIES]; 2]),
        }
    }
}

impl Correction {
    /// Every entry back to zero.
    pub fn clear(&mut self) {
        self.table.as_flattened_mut().fill(0);
    }

    /// The correction (cp) for `side` to move with the pawn structure of `key`.
    pub fn get(&self, side: Color, key: u64) -> i32 {
        self.table[side as usize][index(key)] / GRAIN
    }

    /// A search of `depth` scored `diff` cp above the static evaluation: the entry moves
    /// toward it by a weight that grows with depth, and stays within `limit` cp either way.
    pub fn update(&mut self, side: Color, key: u64, depth: i32, diff: i32, limit: i32) {
        let e = &mut self.table[side as usize][index(key)];
        let w = (depth + 1).clamp(1, MAX_WEIGHT);
        let bound = limit * GRAIN;
        let target = diff.clamp(-limit, limit) * GRAIN;
        *e = ((*e * (256 - w) + target * w) / 256).clamp(-bound, bound);
    }
}

/// The static evaluation with the correction of its pawn structure, when correction is on
/// (`correction_limit` > 0). A node in check has none (-INFINITY): that stays as it is.
pub fn corrected(table: &Correction, side: Color, board: &Board, raw: i32) -> i32 {
    if params::correction_limit() == 0 || raw == -INFINITY {
        return raw;
    }
    raw + table.get(side, pawn_key(board))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::position::Game;
    use shakmaty::Position;

    fn board(fen: &str) -> Board {
        Game::from_fen(fen, false).unwrap().pos.board().clone()
    }

    #[test]
    fn entries_move_toward_the_search_and_stay_bounded() {
        let mut c = Correction::default();
        let key = pawn_key(&board("4k3/pp6/8/8/8/8/PPP5/4K3 w - - 0 1"));
        for _ in 0..400 {
            c.update(Color::White, key, 10, 60, 96);
        }
        // Converges to the difference found (within rounding), for that side only.
        assert!(
            (58..=60).contains(&c.get(Color::White, key)),
            "{}",
            c.get(Color::White, key)
        );
        assert_eq!(c.get(Color::Black, key), 0);
        // A difference beyond the limit is clipped to it.
        for _ in 0..400 {
            c.update(Color::White, key, 20, -5000, 96);
        }
        assert!((-96..=-94).contains(&c.get(Color::White, key)));
        // A shallow search moves the entry less than a deep one.
        let (mut shallow, mut deep) = (Correction::default(), Correction::default());
        shallow.update(Color::Black, key, 1, 80, 96);
        deep.update(Color::Black, key, 12, 80, 96);
        let black = Color::Black as usize;
        let (s, d) = (
            shallow.table[black][index(key)],
            deep.table[black][index(key)],
        );
        assert!(0 < s && s < d, "{s} {d}");
    }

    #[test]
    fn other_structures_are_untouched_and_spread_over_the_table() {
        let mut c = Correction::default();
        let a = pawn_key(&board("4k3/pp6/8/8/8/8/PPP5/4K3 w - - 0 1"));
        let b = pawn_key(&board("4k3/pp6/8/8/8/P7/1PP5/4K3 w - - 0 1"));
        // Pieces other than pawns do not change the key.
        assert_eq!(a, pawn_key(&board("3qk3/pp6/8/8/8/8/PPP5/R3K3 w - - 0 1")));
        assert_ne!(index(a), index(b));
        c.update(Color::White, a, 8, 50, 96);
        assert_eq!(c.get(Color::White, b), 0);
        // 96 structures (one white pawn on each of 48 squares, with and without a black
        // pawn on h7) fall into 96 different entries.
        let mut seen = std::collections::HashSet::new();
        for sq in 8..56u32 {
            for black in [0u64, 1 << 55] {
                let mut bd = Board::empty();
                bd.set_piece_at(
                    shakmaty::Square::new(sq),
                    shakmaty::Piece::from_char('P').unwrap(),
                );
                if black != 0 {
                    bd.set_piece_at(
                        shakmaty::Square::H7,
                        shakmaty::Piece::from_char('p').unwrap(),
                    );
                }
                seen.insert(index(pawn_key(&bd)));
            }
        }
        assert_eq!(seen.len(), 96);
    }
}
