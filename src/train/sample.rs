//! Training positions: a packed record turned into the White-view input indices, whose move
//! it is and the target probability, and the seeded shuffle that orders them into batches.

use shakmaty::Color;

use super::sigmoid;
use crate::eval::nnue::{self, SCALE};
use crate::packed::Record;
use crate::rng::Lcg;

/// One training position: the White-view input indices, whose move it is, and the target.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    features: [u16; 32],
    count: u8,
    black_to_move: bool,
    /// The target probability for the side to move.
    pub target: f32,
}

impl Sample {
    /// From a record: `wdl` is the weight of the game result against the search score.
    pub fn from_record(r: &Record, wdl: f32) -> Option<Sample> {
        let pieces = r.pieces()?;
        let mut features = [0u16; 32];
        for (i, (sq, piece)) in pieces.iter().enumerate() {
            features[i] = nnue::feature(Color::White, *sq, *piece) as u16;
        }
        let black_to_move = r.turn().is_black();
        let white_result = r.outcome()?.white_score();
        let result = if black_to_move {
            1.0 - white_result
        } else {
            white_result
        };
        let target = match r.score() {
            Some(cp) => wdl * result + (1.0 - wdl) * sigmoid(f32::from(cp) / SCALE as f32),
            None => result,
        };
        Some(Sample {
            features,
            count: pieces.len() as u8,
            black_to_move,
            target,
        })
    }

    /// Input indices for the side to move and for the other side.
    pub(super) fn perspectives(&self) -> (Vec<usize>, Vec<usize>) {
        let white: Vec<usize> = self.features[..usize::from(self.count)]
            .iter()
            .map(|&f| usize::from(f))
            .collect();
        let black: Vec<usize> = white.iter().map(|&f| nnue::flip_feature(f)).collect();
        if self.black_to_move {
            (black, white)
        } else {
            (white, black)
        }
    }
}

// Fisher-Yates with the run's generator, so a run is repeatable from its seed.
pub(super) fn shuffle(set: &mut [Sample], rng: &mut Lcg) {
    for i in (1..set.len()).rev() {
        let r = (rng.next_u31() << 31 | rng.next_u31()) as usize % (i + 1);
        set.swap(i, r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::testing::{SET, samples};

    #[test]
    fn targets_blend_the_score_and_the_result_for_the_side_to_move() {
        let s = samples(&SET, 0.25);
        // Black to move, lost (White won): the result for Black is 0.
        let expected = 0.75 * sigmoid(-900.0 / 400.0);
        assert!((s[1].target - expected).abs() < 1e-6);
        assert!((s[0].target - (0.25 * 0.5 + 0.75 * sigmoid(30.0 / 400.0))).abs() < 1e-6);
    }
}
