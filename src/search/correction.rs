//! Correction history: what the search found against the static evaluation, kept per side
//! and pawn structure, and added to later evaluations of positions with that structure.
//! The evaluation misjudges some structures the same way again and again; the search's
//! scores show by how much. Optionally (`correction_nonpawn_weight`) the same is kept per
//! side and placement of one colour's pieces other than pawns, for each colour.

use shakmaty::{Bitboard, Board, Color, Role};

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

/// A mixing of 64 bits (the finaliser of splitmix64): every input bit moves about half the
/// output bits.
fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The keys of each colour's pieces other than pawns (king included), by their squares:
/// `[white, black]`.
pub fn nonpawn_keys(board: &Board) -> [u64; 2] {
    let key = |colour: Bitboard| {
        [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ]
        .iter()
        .enumerate()
        .fold(0, |h, (i, &role)| {
            // Each role its own odd multiplier, so the same squares of two roles differ.
            let salt = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(2 * i as u64 + 1);
            h ^ mix((board.by_role(role) & colour).0 ^ salt)
        })
    };
    [key(board.white()), key(board.black())]
}

pub struct Correction {
    table: Box<[[i32; ENTRIES]; 2]>,
    /// By side to move, then by the colour whose non-pawn pieces key the entry.
    nonpawn: Box<[[[i32; ENTRIES]; 2]; 2]>,
}

impl Default for Correction {
    fn default() -> Correction {
        Correction {
            table: Box::new([[0; ENTRIES]; 2]),
            nonpawn: Box::new([[[0; ENTRIES]; 2]; 2]),
        }
    }
}

/// Moves `e` toward `diff` (cp) by a weight that grows with `depth`, within `limit` cp.
fn step(e: &mut i32, depth: i32, diff: i32, limit: i32) {
    let w = (depth + 1).clamp(1, MAX_WEIGHT);
    let bound = limit * GRAIN;
    let target = diff.clamp(-limit, limit) * GRAIN;
    *e = ((*e * (256 - w) + target * w) / 256).clamp(-bound, bound);
}

impl Correction {
    /// Every entry back to zero.
    pub fn clear(&mut self) {
        self.table.as_flattened_mut().fill(0);
        self.nonpawn.as_flattened_mut().as_flattened_mut().fill(0);
    }

    /// The non-pawn records (cp) for `side` to move with the pieces of `keys`
    /// (`nonpawn_keys`): white's and black's, summed.
    pub fn nonpawn(&self, side: Color, keys: [u64; 2]) -> i32 {
        let records = &self.nonpawn[side as usize];
        (0..2).map(|c| records[c][index(keys[c])] / GRAIN).sum()
    }

    /// As `update`, for both colours' non-pawn records.
    pub fn update_nonpawn(
        &mut self,
        side: Color,
        keys: [u64; 2],
        depth: i32,
        diff: i32,
        limit: i32,
    ) {
        for (records, key) in self.nonpawn[side as usize].iter_mut().zip(keys) {
            step(&mut records[index(key)], depth, diff, limit);
        }
    }

    /// The correction (cp) for `side` to move with the pawn structure of `key`.
    pub fn get(&self, side: Color, key: u64) -> i32 {
        self.table[side as usize][index(key)] / GRAIN
    }

    /// A search of `depth` scored `diff` cp above the static evaluation: the entry moves
    /// toward it by a weight that grows with depth, and stays within `limit` cp either way.
    pub fn update(&mut self, side: Color, key: u64, depth: i32, diff: i32, limit: i32) {
        step(
            &mut self.table[side as usize][index(key)],
            depth,
            diff,
            limit,
        );
    }
}

/// The static evaluation with the correction of its pawn structure, when correction is on
/// (`correction_limit` > 0), or with `correction_nonpawn_weight` > 0 a blend of it and the
/// records of both colours' other pieces (see `blend`). A node in check has none
/// (-INFINITY): that stays as it is.
pub fn corrected(table: &Correction, side: Color, board: &Board, raw: i32) -> i32 {
    if params::correction_limit() == 0 || raw == -INFINITY {
        return raw;
    }
    let pawn = table.get(side, pawn_key(board));
    let weight = params::correction_nonpawn_weight();
    let c = if weight > 0 {
        blend(pawn, table.nonpawn(side, nonpawn_keys(board)), weight)
    } else {
        pawn
    };
    raw + c
}

/// The pawn structure's record and the two colours' non-pawn records (`nonpawn`, their sum)
/// blended, `weight` percent from the non-pawn ones (half each): every record is moved
/// toward the same whole difference, so the weights sum to 100 and an error all three have
/// learnt is corrected once, not two or three times, and the result stays within the limit.
fn blend(pawn: i32, nonpawn: i32, weight: i32) -> i32 {
    (pawn * (100 - weight) * 2 + nonpawn * weight) / 200
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
    fn nonpawn_keys_follow_each_colours_pieces_and_records_stay_apart() {
        let start = board("r3k3/pp6/8/8/8/8/PPP5/R3K3 w - - 0 1");
        let [w, b] = nonpawn_keys(&start);
        // Pawns do not change them; a white piece changes white's key only.
        assert_eq!(
            nonpawn_keys(&board("r3k3/pp6/8/8/8/P7/1PP5/R3K3 w - - 0 1")),
            [w, b]
        );
        let moved = nonpawn_keys(&board("r3k3/pp6/8/8/8/8/PPP5/3RK3 w - - 0 1"));
        assert_ne!(moved[0], w);
        assert_eq!(moved[1], b);
        // A rook and a queen on the same square are different pieces.
        assert_ne!(
            nonpawn_keys(&board("r3k3/8/8/8/8/8/8/Q3K3 w - - 0 1"))[0],
            nonpawn_keys(&board("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1"))[0]
        );
        // Records converge for the side to move and the keys given, the two colours summed.
        let mut c = Correction::default();
        for _ in 0..400 {
            c.update_nonpawn(Color::Black, [w, b], 10, -40, 96);
        }
        assert!((-80..=-78).contains(&c.nonpawn(Color::Black, [w, b])));
        assert_eq!(c.nonpawn(Color::White, [w, b]), 0);
        assert!((-40..=-39).contains(&c.nonpawn(Color::Black, moved)));
        // Beyond the limit, clipped; clear empties them.
        for _ in 0..400 {
            c.update_nonpawn(Color::Black, [w, b], 10, 5000, 96);
        }
        assert!((190..=192).contains(&c.nonpawn(Color::Black, [w, b])));
        c.clear();
        assert_eq!(c.nonpawn(Color::Black, [w, b]), 0);
        // The pawn structure's record is apart from them.
        assert_eq!(c.get(Color::Black, pawn_key(&start)), 0);
    }

    #[test]
    fn the_blend_corrects_a_shared_error_once_and_stays_within_the_limit() {
        // Every record has learnt the same 60 cp: the blend is 60 at any weight.
        for weight in [0, 25, 50, 100] {
            assert_eq!(blend(60, 120, weight), 60, "weight {weight}");
        }
        // Weight 0 is the pawn structure alone; 100 the non-pawn records alone (averaged).
        assert_eq!(blend(40, -100, 0), 40);
        assert_eq!(blend(40, -100, 100), -50);
        // Half and half: 20 from the pawns, -25 from the two others.
        assert_eq!(blend(40, -100, 50), -5);
        // Records at the limit give at most the limit.
        assert_eq!(blend(96, 192, 50), 96);
        assert_eq!(blend(-96, -192, 30), -96);
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
