//! The float network being trained: its weights in one vector, the forward pass, the
//! gradient of the loss (split over threads) and the quantisation into the engine's `Network`.

use super::sample::Features;
use super::{Sample, sigmoid};
use crate::basics::rng::Lcg;
use crate::eval::nnue::{
    Activation, INPUTS, KingLayout, MAX_W1, Network, QA, QB, bucket, narrow_w2,
};

/// The float network being trained; its output y means sigmoid(y) for the side to move
/// (y times 400 is centipawns).
///
/// With more than one king bucket the first layer is trained factorised: each of the 768
/// features also has a shared row, added to its row in every bucket, so that what a piece on
/// a square is worth whatever the king's bucket is learnt from all positions at once. The
/// engine's net gets each bucket's row with the shared one added in (`quantise`).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub hidden: usize,
    pub activation: Activation,
    /// Output buckets by piece count (`nnue::bucket`), each with its own w2 and b2.
    pub buckets: usize,
    /// Inputs by the perspective's king (`nnue::KingLayout`).
    pub kings: KingLayout,
    /// All weights in one vector: w1 (768K x H), the shared rows (768 x H, when K > 1), b1
    /// (H), w2 (B x 2H), b2 (B).
    pub v: Vec<f32>,
}

impl Params {
    /// The first layer's rows: one per input, and the shared ones when factorised.
    fn rows(kings: KingLayout) -> usize {
        kings.inputs() + if kings.count() > 1 { INPUTS } else { 0 }
    }

    pub fn len(hidden: usize, buckets: usize, kings: KingLayout) -> usize {
        Params::rows(kings) * hidden + hidden + buckets * (2 * hidden + 1)
    }

    /// Small random weights from a seed (with one bucket and no king buckets, the same as
    /// before either existed); the shared rows start at zero.
    pub fn random(
        hidden: usize,
        activation: Activation,
        buckets: usize,
        kings: KingLayout,
        seed: u64,
    ) -> Params {
        let mut rng = Lcg(seed);
        let mut uniform = |a: f32| ((rng.next_u31() as f32 / (1u64 << 31) as f32) * 2.0 - 1.0) * a;
        let mut v = vec![0.0; Params::len(hidden, buckets, kings)];
        for w in &mut v[..kings.inputs() * hidden] {
            *w = uniform(0.1);
        }
        let out = 1.0 / (2.0 * hidden as f32).sqrt();
        let w2 = Params::rows(kings) * hidden + hidden;
        for w in &mut v[w2..w2 + buckets * 2 * hidden] {
            *w = uniform(out);
        }
        Params {
            hidden,
            activation,
            buckets,
            kings,
            v,
        }
    }

    /// The float network a quantised one stands for (each weight divided by its scale), to
    /// train on from there; with king buckets' factorised rows the shared ones start at zero,
    /// each bucket's row holding what the net's does.
    pub fn from_network(net: &Network) -> Params {
        let mut v = vec![0.0; Params::len(net.hidden, net.buckets, net.kings)];
        let (qa, qb) = (QA as f32, QB as f32);
        for (w, &q) in v.iter_mut().zip(&net.w1) {
            *w = f32::from(q) / qa;
        }
        let mut p = Params {
            hidden: net.hidden,
            activation: net.activation,
            buckets: net.buckets,
            kings: net.kings,
            v,
        };
        let (b1, w2, b2) = (p.b1(), p.w2(), p.b2());
        for (w, &q) in p.v[b1..w2].iter_mut().zip(&net.b1) {
            *w = f32::from(q) / qa;
        }
        for (w, &q) in p.v[w2..b2].iter_mut().zip(&net.w2) {
            *w = f32::from(q) / qb;
        }
        for (w, &q) in p.v[b2..].iter_mut().zip(&net.b2) {
            *w = q as f32 / (qa * qb);
        }
        p
    }

