//! Pawn terms: the pawn-only structure (doubled, isolated, backward, connected, passed),
//! the passed-pawn terms that depend on pieces and kings, and `PawnCache`, which keeps the
//! pawn-only part by exact pawn placement.

use shakmaty::{Bitboard, Board, Color, File, Role, attacks};

use super::info::{
    Info, adjacent_files, forward, front_span, pieces, ranks_ahead, relative_rank, sign,
};
use super::weights::{Features, Pair, Sum, param};

/// Pawn-only terms of `color`; returns its passed pawns.
pub fn structure(info: &Info, color: Color, f: &mut impl Features) -> Bitboard {
    let board = info.board;
    let ours = pieces(board, Role::Pawn, color);
    let theirs = pieces(board, Role::Pawn, !color);
    let their_attacks = info.side(!color).pawns;
    let mut passed = Bitboard::EMPTY;
    for file in File::ALL {
        let on_file = (ours & Bitboard::from_file(file)).count() as i32;
        if on_file > 1 {
            f.add(param::DOUBLED_PAWN, sign(color) * (on_file - 1));
        }
        if on_file > 0 && (ours & adjacent_files(file)).is_empty() {
            f.add(param::ISOLATED_PAWN, sign(color) * on_file);
        }
    }
    for sq in ours {
        let neighbours = ours & adjacent_files(sq.file());
        let beside = neighbours & Bitboard::from_rank(sq.rank());
        let guarded = !(attacks::pawn_attacks(!color, sq) & ours).is_empty();
        if guarded || !beside.is_empty() {
            f.add(param::CONNECTED_PAWN, sign(color));
        }
        let stop = Bitboard::from_square(sq).shift(forward(color));
        let supporters = neighbours & !ranks_ahead(sq, color);
        if !neighbours.is_empty() && supporters.is_empty() && !(stop & their_attacks).is_empty() {
            f.add(param::BACKWARD_PAWN, sign(color));
        }
        let ahead_on_file = Bitboard::from_file(sq.file()) & ranks_ahead(sq, color);
        if (front_span(sq, color) & theirs).is_empty() && (ahead_on_file & ours).is_empty() {
            let rank = relative_rank(sq, color);
            // Pawns stand on ranks 2 to 7 (index 1 to 6).
            if (1..=6).contains(&rank) {
                f.add(param::PASSED_PAWN + 2 * (rank - 1), sign(color));
                passed |= Bitboard::from_square(sq);
            }
        }
    }
    passed
}

/// Terms of passed pawns that depend on the pieces: a blocker in front, and which king is
/// nearer the square the pawn goes to next.
pub fn passed(info: &Info, color: Color, passed: Bitboard, f: &mut impl Features) {
    let (Some(own_king), Some(their_king)) = (info.side(color).king, info.side(!color).king) else {
        return;
    };
    for sq in passed {
        let Some(stop) = Bitboard::from_square(sq).shift(forward(color)).first() else {
            continue;
        };
        if info.board.occupied().contains(stop) {
            f.add(param::PASSED_BLOCKED, sign(color));
        }
        let advance = relative_rank(sq, color) as i32 - 1;
        let distance = their_king.distance(stop) as i32 - own_king.distance(stop) as i32;
        f.add(
            param::PASSED_KING_DISTANCE,
            sign(color) * advance * distance,
        );
    }
}

/// The pawn-only result for one pawn placement: the White-minus-Black pair and each side's
/// passed pawns.
#[derive(Clone, Copy, Default)]
pub struct PawnEntry {
    white: Bitboard,
    black: Bitboard,
    pub score: Pair,
    pub passed: [Bitboard; 2],
}

const PAWN_CACHE_SIZE: usize = 1 << 14;

/// Pawn-structure results by exact pawn placement (pawn-only terms depend on nothing
/// else). Each search thread owns one; the hit rate is high because pawns move rarely.
pub struct PawnCache {
    entries: Vec<PawnEntry>,
}

