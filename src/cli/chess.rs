//! The chess instruments of the command line: `bench`, `perft`, `epd`, `eval` and `tb`, each
//! a clap argument struct (its flags and their help) and the function that runs it.

use std::io::{BufRead, Write};
use std::sync::Arc;

use clap::Args;

use super::progress;
use crate::basics::position::Game;
use crate::eval::net_file::{self, LoadedNet};
use crate::eval::nnue::Network;
use crate::measure::epd;
use crate::measure::perft::{self, PerftConfig};
use crate::search::time::Limits;
use crate::uci::options::HASH_MAX_MB;
use crate::uci::output::Out;

/// A table's size in megabytes, from `MIN` to the `Hash` option's most.
fn megabytes<const MIN: usize>(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(mb) if (MIN..=HASH_MAX_MB).contains(&mb) => Ok(mb),
        _ => Err(format!("expected {MIN} to {HASH_MAX_MB} megabytes")),
    }
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Search depth for every position (default 10); the node count at the default depth is
    /// the build's signature
    #[arg(value_name = "DEPTH", value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: Option<u32>,
    /// Print, instead of the node count, how often each pruning, reduction and extension
    /// acted at each depth left (a Markdown table; needs the tuning build, `make TUNE=1`)
    #[arg(long)]
    pub pruning: bool,
    #[command(flatten)]
    pub net: NetArgs,
}

/// What to evaluate with, for `bench`, `eval`, `epd` and `datagen`: the net compiled into the
/// binary unless told otherwise.
#[derive(Args, Debug)]
pub struct NetArgs {
    /// Evaluate with the hand-written evaluation instead of the net
    #[arg(long, conflicts_with = "eval_file")]
    pub hce: bool,
    /// Evaluate with this net file (as `ferrum train` writes it) instead of the embedded one
    #[arg(long, value_name = "PATH")]
    pub eval_file: Option<String>,
}

impl NetArgs {
    /// The net the flags name (None for --hce); a bad file is an error naming it.
    pub fn load(&self) -> Result<Option<LoadedNet>, String> {
        match (&self.eval_file, self.hce) {
            (Some(path), _) => net_file::load(path).map(Some),
            (None, false) => net_file::embedded().map(Some),
            (None, true) => Ok(None),
        }
    }

    /// The net a long run of `command` searches with (None for --hce), named on stderr; a bad
    /// file is an error naming it.
    pub fn load_announced(&self, command: &str) -> Result<Option<Arc<Network>>, String> {
        let net = self.load().map_err(|e| format!("{command}: {e}"))?;
        if let Some(n) = &net {
            eprintln!("{command}: evaluating with the {}", n.describe());
        }
        Ok(net.map(|n| n.net))
    }
}

/// Prints a line per position and `<nodes> nodes <nps> nps` last, or with `--pruning` the
/// table of what the selective search did by depth; with a net, a line naming it first (its
/// node count is that net's signature).
pub fn bench(args: BenchArgs) -> Result<(), String> {
    if args.pruning && !crate::search::stats::Stats::counting() {
        return Err(
            "bench --pruning: this build counts nothing; build it with `make TUNE=1` \
             (cargo build --release --features tune)"
                .to_string(),
        );
    }
    let net = args.net.load().map_err(|e| format!("bench: {e}"))?;
    let out = Out::stdout();
    if let Some(n) = &net {
        out.line(&format!("nnue: {}", n.describe()));
    }
    let stop = crate::search::time::StopToken::detached();
    let net = net.as_ref().map(|n| &n.net);
    if args.pruning {
        crate::measure::bench::pruning(args.depth, net, &out, &stop);
    } else {
        crate::measure::bench::run(args.depth, net, &out, &stop);
    }
    out.checked()
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Plies to count from the position, 1 to 64 (required unless --suite)
    #[arg(
        value_name = "DEPTH",
        required_unless_present = "suite",
        conflicts_with = "suite",
        value_parser = clap::value_parser!(u32).range(1..=i64::from(perft::MAX_DEPTH))
    )]
    pub depth: Option<u32>,
    /// The position to count from (default: the start position)
    #[arg(long, value_name = "FEN", conflicts_with = "suite")]
    pub fen: Option<String>,
    /// Print the count below each legal move, as Stockfish's `go perft` does
    #[arg(long, conflicts_with = "suite")]
    pub divide: bool,
    /// Threads counting subtrees (default: every core; 0 counts as 1)
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Megabytes of the table caching subtree counts (0: no table; default 64; at most 65536)
    #[arg(long, value_name = "MB", value_parser = megabytes::<0>)]
    pub hash: Option<usize>,
    /// Check every position of a suite file (lines "FEN ;D1 n ;D2 n ..."): a line per
    /// failure, then "N passed, M failed"; exits non-zero if any failed
    #[arg(long, value_name = "FILE")]
    pub suite: Option<String>,
    /// With --suite, check only the depths up to D
    #[arg(long, value_name = "D", conflicts_with = "depth")]
    pub max_depth: Option<u32>,
}

