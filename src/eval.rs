//! Static evaluation, always from the side to move. For now: material only.

use shakmaty::{Chess, Color, Position, Role};

/// Centipawn value of each piece type; the king has none (it is never traded).
pub const fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// Material balance, positive when the side to move is ahead.
pub fn evaluate(pos: &Chess) -> i32 {
    let board = pos.board();
    let mut white_minus_black = 0;
    for role in Role::ALL {
        let pieces = board.by_role(role);
        let diff =
            (pieces & board.white()).count() as i32 - (pieces & board.black()).count() as i32;
        white_minus_black += diff * piece_value(role);
    }
    match pos.turn() {
        Color::White => white_minus_black,
        Color::Black => -white_minus_black,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn score_is_from_the_side_to_move() {
        assert_eq!(evaluate(&Chess::default()), 0);
        // White is a knight up.
        assert_eq!(evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 w - - 0 1")), 320);
        assert_eq!(evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 b - - 0 1")), -320);
    }

    #[test]
    fn mirrored_position_scores_the_same_for_the_side_to_move() {
        let a = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let b = pos("rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4");
        assert_eq!(evaluate(&a), evaluate(&b));
    }
}