impl Default for PawnCache {
    fn default() -> Self {
        PawnCache {
            entries: vec![PawnEntry::default(); PAWN_CACHE_SIZE],
        }
    }
}

/// A key of both sides' pawns (not a Zobrist key): its high bits pick a table entry for the
/// pawn structure (this cache's, and the search's correction history's).
pub fn pawn_key(board: &Board) -> u64 {
    let white = (board.pawns() & board.white()).0;
    let black = (board.pawns() & board.black()).0;
    (white.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ black.rotate_left(29))
        .wrapping_mul(0xbf58_476d_1ce4_e5b9)
}

impl PawnCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// The entry for `info`'s pawns, computed and stored on a miss.
    pub fn probe(&mut self, info: &Info) -> PawnEntry {
        let white = pieces(info.board, Role::Pawn, Color::White);
        let black = pieces(info.board, Role::Pawn, Color::Black);
        let slot = (pawn_key(info.board) >> 50) as usize & (PAWN_CACHE_SIZE - 1);
        let e = self.entries[slot];
        // The all-zero entry of a board without pawns is correct as it is.
        if e.white == white && e.black == black {
            return e;
        }
        let fresh = compute(info);
        self.entries[slot] = fresh;
        fresh
    }
}

/// The pawn-only terms of both sides, summed.
pub fn compute(info: &Info) -> PawnEntry {
    let mut sum = Sum::default();
    let mut passed = [Bitboard::EMPTY; 2];
    for c in Color::ALL {
        passed[c as usize] = structure(info, c, &mut sum);
    }
    PawnEntry {
        white: pieces(info.board, Role::Pawn, Color::White),
        black: pieces(info.board, Role::Pawn, Color::Black),
        score: sum.total,
        passed,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::term;
    use super::*;
    use crate::eval::weight;

    #[test]
    fn structure_terms_score_as_they_should() {
        let (w, b) = (Color::White, Color::Black);
        // A passed, isolated pawn on the sixth; the kings are 3 and 6 steps from b7, and
        // the pawn has advanced four ranks.
        let passed6 = weight(param::PASSED_PAWN + 2 * 4);
        let isolated = weight(param::ISOLATED_PAWN);
        let king_distance = weight(param::PASSED_KING_DISTANCE) * (4 * (3 - 6));
        let expected = passed6 + isolated + king_distance;
        assert_eq!(
            term("4k3/8/1P6/8/8/8/8/4K3 w - - 0 1", "pawns", w),
            expected
        );
        assert_eq!(
            term("4k3/8/8/8/8/1p6/8/4K3 w - - 0 1", "pawns", b),
            expected
        );
        // With a piece in front it is also blocked.
        assert_eq!(
            term("4k3/1n6/1P6/8/8/8/8/4K3 w - - 0 1", "pawns", w),
            expected + weight(param::PASSED_BLOCKED)
        );
        // Doubled and isolated: only the front pawn of the two is passed.
        assert_eq!(
            term("4k3/p7/p7/8/8/8/8/4K3 w - - 0 1", "pawns", b),
            weight(param::DOUBLED_PAWN) + isolated * 2 + weight(param::PASSED_PAWN + 2)
        );
        // Connected pawns (side by side, and one guarding the other); a backward pawn whose
        // advance square an enemy pawn guards. None of them is passed.
        assert_eq!(
            term("4k3/8/2p1p3/8/8/8/3PP3/4K3 w - - 0 1", "pawns", w),
            weight(param::CONNECTED_PAWN) * 2
        );
        assert_eq!(
            term("4k3/8/8/2p5/8/2P5/1P6/4K3 w - - 0 1", "pawns", w),
            weight(param::CONNECTED_PAWN)
        );
        assert_eq!(
            term("4k3/8/1p6/4p3/2P5/3P4/8/4K3 w - - 0 1", "pawns", w),
            weight(param::CONNECTED_PAWN) + weight(param::BACKWARD_PAWN)
        );
    }
}
