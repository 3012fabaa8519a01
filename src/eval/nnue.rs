//! The NNUE network: its inputs (768 per side: colour x piece x square, from that side's
//! view), the quantised file format `ferrum train` writes, and the output layer over the
//! first layer's sums (which `accumulator.rs` makes; it also evaluates a position afresh).
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
//! File (little-endian): the header below (24 bytes in version 1, 32 in version 2), then w1
//! (768K x H i16, a row per input, bucket by bucket), b1 (H i16), w2 (B x 2H i16, bucket by
//! bucket, the side to move's half first), b2 (B i32).
//! ```text
//!  0..4   b"FRNN"      4..6  format version (1, 2)  6  activation (0 CReLU, 1 SCReLU)
//!  7      B (0 is 1)   8..10 H                      10..12 output scale (centipawns)
//! 12..14  QA           14..16 QB                    16..24 hash of the training settings
//! 24      K (version 2 only; 1, 2 or 4)             25..32 zero (version 2 only)
//! ```

use shakmaty::{Board, Color, File, Piece, Square};

/// The inputs of one king bucket (all of them in a net without king buckets).
pub const INPUTS: usize = 768;
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// The network's output times this is centipawns.
pub const SCALE: i32 = 400;
const MAGIC: &[u8; 4] = b"FRNN";
const VERSION: u16 = 1;
/// The format of nets with king buckets: the header has 8 more bytes.
const VERSION_KINGS: u16 = 2;
const HEADER_BYTES: usize = 24;
const HEADER_BYTES_KINGS: usize = 32;

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

    /// The activation of a float pre-activation.
    #[inline(always)]
    pub fn apply(self, x: f32) -> f32 {
        let c = x.clamp(0.0, 1.0);
        match self {
            Activation::CReLU => c,
            Activation::SCReLU => c * c,
        }
    }

    /// Its derivative (0 where clamped).
    #[inline(always)]
    pub fn slope(self, x: f32) -> f32 {
        if x <= 0.0 || x >= 1.0 {
            0.0
        } else {
            match self {
                Activation::CReLU => 1.0,
                Activation::SCReLU => 2.0 * x,
            }
        }
    }
}

/// The input index of `piece` on `sq` seen from `perspective`: its own pieces first, and
/// Black's view flipped so that its first rank is rank 1.
pub fn feature(perspective: Color, sq: Square, piece: Piece) -> usize {
    let theirs = usize::from(piece.color != perspective);
    let sq = if perspective.is_white() {
        sq as usize
    } else {
        sq as usize ^ 56
    };
    theirs * 384 + (piece.role as usize - 1) * 64 + sq
}

/// How a perspective's inputs depend on its own king: `NONE` (the first nets: 768 inputs), or
/// the board seen with files mirrored whenever that king stands on files e-h, so that it is
/// always on a-d, and the 768 inputs repeated for each of 1, 2 or 4 buckets of the king's
/// mirrored square (seen from its own side, its first rank being rank 1):
/// - 1: one bucket (mirroring only);
/// - 2: the king on its first rank, or off it;
/// - 4: a1-b1 (castled short, mirrored, or long to b1), c1-d1 (at home or castled long), the
///   second rank, ranks 3-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct KingLayout(u8);

/// Where a perspective's inputs lie for its king's square: `index` of an input of
/// `feature` is its bucket's offset plus the feature with its file mirrored or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct View {
    base: u16,
    flip: u16,
}

impl View {
    /// The first nets' inputs: the feature itself.
    pub const PLAIN: View = View { base: 0, flip: 0 };

    #[inline(always)]
    pub fn index(self, feature: usize) -> usize {
        usize::from(self.base) + (feature ^ usize::from(self.flip))
    }
}

impl KingLayout {
    pub const NONE: KingLayout = KingLayout(0);

    /// The layout of `buckets` king buckets (0: none; 1, 2 or 4).
    pub fn new(buckets: usize) -> Result<KingLayout, String> {
        match buckets {
            0 | 1 | 2 | 4 => Ok(KingLayout(buckets as u8)),
            _ => Err(format!(
                "unsupported king buckets {buckets} (0 for none, 1, 2 or 4)"
            )),
        }
    }

