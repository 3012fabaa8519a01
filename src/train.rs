//! `ferrum train`: fits the NNUE (see `nnue.rs`) to packed self-play records on the CPU.
//! Mini-batches are split over threads; Adam with a cosine learning-rate schedule; the loss
//! is the squared error between sigmoid(output) and a blend of sigmoid(score / 400) and the
//! game result; the file's tail is held out. Each epoch writes a checkpoint (weights and
//! Adam moments, to resume from), the quantised net and the loss curve as SVG.

use std::path::{Path, PathBuf};

use shakmaty::Color;

use crate::nnue::{self, Activation, INPUTS, Network, QA, QB, SCALE};
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
    fn perspectives(&self) -> (Vec<usize>, Vec<usize>) {
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

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The float network being trained; its output y means sigmoid(y) for the side to move
/// (y times 400 is centipawns).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub hidden: usize,
    pub activation: Activation,
    /// All weights in one vector: w1 (768 x H), b1 (H), w2 (2H), b2 (1).
    pub v: Vec<f32>,
}

impl Params {
    pub fn len(hidden: usize) -> usize {
        INPUTS * hidden + 3 * hidden + 1
    }

    /// Small random weights from a seed.
    pub fn random(hidden: usize, activation: Activation, seed: u64) -> Params {
        let mut rng = Lcg(seed);
        let mut uniform = |a: f32| ((rng.next_u31() as f32 / (1u64 << 31) as f32) * 2.0 - 1.0) * a;
        let mut v = vec![0.0; Params::len(hidden)];
        for w in &mut v[..INPUTS * hidden] {
            *w = uniform(0.1);
        }
        let out = 1.0 / (2.0 * hidden as f32).sqrt();
        let w2 = INPUTS * hidden + hidden;
        for w in &mut v[w2..w2 + 2 * hidden] {
            *w = uniform(out);
        }
        Params {
            hidden,
            activation,
            v,
        }
    }

    fn b1(&self) -> usize {
        INPUTS * self.hidden
    }

    fn w2(&self) -> usize {
        self.b1() + self.hidden
    }

    fn b2(&self) -> usize {
        self.w2() + 2 * self.hidden
    }

    fn accumulate(&self, features: &[usize]) -> Vec<f32> {
        let h = self.hidden;
        let mut acc = self.v[self.b1()..self.b1() + h].to_vec();
        for &f in features {
            for (a, w) in acc.iter_mut().zip(&self.v[f * h..(f + 1) * h]) {
                *a += w;
            }
        }
        acc
    }

    /// The output y over the two perspectives' hidden sums.
    fn output(&self, ours: &[f32], theirs: &[f32]) -> f32 {
        let w2 = &self.v[self.w2()..self.b2()];
        let act = self.activation;
        let mut y = self.v[self.b2()];
        for (i, x) in ours.iter().chain(theirs).enumerate() {
            y += w2[i] * act.apply(*x);
        }
        y
    }

    /// The raw output y for a sample.
    pub fn forward(&self, s: &Sample) -> f32 {
        let (ours, theirs) = s.perspectives();
        self.output(&self.accumulate(&ours), &self.accumulate(&theirs))
    }

    /// Adds the gradient of `scale` x this sample's loss to `grad`; returns the loss.
    fn backward(&self, s: &Sample, scale: f32, grad: &mut [f32]) -> f32 {
        let h = self.hidden;
        let (ours, theirs) = s.perspectives();
        let (a, b) = (self.accumulate(&ours), self.accumulate(&theirs));
        let (w2_at, b2_at, b1_at) = (self.w2(), self.b2(), self.b1());
        let act = self.activation;
        let p = sigmoid(self.output(&a, &b));
        let err = p - s.target;
        let g = scale * 2.0 * err * p * (1.0 - p);
        grad[b2_at] += g;
        let mut d = vec![0.0; h];
        for (half, (acc, features)) in [(&a, &ours), (&b, &theirs)].into_iter().enumerate() {
            for j in 0..h {
                let k = half * h + j;
                grad[w2_at + k] += g * act.apply(acc[j]);
                d[j] = g * self.v[w2_at + k] * act.slope(acc[j]);
            }
            for (gb, dj) in grad[b1_at..b1_at + h].iter_mut().zip(&d) {
                *gb += dj;
            }
            for &f in features.iter() {
                for (gw, dj) in grad[f * h..(f + 1) * h].iter_mut().zip(&d) {
                    *gw += dj;
                }
            }
        }
        err * err
    }

