//! `ferrum train` on the command line: the trainer's settings as clap flags, the data files
//! read and split, a fresh or resumed network, and a line per epoch on stderr.

use clap::Args;

use super::progress;
use crate::eval::nnue::{Activation, KingLayout, MAX_BUCKETS};
use crate::learn::packed;
use crate::learn::train::{self, Outputs, Params, Positions, Settings};

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Packed data files (from `ferrum datagen`), separated by commas; the tail of the last
    /// is held out
    #[arg(long, value_name = "FILE[,FILE..]")]
    pub data: String,
    /// Directory for checkpoint.bin (resumable), net.bin and loss.svg, written every epoch
    #[arg(long, value_name = "DIR")]
    pub out: String,
    /// Hidden neurons per perspective (1-4096)
    #[arg(long, value_name = "H", default_value_t = 64)]
    pub hidden: usize,
    /// Output buckets by piece count, each with its own output weights (1-8; 1: none)
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub output_buckets: usize,
    /// King buckets: each perspective's inputs by where its own king stands, with files
    /// mirrored when it is on e-h (0: none, as the first nets; 1: mirroring only; 2: first
    /// rank or not; 4: a1-b1, c1-d1, second rank, the rest). With 2 or 4 the first layer is
    /// trained with rows shared by all buckets, added into each bucket's in the net
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub king_buckets: usize,
    /// The hidden layer's activation
    #[arg(long, value_name = "A", default_value = "screlu", value_parser = Activation::parse)]
    pub activation: Activation,
    /// Passes over the training positions
    #[arg(long, value_name = "E", default_value_t = 20)]
    pub epochs: usize,
    /// Positions per gradient step (more than 0)
    #[arg(long, value_name = "B", default_value_t = 16384)]
    pub batch: usize,
    /// Adam's starting learning rate (more than 0; decays over the epochs)
    #[arg(long, value_name = "R", default_value_t = 0.001)]
    pub lr: f32,
    /// Weight of the game result against the search score in the target ([0, 1])
    #[arg(long, value_name = "W", default_value_t = 0.3)]
    pub wdl: f32,
    /// The fraction of positions held out to measure the validation loss ([0, 1))
    #[arg(long, value_name = "F", default_value_t = 0.05)]
    pub hold_out: f64,
    /// Threads computing the gradient (1 to 256)
    #[arg(long, value_name = "T", default_value_t = 2)]
    pub threads: usize,
    /// The seed of the starting weights and the shuffles: the same seed, the same net
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Also train on each position without castling rights mirrored left to right (files a
    /// and h swapped), which is worth the same; the held-out positions are not mirrored (not
    /// with --king-buckets, whose inputs are mirrored already)
    #[arg(long)]
    pub mirror: bool,
    /// AdamW: each step first shrinks every weight by lr x this (0: plain Adam)
    #[arg(long, value_name = "D", default_value_t = 0.0)]
    pub weight_decay: f32,
    /// Keep the first layer within what the engine's 16-bit sums hold after every step, so
    /// the net written is the one trained (not with --king-buckets 2 or 4)
    #[arg(long)]
    pub clip: bool,
    /// Continue from DIR/checkpoint.bin (same hidden size and activation; a run started
    /// with --init resumes without it, and its net's settings hash then leaves the start
    /// net out)
    #[arg(long, conflicts_with = "init")]
    pub resume: bool,
    /// Start from this net file's weights instead of random ones (its activation and
    /// buckets must be the flags', its hidden size the flags' or smaller: a narrower net is
    /// widened with new neurons whose output weights start at zero, so it scores as before),
    /// with a fresh optimiser and the learning-rate schedule from the start: to go on
    /// training a net on new data
    #[arg(long, value_name = "NET")]
    pub init: Option<String>,
}