    /// The number of king buckets (0 when the inputs do not depend on the king).
    pub fn count(self) -> usize {
        usize::from(self.0)
    }

    /// The first layer's rows: 768 per bucket.
    pub fn inputs(self) -> usize {
        INPUTS * self.count().max(1)
    }

    /// The view of a perspective whose king stands on `king`, seen from that side (Black's
    /// view flipped so that its first rank is rank 1, as `feature` does).
    #[inline]
    pub fn view(self, king: Square) -> View {
        if self.0 == 0 {
            return View::PLAIN;
        }
        let flip = if king.file() >= File::E { 7 } else { 0 };
        let k = king as usize ^ flip;
        let (rank, file) = (k / 8, k % 8);
        let bucket = match self.0 {
            1 => 0,
            2 => usize::from(rank > 0),
            _ => match (rank, file) {
                (0, 0 | 1) => 0,
                (0, _) => 1,
                (1, _) => 2,
                _ => 3,
            },
        };
        // At most 3 x 768 and 7: both fit 16 bits, so a pair of views is one word to copy.
        View {
            base: (bucket * INPUTS) as u16,
            flip: flip as u16,
        }
    }

    /// The view of `perspective` on `board` (a board without that king takes a1's).
    #[inline]
    pub fn view_of(self, perspective: Color, board: &Board) -> View {
        if self.0 == 0 {
            return View::PLAIN;
        }
        self.view_at(
            perspective,
            board.king_of(perspective).unwrap_or(Square::A1),
        )
    }

    /// The view of `perspective` with its king on `king` (a square of the board).
    #[inline]
    pub fn view_at(self, perspective: Color, king: Square) -> View {
        self.view(oriented(perspective, king))
    }
}

/// A square seen from `perspective`: Black's flipped so that its first rank is rank 1.
#[inline(always)]
fn oriented(perspective: Color, sq: Square) -> Square {
    if perspective.is_white() {
        sq
    } else {
        sq.flip_vertical()
    }
}

/// An index with its square mirrored left to right (files a and h swapped).
pub fn mirror_feature(index: usize) -> usize {
    index ^ 7
}

