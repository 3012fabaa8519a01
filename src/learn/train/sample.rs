//! Training positions: a packed record turned into the White-view input indices, whose move
//! it is and the target probability, and the seeded shuffle that orders them into batches.

use shakmaty::Color;

use super::sigmoid;
use crate::basics::rng::Lcg;
use crate::eval::nnue::{self, KingLayout, SCALE};

/// An input index with its square mirrored left to right (files a and h swapped).
fn mirror_feature(index: usize) -> usize {
    index ^ 7
}

/// White's input index of a piece turned into Black's.
fn flip_feature(white: usize) -> usize {
    let (theirs, rest) = (white / 384, white % 384);
    (1 - theirs) * 384 + (rest / 64) * 64 + ((rest % 64) ^ 56)
}
use crate::learn::packed::Record;

/// One training position: the White-view input indices, whose move it is, and the target.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    features: [u16; 32],
    count: u8,
    black_to_move: bool,
    /// Whether either side may castle (a mirrored copy would be another position).
    castling: bool,
    /// The target probability for the side to move.
    pub target: f32,
}

impl Sample {
    /// From a record: `wdl` is the weight of the game result against the search score.
    /// `None` for a record that cannot be a chess position's: unreadable, or without one
    /// king of each colour (king buckets read each side's king).
    pub fn from_record(r: &Record, wdl: f32) -> Option<Sample> {
        let pieces = r.pieces()?;
        for color in Color::ALL {
            let kings = pieces
                .iter()
                .filter(|(_, p)| p.color == color && p.role == shakmaty::Role::King)
                .count();
            if kings != 1 {
                return None;
            }
        }
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
            castling: r.has_castling(),
            target,
        })
    }

    /// The position mirrored left to right (files a and h swapped), which is worth the same
    /// when neither side may castle; `None` while castling rights remain.
    pub fn mirrored(&self) -> Option<Sample> {
        if self.castling {
            return None;
        }
        let mut m = *self;
        for f in &mut m.features[..usize::from(self.count)] {
            *f = mirror_feature(usize::from(*f)) as u16;
        }
        Some(m)
    }

    /// How many pieces the position has (kings included).
    pub(super) fn pieces(&self) -> usize {
        usize::from(self.count)
    }

    /// Input indices for the side to move and for the other side, laid out by `kings` (each
    /// perspective's inputs in its own king's bucket, mirrored when that king is on e-h).
    pub(super) fn perspectives(&self, kings: KingLayout) -> (Vec<usize>, Vec<usize>) {
        let mut white: Vec<usize> = self.features[..usize::from(self.count)]
            .iter()
            .map(|&f| usize::from(f))
            .collect();
        let mut black: Vec<usize> = white.iter().map(|&f| flip_feature(f)).collect();
        if kings.count() > 0 {
            // A perspective's own king is one of the 64 features from its king on a1 (seen
            // from its own side); a position without one takes a1's view.
            let own_king = nnue::feature(
                Color::White,
                shakmaty::Square::A1,
                shakmaty::Piece {
                    color: Color::White,
                    role: shakmaty::Role::King,
                },
            );
            for side in [&mut white, &mut black] {
                let king = side
                    .iter()
                    .find(|&&f| (own_king..own_king + 64).contains(&f))
                    .map_or(0, |&f| f - own_king);
                let view = kings.view(shakmaty::Square::new(king as u32));
                for f in side.iter_mut() {
                    *f = view.index(*f);
                }
            }
        }
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
    use crate::learn::train::testing::{SET, samples};

    #[test]
    fn a_flipped_feature_is_the_same_piece_seen_by_the_other_side() {
        for f in 0..nnue::INPUTS {
            assert_eq!(flip_feature(flip_feature(f)), f);
            assert_eq!(mirror_feature(mirror_feature(f)), f);
        }
        // White's knight on g1 is, for Black, an enemy knight on its own side's g8.
        assert_eq!(flip_feature(64 + 6), 384 + 64 + 62);
        // Mirrored, a knight on g1 stands on b1.
        assert_eq!(mirror_feature(64 + 6), 64 + 1);
    }

    #[test]
    fn a_mirrored_sample_is_the_mirrored_position_and_castling_ones_are_kept_as_they_are() {
        let fen = "4k3/1p6/8/8/3N4/8/5PK1/8 w - - 0 40";
        let mirror = "3k4/6p1/8/8/4N3/8/1KP5/8 w - - 0 40";
        let (a, b) = (
            samples(&[(fen, 55, 1.0)], 0.3),
            samples(&[(mirror, 55, 1.0)], 0.3),
        );
        let m = a[0].mirrored().expect("no castling rights");
        let sorted = |s: &Sample| {
            let (mut us, mut them) = s.perspectives(KingLayout::NONE);
            us.sort_unstable();
            them.sort_unstable();
            (us, them)
        };
        assert_eq!(sorted(&m), sorted(&b[0]));
        assert_eq!(m.target, b[0].target);
        assert_ne!(sorted(&m), sorted(&a[0]));
        let start = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert!(samples(&[(start, 20, 0.5)], 0.3)[0].mirrored().is_none());
    }

    #[test]
    fn targets_blend_the_score_and_the_result_for_the_side_to_move() {
        let s = samples(&SET, 0.25);
        // Black to move, lost (White won): the result for Black is 0.
        let expected = 0.75 * sigmoid(-900.0 / 400.0);
        assert!((s[1].target - expected).abs() < 1e-6);
        assert!((s[0].target - (0.25 * 0.5 + 0.75 * sigmoid(30.0 / 400.0))).abs() < 1e-6);
    }
}