    /// This net with `hidden` neurons per perspective instead of its own (no fewer): the
    /// neurons it has keep their weights, the new ones get the first-layer rows that
    /// `random` gives from `seed`, a zero bias and zero output weights, so the wider net
    /// scores every position as this one does and the new neurons learn from there.
    pub fn widened(&self, hidden: usize, seed: u64) -> Params {
        let old = self.hidden;
        if hidden <= old {
            return self.clone();
        }
        let mut p = Params::random(hidden, self.activation, self.buckets, self.kings, seed);
        for r in 0..Params::rows(self.kings) {
            p.v[r * hidden..r * hidden + old].copy_from_slice(&self.v[r * old..(r + 1) * old]);
        }
        let (b1, nb1) = (self.b1(), p.b1());
        p.v[nb1..nb1 + hidden].fill(0.0);
        p.v[nb1..nb1 + old].copy_from_slice(&self.v[b1..b1 + old]);
        for b in 0..self.buckets {
            let (from, to) = (self.w2_of(b), p.w2_of(b));
            p.v[to..to + 2 * hidden].fill(0.0);
            // Each bucket's weights: the side to move's neurons, then the other side's.
            for side in 0..2 {
                p.v[to + side * hidden..to + side * hidden + old]
                    .copy_from_slice(&self.v[from + side * old..from + (side + 1) * old]);
            }
        }
        let (b2, nb2) = (self.b2(), p.b2());
        p.v[nb2..].copy_from_slice(&self.v[b2..]);
        p
    }

    /// Where the shared row of input `f` starts, when the first layer is factorised.
    #[inline]
    fn shared(&self, f: usize) -> Option<usize> {
        (self.kings.count() > 1).then(|| (self.kings.inputs() + f % INPUTS) * self.hidden)
    }

    fn b1(&self) -> usize {
        Params::rows(self.kings) * self.hidden
    }

    fn w2(&self) -> usize {
        self.b1() + self.hidden
    }

    fn b2(&self) -> usize {
        self.w2() + self.buckets * 2 * self.hidden
    }

    /// Where bucket `b`'s output weights start.
    fn w2_of(&self, b: usize) -> usize {
        self.w2() + b * 2 * self.hidden
    }

    /// The hidden sums of `features` into `acc`.
    #[inline(always)]
    fn accumulate_into(&self, features: &[usize], acc: &mut [f32]) {
        let h = self.hidden;
        acc.copy_from_slice(&self.v[self.b1()..self.b1() + h]);
        for &f in features {
            add_row(acc, &self.v[f * h..(f + 1) * h]);
            if let Some(at) = self.shared(f) {
                add_row(acc, &self.v[at..at + h]);
            }
        }
    }

    #[cfg(test)]
    fn accumulate(&self, features: &[usize]) -> Vec<f32> {
        let mut acc = vec![0.0; self.hidden];
        self.accumulate_into(features, &mut acc);
        acc
    }

    /// The output y over the two perspectives' hidden sums, by bucket `b`'s weights.
    /// The sum runs in eight lanes, added up at the end in a fixed order, so that it is
    /// vectorised and still the same on every processor.
    #[inline(always)]
    fn output(&self, ours: &[f32], theirs: &[f32], b: usize) -> f32 {
        let h = self.hidden;
        let w2 = &self.v[self.w2_of(b)..self.w2_of(b) + 2 * h];
        let mut lanes = [0.0f32; 8];
        match self.activation {
            Activation::CReLU => {
                let f = |x: f32| x.clamp(0.0, 1.0);
                dot_in_lanes(&mut lanes, ours, &w2[..h], f);
                dot_in_lanes(&mut lanes, theirs, &w2[h..], f);
            }
            Activation::SCReLU => {
                let f = |x: f32| {
                    let c = x.clamp(0.0, 1.0);
                    c * c
                };
                dot_in_lanes(&mut lanes, ours, &w2[..h], f);
                dot_in_lanes(&mut lanes, theirs, &w2[h..], f);
            }
        }
        let sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
            + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        self.v[self.b2() + b] + sum
    }

    /// The raw output y for a sample.
    pub fn forward(&self, s: &Sample) -> f32 {
        self.forward_with(s, &mut Scratch::new(self.hidden))
    }