    /// Mean loss over samples.
    pub fn loss(&self, samples: &[Sample]) -> f64 {
        let sum: f64 = samples
            .iter()
            .map(|s| {
                let e = sigmoid(self.forward(s)) - s.target;
                f64::from(e * e)
            })
            .sum();
        sum / samples.len().max(1) as f64
    }

    /// The mean loss and its gradient over a batch, computed on `threads` threads.
    pub fn gradient(&self, batch: &[Sample], threads: usize) -> (f64, Vec<f32>) {
        let scale = 1.0 / batch.len().max(1) as f32;
        let chunk = batch.len().div_ceil(threads.max(1)).max(1);
        let parts: Vec<(f64, Vec<f32>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = batch
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        let mut grad = vec![0.0; self.v.len()];
                        let loss: f64 = part
                            .iter()
                            .map(|s| f64::from(self.backward(s, scale, &mut grad)))
                            .sum();
                        (loss, grad)
                    })
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
            for (t, x) in total.iter_mut().zip(&g) {
                *t += x;
            }
        }
        (loss / batch.len().max(1) as f64, total)
    }

    /// The quantised network; weights beyond what i16 holds are clipped.
    pub fn quantise(&self, settings_hash: u64) -> Network {
        let q = |x: f32, by: i32| (x * by as f32).round().clamp(-32767.0, 32767.0) as i16;
        Network {
            hidden: self.hidden,
            activation: self.activation,
            settings_hash,
            w1: self.v[..self.b1()].iter().map(|&w| q(w, QA)).collect(),
            b1: self.v[self.b1()..self.w2()]
                .iter()
                .map(|&w| q(w, QA))
                .collect(),
            w2: self.v[self.w2()..self.b2()]
                .iter()
                .map(|&w| q(w, QB))
                .collect(),
            b2: (self.v[self.b2()] * (QA * QB) as f32).round() as i32,
        }
    }
}

/// Adam's moments, kept in checkpoints so a run resumes where it stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    pub m: Vec<f32>,
    pub s: Vec<f32>,
    pub steps: u64,
}

impl Adam {
    pub fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            s: vec![0.0; n],
            steps: 0,
        }
    }

    pub fn step(&mut self, params: &mut [f32], grad: &[f32], lr: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.steps += 1;
        let c1 = 1.0 - B1.powi(self.steps.min(100_000) as i32);
        let c2 = 1.0 - B2.powi(self.steps.min(100_000) as i32);
        for i in 0..params.len() {
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * grad[i];
            self.s[i] = B2 * self.s[i] + (1.0 - B2) * grad[i] * grad[i];
            params[i] -= lr * (self.m[i] / c1) / ((self.s[i] / c2).sqrt() + 1e-8);
        }
    }
}

#[derive(Clone, Debug)]
pub struct Settings {
    pub hidden: usize,
    pub activation: Activation,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    pub wdl: f32,
    pub hold_out: f64,
    pub threads: usize,
    pub seed: u64,
}

impl Settings {
    /// A hash of what shapes the net (not the thread count), written into the net file.
    pub fn hash(&self) -> u64 {
        let text = format!(
            "h{} {} e{} b{} lr{} wdl{} ho{} s{}",
            self.hidden,
            self.activation.name(),
            self.epochs,
            self.batch,
            self.lr,
            self.wdl,
            self.hold_out,
            self.seed
        );
        text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }
}

/// The learning rate of `epoch` (0-based) of `epochs`: cosine from `lr` down to lr / 100.
pub fn learning_rate(lr: f32, epoch: usize, epochs: usize) -> f32 {
    let t = epoch as f32 / epochs.max(1) as f32;
    let low = lr / 100.0;
    low + 0.5 * (lr - low) * (1.0 + (std::f32::consts::PI * t).cos())
}

/// Per epoch: (train loss, validation loss).
pub type Curve = Vec<(f64, f64)>;

