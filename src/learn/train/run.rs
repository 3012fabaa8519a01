//! A training run: its settings (hashed into the net file), where it writes, and the epoch
//! loop (shuffle, mini-batches, Adam, validation) that writes the checkpoint, the quantised
//! net and the loss curve after every epoch, starting from a fresh or resumed network.

use std::path::PathBuf;

use super::{Adam, Curve, Params, Positions, Sample, curve_svg, learning_rate, write_checkpoint};
use crate::basics::rng::Lcg;
use crate::eval::nnue::{Activation, KingLayout, MAX_W1, QA};

#[derive(Clone, Debug)]
pub struct Settings {
    pub hidden: usize,
    pub activation: Activation,
    /// Output buckets by piece count (1: none).
    pub buckets: usize,
    /// Inputs by the perspective's king (`KingLayout::NONE`: none).
    pub kings: KingLayout,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    pub wdl: f32,
    pub hold_out: f64,
    pub threads: usize,
    pub seed: u64,
    /// Training positions without castling rights also enter mirrored left to right.
    pub mirror: bool,
    /// AdamW's decoupled weight decay (0: plain Adam).
    pub weight_decay: f32,
    /// The first layer is kept within what the engine's 16-bit sums hold after every step,
    /// so the float net is the one quantised (not with king buckets' shared rows).
    pub clip: bool,
    /// A hash of the net file the run started from (`--init`), when not from random weights.
    pub init: Option<u64>,
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
        // Runs without the mirror or buckets keep the hash they had before those existed.
        let text = if self.mirror { text + " mirror" } else { text };
        let text = if self.buckets > 1 {
            format!("{text} ob{}", self.buckets)
        } else {
            text
        };
        let text = if self.kings.count() > 0 {
            format!("{text} kb{}", self.kings.count())
        } else {
            text
        };
        let text = if self.weight_decay > 0.0 {
            format!("{text} wd{}", self.weight_decay)
        } else {
            text
        };
        let text = if self.clip { text + " clip" } else { text };
        let text = match self.init {
            Some(h) => format!("{text} init{h:016x}"),
            None => text,
        };
        fnv1a(text.as_bytes())
    }

    /// Whether `p` has the shape these settings train (hidden size, activation, output and
    /// king buckets): a checkpoint resumed or a net started from must.
    pub fn fits(&self, p: &Params) -> bool {
        (p.hidden, p.activation, p.buckets, p.kings)
            == (self.hidden, self.activation, self.buckets, self.kings)
    }
}

/// FNV-1a of `bytes`: the settings hash, and which net a run started from in it.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
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

/// Where a run starts: a fresh network, or one resumed from a checkpoint with its optimiser,
/// the epochs it has done and their losses.
pub struct Start {
    pub params: Params,
    pub adam: Adam,
    pub epochs_done: usize,
    pub curve: Curve,
}

impl Start {
    /// A fresh run from `params`.
    pub fn fresh(params: Params) -> Start {
        let n = params.v.len();
        Start {
            params,
            adam: Adam::new(n),
            epochs_done: 0,
            curve: Vec::new(),
        }
    }
}

/// Trains from `start` for the epochs not yet done, writing the outputs after every epoch;
/// `log` gets a line per epoch.
pub fn train(
    train_set: &mut Positions,
    valid_set: &[Sample],
    settings: &Settings,
    start: Start,
    outputs: &Outputs,
    log: &mut dyn FnMut(&str),
) -> Result<Params, String> {
    let Start {
        mut params,
        mut adam,
        epochs_done,
        mut curve,
    } = start;
    let mut rng = Lcg(settings.seed ^ 0x7261_696e);
    for epoch in epochs_done..settings.epochs {
        let started = std::time::Instant::now();
        train_set.shuffle(&mut rng);
        let lr = learning_rate(settings.lr, epoch, settings.epochs);
        let (mut sum, mut batches) = (0.0, 0);
        let set = &*train_set;
        for from in (0..set.len()).step_by(settings.batch.max(1)) {
            let n = settings.batch.max(1).min(set.len() - from);
            let (loss, grad) = params.gradient_of(n, |i| set.sample(from + i), settings.threads);
            adam.step(&mut params.v, &grad, lr, settings.weight_decay);
            if settings.clip {
                params.clip_first_layer();
            }
            sum += loss;
            batches += 1;
        }
        let train_loss = sum / f64::from(batches.max(1));
        let valid_loss = params.loss(valid_set);
        curve.push((train_loss, valid_loss));
        let secs = started.elapsed().as_secs_f64();
        log(&format!(
            "train: epoch {}/{}, lr {lr:.6}, loss {train_loss:.6}, validation loss {valid_loss:.6}, {:.0} positions/s ({:.0} per thread)",
            epoch + 1,
            settings.epochs,
            train_set.len() as f64 / secs.max(1e-9),
            train_set.len() as f64 / secs.max(1e-9) / settings.threads.max(1) as f64
        ));
        write_checkpoint(&outputs.checkpoint(), &params, &adam, epoch + 1, &curve)?;
        let clipped = params.clipped_first_layer();
        if clipped > 0 {
            log(&format!(
                "train: warning: {clipped} first-layer weights or biases lie beyond ±{MAX_W1}/{QA} \
                 and are clipped in net.bin (its 16-bit sums need it), which then differs from \
                 the float net"
            ));
        }
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
    use crate::eval::nnue::Network;
    use crate::learn::train::read_checkpoint;
    use crate::learn::train::testing::{SET, records, samples};

    #[test]
    fn training_a_tiny_net_lowers_the_loss_and_resumes_from_its_checkpoint() {
        let mut set = Positions::split(records(&SET), 0.5, 0.0, false)
            .unwrap()
            .train;
        let valid = samples(&SET, 0.5);
        let settings = Settings {
            hidden: 8,
            activation: Activation::SCReLU,
            buckets: 1,
            kings: KingLayout::NONE,
            epochs: 60,
            batch: 2,
            lr: 0.01,
            wdl: 0.5,
            hold_out: 0.0,
            threads: 2,
            seed: 1,
            mirror: false,
            weight_decay: 0.0,
            clip: false,
            init: None,
        };
        let dir = std::env::temp_dir().join(format!("ferrum-train-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let outputs = Outputs { dir: dir.clone() };
        let start = Params::random(8, Activation::SCReLU, 1, KingLayout::NONE, 5);
        let before = start.loss(&valid);
        let trained = train(
            &mut set,
            &valid,
            &settings,
            Start::fresh(start),
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