// The flags as the trainer's settings, refused when out of range.
fn settings(args: &TrainArgs) -> Result<Settings, String> {
    let s = Settings {
        hidden: args.hidden,
        activation: args.activation,
        buckets: args.output_buckets,
        kings: KingLayout::new(args.king_buckets).map_err(|e| format!("train: {e}"))?,
        epochs: args.epochs,
        batch: args.batch,
        lr: args.lr,
        wdl: args.wdl,
        hold_out: args.hold_out,
        threads: args.threads,
        seed: args.seed,
        mirror: args.mirror,
        weight_decay: args.weight_decay,
        clip: args.clip,
        init: None,
    };
    if !(1..=4096).contains(&s.hidden)
        || !(1..=MAX_BUCKETS).contains(&s.buckets)
        || s.batch == 0
        || !(0.0..=1.0).contains(&s.wdl)
        || !(0.0..1.0).contains(&s.hold_out)
        || !s.lr.is_finite()
        || s.lr <= 0.0
        || !(0.0..1.0).contains(&s.weight_decay)
        || !(1..=256).contains(&s.threads)
    {
        return Err(
            "train: bad settings (hidden 1..4096, output buckets 1..8, batch > 0, wdl and hold-out in [0, 1), lr > 0, weight decay in [0, 1), threads 1..256)"
                .to_string(),
        );
    }
    if s.clip && s.kings.count() > 1 {
        return Err(
            "train: --clip cannot bound the factorised first layer of --king-buckets 2 or 4"
                .to_string(),
        );
    }
    if s.mirror && s.kings.count() > 0 {
        return Err(
            "train: --mirror adds nothing with --king-buckets (each perspective's inputs are \
             already mirrored by its king's file)"
                .to_string(),
        );
    }
    Ok(s)
}

