//! The output layer: the two perspectives' sums through the activation and the output
//! bucket's weights, in integers that give the same score on every machine, with AVX2 code
//! where the CPU has it; and the first layer's row addition the accumulators use.

use super::{Activation, NARROW_W2, Network, OUTPUT_LIMIT, QA, QB, SCALE, bucket};

impl Network {
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
        centipawns(self.output_sum(ours, theirs, pieces))
    }

    /// The output layer's sum before it is scaled to centipawns (and bounded).
    #[inline]
    pub(crate) fn output_sum(&self, ours: &[i16], theirs: &[i16], pieces: usize) -> i64 {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU has AVX2, as checked just above.
            return unsafe { self.output_sum_avx2(ours, theirs, pieces) };
        }
        self.output_sum_portable(ours, theirs, pieces)
    }

    /// `output_sum` compiled for AVX2 (the same loops, wider registers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn output_sum_avx2(&self, ours: &[i16], theirs: &[i16], pieces: usize) -> i64 {
        if self.activation != Activation::SCReLU {
            return self.output_sum_portable(ours, theirs, pieces);
        }
        // The nets Ferrum trains take this path: the compiler's own vector code for
        // `screlu_dot_narrow` widens to 32 bits before multiplying, written out it does not.
        // A net with a few wider output weights takes it too, those sixteens in plain code.
        let b = bucket(pieces, self.buckets);
        let w2 = &self.w2[b * 2 * self.hidden..(b + 1) * 2 * self.hidden];
        let (w_ours, w_theirs) = w2.split_at(self.hidden);
        let dot = if self.narrow_w2 {
            screlu_dot_narrow_avx2::<false>
        } else {
            screlu_dot_narrow_avx2::<true>
        };
        let sum = (dot(ours, w_ours) + dot(theirs, w_theirs)) / i64::from(QA);
        sum + i64::from(self.b2[b])
    }

    /// `output` for any x86-64 (SSE2) or other machine (the tests compare the two).
    #[cfg(test)]
    pub(crate) fn output_portable(&self, ours: &[i16], theirs: &[i16], pieces: usize) -> i32 {
        centipawns(self.output_sum_portable(ours, theirs, pieces))
    }

    /// `output_sum` for any x86-64 (SSE2) or other machine.
    #[inline(always)]
    fn output_sum_portable(&self, ours: &[i16], theirs: &[i16], pieces: usize) -> i64 {
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
        sum + i64::from(self.b2[b])
    }
}

/// The output layer's sum in centipawns, within `OUTPUT_LIMIT` either way.
#[inline(always)]
fn centipawns(out: i64) -> i32 {
    (out.saturating_mul(i64::from(SCALE)) / i64::from(QA * QB)).clamp(-OUTPUT_LIMIT, OUTPUT_LIMIT)
        as i32
}

