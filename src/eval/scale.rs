//! Endgame scaling: how much of an advantage the material left can win, out of
//! `FULL_SCALE`, so drawish endings (lone minor, two knights, opposite bishops, the wrong
//! rook pawn) score toward zero.

use shakmaty::{Bitboard, Board, Color, File, Role, Square};

use super::info::pieces;
use super::weights::Pair;
use super::{FULL_SCALE, taper};

/// Material of `color` without pawns, in pawn units (minor 3, rook 5, queen 9).
fn piece_units(board: &Board, color: Color) -> i32 {
    let n = |role| pieces(board, role, color).count() as i32;
    3 * (n(Role::Knight) + n(Role::Bishop)) + 5 * n(Role::Rook) + 9 * n(Role::Queen)
}

/// How much of an advantage for `strong` can be won, out of `FULL_SCALE`: drawish endgame
/// material is scaled toward zero.
fn endgame_scale(board: &Board, strong: Color) -> i32 {
    let weak = !strong;
    let strong_pawns = pieces(board, Role::Pawn, strong);
    let strong_units = piece_units(board, strong);
    let weak_units = piece_units(board, weak);
    if strong_pawns.is_empty() {
        // A single minor piece cannot mate; two knights cannot force it against a bare king.
        let knights = pieces(board, Role::Knight, strong).count();
        let weak_pawns = pieces(board, Role::Pawn, weak);
        if strong_units <= 3 || (strong_units == 6 && knights == 2 && weak_pawns.is_empty()) {
            return 0;
        }
        // A rook or minor piece against a minor piece (or less) without pawns is usually a
        // draw; with more material on the board an extra piece still wins.
        if strong_units <= 5 && strong_units - weak_units <= 3 {
            return FULL_SCALE / 8;
        }
    }
    let bishops = board.bishops();
    let only_bishops =
        (board.knights() | board.rooks() | board.queens()).is_empty() && bishops.count() == 2;
    if only_bishops {
        let (ours, theirs) = (
            pieces(board, Role::Bishop, strong),
            pieces(board, Role::Bishop, weak),
        );
        let light = |b: Bitboard| !(b & Bitboard::LIGHT_SQUARES).is_empty();
        if ours.count() == 1 && theirs.count() == 1 && light(ours) != light(theirs) {
            return FULL_SCALE / 2;
        }
    }
    if wrong_rook_pawn(board, strong) {
        return 0;
    }
    FULL_SCALE
}

/// King, bishop and pawns all on one rook file against a bare king that holds the corner the
/// bishop cannot cover: a draw.
fn wrong_rook_pawn(board: &Board, strong: Color) -> bool {
    let weak = !strong;
    let pawns = pieces(board, Role::Pawn, strong);
    let bishop = pieces(board, Role::Bishop, strong);
    let others = board.knights() | board.rooks() | board.queens();
    if pawns.is_empty()
        || bishop.count() != 1
        || !others.is_empty()
        || board.by_color(weak).count() != 1
    {
        return false;
    }
    let file = if (pawns & !Bitboard::from_file(File::A)).is_empty() {
        File::A
    } else if (pawns & !Bitboard::from_file(File::H)).is_empty() {
        File::H
    } else {
        return false;
    };
    let back = match strong {
        Color::White => shakmaty::Rank::Eighth,
        Color::Black => shakmaty::Rank::First,
    };
    let corner = Square::from_coords(file, back);
    let (Some(b), Some(k)) = (bishop.first(), pieces(board, Role::King, weak).first()) else {
        return false;
    };
    b.is_light() != corner.is_light() && k.distance(corner) <= 1
}

/// The scale for whichever side the blended score favours (at zero the scale cannot matter).
pub fn scale_for(board: &Board, total: Pair, phase: i32) -> i32 {
    let strong = if taper(total, phase) >= 0 {
        Color::White
    } else {
        Color::Black
    };
    endgame_scale(board, strong)
}

#[cfg(test)]
mod tests {
    use super::super::testing::pos;
    use super::*;
    use crate::eval::{breakdown, evaluate};

    #[test]
    fn known_drawn_endings_score_near_zero() {
        for fen in [
            // Two knights cannot force mate; a lone minor piece cannot win against pawns.
            "4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1",
            "4k3/8/8/8/8/8/4p3/2B1K3 w - - 0 1",
            "4k3/4p3/8/8/8/8/8/1N2K3 b - - 0 1",
            // The bishop does not cover a8, and the defending king holds it.
            "k7/8/8/8/8/8/P7/B3K3 w - - 0 1",
            "8/8/8/8/8/4k3/7p/4b2K w - - 0 1",
        ] {
            let p = pos(fen);
            assert_eq!(breakdown(&p).scale, 0, "{fen}");
            assert_eq!(evaluate(&p), 0, "{fen}");
        }
        // Rook against minor piece: scaled hard but not to zero.
        let rook_minor = pos("4k3/8/8/3b4/8/8/8/3RK3 w - - 0 1");
        assert_eq!(breakdown(&rook_minor).scale, FULL_SCALE / 8);
        assert!(evaluate(&rook_minor).abs() < 40);
        // Two bishops against a knight, an extra piece among heavy ones, and two knights
        // against pawns are left alone.
        for fen in [
            "4k3/8/8/3n4/8/8/8/2B1KB2 w - - 0 1",
            "r3k3/q7/8/8/8/8/8/R1BQK3 w - - 0 1",
            "4k3/4p3/8/8/8/8/8/1NN1K3 w - - 0 1",
        ] {
            assert_eq!(breakdown(&pos(fen)).scale, FULL_SCALE, "{fen}");
        }
        // The right bishop wins; bishops of opposite colours halve the advantage.
        assert_eq!(
            breakdown(&pos("k7/8/8/8/8/8/P7/1B2K3 w - - 0 1")).scale,
            FULL_SCALE
        );
        let ocb = breakdown(&pos("4k3/5p2/4b3/8/8/2B5/5PP1/4K3 w - - 0 1"));
        assert_eq!(ocb.scale, FULL_SCALE / 2);
        assert_eq!(ocb.white, taper(ocb.total(), ocb.phase) / 2);
    }
}
