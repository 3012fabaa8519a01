//! Test positions shared by the trainer's unit tests: four FENs with a search score and a
//! game result (White's view), and the samples made from them.

use super::Sample;
use crate::basics::position::Game;
use crate::learn::packed::{Outcome, Record};

pub const SET: [(&str, i32, f32); 4] = [
    (
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        30,
        0.5,
    ),
    ("4k3/8/8/8/8/8/3QK3/8 b - - 0 1", -900, 1.0),
    ("8/8/3k4/8/4P3/4K3/8/8 w - - 0 1", 120, 1.0),
    (
        "rnb1kbnr/pppp1ppp/8/4p3/4P2q/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3",
        -850,
        0.0,
    ),
];

pub fn records(fens: &[(&str, i32, f32)]) -> Vec<Record> {
    fens.iter()
        .map(|(fen, score, result)| {
            let pos = Game::from_fen(fen, false).unwrap().pos;
            Record::pack(
                &pos,
                Some(*score),
                Outcome::from_white_score(*result),
                false,
            )
        })
        .collect()
}

pub fn samples(fens: &[(&str, i32, f32)], wdl: f32) -> Vec<Sample> {
    records(fens)
        .iter()
        .map(|r| Sample::from_record(r, wdl).unwrap())
        .collect()
}