const CHECKPOINT_MAGIC: &[u8; 4] = b"FRCK";

/// Writes weights, Adam moments, the epoch and the curve so far.
pub fn write_checkpoint(
    path: &Path,
    params: &Params,
    adam: &Adam,
    epoch: usize,
    curve: &Curve,
) -> Result<(), String> {
    let mut out = Vec::new();
    out.extend_from_slice(CHECKPOINT_MAGIC);
    out.extend_from_slice(&(params.hidden as u32).to_le_bytes());
    out.push(u8::from(params.activation == Activation::SCReLU));
    out.extend_from_slice(&(epoch as u32).to_le_bytes());
    out.extend_from_slice(&adam.steps.to_le_bytes());
    out.extend_from_slice(&(curve.len() as u32).to_le_bytes());
    for (t, v) in curve {
        out.extend_from_slice(&t.to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    }
    for x in params.v.iter().chain(&adam.m).chain(&adam.s) {
        out.extend_from_slice(&x.to_le_bytes());
    }
    // Written aside and renamed, so a stop mid-write never leaves a broken checkpoint.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, out).map_err(|e| format!("cannot write '{}': {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

/// Reads a checkpoint: the weights, Adam, the epochs done and the curve.
pub fn read_checkpoint(path: &Path) -> Result<(Params, Adam, usize, Curve), String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    let bad = || format!("'{}' is not a Ferrum training checkpoint", path.display());
    let mut at = 0;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let s = bytes.get(at..at + n).ok_or_else(bad)?;
        at += n;
        Ok(s)
    };
    if take(4)? != CHECKPOINT_MAGIC {
        return Err(bad());
    }
    let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let hidden = word(take(4)?) as usize;
    let activation = if take(1)?[0] == 1 {
        Activation::SCReLU
    } else {
        Activation::CReLU
    };
    let epoch = word(take(4)?) as usize;
    let mut steps = [0u8; 8];
    steps.copy_from_slice(take(8)?);
    let points = word(take(4)?) as usize;
    let mut curve = Vec::new();
    for _ in 0..points.min(1 << 20) {
        let mut t = [0u8; 8];
        t.copy_from_slice(take(8)?);
        let mut v = [0u8; 8];
        v.copy_from_slice(take(8)?);
        curve.push((f64::from_le_bytes(t), f64::from_le_bytes(v)));
    }
    let n = Params::len(hidden);
    let mut floats = |count: usize| -> Result<Vec<f32>, String> {
        let raw = take(4 * count)?;
        Ok(raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    };
    let v = floats(n)?;
    let m = floats(n)?;
    let s = floats(n)?;
    Ok((
        Params {
            hidden,
            activation,
            v,
        },
        Adam {
            m,
            s,
            steps: u64::from_le_bytes(steps),
        },
        epoch,
        curve,
    ))
}

/// The loss curve as an SVG line chart: training loss and validation loss per epoch.
pub fn curve_svg(curve: &Curve, title: &str) -> String {
    let (w, h, left, bottom, top, right) = (640.0, 400.0, 70.0, 50.0, 40.0, 20.0);
    let values = curve.iter().flat_map(|(t, v)| [*t, *v]);
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    let n = curve.len().max(2) - 1;
    let x = |i: usize| left + (w - left - right) * i as f64 / n as f64;
    let y = |v: f64| top + (h - top - bottom) * (hi - v) / (hi - lo);
    let line = |pick: fn(&(f64, f64)) -> f64| -> String {
        curve
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(pick(p))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"14\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"24\" font-size=\"16\">{title}</text>\n"
    );
    for k in 0..=4 {
        let v = lo + (hi - lo) * f64::from(k) / 4.0;
        svg += &format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\n\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.5}</text>\n",
            w - right,
            left - 6.0,
            y(v) + 5.0,
            y = y(v)
        );
    }
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">epoch (1 to {})</text>\n",
        (w + left) / 2.0,
        h - 12.0,
        curve.len()
    );
    svg += &format!(
        "<polyline fill=\"none\" stroke=\"#1f6fd1\" stroke-width=\"2\" points=\"{}\"/>\n\
         <polyline fill=\"none\" stroke=\"#d1531f\" stroke-width=\"2\" points=\"{}\"/>\n\
         <text x=\"{}\" y=\"{}\" fill=\"#1f6fd1\">training loss</text>\n\
         <text x=\"{}\" y=\"{}\" fill=\"#d1531f\">validation loss</text>\n</svg>\n",
        line(|p| p.0),
        line(|p| p.1),
        w - 260.0,
        top + 20.0,
        w - 260.0,
        top + 40.0
    );
    svg
}