    #[inline(always)]
    fn forward_with(&self, s: &Sample, t: &mut Scratch) -> f32 {
        s.features_into(self.kings, &mut t.features);
        self.accumulate_into(t.features.ours(), &mut t.a);
        self.accumulate_into(t.features.theirs(), &mut t.b);
        self.output(&t.a, &t.b, bucket(s.pieces(), self.buckets))
    }

    /// Adds the gradient of `scale` x this sample's loss to `grad`; returns the loss.
    #[inline(always)]
    fn backward(&self, s: &Sample, scale: f32, grad: &mut [f32], t: &mut Scratch) -> f32 {
        let h = self.hidden;
        let k = bucket(s.pieces(), self.buckets);
        let p = sigmoid(self.forward_with(s, t));
        let (w2_at, b2_at, b1_at) = (self.w2_of(k), self.b2() + k, self.b1());
        let act = self.activation;
        let err = p - s.target;
        let g = scale * 2.0 * err * p * (1.0 - p);
        grad[b2_at] += g;
        let Scratch { features, a, b, d } = t;
        for (half, acc) in [&*a, &*b].into_iter().enumerate() {
            let w2 = &self.v[w2_at + half * h..w2_at + (half + 1) * h];
            let gw2 = &mut grad[w2_at + half * h..w2_at + (half + 1) * h];
            // The activation and its slope (0 where clamped), without a branch per neuron.
            let each = gw2.iter_mut().zip(d.iter_mut()).zip(acc.iter().zip(w2));
            match act {
                Activation::CReLU => {
                    for ((gw, dj), (&x, &w)) in each {
                        *gw += g * x.clamp(0.0, 1.0);
                        let slope = if x > 0.0 && x < 1.0 { 1.0 } else { 0.0 };
                        *dj = g * w * slope;
                    }
                }
                Activation::SCReLU => {
                    for ((gw, dj), (&x, &w)) in each {
                        let c = x.clamp(0.0, 1.0);
                        *gw += g * (c * c);
                        let slope = if x > 0.0 && x < 1.0 { 2.0 * x } else { 0.0 };
                        *dj = g * w * slope;
                    }
                }
            }
            add_row(&mut grad[b1_at..b1_at + h], d);
            let list = if half == 0 {
                features.ours()
            } else {
                features.theirs()
            };
            for &f in list {
                add_row(&mut grad[f * h..(f + 1) * h], d);
                if let Some(at) = self.shared(f) {
                    add_row(&mut grad[at..at + h], d);
                }
            }
        }
        err * err
    }

    /// Mean loss over samples.
    pub fn loss(&self, samples: &[Sample]) -> f64 {
        let mut t = Scratch::new(self.hidden);
        let sum: f64 = samples
            .iter()
            .map(|s| {
                let e = sigmoid(self.forward_with(s, &mut t)) - s.target;
                f64::from(e * e)
            })
            .sum();
        sum / samples.len().max(1) as f64
    }

    /// The mean loss and its gradient over a batch, computed on `threads` threads (the
    /// tests' form of `gradient_of`).
    #[cfg(test)]
    pub fn gradient(&self, batch: &[Sample], threads: usize) -> (f64, Vec<f32>) {
        self.gradient_of(batch.len(), |i| batch.get(i).copied(), threads)
    }

