//! The NNUE network: its inputs (`features.rs`: 768 per side, colour x piece x square, from
//! that side's view), the quantised file format `ferrum train` writes (`format.rs`), and the
//! output layer over the first layer's sums (`inference.rs`; `accumulator.rs` makes the sums
//! and evaluates a position afresh). Here: the network as loaded and its limits.
//!
//! Layout: 768 -> H (one weight matrix shared by both perspectives) -> the side to move's H
//! and the other side's H, concatenated -> 1. Activation CReLU (clamp to [0, 1]) or SCReLU
//! (its square). Quantised with QA = 255 for the first layer and QB = 64 for the output.
//!
//! The output layer may come in B buckets, one per range of the number of pieces on the
//! board (`bucket`); a position is scored by its own bucket's weights.
//!
//! The inputs may depend on where the perspective's own king stands (`KingLayout`, format
//! version 2): K buckets of the king's square, each with its own 768 inputs, and the files
//! mirrored when that king is on files e-h. Version 1 files (the first nets) have none.
//!
//! The file layout is in `format.rs`.

mod features;
mod format;
mod inference;

pub use features::{INPUTS, KingLayout, View, feature};
pub use format::{MAX_FILE_BYTES, read_net_bytes, read_net_bytes_within};
pub use inference::add_row;
#[cfg(target_arch = "x86_64")]
pub(crate) use inference::has_avx2;

pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// The network's output times this is centipawns.
pub const SCALE: i32 = 400;
/// The most a net's output says either way, in centipawns: a net file may hold any output
/// weights and bias, and the search's scores above this are tablebase wins and mates.
pub const OUTPUT_LIMIT: i64 = 30_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    CReLU,
    SCReLU,
}

impl Activation {
    pub fn parse(name: &str) -> Result<Activation, String> {
        match name.to_ascii_lowercase().as_str() {
            "crelu" => Ok(Activation::CReLU),
            "screlu" => Ok(Activation::SCReLU),
            _ => Err(format!("unknown activation '{name}' (crelu or screlu)")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Activation::CReLU => "crelu",
            Activation::SCReLU => "screlu",
        }
    }
}

/// A quantised network, as read from a net file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    pub hidden: usize,
    pub activation: Activation,
    /// Inputs by the perspective's king (`KingLayout::NONE` in version 1 files).
    pub kings: KingLayout,
    pub settings_hash: u64,
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    /// Output buckets (1 to `MAX_BUCKETS`): `w2` has 2H weights and `b2` one bias each.
    pub buckets: usize,
    pub w2: Vec<i16>,
    pub b2: Vec<i32>,
    /// Every output weight lies within ±`NARROW_W2` (see `narrow_w2`), so SCReLU's sums may
    /// take the faster i16 products.
    pub narrow_w2: bool,
}

/// The most output buckets a net may have.
pub const MAX_BUCKETS: usize = 8;

/// The output bucket of a position with `pieces` pieces (kings included, 2 to 32) among
/// `buckets`: equal ranges of the 31 piece counts, the fewest pieces first.
#[inline]
pub fn bucket(pieces: usize, buckets: usize) -> usize {
    (pieces.saturating_sub(2) * buckets / 31).min(buckets - 1)
}

/// The largest output weight (in size) for which clamp(a)·w fits an i16: 255 x 128 = 32,640.
pub const NARROW_W2: i16 = 128;

/// The most pieces a chess position has: the most first-layer rows a sum adds to its bias.
pub const MAX_PIECES: i32 = 32;

/// The largest first-layer weight or bias (in size) the trainer writes: 33 of them stay within
/// an i16, so every net it makes has sums that fit.
pub const MAX_W1: i16 = 990;

/// The first hidden neuron whose sum could leave the i16 range in some position (its bias
/// and `MAX_PIECES` times its largest input weight, in size), with that bound; `None` when
/// every sum fits, as the accumulators' 16-bit sums need.
pub fn widest_sum(hidden: usize, w1: &[i16], b1: &[i16]) -> Option<(usize, i32)> {
    if hidden == 0 {
        return None;
    }
    let mut widest = vec![0i32; hidden];
    for row in w1.chunks(hidden) {
        for (m, &w) in widest.iter_mut().zip(row) {
            *m = (*m).max(i32::from(w).abs());
        }
    }
    widest
        .iter()
        .zip(b1)
        .map(|(&m, &b)| i32::from(b).abs() + MAX_PIECES * m)
        .enumerate()
        .find(|&(_, bound)| bound > i32::from(i16::MAX))
}

/// Whether every output weight is narrow enough for the i16 products of `screlu_dot_narrow`.
pub fn narrow_w2(w2: &[i16]) -> bool {
    w2.iter().all(|w| w.unsigned_abs() <= NARROW_W2 as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Output weights within ±128 take the narrow path, others not.
    #[test]
    fn narrow_output_weights_are_told_apart() {
        assert!(narrow_w2(&[128, -128, 0, 7]));
        assert!(!narrow_w2(&[3, 129]));
        assert!(!narrow_w2(&[-129]));
        assert!(!narrow_w2(&[i16::MIN]));
    }

    #[test]
    fn buckets_split_the_piece_counts_evenly_fewest_first() {
        for pieces in 2..=32 {
            assert_eq!(bucket(pieces, 1), 0);
        }
        // Eight buckets: 2-5 pieces in the first, 30-32 in the last.
        let eight: Vec<usize> = (2..=32).map(|p| bucket(p, 8)).collect();
        assert_eq!(&eight[..5], &[0, 0, 0, 0, 1]);
        assert_eq!(&eight[eight.len() - 4..], &[6, 7, 7, 7]);
        assert!(eight.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
        for b in 0..8 {
            let n = eight.iter().filter(|&&x| x == b).count();
            assert!((3..=5).contains(&n), "bucket {b}: {n} counts");
        }
        // Counts a chess position cannot have stay in range.
        assert_eq!((bucket(0, 8), bucket(40, 8)), (0, 7));
    }
}