/// Where a run writes its files.
pub struct Outputs {
    pub dir: PathBuf,
}

impl Outputs {
    pub fn checkpoint(&self) -> PathBuf {
        self.dir.join("checkpoint.bin")
    }
    pub fn net(&self) -> PathBuf {
        self.dir.join("net.bin")
    }
    pub fn curve(&self) -> PathBuf {
        self.dir.join("loss.svg")
    }
}

/// Trains from `start` (a fresh or resumed network) for the epochs not yet done, writing
/// the outputs after every epoch; `log` gets a line per epoch.
#[allow(clippy::too_many_arguments)]
pub fn train(
    train_set: &mut [Sample],
    valid_set: &[Sample],
    settings: &Settings,
    mut params: Params,
    mut adam: Adam,
    first_epoch: usize,
    mut curve: Curve,
    outputs: &Outputs,
    log: &mut dyn FnMut(&str),
) -> Result<Params, String> {
    let mut rng = Lcg(settings.seed ^ 0x7261_696e);
    for epoch in first_epoch..settings.epochs {
        let started = std::time::Instant::now();
        // Fisher-Yates with the run's generator, so a run is repeatable from its seed.
        for i in (1..train_set.len()).rev() {
            let r = (rng.next_u31() << 31 | rng.next_u31()) as usize % (i + 1);
            train_set.swap(i, r);
        }
        let lr = learning_rate(settings.lr, epoch, settings.epochs);
        let (mut sum, mut batches) = (0.0, 0);
        for batch in train_set.chunks(settings.batch.max(1)) {
            let (loss, grad) = params.gradient(batch, settings.threads);
            adam.step(&mut params.v, &grad, lr);
            sum += loss;
            batches += 1;
        }
        let train_loss = sum / f64::from(batches.max(1));
        let valid_loss = params.loss(valid_set);
        curve.push((train_loss, valid_loss));
        let secs = started.elapsed().as_secs_f64();
        log(&format!(
            "train: epoch {}/{}, lr {lr:.6}, loss {train_loss:.6}, validation loss {valid_loss:.6}, {:.0} positions/s",
            epoch + 1,
            settings.epochs,
            train_set.len() as f64 / secs.max(1e-9)
        ));
        write_checkpoint(&outputs.checkpoint(), &params, &adam, epoch + 1, &curve)?;
        let net = params.quantise(settings.hash()).to_bytes();
        let net_path = outputs.net();
        std::fs::write(&net_path, net)
            .map_err(|e| format!("cannot write '{}': {e}", net_path.display()))?;
        let title = format!(
            "{} positions, {}x2 {}, batch {}, lr {}, wdl {}",
            train_set.len(),
            settings.hidden,
            settings.activation.name(),
            settings.batch,
            settings.lr,
            settings.wdl
        );
        let curve_path = outputs.curve();
        std::fs::write(&curve_path, curve_svg(&curve, &title))
            .map_err(|e| format!("cannot write '{}': {e}", curve_path.display()))?;
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packed::{Outcome, Record};
    use crate::position::Game;

    fn samples(fens: &[(&str, i32, f32)], wdl: f32) -> Vec<Sample> {
        fens.iter()
            .map(|(fen, score, result)| {
                let pos = Game::from_fen(fen, false).unwrap().pos;
                let r = Record::pack(
                    &pos,
                    Some(*score),
                    Outcome::from_white_score(*result),
                    false,
                );
                Sample::from_record(&r, wdl).unwrap()
            })
            .collect()
    }

    const SET: [(&str, i32, f32); 4] = [
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

    #[test]
    fn targets_blend_the_score_and_the_result_for_the_side_to_move() {
        let s = samples(&SET, 0.25);
        // Black to move, lost (White won): the result for Black is 0.
        let expected = 0.75 * sigmoid(-900.0 / 400.0);
        assert!((s[1].target - expected).abs() < 1e-6);
        assert!((s[0].target - (0.25 * 0.5 + 0.75 * sigmoid(30.0 / 400.0))).abs() < 1e-6);
    }

    #[test]
    fn the_gradient_agrees_with_finite_differences() {
        for activation in [Activation::CReLU, Activation::SCReLU] {
            let mut p = Params::random(4, activation, 3);
            // Move the hidden sums into the unclamped range, where the slope is defined.
            let b1 = p.b1();
            for j in 0..4 {
                p.v[b1 + j] = 0.3 + 0.1 * j as f32;
            }
            let batch = samples(&SET, 0.5);
            let (_, grad) = p.gradient(&batch, 2);
            let w2 = p.w2();
            // A first-layer weight of a piece present in every sample (White's king on e1
            // in three of them, e2 or e3 in others), a bias, output weights.
            let king_e1 = nnue::feature(
                Color::White,
                shakmaty::Square::E1,
                shakmaty::Piece {
                    color: Color::White,
                    role: shakmaty::Role::King,
                },
            );
            for i in [king_e1 * 4 + 1, b1 + 2, w2, w2 + 5, p.b2()] {
                let eps = 1e-3;
                let mut plus = p.clone();
                plus.v[i] += eps;
                let mut minus = p.clone();
                minus.v[i] -= eps;
                let numeric = (plus.loss(&batch) - minus.loss(&batch)) / (2.0 * f64::from(eps));
                let analytic = f64::from(grad[i]);
                assert!(
                    (numeric - analytic).abs() <= 1e-2 * numeric.abs().max(1e-3),
                    "{activation:?} param {i}: numeric {numeric}, analytic {analytic}"
                );
                assert!(analytic != 0.0, "param {i} has no gradient");
            }
        }
    }

    #[test]
    fn quantised_inference_follows_the_float_network() {
        for activation in [Activation::CReLU, Activation::SCReLU] {
            let p = Params::random(16, activation, 11);
            let net = p.quantise(0);
            for (fen, _, _) in SET {
                let pos = Game::from_fen(fen, false).unwrap().pos;
                let r = Record::pack(&pos, Some(0), Outcome::Draw, false);
                let s = Sample::from_record(&r, 0.0).unwrap();
                let float_cp = p.forward(&s) * SCALE as f32;
                let quant_cp = net.evaluate(&pos) as f32;
                assert!(
                    (float_cp - quant_cp).abs() <= 3.0,
                    "{activation:?} {fen}: float {float_cp}, quantised {quant_cp}"
                );
            }
        }
    }

    #[test]
    fn training_a_tiny_net_lowers_the_loss_and_resumes_from_its_checkpoint() {
        let mut set = samples(&SET, 0.5);
        let valid = set.clone();
        let settings = Settings {
            hidden: 8,
            activation: Activation::SCReLU,
            epochs: 60,
            batch: 2,
            lr: 0.01,
            wdl: 0.5,
            hold_out: 0.0,
            threads: 2,
            seed: 1,
        };
        let dir = std::env::temp_dir().join(format!("ferrum-train-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let outputs = Outputs { dir: dir.clone() };
        let start = Params::random(8, Activation::SCReLU, 5);
        let before = start.loss(&valid);
        let n = start.v.len();
        let trained = train(
            &mut set,
            &valid,
            &settings,
            start,
            Adam::new(n),
            0,
            Vec::new(),
            &outputs,
            &mut |_| {},
        )
        .unwrap();
        let after = trained.loss(&valid);
        assert!(after < before / 4.0, "loss {before} -> {after}");
        let (resumed, adam, epoch, curve) = read_checkpoint(&outputs.checkpoint()).unwrap();
        assert_eq!(resumed, trained);
        assert_eq!((epoch, curve.len()), (60, 60));
        assert_eq!(adam.steps, 120);
        let net = std::fs::read(outputs.net()).unwrap();
        assert_eq!(
            Network::from_bytes(&net).unwrap(),
            trained.quantise(settings.hash())
        );
        let svg = std::fs::read_to_string(outputs.curve()).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("validation loss"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