    /// As `gradient`, over the `n` samples that `sample(0..n)` gives (each decoded by the
    /// thread that uses it); a `None` counts as a sample with no loss.
    pub fn gradient_of(
        &self,
        n: usize,
        sample: impl Fn(usize) -> Option<Sample> + Sync,
        threads: usize,
    ) -> (f64, Vec<f32>) {
        let scale = 1.0 / n.max(1) as f32;
        let chunk = n.div_ceil(threads.max(1)).max(1);
        let sample = &sample;
        let parts: Vec<(f64, Vec<f32>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .step_by(chunk)
                .map(|from| {
                    let range = from..(from + chunk).min(n);
                    scope.spawn(move || self.part_gradient(range, sample, scale))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| (0.0, Vec::new())))
                .collect()
        });
        let mut total = vec![0.0; self.v.len()];
        let mut loss = 0.0;
        for (l, g) in parts {
            loss += l;
            add_row(&mut total, &g);
        }
        (loss / n.max(1) as f64, total)
    }

    /// One thread's share of a batch: in AVX2 (and FMA) where the processor has them, else
    /// in the portable build's instructions; the same sums in the same order either way.
    fn part_gradient(
        &self,
        range: std::ops::Range<usize>,
        sample: &(impl Fn(usize) -> Option<Sample> + Sync),
        scale: f32,
    ) -> (f64, Vec<f32>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the processor was just found to have both features.
            return unsafe { self.part_gradient_avx2(range, sample, scale) };
        }
        self.part_gradient_body(range, sample, scale)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn part_gradient_avx2(
        &self,
        range: std::ops::Range<usize>,
        sample: &(impl Fn(usize) -> Option<Sample> + Sync),
        scale: f32,
    ) -> (f64, Vec<f32>) {
        self.part_gradient_body(range, sample, scale)
    }

    #[inline(always)]
    fn part_gradient_body(
        &self,
        range: std::ops::Range<usize>,
        sample: &(impl Fn(usize) -> Option<Sample> + Sync),
        scale: f32,
    ) -> (f64, Vec<f32>) {
        let mut grad = vec![0.0; self.v.len()];
        let mut t = Scratch::new(self.hidden);
        let mut loss = 0.0;
        for i in range {
            if let Some(s) = sample(i) {
                loss += f64::from(self.backward(&s, scale, &mut grad, &mut t));
            }
        }
        (loss, grad)
    }

    /// The engine's first-layer weights (each bucket's rows with the shared ones added in)
    /// and biases, in float.
    fn first_layer(&self) -> Vec<f32> {
        let h = self.hidden;
        let rows = self.kings.inputs() * h;
        let mut w: Vec<f32> = self.v[..rows].to_vec();
        if self.kings.count() > 1 {
            for (i, x) in w.iter_mut().enumerate() {
                *x += self.v[rows + i % (INPUTS * h)];
            }
        }
        w.extend_from_slice(&self.v[self.b1()..self.w2()]);
        w
    }

    /// Keeps the first layer's weights and biases within ±MAX_W1 / QA, which `quantise` would
    /// clip them to (a net without king buckets' shared rows, whose sums it cannot bound
    /// row by row).
    pub fn clip_first_layer(&mut self) {
        if self.kings.count() > 1 {
            return;
        }
        let limit = f32::from(MAX_W1) / QA as f32;
        let end = self.w2();
        for w in &mut self.v[..end] {
            *w = w.clamp(-limit, limit);
        }
    }

    /// How many first-layer weights and biases `quantise` clips to ±MAX_W1.
    pub fn clipped_first_layer(&self) -> usize {
        let limit = f32::from(MAX_W1) + 0.5;
        self.first_layer()
            .iter()
            .filter(|&&w| (w * QA as f32).abs() >= limit)
            .count()
    }

    /// The quantised network; weights beyond what i16 holds are clipped, and first-layer ones
    /// beyond ±MAX_W1.
    pub fn quantise(&self, settings_hash: u64) -> Network {
        let q = |x: f32, by: i32| (x * by as f32).round().clamp(-32767.0, 32767.0) as i16;
        // First-layer weights and biases within ±MAX_W1, so the engine's 16-bit sums hold
        // every position's (they are far inside it in any net trained so far).
        let q1 = |x: f32| q(x, QA).clamp(-MAX_W1, MAX_W1);
        let w2: Vec<i16> = self.v[self.w2()..self.b2()]
            .iter()
            .map(|&w| q(w, QB))
            .collect();
        let mut w1: Vec<i16> = self.first_layer().iter().map(|&w| q1(w)).collect();
        let b1 = w1.split_off(self.kings.inputs() * self.hidden);
        Network {
            hidden: self.hidden,
            activation: self.activation,
            kings: self.kings,
            settings_hash,
            buckets: self.buckets,
            w1,
            b1,
            narrow_w2: narrow_w2(&w2),
            w2,
            b2: self.v[self.b2()..]
                .iter()
                .map(|&b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
        }
    }
}

