//! `ferrum tune`: fits the evaluation weights to game results (Texel's method). Each
//! position's score is a linear function of the weights; the loss is the mean squared gap
//! between the game result and a logistic of the score, minimised by gradient descent (Adam).
//! An L2 penalty holds each weight near its starting value unless the data insists: without
//! it, weights of rare features (a knight on h8) drift wherever a handful of positions pull
//! them. A held-out share of the positions measures whether the fit generalises.

use std::fmt::Write as _;

use crate::basics::position::Game;
use crate::eval::weights::WEIGHTS;
use crate::eval::{self, FULL_SCALE, MAX_PHASE, param};

/// One training position, reduced to what the loss needs.
pub struct Sample {
    /// Middlegame share of the blend, 0 to 1.
    mg_share: f64,
    /// Scale of drawish material, 0 to 1.
    scale: f64,
    /// Feature index and count (White minus Black).
    counts: Vec<(usize, i32)>,
    /// Game result for White: 1, 0.5 or 0.
    result: f64,
}

/// Parses `FEN;result` lines; bad lines are counted and skipped.
pub fn load(text: &str) -> (Vec<Sample>, usize) {
    let mut samples = Vec::new();
    let mut bad = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let parsed = line.rsplit_once(';').and_then(|(fen, r)| {
            let result: f64 = r.trim().parse().ok()?;
            let game = Game::from_fen(fen, false).ok()?;
            Some((game, result))
        });
        let Some((game, result)) = parsed.filter(|(_, r)| (0.0..=1.0).contains(r)) else {
            bad += 1;
            continue;
        };
        let (phase, scale, trace) = eval::trace(&game.pos);
        samples.push(Sample {
            mg_share: f64::from(phase) / f64::from(MAX_PHASE),
            scale: f64::from(scale) / f64::from(FULL_SCALE),
            counts: trace.counts,
            result,
        });
    }
    (samples, bad)
}

fn score(s: &Sample, w: &[f64]) -> f64 {
    let mut mg = 0.0;
    let mut eg = 0.0;
    for &(i, c) in &s.counts {
        mg += w[i] * f64::from(c);
        eg += w[i + 1] * f64::from(c);
    }
    (mg * s.mg_share + eg * (1.0 - s.mg_share)) * s.scale
}

fn sigmoid(k: f64, score: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * score / 400.0))
}

/// Mean squared error of the predicted results.
pub fn loss(samples: &[Sample], w: &[f64], k: f64) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| (s.result - sigmoid(k, score(s, w))).powi(2))
        .sum();
    total / samples.len().max(1) as f64
}

fn gradient(samples: &[Sample], w: &[f64], k: f64) -> Vec<f64> {
    let mut g = vec![0.0; w.len()];
    let scale = k * std::f64::consts::LN_10 / 400.0;
    for s in samples {
        let p = sigmoid(k, score(s, w));
        // d/dscore of (result - p)^2.
        let d = -2.0 * (s.result - p) * p * (1.0 - p) * scale;
        for &(i, c) in &s.counts {
            g[i] += d * f64::from(c) * s.mg_share * s.scale;
            g[i + 1] += d * f64::from(c) * (1.0 - s.mg_share) * s.scale;
        }
    }
    let n = samples.len().max(1) as f64;
    g.iter_mut().for_each(|x| *x /= n);
    g
}