/// Trains the network, writing its outputs after every epoch.
pub fn run(args: TrainArgs) -> Result<(), String> {
    let mut settings = settings(&args)?;
    // The starting net is read before the data, so that a bad one is refused at once.
    let init = match &args.init {
        Some(path) => {
            let file = std::fs::File::open(path)
                .map_err(|e| format!("train: cannot read '{path}': {e}"))?;
            let (bytes, net) = crate::eval::nnue::read_net_bytes(file)
                .and_then(|b| crate::eval::nnue::Network::from_bytes(&b).map(|n| (b, n)))
                .map_err(|e| format!("train: '{path}': {e}"))?;
            let mut params = Params::from_network(&net);
            if params.hidden < settings.hidden {
                eprintln!(
                    "train: widening '{path}' from {} to {} hidden neurons (the new ones start silent)",
                    params.hidden, settings.hidden
                );
                params = params.widened(settings.hidden, settings.seed);
            }
            if !settings.fits(&params) {
                return Err(format!(
                    "train: '{path}' is {}x2 {} with {} output and {} king bucket(s); the flags ask for {}x2 {} with {} and {}",
                    net.hidden,
                    net.activation.name(),
                    net.buckets,
                    net.kings.count(),
                    settings.hidden,
                    settings.activation.name(),
                    settings.buckets,
                    settings.kings.count()
                ));
            }
            settings.init = Some(train::fnv1a(&bytes));
            Some(params)
        }
        None => None,
    };
    let (data, dir) = (&args.data, &args.out);
    let mut records = Vec::new();
    for path in data.split(',') {
        packed::read_file(path, "train", &mut records, packed::MAX_RECORDS)?;
    }
    let split = Positions::split(records, settings.wdl, settings.hold_out, settings.mirror)?;
    if split.unreadable > 0 {
        eprintln!(
            "train: warning: {} unreadable records skipped",
            split.unreadable
        );
    }
    let (mut samples, valid) = (split.train, split.valid);
    if samples.is_empty() {
        return Err(format!("train: no training positions in '{data}'"));
    }
    if settings.mirror {
        eprintln!("train: {} mirrored positions added", split.mirrored);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{dir}': {e}"))?;
    let outputs = Outputs {
        dir: std::path::PathBuf::from(dir),
    };
    let start = if args.resume {
        let (p, a, e, c) = train::read_checkpoint(&outputs.checkpoint())?;
        if !settings.fits(&p) {
            return Err(
                "train: the checkpoint's hidden size, activation, output or king buckets differ"
                    .to_string(),
            );
        }
        eprintln!("train: resuming after epoch {e}");
        train::Start {
            params: p,
            adam: a,
            epochs_done: e,
            curve: c,
        }
    } else if let Some(p) = init {
        let from = args.init.as_deref().unwrap_or_default();
        if valid.is_empty() {
            eprintln!("train: starting from '{from}' (no positions held out)");
        } else {
            eprintln!(
                "train: starting from '{from}', validation loss {:.6}",
                p.loss(&valid)
            );
        }
        train::Start::fresh(p)
    } else {
        let p = Params::random(
            settings.hidden,
            settings.activation,
            settings.buckets,
            settings.kings,
            settings.seed,
        );
        train::Start::fresh(p)
    };
    eprintln!(
        "train: {} positions for training, {} held out; {}x2 {}, {} king bucket(s), {} output bucket(s), {} epochs, batch {}, lr {}, wdl {}",
        samples.len(),
        valid.len(),
        settings.hidden,
        settings.activation.name(),
        settings.kings.count(),
        settings.buckets,
        settings.epochs,
        settings.batch,
        settings.lr,
        settings.wdl
    );
    // The trainer reports once an epoch: the bar counts epochs, its clock shows the run lives.
    let bar = progress::bar(settings.epochs as u64, "epochs");
    bar.set_position(start.epochs_done as u64);
    if !bar.is_hidden() {
        bar.enable_steady_tick(std::time::Duration::from_secs(1));
    }
    let trained = train::train(
        &mut samples,
        &valid,
        &settings,
        start,
        &outputs,
        &mut |line| {
            bar.inc(1);
            progress::note(&bar, line);
        },
    );
    bar.finish_and_clear();
    trained?;
    println!(
        "net written to {}, loss curve to {}, checkpoint to {}",
        outputs.net().display(),
        outputs.curve().display(),
        outputs.checkpoint().display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        args: TrainArgs,
    }

    fn parse(extra: &[&str]) -> Result<TrainArgs, String> {
        let argv = ["train", "--data", "a.bin", "--out", "dir"];
        Wrap::try_parse_from(argv.iter().chain(extra))
            .map(|w| w.args)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_are_the_documented_ones_and_ranges_are_checked() {
        let s = settings(&parse(&[]).unwrap()).unwrap();
        assert_eq!(
            (s.hidden, s.epochs, s.batch, s.threads, s.seed),
            (64, 20, 16384, 2, 1)
        );
        assert_eq!(s.activation, Activation::SCReLU);
        let crelu = parse(&["--activation", "crelu"]).unwrap();
        assert_eq!(crelu.activation, Activation::CReLU);
        assert!(settings(&parse(&["--hidden", "0"]).unwrap()).is_err());
        assert!(settings(&parse(&["--hold-out", "1"]).unwrap()).is_err());
        assert!(settings(&parse(&["--lr", "0"]).unwrap()).is_err());
        let e = parse(&["--activation", "relu"]).err().unwrap_or_default();
        assert!(e.contains("unknown activation 'relu'"), "{e}");
        assert_eq!(s.kings, KingLayout::NONE);
        let four = settings(&parse(&["--king-buckets", "4"]).unwrap()).unwrap();
        assert_eq!(four.kings.count(), 4);
        let e = settings(&parse(&["--king-buckets", "3"]).unwrap()).unwrap_err();
        assert!(e.contains("king buckets 3"), "{e}");
        let e = settings(&parse(&["--king-buckets", "1", "--mirror"]).unwrap()).unwrap_err();
        assert!(e.contains("--mirror"), "{e}");
    }
}
