//! The accumulators' kernels: a parent's sums plus the rows of the pieces put on minus those
//! taken off, written into the child's, in AVX2 registers or portable loops.

// The kernels are plain loops over slices cut to one length, which the compiler turns
// into vector code on any x86-64 (SSE2) without target features. The sums are i16 and wrap:
// addition modulo 2^16 does not depend on the order, so a sum whose end value fits an i16
// (which `widest_sum` makes sure of for every position: loaded and trained nets are checked
// by it) is exact however the partial sums on the way wrapped (a capture adds its row
// before it takes two off).

/// `out` = `from` + the `added` rows - the `removed` ones, sixteen i16 at a time in AVX2
/// registers (wrapping, as the portable kernels).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn changed_avx2<const A: usize, const R: usize>(
    out: &mut [i16],
    from: &[i16],
    added: [&[i16]; A],
    removed: [&[i16]; R],
) {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi16, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_sub_epi16,
    };
    let n = out.len();
    assert!(
        n.is_multiple_of(16)
            && from.len() == n
            && added.iter().chain(&removed).all(|r| r.len() >= n)
    );
    for k in (0..n).step_by(16) {
        // SAFETY: every slice holds at least `n` i16 (asserted above) and `k + 16 <= n`, so
        // each 32-byte load and store stays inside its slice.
        unsafe {
            let mut v = _mm256_loadu_si256(from.as_ptr().add(k).cast::<__m256i>());
            for r in added {
                v = _mm256_add_epi16(v, _mm256_loadu_si256(r.as_ptr().add(k).cast::<__m256i>()));
            }
            for r in removed {
                v = _mm256_sub_epi16(v, _mm256_loadu_si256(r.as_ptr().add(k).cast::<__m256i>()));
            }
            _mm256_storeu_si256(out.as_mut_ptr().add(k).cast::<__m256i>(), v);
        }
    }
}

#[inline(always)]
pub(super) fn sub_row(sums: &mut [i16], row: &[i16]) {
    let row = &row[..sums.len()];
    for (a, &w) in sums.iter_mut().zip(row) {
        *a = a.wrapping_sub(w);
    }
}

/// A quiet move or a promotion: one piece off, one on.
#[inline(always)]
pub(super) fn add_sub(out: &mut [i16], from: &[i16], add: &[i16], sub: &[i16]) {
    let n = out.len();
    let (from, add, sub) = (&from[..n], &add[..n], &sub[..n]);
    for (((o, &f), &a), &s) in out.iter_mut().zip(from).zip(add).zip(sub) {
        *o = f.wrapping_add(a).wrapping_sub(s);
    }
}

/// A capture (en passant included): two pieces off, one on.
#[inline(always)]
pub(super) fn add_sub2(out: &mut [i16], from: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
    let n = out.len();
    let (from, add, sub1, sub2) = (&from[..n], &add[..n], &sub1[..n], &sub2[..n]);
    for ((((o, &f), &a), &s1), &s2) in out.iter_mut().zip(from).zip(add).zip(sub1).zip(sub2) {
        *o = f.wrapping_add(a).wrapping_sub(s1).wrapping_sub(s2);
    }
}

/// Castling: two pieces off, two on.
#[inline(always)]
pub(super) fn add2_sub2(out: &mut [i16], from: &[i16], add: [&[i16]; 2], sub: [&[i16]; 2]) {
    let n = out.len();
    let (from, a1, a2) = (&from[..n], &add[0][..n], &add[1][..n]);
    let (s1, s2) = (&sub[0][..n], &sub[1][..n]);
    for (i, o) in out.iter_mut().enumerate() {
        *o = from[i]
            .wrapping_add(a1[i])
            .wrapping_add(a2[i])
            .wrapping_sub(s1[i])
            .wrapping_sub(s2[i]);
    }
}