/// The logistic scale that best fits the current weights (golden-section search).
pub fn fit_k(samples: &[Sample], w: &[f64]) -> f64 {
    let (mut lo, mut hi) = (0.1f64, 4.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if loss(samples, w, a) < loss(samples, w, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

pub struct Outcome {
    pub k: f64,
    pub loss_before: f64,
    pub loss_after: f64,
    /// Loss on the held-out positions before and after (NaN without any).
    pub valid_before: f64,
    pub valid_after: f64,
    pub weights: Vec<i32>,
}

#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub iterations: usize,
    pub rate: f64,
    /// Weight of the penalty on the squared distance from the starting weights.
    pub l2: f64,
    /// Whether the square tables are fitted too; without them only the ~90 material and
    /// term weights move, which many fewer games can pin down.
    pub squares: bool,
}

/// Whether weight `i` is fitted under `settings`.
fn is_free(settings: &Settings, i: usize) -> bool {
    settings.squares || !(param::PST..param::BISHOP_PAIR).contains(&i)
}

/// Adam on the full batch of `train` for `iterations` steps from the current weights;
/// `progress` gets the iteration and the training and held-out losses.
pub fn tune(
    train: &[Sample],
    held_out: &[Sample],
    settings: Settings,
    progress: &mut dyn FnMut(usize, f64, f64),
) -> Outcome {
    let start: Vec<f64> = WEIGHTS.as_slice().iter().map(|&x| f64::from(x)).collect();
    let mut w = start.clone();
    let k = fit_k(train, &w);
    let valid = |w: &[f64]| {
        if held_out.is_empty() {
            f64::NAN
        } else {
            loss(held_out, w, k)
        }
    };
    let loss_before = loss(train, &w, k);
    let valid_before = valid(&w);
    progress(0, loss_before, valid_before);
    let (beta1, beta2, eps) = (0.9, 0.999, 1e-8);
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    let (iterations, rate) = (settings.iterations, settings.rate);
    for t in 1..=iterations {
        let mut g = gradient(train, &w, k);
        for (i, gi) in g.iter_mut().enumerate() {
            *gi = if is_free(&settings, i) {
                *gi + 2.0 * settings.l2 * (w[i] - start[i])
            } else {
                0.0
            };
        }
        for i in 0..w.len() {
            m[i] = beta1 * m[i] + (1.0 - beta1) * g[i];
            v[i] = beta2 * v[i] + (1.0 - beta2) * g[i] * g[i];
            let m_hat = m[i] / (1.0 - beta1.powi(t as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(t as i32));
            w[i] -= rate * m_hat / (v_hat.sqrt() + eps);
        }
        if t % 50 == 0 || t == iterations {
            progress(t, loss(train, &w, k), valid(&w));
        }
    }
    Outcome {
        k,
        loss_before,
        loss_after: loss(train, &w, k),
        valid_before,
        valid_after: valid(&w),
        weights: w.iter().map(|x| x.round() as i32).collect(),
    }
}

/// The Rust source of `eval/tuned.rs` for these weights.
pub fn params_source(weights: &[i32], note: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "//! Evaluation weights, middlegame then endgame for each term (see `eval::weights` for the\n\
         //! layout). Written by `ferrum tune`: {note}\n"
    );
    let _ = writeln!(s, "pub const PARAMS: [i32; {}] = [", param::COUNT);
    for (first, pairs, comment) in param::rows() {
        s.push_str("   ");
        for w in &weights[first..first + 2 * pairs] {
            let _ = write!(s, " {w},");
        }
        let _ = writeln!(s, " // {comment}");
    }
    s.push_str("];\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::tuned::PARAMS;

    fn samples() -> Vec<Sample> {
        let text = "4k3/8/8/8/8/8/PPP5/4K3 w - - 0 1;1.0\n\
                    4k3/ppp5/8/8/8/8/8/4K3 w - - 0 1;0.0\n\
                    4k3/pp6/8/8/8/8/PP6/4K3 b - - 0 1;0.5\n\
                    r3k3/8/8/8/8/8/8/4K3 w - - 0 1;0.0\n\
                    not a fen;1.0\n\
                    4k3/8/8/8/8/8/8/R3K3 w - - 0 1;2.0\n";
        let (s, bad) = load(text);
        assert_eq!((s.len(), bad), (4, 2));
        s
    }

    #[test]
    fn analytic_gradient_matches_finite_differences() {
        let s = samples();
        let w: Vec<f64> = PARAMS.iter().map(|&x| f64::from(x)).collect();
        let g = gradient(&s, &w, 1.0);
        for i in [param::MATERIAL, param::MATERIAL + 1, param::MATERIAL + 6] {
            let h = 1e-3;
            let mut up = w.clone();
            up[i] += h;
            let mut down = w.clone();
            down[i] -= h;
            let numeric = (loss(&s, &up, 1.0) - loss(&s, &down, 1.0)) / (2.0 * h);
            assert!((numeric - g[i]).abs() < 1e-7, "{i}: {numeric} vs {}", g[i]);
        }
    }

    #[test]
    fn tuning_lowers_the_loss_and_writes_every_weight() {
        let s = samples();
        let settings = Settings {
            iterations: 100,
            rate: 1.0,
            l2: 0.0,
            squares: true,
        };
        let out = tune(&s[..3], &s[3..], settings, &mut |_, _, _| {});
        assert!(out.loss_after < out.loss_before);
        assert!(out.valid_before.is_finite() && out.valid_after.is_finite());
        // A heavy penalty keeps the weights where they started.
        let pinned = tune(
            &s,
            &[],
            Settings {
                l2: 1e6,
                ..settings
            },
            &mut |_, _, _| {},
        );
        assert!(pinned.valid_after.is_nan());
        let moved = pinned
            .weights
            .iter()
            .zip(PARAMS.iter())
            .filter(|(a, b)| (*a - *b).abs() > 1)
            .count();
        assert_eq!(moved, 0);
        // Without the square tables, only material and term weights move.
        let frozen = tune(
            &s,
            &[],
            Settings {
                squares: false,
                ..settings
            },
            &mut |_, _, _| {},
        );
        let moved = |w: &[i32], range: std::ops::Range<usize>| {
            range.filter(|&i| (w[i] - PARAMS[i]).abs() > 1).count()
        };
        assert_eq!(moved(&frozen.weights, param::PST..param::BISHOP_PAIR), 0);
        assert!(moved(&frozen.weights, 0..param::PST) > 0);
        assert!(moved(&out.weights, param::PST..param::BISHOP_PAIR) > 0);
        let src = params_source(&out.weights, "test");
        assert_eq!(src.matches(" // ").count(), param::rows().len());
        assert!(src.contains(&format!("[i32; {}]", param::COUNT)));
    }
}
