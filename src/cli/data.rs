//! The data subcommands of the command line: `datagen` (self-play positions), `tune` (Texel
//! tuning of the hand-written weights) and `train` (the NNUE trainer), each a clap argument
//! struct and the function that runs it.

use clap::{Args, ValueEnum};

use super::chess::{NetArgs, read_file};
use super::progress;
use crate::basics::position::Game;
use crate::learn::datagen;
use crate::learn::packed;
use crate::learn::tune;

/// How `datagen` writes the positions it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// `FEN;result` lines (what `ferrum tune` reads)
    Text,
    /// 32-byte records with the search score (what `ferrum train` reads)
    Packed,
}

#[derive(Args, Debug)]
pub struct DatagenArgs {
    /// The file to append games to (required unless --stats); an interrupted run is continued
    /// with another --seed
    #[arg(long, value_name = "FILE", required_unless_present = "stats")]
    pub out: Option<String>,
    /// Games to play
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub games: usize,
    /// Nodes searched per move (with --soft-nodes, the most a move may take)
    #[arg(long, value_name = "N", default_value_t = 5000)]
    pub nodes: u64,
    /// A soft node limit: a move's search starts no iteration once it has N nodes (it ends
    /// with the iteration under way, or at --nodes)
    #[arg(long, value_name = "N")]
    pub soft_nodes: Option<u64>,
    /// Opening positions, one FEN (or EPD) a line (default: the start position)
    #[arg(long, value_name = "FILE")]
    pub book: Option<String>,
    /// Random legal moves played after the opening, so that games differ
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub random_plies: usize,
    /// The seed of the random moves: the same seed plays the same games
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Games played at once; the games are the same whatever the count
    #[arg(long, value_name = "T", default_value_t = 1)]
    pub threads: usize,
    /// Output format (default: packed for a FILE named .bin, text otherwise)
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Summarise a packed data file (positions, games, results, scores, phases) and stop
    #[arg(long, value_name = "FILE", conflicts_with_all = ["convert", "out", "hce", "eval_file"])]
    pub stats: Option<String>,
    /// Pack the `FEN;result` lines of TEXT into --out (no scores) instead of playing games
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["hce", "eval_file"])]
    pub convert: Option<String>,
    #[command(flatten)]
    pub net: NetArgs,
}

/// Plays the games (or packs or summarises a file), with a progress line every 1% of the
/// games on stderr.
pub fn datagen(args: DatagenArgs) -> Result<(), String> {
    if let Some(path) = &args.stats {
        let mut records = Vec::new();
        packed::read_file(path, "datagen", &mut records, packed::MAX_RECORDS)?;
        for line in packed::stats(&records) {
            println!("{line}");
        }
        return Ok(());
    }
    let path = args
        .out
        .as_deref()
        .ok_or("datagen: --out FILE is required")?;
    // Packed when asked, or when the file is named .bin; text otherwise.
    let format = match args.format {
        Some(FormatArg::Packed) => datagen::Format::Packed,
        Some(FormatArg::Text) => datagen::Format::Text,
        None if path.ends_with(".bin") => datagen::Format::Packed,
        None => datagen::Format::Text,
    };
    // What the games need is read before the file is touched, so that a bad book or net
    // leaves it as it was.
    let (net, openings) = if args.convert.is_none() {
        let openings = match &args.book {
            Some(book) => book_positions(book, &read_file(book)?)?,
            None => Vec::new(),
        };
        (args.net.load_announced("datagen")?, openings)
    } else {
        (None, Vec::new())
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open '{path}': {e}"))?;
    if format == datagen::Format::Packed {
        let cut = packed::trim_cut_record(&mut file)?;
        if cut > 0 {
            eprintln!(
                "datagen: warning: dropped a cut record of {cut} bytes at the end of '{path}'"
            );
        }
    }
    if let Some(text_path) = &args.convert {
        let (records, bad) = packed::convert_text(&read_file(text_path)?);
        packed::write_records(&mut file, &records)
            .map_err(|e| format!("cannot write '{path}': {e}"))?;
        println!(
            "{} positions converted to {path} ({bad} bad lines skipped)",
            records.len()
        );
        return Ok(());
    }
    let config = datagen::Config {
        net,
        games: args.games,
        nodes: args.nodes,
        soft_nodes: args.soft_nodes,
        openings,
        random_plies: args.random_plies,
        seed: args.seed,
        threads: args.threads,
        format,
    };
    // Appends (after any cut record), so an interrupted run can be continued with another seed.
    let mut sink = std::io::BufWriter::new(file);
    let start = std::time::Instant::now();
    let rate = |p: usize| p as f64 / start.elapsed().as_secs_f64().max(1e-3);
    let every = (config.games / 100).clamp(1, 100);
    let bar = progress::bar(config.games as u64, "games");
    let (games, positions) = datagen::run(&config, &mut sink, &mut |g, p| {
        bar.set_message(format!("{p} positions, {:.0}/s", rate(p)));
        bar.set_position(g as u64);
        if g % every == 0 || g == config.games {
            let line = format!(
                "datagen: {g}/{} games, {p} positions, {} s, {:.0} positions/s",
                config.games,
                start.elapsed().as_secs(),
                rate(p)
            );
            progress::note(&bar, &line);
        }
    })?;
    bar.finish_and_clear();
    std::io::Write::flush(&mut sink).map_err(|e| format!("cannot write '{path}': {e}"))?;
    println!(
        "{games} games, {positions} positions written to {path} ({:.0} positions/s)",
        rate(positions)
    );
    Ok(())
}

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// `FEN;result` lines (from `ferrum datagen --format text`), the result 1.0, 0.5 or 0.0
    /// for White
    #[arg(long, value_name = "FILE")]
    pub data: String,
    /// Adam steps on the full batch
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub iterations: usize,
    /// Adam's step size, in weight units
    #[arg(long, value_name = "R", default_value_t = 1.0)]
    pub rate: f64,
    /// Weight of the penalty pulling the weights toward their start (0 or more)
    #[arg(long, value_name = "L", default_value_t = 0.0)]
    pub l2: f64,
    /// The fraction of positions, from the file's tail, held out to check the fit ([0, 1))
    #[arg(long, value_name = "F", default_value_t = 0.1)]
    pub hold_out: f64,
    /// Fit only material and the terms, not the piece-square tables
    #[arg(long)]
    pub freeze_squares: bool,
    /// Write the tuned weights as Rust source here (default: stdout), e.g. src/eval/tuned.rs
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
}