/// White's index of a piece turned into Black's.
pub fn flip_feature(white: usize) -> usize {
    let (theirs, rest) = (white / 384, white % 384);
    (1 - theirs) * 384 + (rest / 64) * 64 + ((rest % 64) ^ 56)
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

fn take<const N: usize>(bytes: &[u8], at: &mut usize) -> Result<[u8; N], String> {
    let slice = bytes
        .get(*at..*at + N)
        .ok_or_else(|| format!("net file too short at byte {at}"))?;
    *at += N;
    let mut out = [0u8; N];
    out.copy_from_slice(slice);
    Ok(out)
}

fn take_i16s(bytes: &[u8], at: &mut usize, n: usize) -> Result<Vec<i16>, String> {
    (0..n)
        .map(|_| take::<2>(bytes, at).map(i16::from_le_bytes))
        .collect()
}

impl Network {
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        let mut at = 0;
        if &take::<4>(bytes, &mut at)? != MAGIC {
            return Err("not a Ferrum net file (bad magic)".to_string());
        }
        let version = u16::from_le_bytes(take(bytes, &mut at)?);
        if version != VERSION && version != VERSION_KINGS {
            return Err(format!(
                "net format version {version}, expected {VERSION} or {VERSION_KINGS}"
            ));
        }
        let activation = match take::<1>(bytes, &mut at)?[0] {
            0 => Activation::CReLU,
            1 => Activation::SCReLU,
            a => return Err(format!("unknown activation code {a}")),
        };
        let buckets = usize::from(take::<1>(bytes, &mut at)?[0]).max(1);
        if buckets > MAX_BUCKETS {
            return Err(format!(
                "unsupported net: {buckets} output buckets (at most {MAX_BUCKETS})"
            ));
        }
        let hidden = usize::from(u16::from_le_bytes(take(bytes, &mut at)?));
        let scale = i32::from(u16::from_le_bytes(take(bytes, &mut at)?));
        let qa = i32::from(u16::from_le_bytes(take(bytes, &mut at)?));
        let qb = i32::from(u16::from_le_bytes(take(bytes, &mut at)?));
        if (scale, qa, qb) != (SCALE, QA, QB) || hidden == 0 {
            return Err(format!(
                "unsupported net: hidden {hidden}, scale {scale}, QA {qa}, QB {qb}"
            ));
        }
        let settings_hash = u64::from_le_bytes(take(bytes, &mut at)?);
        let (kings, header) = if version == VERSION_KINGS {
            let extra = take::<8>(bytes, &mut at)?;
            let kings = match extra[0] {
                k @ (1 | 2 | 4) => KingLayout(k),
                k => return Err(format!("unsupported net: {k} king buckets (1, 2 or 4)")),
            };
            if extra[1..].iter().any(|&b| b != 0) {
                return Err("unsupported net: header bytes 25-31 are not zero".to_string());
            }
            (kings, HEADER_BYTES_KINGS)
        } else {
            (KingLayout::NONE, HEADER_BYTES)
        };
        let inputs = kings.inputs();
        let expected = header + 2 * (inputs * hidden + hidden + buckets * 2 * hidden) + 4 * buckets;
        if bytes.len() != expected {
            return Err(format!(
                "net file is {} bytes, expected {expected} for hidden size {hidden}, {} king \
                 bucket(s) and {buckets} output bucket(s)",
                bytes.len(),
                kings.count()
            ));
        }
        let w1 = take_i16s(bytes, &mut at, inputs * hidden)?;
        let b1 = take_i16s(bytes, &mut at, hidden)?;
        let w2 = take_i16s(bytes, &mut at, buckets * 2 * hidden)?;
        let mut b2 = Vec::with_capacity(buckets);
        for _ in 0..buckets {
            b2.push(i32::from_le_bytes(take(bytes, &mut at)?));
        }
        if let Some((neuron, bound)) = widest_sum(hidden, &w1, &b1) {
            return Err(format!(
                "unsupported net: hidden neuron {neuron}'s sum could reach {bound}, beyond the \
                 16-bit sums' {} (its bias and {MAX_PIECES} of its largest input weight)",
                i16::MAX
            ));
        }
        Ok(Network {
            hidden,
            activation,
            kings,
            settings_hash,
            w1,
            b1,
            buckets,
            narrow_w2: narrow_w2(&w2),
            w2,
            b2,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER_BYTES_KINGS
                + 2 * (self.w1.len() + self.b1.len() + self.w2.len())
                + 4 * self.b2.len(),
        );
        out.extend_from_slice(MAGIC);
        // Nets without king buckets keep the first format, byte for byte.
        let kings = self.kings != KingLayout::NONE;
        let version = if kings { VERSION_KINGS } else { VERSION };
        out.extend_from_slice(&version.to_le_bytes());
        out.push(match self.activation {
            Activation::CReLU => 0,
            Activation::SCReLU => 1,
        });
        // One bucket is written as 0, so such files are those of the first nets byte for byte.
        out.push(if self.buckets > 1 {
            self.buckets as u8
        } else {
            0
        });
        for v in [self.hidden as i32, SCALE, QA, QB] {
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        out.extend_from_slice(&self.settings_hash.to_le_bytes());
        if kings {
            out.push(self.kings.0);
            out.extend_from_slice(&[0; HEADER_BYTES_KINGS - HEADER_BYTES - 1]);
        }
        for w in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.b2 {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out
    }

    /// What the net is, for `info string` and `ferrum eval`: "hidden 64, screlu" (and its king
    /// buckets and ", 8 output buckets" when it has them).
    pub fn describe(&self) -> String {
        let buckets = if self.buckets > 1 {
            format!(", {} output buckets", self.buckets)
        } else {
            String::new()
        };
        let kings = match self.kings.count() {
            0 => String::new(),
            1 => ", files mirrored by the king".to_string(),
            k => format!(", {k} king buckets (files mirrored)"),
        };
        format!(
            "hidden {}, {}{kings}{buckets}",
            self.hidden,
            self.activation.name()
        )
    }

    /// The first-layer weights of input `index`, one per hidden neuron.
    #[inline]
    pub fn row(&self, index: usize) -> &[i16] {
        &self.w1[index * self.hidden..(index + 1) * self.hidden]
    }

    /// The output layer over the two perspectives' sums, in centipawns, for a position with
    /// `pieces` pieces: the same integer arithmetic on every machine, in AVX2 code where the
    /// CPU has it.
    #[inline]
    pub fn output(&self, ours: &[i16], theirs: &[i16], pieces: usize) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU has AVX2, as checked just above.
            return unsafe { self.output_avx2(ours, theirs, pieces) };
        }
        self.output_portable(ours, theirs, pieces)
    }

    /// `output` compiled for AVX2 (the same loops, wider registers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn output_avx2(&self, ours: &[i16], theirs: &[i16], pieces: usize) -> i32 {
        if self.activation != Activation::SCReLU || !self.narrow_w2 {
            return self.output_portable(ours, theirs, pieces);
        }
        // The nets Ferrum trains take this path: the compiler's own vector code for
        // `screlu_dot_narrow` widens to 32 bits before multiplying, written out it does not.
        let b = bucket(pieces, self.buckets);
        let w2 = &self.w2[b * 2 * self.hidden..(b + 1) * 2 * self.hidden];
        let (w_ours, w_theirs) = w2.split_at(self.hidden);
        let sum = (screlu_dot_narrow_avx2(ours, w_ours) + screlu_dot_narrow_avx2(theirs, w_theirs))
            / i64::from(QA);
        let out = sum + i64::from(self.b2[b]);
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// `output` for any x86-64 (SSE2) or other machine.
    #[inline(always)]
    pub(super) fn output_portable(&self, ours: &[i16], theirs: &[i16], pieces: usize) -> i32 {
        let b = bucket(pieces, self.buckets);
        let w2 = &self.w2[b * 2 * self.hidden..(b + 1) * 2 * self.hidden];
        let (w_ours, w_theirs) = w2.split_at(self.hidden);
        let sum = match self.activation {
            Activation::CReLU => crelu_dot(ours, w_ours) + crelu_dot(theirs, w_theirs),
            // SCReLU's square carries one QA too many.
            Activation::SCReLU if self.narrow_w2 => {
                (screlu_dot_narrow(ours, w_ours) + screlu_dot_narrow(theirs, w_theirs))
                    / i64::from(QA)
            }
            Activation::SCReLU => {
                (screlu_dot(ours, w_ours) + screlu_dot(theirs, w_theirs)) / i64::from(QA)
            }
        };
        let out = sum + i64::from(self.b2[b]);
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }
}

/// Whether the CPU has AVX2 (asked once; the answer is cached by the standard library).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Adds a first-layer row to sums of the same length (a plain loop the compiler vectorises).
#[inline(always)]
pub fn add_row(sums: &mut [i16], row: &[i16]) {
    let row = &row[..sums.len()];
    for (a, &w) in sums.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

/// Terms of a dot product summed in i32 before they go into the i64 total. A CReLU term is
/// at most 255 x 32768 = 8,355,840 in size and a narrow SCReLU one 255 x 128 x 255 =
/// 8,323,200, so 256 of either stay below 2^31.
const DOT_CHUNK: usize = 256;

/// The sum of `term(a, w)` over one perspective's sums and weights, in i32 chunks of
/// `DOT_CHUNK` terms (each term must stay within 2^31 / `DOT_CHUNK` in size).
#[inline(always)]
fn chunked_dot(sums: &[i16], weights: &[i16], term: impl Fn(i16, i16) -> i32) -> i64 {
    let mut total = 0i64;
    for (a, w) in sums.chunks(DOT_CHUNK).zip(weights.chunks(DOT_CHUNK)) {
        let w = &w[..a.len()];
        let mut part = 0i32;
        for (&a, &w) in a.iter().zip(w) {
            part += term(a, w);
        }
        total += i64::from(part);
    }
    total
}

/// Sum of clamp(a, 0, QA) x w over one perspective's half.
#[inline(always)]
fn crelu_dot(sums: &[i16], weights: &[i16]) -> i64 {
    chunked_dot(sums, weights, |a, w| {
        i32::from(a.clamp(0, QA as i16)) * i32::from(w)
    })
}

/// Sum of clamp(a, 0, QA)^2 x w over one perspective's half. One term is at most
/// 255^2 x 32768 = 2,130,739,200 < 2^31 in size, so it is made in i32 and summed in i64.
#[inline(always)]
fn screlu_dot(sums: &[i16], weights: &[i16]) -> i64 {
    let weights = &weights[..sums.len()];
    let mut total = 0i64;
    for (&a, &w) in sums.iter().zip(weights) {
        let c = i32::from(a).clamp(0, QA);
        total += i64::from(c * c * i32::from(w));
    }
    total
}

/// `screlu_dot` for output weights within ±`NARROW_W2`: clamp(a)·w is then an i16, and times
/// clamp(a) again an i32 (the multiply-and-add pairs AVX2 has), summed in i32 chunks. The
/// same integer as `screlu_dot`, with no term out of range.
#[inline(always)]
fn screlu_dot_narrow(sums: &[i16], weights: &[i16]) -> i64 {
    chunked_dot(sums, weights, |a, w| {
        let c = a.clamp(0, QA as i16);
        i32::from(c.wrapping_mul(w)) * i32::from(c)
    })
}

/// `screlu_dot_narrow` in AVX2 registers, the same integer: sixteen sums at a time are
/// clamped, multiplied by their weights in 16 bits (within ±`NARROW_W2` the product fits) and
/// by themselves again in the multiply-and-add of pairs into eight i32 lanes. A lane takes
/// `DOT_CHUNK` / 8 terms before it is summed into the i64 total, as `chunked_dot`'s i32
/// chunks do; a length that is not a multiple of 16 ends in plain code.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn screlu_dot_narrow_avx2(sums: &[i16], weights: &[i16]) -> i64 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_max_epi16,
        _mm256_min_epi16, _mm256_mullo_epi16, _mm256_set1_epi16, _mm256_setzero_si256,
        _mm256_storeu_si256,
    };
    let weights = &weights[..sums.len()];
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(QA as i16);
    let mut total = 0i64;
    let whole = sums.len() / 16 * 16;
    for (a, w) in sums[..whole]
        .chunks(DOT_CHUNK)
        .zip(weights[..whole].chunks(DOT_CHUNK))
    {
        let mut lanes = zero;
        for (a, w) in a.chunks_exact(16).zip(w.chunks_exact(16)) {
            // SAFETY: each chunk holds 16 i16, the 32 bytes an unaligned load reads.
            let (a, w) = unsafe {
                (
                    _mm256_loadu_si256(a.as_ptr().cast::<__m256i>()),
                    _mm256_loadu_si256(w.as_ptr().cast::<__m256i>()),
                )
            };
            let c = _mm256_min_epi16(_mm256_max_epi16(a, zero), top);
            lanes = _mm256_add_epi32(lanes, _mm256_madd_epi16(_mm256_mullo_epi16(c, w), c));
        }
        let mut out = [0i32; 8];
        // SAFETY: `out` is 32 bytes, the unaligned store's size.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), lanes) };
        total += out.iter().map(|&x| i64::from(x)).sum::<i64>();
    }
    total + screlu_dot_narrow(&sums[whole..], &weights[whole..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    #[test]
    fn features_mirror_between_the_two_sides() {
        let p = Piece {
            color: Color::White,
            role: Role::Knight,
        };
        assert_eq!(feature(Color::White, Square::G1, p), 64 + 6);
        // White's knight on g1 is, for Black, an enemy knight on its own side's g8.
        assert_eq!(feature(Color::Black, Square::G1, p), 384 + 64 + 62);
        for f in 0..INPUTS {
            assert_eq!(flip_feature(flip_feature(f)), f);
        }
        assert_eq!(flip_feature(64 + 6), 384 + 64 + 62);
    }

    /// Each side sees its king on files a-d (the board mirrored when it is on e-h), in the
    /// bucket of that mirrored square from its own side.
    #[test]
    fn king_buckets_see_the_board_from_the_kings_side() {
        let view = |base: usize, flip: u16| View {
            base: base as u16,
            flip,
        };
        let four = KingLayout::new(4).unwrap();
        let white = |sq| four.view_at(Color::White, sq);
        assert_eq!(white(Square::G1), view(0, 7));
        assert_eq!(white(Square::B1), view(0, 0));
        assert_eq!(white(Square::E1), view(INPUTS, 7));
        assert_eq!(white(Square::C1), view(INPUTS, 0));
        assert_eq!(white(Square::H2), view(2 * INPUTS, 7));
        assert_eq!(white(Square::D5), view(3 * INPUTS, 0));
        assert_eq!(white(Square::E8), view(3 * INPUTS, 7));
        // Black's king on g8 stands on its own g1.
        assert_eq!(four.view_at(Color::Black, Square::G8), white(Square::G1));
        assert_eq!(four.view_at(Color::Black, Square::E8), white(Square::E1));
        assert_eq!(four.view_at(Color::Black, Square::A1), white(Square::A8));
        let two = KingLayout::new(2).unwrap();
        assert_eq!(two.view_at(Color::White, Square::H1), view(0, 7));
        assert_eq!(two.view_at(Color::White, Square::A3), view(INPUTS, 0));
        assert_eq!(two.view_at(Color::Black, Square::A7), view(INPUTS, 0));
        assert_eq!(two.view_at(Color::Black, Square::F8), view(0, 7));
        let one = KingLayout::new(1).unwrap();
        assert_eq!(one.view_at(Color::White, Square::H8), view(0, 7));
        assert_eq!(one.view_at(Color::White, Square::D4), view(0, 0));
        assert_eq!(
            KingLayout::NONE.view_at(Color::White, Square::H8),
            View::PLAIN
        );
        // A knight on g1, seen by White with its king on e1, is a knight on b1 in bucket 1.
        let knight = Piece {
            color: Color::White,
            role: shakmaty::Role::Knight,
        };
        assert_eq!(
            white(Square::E1).index(feature(Color::White, Square::G1, knight)),
            INPUTS + feature(Color::White, Square::B1, knight)
        );
        // Every bucket is some square's, and its inputs lie within the layout's.
        for layout in [KingLayout::NONE, one, two, four] {
            let mut bases: Vec<usize> = Square::ALL
                .iter()
                .map(|&sq| usize::from(layout.view_at(Color::White, sq).base))
                .collect();
            bases.sort_unstable();
            bases.dedup();
            assert_eq!(bases.len(), layout.count().max(1));
            assert_eq!(bases.last().map(|b| b + INPUTS), Some(layout.inputs()));
        }
        assert!(KingLayout::new(3).is_err() && KingLayout::new(8).is_err());
    }

    #[test]
    fn a_net_file_round_trips_and_bad_files_are_named() {
        let hidden = 4;
        let net = Network {
            kings: KingLayout::NONE,
            hidden,
            activation: Activation::SCReLU,
            settings_hash: 0xdead_beef,
            w1: (0..INPUTS * hidden).map(|i| (i % 97) as i16 - 48).collect(),
            b1: vec![3, -4, 5, 6],
            buckets: 1,
            w2: vec![1, 2, 3, 4, -5, -6, -7, -8],
            b2: vec![-1234],
            narrow_w2: true,
        };
        let bytes = net.to_bytes();
        // One bucket is written as the first nets were: a 0 in the header's byte 7.
        assert_eq!(bytes[7], 0);
        assert_eq!(Network::from_bytes(&bytes), Ok(net.clone()));
        let e = Network::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(e.contains("expected"), "{e}");
        // Three buckets: their weights and biases in order, and the count in byte 7.
        let mut three = net.clone();
        three.buckets = 3;
        three.w2 = (1..=24).collect();
        three.b2 = vec![-5, 0, 77];
        let bytes = three.to_bytes();
        assert_eq!(bytes[7], 3);
        assert_eq!(Network::from_bytes(&bytes), Ok(three));
        assert!(Network::from_bytes(&bytes[..bytes.len() - 4]).is_err());
        let mut nine = bytes.clone();
        nine[7] = 9;
        let e = Network::from_bytes(&nine).unwrap_err();
        assert!(e.contains("9 output buckets"), "{e}");
        // King buckets: format version 2, their count in byte 24, four times the rows.
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 1);
        let mut kinged = net.clone();
        kinged.kings = KingLayout::new(4).unwrap();
        kinged.w1 = (0..4 * INPUTS * hidden)
            .map(|i| (i % 89) as i16 - 44)
            .collect();
        let bytes = kinged.to_bytes();
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 2);
        assert_eq!(
            (bytes[24], bytes.len()),
            (4, 32 + 2 * (4 * 768 * 4 + 4 + 8) + 4)
        );
        assert_eq!(Network::from_bytes(&bytes), Ok(kinged.clone()));
        assert!(kinged.describe().contains("4 king buckets"));
        let mut three = bytes.clone();
        three[24] = 3;
        let e = Network::from_bytes(&three).unwrap_err();
        assert!(e.contains("3 king buckets"), "{e}");
        let mut dirty = bytes.clone();
        dirty[31] = 1;
        assert!(Network::from_bytes(&dirty).is_err());
        let e = Network::from_bytes(&bytes[..bytes.len() - 2]).unwrap_err();
        assert!(e.contains("4 king bucket(s)"), "{e}");
        let e = Network::from_bytes(b"NOPE....").unwrap_err();
        assert!(e.contains("magic"), "{e}");
        assert!(Network::from_bytes(&[]).is_err());
    }

    /// A sum that could pass i16 in some position is refused at load, one inside is taken.
    #[test]
    fn a_net_whose_sums_could_leave_16_bits_is_refused() {
        let hidden = 3;
        let mut net = Network {
            kings: KingLayout::NONE,
            hidden,
            activation: Activation::SCReLU,
            settings_hash: 0,
            w1: vec![5; INPUTS * hidden],
            b1: vec![-100, 7, 0],
            buckets: 1,
            w2: vec![1; 2 * hidden],
            b2: vec![0],
            narrow_w2: true,
        };
        // Neuron 0: 100 + 32 x 1020 = 32,740 fits; 32 x 1021 + 100 = 32,772 does not, nor
        // does neuron 2's 32 x 1024 = 32,768 with no bias.
        net.w1[17 * hidden] = -1020;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), None);
        assert_eq!(Network::from_bytes(&net.to_bytes()), Ok(net.clone()));
        net.w1[17 * hidden] = 1021;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), Some((0, 32_772)));
        net.w1[17 * hidden] = 0;
        net.w1[INPUTS * hidden - 1] = 1024;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), Some((2, 32_768)));
        let e = Network::from_bytes(&net.to_bytes()).unwrap_err();
        assert!(e.contains("hidden neuron 2") && e.contains("32768"), "{e}");
        // Exactly i16::MAX is inside: 31 + 32 x 1023 = 32,767.
        net.w1[INPUTS * hidden - 1] = 1023;
        net.b1[2] = -31;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), None);
        net.b1[2] = 32;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), Some((2, 32_768)));
        // The trainer's limit keeps every net it writes inside.
        let w1 = vec![MAX_W1; INPUTS];
        assert_eq!(widest_sum(1, &w1, &[-MAX_W1]), None);
        assert_eq!(widest_sum(0, &[], &[]), None);
    }

    /// Output weights within ±128 take the narrow path (the embedded net's do), others not.
    #[test]
    fn narrow_output_weights_are_told_apart() {
        assert!(narrow_w2(&[128, -128, 0, 7]));
        assert!(!narrow_w2(&[3, 129]));
        assert!(!narrow_w2(&[-129]));
        assert!(!narrow_w2(&[i16::MIN]));
        assert!(crate::eval::net_file::embedded().unwrap().net.narrow_w2);
    }

    /// The output as plain i64 arithmetic, to check the chunked i32 sums against.
    fn output_in_i64(net: &Network, ours: &[i16], theirs: &[i16], bucket: usize) -> i32 {
        let w2 = &net.w2[bucket * 2 * net.hidden..(bucket + 1) * 2 * net.hidden];
        let (w_ours, w_theirs) = w2.split_at(net.hidden);
        let mut sum: i64 = 0;
        for (acc, weights) in [(ours, w_ours), (theirs, w_theirs)] {
            for (&a, &w) in acc.iter().zip(weights) {
                let c = i64::from(a).clamp(0, i64::from(QA));
                sum += match net.activation {
                    Activation::CReLU => c * i64::from(w),
                    Activation::SCReLU => c * c * i64::from(w),
                };
            }
        }
        if net.activation == Activation::SCReLU {
            sum /= i64::from(QA);
        }
        ((sum + i64::from(net.b2[bucket])) * i64::from(SCALE) / i64::from(QA * QB)) as i32
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

    /// A position is scored by its own bucket's weights and bias, the others untouched.
    #[test]
    fn each_piece_count_takes_its_buckets_weights() {
        let hidden = 5;
        let buckets = 4;
        let net = Network {
            kings: KingLayout::NONE,
            hidden,
            activation: Activation::SCReLU,
            settings_hash: 0,
            w1: Vec::new(),
            b1: Vec::new(),
            buckets,
            w2: (0..buckets * 2 * hidden)
                .map(|i| (i as i16 * 7) % 23 - 11)
                .collect(),
            b2: vec![100_000, -200_000, 300_000, -400_000],
            narrow_w2: true,
        };
        let ours: Vec<i16> = vec![10, 200, 255, 0, 90];
        let theirs: Vec<i16> = vec![255, 3, 40, 130, 7];
        let mut seen = Vec::new();
        for pieces in 2..=32 {
            let b = bucket(pieces, buckets);
            let out = net.output(&ours, &theirs, pieces);
            assert_eq!(
                out,
                output_in_i64(&net, &ours, &theirs, b),
                "{pieces} pieces"
            );
            seen.push(out);
        }
        seen.dedup();
        assert_eq!(seen.len(), buckets);
    }

    /// The largest weights an i16 holds, on every neuron at full activation, and a hidden
    /// layer wider than one i32 chunk: the output still equals the i64 sum (no overflow).
    #[test]
    fn the_output_does_not_overflow_at_the_extremes_of_i16() {
        for activation in [Activation::CReLU, Activation::SCReLU] {
            for hidden in [1, 64, 300, 1024] {
                for w in [i16::MAX, i16::MIN, -7, NARROW_W2, -NARROW_W2, 129, -129] {
                    let net = Network {
                        hidden,
                        activation,
                        kings: KingLayout::NONE,
                        settings_hash: 0,
                        w1: Vec::new(),
                        b1: Vec::new(),
                        buckets: 1,
                        w2: vec![w; 2 * hidden],
                        b2: vec![-3],
                        narrow_w2: narrow_w2(&[w]),
                    };
                    let full = vec![QA as i16 + 1000; hidden];
                    let mixed: Vec<i16> = (0..hidden as i32)
                        .map(|i| (i * 37 % 400 - 60) as i16)
                        .collect();
                    for (ours, theirs) in [(&full, &full), (&mixed, &full), (&mixed, &mixed)] {
                        assert_eq!(
                            net.output(ours, theirs, 32),
                            output_in_i64(&net, ours, theirs, 0),
                            "{activation:?} hidden {hidden} weight {w}"
                        );
                    }
                }
            }
        }
    }
}
