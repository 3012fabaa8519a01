//! Piece terms: material, the square tables, mobility over safe squares, the bishop pair
//! and rooks on open files.

use shakmaty::{Bitboard, Color, Role};

use super::info::{Info, pieces, sign};
use super::weights::{Features, param};

/// Safe squares a piece is expected to reach, subtracted before mobility is weighted.
const MOBILITY_BASE: [i32; 4] = [4, 6, 7, 13];

pub fn material(info: &Info, color: Color, f: &mut impl Features) {
    for (i, role) in [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ]
    .into_iter()
    .enumerate()
    {
        let n = pieces(info.board, role, color).count() as i32;
        f.add(param::MATERIAL + 2 * i, sign(color) * n);
    }
}

pub fn squares(info: &Info, color: Color, f: &mut impl Features) {
    for role in Role::ALL {
        let r = role as usize - 1;
        for sq in pieces(info.board, role, color) {
            let seen = match color {
                Color::White => sq,
                Color::Black => sq.flip_vertical(),
            };
            f.add(param::PST + 2 * (64 * r + seen as usize), sign(color));
        }
    }
}

/// Each knight, bishop, rook and queen: the squares it reaches that hold no piece of ours
/// and no enemy pawn guards, beyond a typical count.
pub fn mobility(info: &Info, color: Color, f: &mut impl Features) {
    let targets = !info.board.by_color(color) & !info.side(!color).pawns;
    for reach in info.side(color).reaches() {
        let safe = (reach.attacks & targets).count() as i32;
        f.add(
            param::MOBILITY + 2 * reach.kind,
            sign(color) * (safe - MOBILITY_BASE[reach.kind]),
        );
    }
}

/// The bishop pair, and rooks on files without pawns or without pawns of their own side.
pub fn placement(info: &Info, color: Color, f: &mut impl Features) {
    let board = info.board;
    if pieces(board, Role::Bishop, color).more_than_one() {
        f.add(param::BISHOP_PAIR, sign(color));
    }
    let our_pawns = pieces(board, Role::Pawn, color);
    let all_pawns = board.pawns();
    for sq in pieces(board, Role::Rook, color) {
        let file = Bitboard::from_file(sq.file());
        if (file & all_pawns).is_empty() {
            f.add(param::ROOK_OPEN_FILE, sign(color));
        } else if (file & our_pawns).is_empty() {
            f.add(param::ROOK_HALF_OPEN_FILE, sign(color));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::term;
    use super::*;
    use crate::eval::weight;

    #[test]
    fn the_bishop_pair_and_rooks_on_open_files_score() {
        let w = Color::White;
        // The bishop pair is worth more than bishop and knight on the same squares.
        let two_bishops = term("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", "pieces", w);
        let single = term("4k3/8/8/8/8/8/8/2N1KB2 w - - 0 1", "pieces", w);
        assert_eq!(two_bishops - single, weight(param::BISHOP_PAIR));
        // A rook on an open file, and one on a file with only enemy pawns.
        let open = term("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "pieces", w);
        assert_eq!(open, weight(param::ROOK_OPEN_FILE));
        let half = term("4k3/p7/8/8/8/8/8/R3K3 w - - 0 1", "pieces", w);
        assert_eq!(half, weight(param::ROOK_HALF_OPEN_FILE));
    }
}