/// Whether the CPU has AVX2 (asked once; the answer is cached by the standard library).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2() -> bool {
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
///
/// With `WIDE`, any i16 weights (the same integer as `screlu_dot`): the rare sixteen with a
/// weight beyond ±`NARROW_W2` are summed by `screlu_dot` in plain i64 arithmetic instead.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn screlu_dot_narrow_avx2<const WIDE: bool>(sums: &[i16], weights: &[i16]) -> i64 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_max_epi16,
        _mm256_min_epi16, _mm256_mullo_epi16, _mm256_set1_epi16, _mm256_setzero_si256,
        _mm256_storeu_si256, _mm256_sub_epi16, _mm256_testz_si256,
    };
    let weights = &weights[..sums.len()];
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(QA as i16);
    let (w_top, w_bottom) = (_mm256_set1_epi16(NARROW_W2), _mm256_set1_epi16(-NARROW_W2));
    let mut total = 0i64;
    let whole = sums.len() / 16 * 16;
    for (a, w) in sums[..whole]
        .chunks(DOT_CHUNK)
        .zip(weights[..whole].chunks(DOT_CHUNK))
    {
        let mut lanes = zero;
        for (a16, w16) in a.chunks_exact(16).zip(w.chunks_exact(16)) {
            // SAFETY: each chunk holds 16 i16, the 32 bytes an unaligned load reads.
            let (a, w) = unsafe {
                (
                    _mm256_loadu_si256(a16.as_ptr().cast::<__m256i>()),
                    _mm256_loadu_si256(w16.as_ptr().cast::<__m256i>()),
                )
            };
            if WIDE {
                let narrow = _mm256_min_epi16(_mm256_max_epi16(w, w_bottom), w_top);
                let off = _mm256_sub_epi16(w, narrow);
                if _mm256_testz_si256(off, off) == 0 {
                    total += screlu_dot(a16, w16);
                    continue;
                }
            }
            let c = _mm256_min_epi16(_mm256_max_epi16(a, zero), top);
            lanes = _mm256_add_epi32(lanes, _mm256_madd_epi16(_mm256_mullo_epi16(c, w), c));
        }
        let mut out = [0i32; 8];
        // SAFETY: `out` is 32 bytes, the unaligned store's size.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), lanes) };
        total += out.iter().map(|&x| i64::from(x)).sum::<i64>();
    }
    let (sums, weights) = (&sums[whole..], &weights[whole..]);
    total
        + if WIDE {
            screlu_dot(sums, weights)
        } else {
            screlu_dot_narrow(sums, weights)
        }
}

#[cfg(test)]
mod tests {
    use super::super::{KingLayout, narrow_w2};
    use super::*;

    /// The output as plain i64 arithmetic, to check the chunked i32 sums against.
    fn output_in_i64(net: &Network, ours: &[i16], theirs: &[i16], bucket: usize) -> i32 {
        centipawns(sum_in_i64(net, ours, theirs, bucket))
    }

    /// The output layer's sum (bias included) in plain i64 arithmetic.
    fn sum_in_i64(net: &Network, ours: &[i16], theirs: &[i16], bucket: usize) -> i64 {
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
        sum + i64::from(net.b2[bucket])
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

    /// Output weights mostly narrow with a few beyond ±`NARROW_W2` (n6c has one of 512 at
    /// 204), wide ones in both halves and in the plain-code tail: the i64 sum all the same.
    #[test]
    fn a_few_wide_output_weights_score_as_the_i64_sum() {
        for hidden in [16, 40, 256, 300] {
            for wide in [129, 204, -700, i16::MAX, i16::MIN] {
                let mut w2: Vec<i16> = (0..2 * hidden as i32)
                    .map(|i| (i * 53 % 257 - 128) as i16)
                    .collect();
                for i in [0, hidden / 2, hidden + 3, 2 * hidden - 1] {
                    w2[i] = wide;
                }
                let net = Network {
                    hidden,
                    activation: Activation::SCReLU,
                    kings: KingLayout::NONE,
                    settings_hash: 0,
                    w1: Vec::new(),
                    b1: Vec::new(),
                    buckets: 1,
                    narrow_w2: narrow_w2(&w2),
                    w2,
                    b2: vec![11],
                };
                assert!(!net.narrow_w2);
                let full = vec![QA as i16 + 1000; hidden];
                let mixed: Vec<i16> = (0..hidden as i32)
                    .map(|i| (i * 37 % 400 - 60) as i16)
                    .collect();
                for (ours, theirs) in [(&full, &full), (&mixed, &full), (&mixed, &mixed)] {
                    let sum = net.output_sum(ours, theirs, 32);
                    assert_eq!(sum, sum_in_i64(&net, ours, theirs, 0), "{hidden} {wide}");
                    assert_eq!(
                        sum,
                        net.output_sum_portable(ours, theirs, 32),
                        "{hidden} {wide}"
                    );
                    assert_eq!(net.output(ours, theirs, 32), centipawns(sum));
                }
            }
        }
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
                            net.output_sum(ours, theirs, 32),
                            sum_in_i64(&net, ours, theirs, 0),
                            "{activation:?} hidden {hidden} weight {w}"
                        );
                    }
                }
            }
        }
    }
}