/// Counts one position (with its time on stderr) or checks a suite.
pub fn perft(args: PerftArgs) -> Result<(), String> {
    let defaults = PerftConfig::default();
    let config = PerftConfig {
        hash_mb: args.hash.unwrap_or(defaults.hash_mb),
        threads: args.threads.unwrap_or(defaults.threads).max(1),
    };
    if let Some(path) = &args.suite {
        let text = read_file(path)?;
        let bar = progress::bar(entries(&text), "positions");
        let out = progress::stdout_above(&bar);
        let start = std::time::Instant::now();
        let max_depth = args.max_depth.unwrap_or(u32::MAX);
        let (_, failed) = perft::run_suite_with(&text, max_depth, config, &out, &mut |ok| {
            if !ok {
                bar.set_message("(failures)");
            }
            bar.inc(1);
        });
        bar.finish_and_clear();
        eprintln!("suite time: {} ms", start.elapsed().as_millis());
        out.checked()?;
        return if failed == 0 {
            Ok(())
        } else {
            Err(format!("{failed} perft suite position(s) failed"))
        };
    }
    let depth = args.depth.ok_or("perft: missing depth")?;
    let game = match &args.fen {
        Some(f) => Game::from_fen(f, false)?,
        None => Game::default(),
    };
    let out = Out::stdout();
    let (nodes, ms) = perft::run_divide(&game, depth, args.divide, config, None, &out);
    eprintln!(
        "perft {depth}: {nodes} nodes in {ms} ms ({} nps, {} thread(s), hash {} MB)",
        nodes * 1000 / ms.max(1),
        config.threads,
        config.hash_mb
    );
    out.checked()
}

#[derive(Args, Debug)]
pub struct EpdArgs {
    /// The suite: EPD lines with `bm` (best moves) or `am` (moves to avoid) and an `id`
    #[arg(value_name = "FILE")]
    pub file: String,
    /// Milliseconds per position (the default, 1000, when no limit is given)
    #[arg(long, value_name = "MS")]
    pub movetime: Option<i64>,
    /// Depth per position
    #[arg(long, value_name = "D")]
    pub depth: Option<u32>,
    /// Nodes per position
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// Megabytes of transposition table, fresh for every position (1 to 65536)
    #[arg(long, value_name = "MB", default_value_t = 16, value_parser = megabytes::<1>)]
    pub hash: usize,
    /// Search threads (0 counts as 1)
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Also write every position's outcome to this JSON file
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    #[command(flatten)]
    pub net: NetArgs,
}