/// Fits the evaluation weights to game results, with the losses on stderr every 50 steps.
pub fn tune(args: TuneArgs) -> Result<(), String> {
    let path = &args.data;
    let (samples, bad) = tune::load(&read_file(path)?);
    if samples.is_empty() {
        return Err(format!("tune: no usable positions in '{path}'"));
    }
    let settings = tune::Settings {
        iterations: args.iterations,
        rate: args.rate,
        l2: args.l2,
        squares: !args.freeze_squares,
    };
    let hold_out = args.hold_out;
    if !(0.0..1.0).contains(&hold_out) || !settings.l2.is_finite() || settings.l2 < 0.0 {
        return Err("tune: --hold-out must be in [0, 1) and --l2 at least 0".to_string());
    }
    // The last positions of the file are held out: whole games, mostly, so the held-out
    // loss is not flattered by positions of the same game in training.
    let split = samples.len() - (samples.len() as f64 * hold_out) as usize;
    let (train, held_out) = samples.split_at(split);
    eprintln!(
        "tune: {} positions for training, {} held out ({bad} bad lines skipped)",
        train.len(),
        held_out.len()
    );
    let bar = progress::bar(settings.iterations as u64, "iterations");
    let outcome = tune::tune(train, held_out, settings, &mut |t, l, v| {
        bar.set_message(format!("loss {l:.6}"));
        bar.set_position(t as u64);
        progress::note(
            &bar,
            &format!("tune: iteration {t}, loss {l:.6}, held-out loss {v:.6}"),
        );
    });
    bar.finish_and_clear();
    let note = format!(
        "{} positions from {path} ({} held out), {} iterations, rate {}, L2 {}, K {:.3}; \
         loss {:.6} -> {:.6}, held-out loss {:.6} -> {:.6}.",
        train.len(),
        held_out.len(),
        settings.iterations,
        settings.rate,
        settings.l2,
        outcome.k,
        outcome.loss_before,
        outcome.loss_after,
        outcome.valid_before,
        outcome.valid_after
    );
    println!("{note}");
    let source = tune::params_source(&outcome.weights, &note);
    match &args.out {
        Some(out) => {
            std::fs::write(out, source).map_err(|e| format!("cannot write '{out}': {e}"))?
        }
        None => print!("{source}"),
    }
    Ok(())
}

/// A book's positions, one a line (blank lines skipped): a FEN, or an EPD line's first four
/// fields with its operations dropped. Every line is checked here, so that a bad one stops
/// the run before it starts, naming the line, instead of at the game that draws it.
fn book_positions(path: &str, text: &str) -> Result<Vec<String>, String> {
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let counters = fields.len() >= 6 && fields[4..6].iter().all(|f| f.parse::<u32>().is_ok());
        let fen = fields[..if counters { 6 } else { fields.len().min(4) }].join(" ");
        Game::from_fen(&fen, false).map_err(|e| format!("datagen: {path}, line {}: {e}", i + 1))?;
        positions.push(fen);
    }
    Ok(positions)
}
