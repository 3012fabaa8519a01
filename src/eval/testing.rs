//! Helpers the evaluation's unit tests share: positions from FEN, colour-flipped twins, and
//! one feature's or one report group's value.

use shakmaty::{CastlingMode, Chess, Color, FromSetup, Position, fen::Fen};

use super::{Pair, breakdown, trace};

pub fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// The same position with colours swapped and the board mirrored top to bottom.
pub fn colour_flip(fen: &str) -> Chess {
    let p = pos(fen);
    let mut setup = p.to_setup(shakmaty::EnPassantMode::Legal);
    setup.mirror();
    Chess::from_setup(setup, CastlingMode::Standard).unwrap()
}

/// The count (White minus Black) of the feature at `index`.
pub fn feature_count(fen: &str, index: usize) -> i32 {
    let (_, _, t) = trace(&pos(fen));
    t.counts
        .iter()
        .filter(|(i, _)| *i == index)
        .map(|(_, c)| c)
        .sum()
}

/// A group of terms of one colour, from that colour's point of view.
pub fn term(fen: &str, name: &str, color: Color) -> Pair {
    breakdown(&pos(fen)).term(name)[color as usize ^ 1]
}
