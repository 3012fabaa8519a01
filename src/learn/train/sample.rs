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
        let mut features = [0u16; 32];
        let mut kings = [0u8; 2];
        let mut count = 0;
        for (i, entry) in r.piece_iter()?.enumerate() {
            let (sq, piece) = entry?;
            if piece.role == shakmaty::Role::King {
                kings[usize::from(piece.color.is_black())] += 1;
            }
            features[i] = nnue::feature(Color::White, sq, piece) as u16;
            count = i + 1;
        }
        if kings != [1, 1] {
            return None;
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
            count: count as u8,
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
    #[cfg(test)]
    pub(super) fn perspectives(&self, kings: KingLayout) -> (Vec<usize>, Vec<usize>) {
        let mut f = Features::default();
        self.features_into(kings, &mut f);
        (f.ours().to_vec(), f.theirs().to_vec())
    }

    /// As `perspectives`, into `f` (no allocation).
    #[inline(always)]
    pub(super) fn features_into(&self, kings: KingLayout, f: &mut Features) {
        let n = usize::from(self.count);
        f.count = n;
        let (white, black) = if self.black_to_move {
            (&mut f.theirs, &mut f.ours)
        } else {
            (&mut f.ours, &mut f.theirs)
        };
        for (i, &x) in self.features[..n].iter().enumerate() {
            white[i] = usize::from(x);
            black[i] = flip_feature(usize::from(x));
        }
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
            for side in [&mut f.ours, &mut f.theirs] {
                let king = side[..n]
                    .iter()
                    .find(|&&x| (own_king..own_king + 64).contains(&x))
                    .map_or(0, |&x| x - own_king);
                let view = kings.view(shakmaty::Square::new(king as u32));
                for x in side[..n].iter_mut() {
                    *x = view.index(*x);
                }
            }
        }
    }
}

/// A sample's input indices for the side to move (`ours`) and the other side, reused from
/// sample to sample.
#[derive(Default)]
pub(super) struct Features {
    ours: [usize; 32],
    theirs: [usize; 32],
    count: usize,
}

impl Features {
    pub(super) fn ours(&self) -> &[usize] {
        &self.ours[..self.count]
    }
    pub(super) fn theirs(&self) -> &[usize] {
        &self.theirs[..self.count]
    }
}

/// An entry of `Positions`: a record's index, with this bit set for its mirrored copy.
const MIRRORED: u32 = 1 << 31;

/// The training positions as their packed records (32 bytes each) and one 4-byte entry per
/// position to train on (a mirrored copy is an entry of its own): a sample is decoded when
/// its batch comes, so 50 M positions take about 2 GB, not the 6 GB their samples would.
pub struct Positions {
    records: Vec<Record>,
    entries: Vec<u32>,
    wdl: f32,
}

/// What `Positions::split` kept and set aside.
pub struct Split {
    pub train: Positions,
    /// The held-out tail, decoded once.
    pub valid: Vec<Sample>,
    /// Records that are no chess position's (skipped).
    pub unreadable: usize,
    /// Mirrored copies added.
    pub mirrored: usize,
}

impl Positions {
    /// The readable records of `records`, the last `hold_out` of them held out; with
    /// `mirror`, each training position without castling rights also enters mirrored, in
    /// the order the originals come, after them all.
    pub fn split(
        records: Vec<Record>,
        wdl: f32,
        hold_out: f64,
        mirror: bool,
    ) -> Result<Split, String> {
        if records.len() >= MIRRORED as usize {
            return Err(format!(
                "train: {} records are more than the {} one run can take",
                records.len(),
                MIRRORED
            ));
        }
        let mut readable: Vec<u32> = Vec::with_capacity(records.len());
        for (i, r) in records.iter().enumerate() {
            if Sample::from_record(r, wdl).is_some() {
                readable.push(i as u32);
            }
        }
        let unreadable = records.len() - readable.len();
        let keep = readable.len() - (readable.len() as f64 * hold_out) as usize;
        let valid: Vec<Sample> = readable[keep..]
            .iter()
            .filter_map(|&i| Sample::from_record(&records[i as usize], wdl))
            .collect();
        readable.truncate(keep);
        let mut mirrored = 0;
        if mirror {
            let count = readable.len();
            for k in 0..count {
                let i = readable[k];
                if !records[i as usize].has_castling() {
                    readable.push(i | MIRRORED);
                    mirrored += 1;
                }
            }
        }
        Ok(Split {
            train: Positions {
                records,
                entries: readable,
                wdl,
            },
            valid,
            unreadable,
            mirrored,
        })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The `k`th position in the current order (None only for an index out of range).
    #[inline]
    pub fn sample(&self, k: usize) -> Option<Sample> {
        let e = *self.entries.get(k)?;
        let s = Sample::from_record(self.records.get((e & !MIRRORED) as usize)?, self.wdl)?;
        if e & MIRRORED != 0 {
            s.mirrored()
        } else {
            Some(s)
        }
    }

    /// Every position in the current order, decoded (for the tests).
    #[cfg(test)]
    pub fn samples(&self) -> Vec<Sample> {
        (0..self.len()).filter_map(|k| self.sample(k)).collect()
    }

    pub(super) fn shuffle(&mut self, rng: &mut Lcg) {
        shuffle(&mut self.entries, rng);
    }
}

// Fisher-Yates with the run's generator, so a run is repeatable from its seed.
fn shuffle<T>(set: &mut [T], rng: &mut Lcg) {
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
    fn positions_hold_out_the_tail_skip_unreadable_records_and_add_mirrors_last() {
        use crate::learn::train::testing::records;
        let mut all = records(&SET);
        // A record with no pieces at all: no king of either colour, so no position.
        all.insert(1, Record([0; 32]));
        let split = Positions::split(all, 0.3, 0.25, true).unwrap();
        assert_eq!((split.unreadable, split.valid.len()), (1, 1));
        let expect = samples(&SET, 0.3);
        // The last readable record is held out; the first three train, and those of them
        // without castling rights (the second and third) come again mirrored, in order.
        assert_eq!(split.mirrored, 2);
        assert_eq!(split.valid[0].target, expect[3].target);
        let got = split.train.samples();
        assert_eq!(got.len(), 5);
        let features = |s: &Sample| s.perspectives(KingLayout::NONE);
        for (g, e) in got.iter().zip(&expect[..3]) {
            assert_eq!(features(g), features(e));
        }
        for (g, e) in got[3..].iter().zip(&expect[1..3]) {
            assert_eq!(features(g), features(&e.mirrored().unwrap()));
        }
        let mut shuffled = split.train;
        shuffled.shuffle(&mut Lcg(5));
        let mut a: Vec<_> = shuffled.samples().iter().map(features).collect();
        let mut b: Vec<_> = got.iter().map(features).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
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