/// A line per position (id, expected, found, solved, time to solution, depth), then
/// "FILE solved X/N".
pub fn epd(args: EpdArgs) -> Result<(), String> {
    let text = read_file(&args.file)?;
    let mut limits = Limits {
        movetime: args.movetime,
        depth: args.depth,
        nodes: args.nodes,
        ..Limits::default()
    };
    if limits.movetime.is_none() && limits.depth.is_none() && limits.nodes.is_none() {
        limits.movetime = Some(1000);
    }
    let setup = epd::Setup {
        hash_mb: args.hash,
        threads: args.threads.max(1),
        net: args.net.load_announced("epd")?,
    };
    let bar = progress::bar(entries(&text), "positions");
    let out = progress::stdout_above(&bar);
    let mut solved = 0;
    let outcomes = epd::run_with(&args.file, &text, &limits, setup, &out, &mut |ok| {
        solved += usize::from(ok);
        bar.set_message(format!("{solved} solved"));
        bar.inc(1);
    });
    bar.finish_and_clear();
    out.checked()?;
    if let Some(json) = &args.json {
        std::fs::write(json, epd::to_json(&args.file, &outcomes))
            .map_err(|e| format!("cannot write '{json}': {e}"))?;
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The position (default: the start position)
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,
    #[command(flatten)]
    pub net: NetArgs,
}

/// Prints each evaluation term for White and for Black, the phase, the scale and the score;
/// with a net, its score for the side to move on a line of its own after them.
pub fn eval(args: EvalArgs) -> Result<(), String> {
    let game = match &args.fen {
        Some(fen) => Game::from_fen(fen, false).map_err(|e| format!("eval: {e}"))?,
        None => Game::default(),
    };
    let net = args.net.load().map_err(|e| format!("eval: {e}"))?;
    for line in crate::eval::report(&game.pos) {
        println!("{line}");
    }
    if let Some(n) = &net {
        println!("{}", net_file::report_line(n, &game.pos));
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct TbArgs {
    /// The position (its fields may be separate arguments); without it, one FEN a line is
    /// read from stdin and each is answered by a line, or by "error <reason>"
    #[arg(value_name = "FEN")]
    pub fen: Vec<String>,
    /// Directories of Syzygy tables, separated by ':' (default: $SYZYGY_PATH)
    #[arg(long, value_name = "DIRS")]
    pub path: Option<String>,
}

/// Prints "wdl <n> dtz <n>" for each position.
pub fn tb(args: TbArgs) -> Result<(), String> {
    let path = match args.path {
        Some(p) => p,
        None => std::env::var("SYZYGY_PATH")
            .map_err(|_| "tb: give --path DIRS or set SYZYGY_PATH".to_string())?,
    };
    let (tables, messages) = crate::search::syzygy::Tables::load(&path);
    for m in messages.iter().filter(|m| m.starts_with("error")) {
        eprintln!("tb: {m}");
    }
    let tables = tables.ok_or(format!("tb: no Syzygy tables found in '{path}'"))?;
    let answer = |fen: &str| -> Result<String, String> {
        let game = Game::from_fen(fen, false)?;
        let not_in = || format!("position not in the tables: '{}'", fen.trim());
        let wdl = tables.probe_wdl(&game.pos).ok_or_else(not_in)?;
        let dtz = tables.probe_dtz(&game.pos).ok_or_else(not_in)?;
        Ok(format!("wdl {} dtz {dtz}", wdl as i32))
    };
    if !args.fen.is_empty() {
        return answer(&args.fen.join(" ")).map(|line| println!("{line}"));
    }
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| format!("tb: cannot read stdin: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = answer(&line).unwrap_or_else(|e| {
            eprintln!("tb: {e}");
            format!("error {e}")
        });
        writeln!(out, "{reply}").map_err(|e| format!("tb: cannot write: {e}"))?;
    }
    Ok(())
}

pub fn read_file(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))
}

// The positions of a suite file: every line but blank ones and `#` comments, as `epd` and
// `perft --suite` read them.
fn entries(text: &str) -> u64 {
    let entry = |l: &&str| !l.trim().is_empty() && !l.trim_start().starts_with('#');
    text.lines().filter(entry).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_counts_its_positions_without_blank_and_comment_lines() {
        assert_eq!(entries("a\n\n  # note\nb ;D1 20\n   \nc"), 3);
        assert_eq!(entries(""), 0);
    }
}