/// `lanes[i % 8] += w[i] * f(x[i])`.
#[inline(always)]
fn dot_in_lanes(lanes: &mut [f32; 8], x: &[f32], w: &[f32], f: impl Fn(f32) -> f32) {
    let (xs, ws) = (x.chunks_exact(8), w.chunks_exact(8));
    let (xr, wr) = (xs.remainder(), ws.remainder());
    for (xc, wc) in xs.zip(ws) {
        for k in 0..8 {
            lanes[k] += wc[k] * f(xc[k]);
        }
    }
    for (k, (&xi, &wi)) in xr.iter().zip(wr).enumerate() {
        lanes[k] += wi * f(xi);
    }
}

/// `acc += row`, element by element (vectorised by the compiler).
#[inline(always)]
fn add_row(acc: &mut [f32], row: &[f32]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a += w;
    }
}

/// A thread's working space for one sample at a time: its inputs, both perspectives' hidden
/// sums and the hidden layer's gradient.
struct Scratch {
    features: Features,
    a: Vec<f32>,
    b: Vec<f32>,
    d: Vec<f32>,
}

impl Scratch {
    fn new(hidden: usize) -> Scratch {
        Scratch {
            features: Features::default(),
            a: vec![0.0; hidden],
            b: vec![0.0; hidden],
            d: vec![0.0; hidden],
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;
    use crate::basics::position::Game;
    use crate::eval::nnue::{self, SCALE};
    use crate::learn::packed::{Outcome, Record};
    use crate::learn::train::testing::{SET, samples};

    /// Parameter `i`'s entry of `grad` (the gradient of `p`'s loss over `batch`), checked
    /// against a central finite difference of the loss.
    fn checked_gradient(p: &Params, batch: &[Sample], grad: &[f32], i: usize, what: &str) -> f64 {
        let eps = 1e-3;
        let mut plus = p.clone();
        plus.v[i] += eps;
        let mut minus = p.clone();
        minus.v[i] -= eps;
        let numeric = (plus.loss(batch) - minus.loss(batch)) / (2.0 * f64::from(eps));
        let analytic = f64::from(grad[i]);
        assert!(
            (numeric - analytic).abs() <= 1e-2 * numeric.abs().max(1e-3),
            "{what} param {i}: numeric {numeric}, analytic {analytic}"
        );
        analytic
    }

    /// White's input index of a white `role` on `sq` (no king buckets).
    fn white(role: shakmaty::Role, sq: shakmaty::Square) -> usize {
        nnue::feature(
            Color::White,
            sq,
            shakmaty::Piece {
                color: Color::White,
                role,
            },
        )
    }

    /// Small made-up weights for the shared rows of a factorised net (they start at zero),
    /// so that they shape the output.
    fn shared_rows_random(p: &mut Params, seed: u64) {
        let Some(start) = p.shared(0) else { return };
        let mut rng = Lcg(seed);
        for w in &mut p.v[start..start + INPUTS * p.hidden] {
            *w = (rng.next_u31() % 100) as f32 / 1000.0 - 0.05;
        }
    }

    /// Hidden biases that move the sums into the unclamped range, where the slope is defined.
    fn unclamped(p: &mut Params) {
        let b1 = p.b1();
        for j in 0..p.hidden {
            p.v[b1 + j] = 0.3 + 0.1 * j as f32;
        }
    }

    #[test]
    fn the_gradient_agrees_with_finite_differences() {
        for activation in [Activation::CReLU, Activation::SCReLU] {
            let mut p = Params::random(4, activation, 1, KingLayout::NONE, 3);
            unclamped(&mut p);
            let b1 = p.b1();
            let batch = samples(&SET, 0.5);
            let (_, grad) = p.gradient(&batch, 2);
            let w2 = p.w2();
            // A first-layer weight of a piece present in every sample (White's king on e1
            // in three of them, e2 or e3 in others), a bias, output weights.
            let king_e1 = white(shakmaty::Role::King, shakmaty::Square::E1);
            for i in [king_e1 * 4 + 1, b1 + 2, w2, w2 + 5, p.b2()] {
                let analytic = checked_gradient(&p, &batch, &grad, i, &format!("{activation:?}"));
                assert!(analytic != 0.0, "param {i} has no gradient");
            }
        }
    }

    /// With four king buckets the first layer is factorised: a bucket's row and the shared
    /// row of the same (mirrored) feature both get the gradient of every position that uses
    /// them. Here White's king on e1 and Black's on e8 both read as an own king on d1
    /// (mirrored) in bucket 1.
    #[test]
    fn with_king_buckets_bucket_and_shared_rows_get_their_gradients() {
        let kings = KingLayout::new(4).unwrap();
        let mut p = Params::random(4, Activation::SCReLU, 1, kings, 3);
        unclamped(&mut p);
        shared_rows_random(&mut p, 8);
        let batch = samples(&SET, 0.5);
        let (_, grad) = p.gradient(&batch, 2);
        let king_d1 = white(shakmaty::Role::King, shakmaty::Square::D1);
        for i in [
            (INPUTS + king_d1) * 4 + 1,
            (kings.inputs() + king_d1) * 4 + 1,
            p.b1() + 2,
            p.w2(),
        ] {
            let analytic = checked_gradient(&p, &batch, &grad, i, "king buckets");
            assert!(analytic != 0.0, "param {i} has no gradient");
        }
        // White's pawn on e4 (the first and last positions, White's king on e1) is a pawn
        // on d4 in bucket 1 for White; no king of the set stands in bucket 0 (a1-b1, g1-h1),
        // so that bucket's row of the same pawn learns nothing.
        let pawn_d4 = white(shakmaty::Role::Pawn, shakmaty::Square::D4);
        assert!(grad[(INPUTS + pawn_d4) * 4 + 1] != 0.0);
        assert_eq!(grad[pawn_d4 * 4 + 1], 0.0);
    }

    #[test]
    fn the_vector_and_portable_gradients_are_the_same_bit_for_bit() {
        for (activation, hidden) in [(Activation::SCReLU, 20), (Activation::CReLU, 16)] {
            let mut p = Params::random(hidden, activation, 2, KingLayout::NONE, 4);
            unclamped(&mut p);
            let batch = samples(&SET, 0.3);
            let get = |i: usize| batch.get(i).copied();
            let portable = p.part_gradient_body(0..batch.len(), &get, 0.25);
            let dispatched = p.part_gradient(0..batch.len(), &get, 0.25);
            assert_eq!(portable.0.to_bits(), dispatched.0.to_bits());
            assert!(
                portable
                    .1
                    .iter()
                    .zip(&dispatched.1)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
        }
    }

    #[test]
    fn quantised_first_layer_weights_stay_where_16_bit_sums_hold_them() {
        let mut p = Params::random(4, Activation::SCReLU, 1, KingLayout::NONE, 3);
        let b1 = p.b1();
        p.v[5] = 100.0;
        p.v[b1 + 1] = -50.0;
        assert_eq!(p.clipped_first_layer(), 2);
        let net = p.quantise(0);
        assert_eq!((net.w1[5], net.b1[1]), (MAX_W1, -MAX_W1));
        assert_eq!(Network::from_bytes(&net.to_bytes()), Ok(net));
    }

    /// Sets `p`'s biases and shared rows (zero in `Params::random`) away from zero, as a
    /// trained net's are: the first layer's on one scale, the output's on another.
    fn biases_off_zero(p: &mut Params) {
        let (w2, b2) = (p.w2(), p.b2());
        let shared = p.kings.inputs() * p.hidden;
        for (i, w) in p.v.iter_mut().enumerate() {
            let wave = ((i * 37 % 101) as f32 - 50.0) / 50.0;
            if (shared..w2).contains(&i) {
                *w = 0.2 * wave;
            } else if i >= b2 {
                *w = 0.3 * wave;
            }
        }
    }

    /// Random nets of `hidden` neurons with their biases off zero, one per layout the tests
    /// cover: 1 output bucket and no king buckets, 3 and mirroring only, 2 and four factorised
    /// king buckets.
    fn varied_nets(hidden: usize, seed: u64) -> Vec<Params> {
        [(1, 0), (3, 1), (2, 4)]
            .into_iter()
            .map(|(buckets, kings)| {
                let kings = KingLayout::new(kings).unwrap();
                let mut p = Params::random(hidden, Activation::SCReLU, buckets, kings, seed);
                biases_off_zero(&mut p);
                p
            })
            .collect()
    }

    #[test]
    fn a_net_read_back_into_floats_quantises_to_the_same_net() {
        let valid = samples(&SET, 0.0);
        for p in varied_nets(16, 9) {
            let (buckets, kings) = (p.buckets, p.kings);
            let (b1, b2) = (p.b1(), p.b2());
            assert!(p.v[b1] != 0.0 && p.v[b2] != 0.0);
            let net = p.quantise(42);
            let back = Params::from_network(&net);
            assert_eq!(back.v.len(), p.v.len());
            assert_eq!(back.quantise(42), net, "{buckets} buckets, {kings:?}");
            // The float net read back scores as the one quantised, up to the grid.
            for s in &valid {
                let (a, b) = (p.forward(s), back.forward(s));
                assert!(
                    (a - b).abs() < 0.02,
                    "{buckets} buckets, {kings:?}: {a} {b}"
                );
            }
        }
    }

    #[test]
    fn a_widened_net_scores_as_the_narrow_one_and_its_new_neurons_learn() {
        let batch = samples(&SET, 0.5);
        for p in varied_nets(8, 5) {
            let (buckets, kings) = (p.buckets, p.kings);
            let wide = p.widened(24, 7);
            assert_eq!(wide.v.len(), Params::len(24, buckets, kings));
            assert_eq!(wide.hidden, 24);
            for s in &batch {
                let (a, b) = (p.forward(s), wide.forward(s));
                assert!(
                    (a - b).abs() < 1e-5,
                    "{buckets} buckets, {kings:?}: {a} {b}"
                );
            }
            // The new neurons are live (random first-layer rows) and silent (zero output
            // weights); the loss's gradient reaches their output weights.
            let new_row = &wide.v[8..24];
            assert!(new_row.iter().any(|&w| w != 0.0));
            let (_, grad) = wide.gradient(&batch, 1);
            for bucket in 0..buckets {
                let at = wide.w2_of(bucket);
                for side in 0..2 {
                    let out = &wide.v[at + side * 24 + 8..at + (side + 1) * 24];
                    assert!(out.iter().all(|&w| w == 0.0));
                }
            }
            let used = (0..buckets).any(|bucket| {
                let at = wide.w2_of(bucket);
                grad[at + 8..at + 24].iter().any(|&g| g != 0.0)
            });
            assert!(
                used,
                "{buckets} buckets, {kings:?}: no gradient on the new neurons"
            );
            // Not wider: the net as it is.
            assert_eq!(p.widened(8, 7), p);
        }
    }

    #[test]
    fn clipping_the_first_layer_leaves_nothing_for_quantise_to_clip() {
        let mut p = Params::random(4, Activation::SCReLU, 1, KingLayout::NONE, 3);
        let (b1, w2) = (p.b1(), p.w2());
        p.v[5] = 100.0;
        p.v[b1 + 1] = -50.0;
        p.v[w2] = 7.0;
        let before = p.v[6];
        p.clip_first_layer();
        assert_eq!(p.clipped_first_layer(), 0);
        let limit = f32::from(MAX_W1) / QA as f32;
        assert_eq!((p.v[5], p.v[b1 + 1]), (limit, -limit));
        // Weights inside the range and the output layer are left alone.
        assert_eq!((p.v[6], p.v[w2]), (before, 7.0));
    }

    /// Three output buckets over positions of 3 and 32 pieces (buckets 0 and 2): each
    /// bucket's weights get the gradient of its own positions only, and the quantised net
    /// scores each position by the same bucket as the float one.
    #[test]
    fn each_bucket_learns_from_its_own_positions_only() {
        let mut p = Params::random(4, Activation::SCReLU, 3, KingLayout::NONE, 9);
        unclamped(&mut p);
        let batch = samples(&SET, 0.5);
        let (_, grad) = p.gradient(&batch, 2);
        for b in 0..3 {
            for i in [p.w2_of(b) + 1, p.w2_of(b) + 6, p.b2() + b] {
                let analytic = checked_gradient(&p, &batch, &grad, i, &format!("bucket {b}"));
                // Bucket 1 has no position; the others' biases always have a gradient.
                if b == 1 {
                    assert_eq!(analytic, 0.0, "bucket 1 param {i}");
                } else if i == p.b2() + b {
                    assert!(analytic != 0.0, "bucket {b}'s bias has no gradient");
                }
            }
        }
        let net = p.quantise(0);
        assert_eq!((net.buckets, net.w2.len(), net.b2.len()), (3, 24, 3));
        for (fen, _, _) in SET {
            let pos = Game::from_fen(fen, false).unwrap().pos;
            let r = Record::pack(&pos, Some(0), Outcome::Draw, false);
            let s = Sample::from_record(&r, 0.0).unwrap();
            let (ours, theirs) = s.perspectives(p.kings);
            let (a, b) = (p.accumulate(&ours), p.accumulate(&theirs));
            let quant_cp = net.evaluate(&pos) as f32;
            let own = bucket(s.pieces(), 3);
            for k in 0..3 {
                let float_cp = p.output(&a, &b, k) * SCALE as f32;
                // Quantisation moves these sums by a few centipawns; the buckets' weights
                // are far more apart.
                assert_eq!(
                    (float_cp - quant_cp).abs() <= 6.0,
                    k == own,
                    "{fen}: bucket {k} float {float_cp}, quantised {quant_cp}"
                );
            }
        }
    }

    #[test]
    fn quantised_inference_follows_the_float_network() {
        for (activation, k) in [
            (Activation::CReLU, 0),
            (Activation::SCReLU, 0),
            (Activation::SCReLU, 1),
            (Activation::SCReLU, 2),
            (Activation::CReLU, 4),
            (Activation::SCReLU, 4),
        ] {
            let kings = KingLayout::new(k).unwrap();
            let mut p = Params::random(16, activation, 1, kings, 11);
            // Shared rows that count (with 2 or 4 buckets): the engine's net has them added
            // into each bucket.
            shared_rows_random(&mut p, 4);
            // Weights on the quantisation's grid, so that the two differ only by the integer
            // arithmetic's rounding: a row of the wrong bucket or a shared row left out of
            // the engine's net would show.
            let (w2, b2) = (p.w2(), p.b2());
            for (i, w) in p.v.iter_mut().enumerate() {
                let by = match i {
                    i if i < w2 => QA,
                    i if i < b2 => QB,
                    _ => QA * QB,
                } as f32;
                *w = (*w * by).round() / by;
            }
            let net = p.quantise(0);
            assert_eq!((net.kings, net.w1.len()), (kings, kings.inputs() * 16));
            for (fen, _, _) in SET {
                let pos = Game::from_fen(fen, false).unwrap().pos;
                let r = Record::pack(&pos, Some(0), Outcome::Draw, false);
                let s = Sample::from_record(&r, 0.0).unwrap();
                let float_cp = p.forward(&s) * SCALE as f32;
                let quant_cp = net.evaluate(&pos) as f32;
                assert!(
                    (float_cp - quant_cp).abs() <= 1.0,
                    "{activation:?} {k} king buckets {fen}: float {float_cp}, quantised {quant_cp}"
                );
            }
        }
    }
}
