//! `ferrum connect4`: `solve` scores positions read a line at a time (or every column with
//! `--analyze`), `bench` solves test sets and compares with their expected scores. A bad
//! line is reported on stderr with its number and the run goes on; `solve` then exits non-zero.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::time::Instant;

use clap::{Args, Subcommand};

use super::progress;
use crate::connect4::sets::{SetResult, bench_set_with, parse_line};
use crate::connect4::solver::Solver;
use crate::connect4::table::DEFAULT_BITS;

/// The two forms, as the help's usage line.
pub const USAGE: &str = "ferrum connect4 solve [FILE] [--analyze] [--table-bits B]
       ferrum connect4 bench FILE... [--repeat N] [--table-bits B]";

#[derive(Args, Debug)]
#[command(override_usage = USAGE)]
pub struct Connect4Args {
    #[command(subcommand)]
    pub command: Connect4Command,
}

#[derive(Subcommand, Debug)]
pub enum Connect4Command {
    /// Score positions given as lines of moves (columns 1-7 from the empty board)
    #[command(
        long_about = "Reads lines of moves (columns 1-7 from the empty board; a test-set \
        line's expected score after them is ignored) from FILE or stdin and prints \
        '<moves> <score> <nodes> <microseconds>', or with --analyze '<moves>' and the score of \
        each column 1-7 ('-' for a full one). Scores are for the side to move: 22 minus the \
        stones the winner has played when it wins, negative when the side to move loses, 0 a \
        draw. A bad line is reported on stderr with its number and the run goes on; the exit \
        status is then non-zero."
    )]
    Solve(SolveArgs),
    /// Solve test sets and compare with their expected scores
    #[command(
        long_about = "Solves each test set ('<moves> <expected score>' lines) with the \
        table reset before every position; prints positions, correct scores, mean nodes, mean \
        solving time per position (wall clock; the reset is not timed), CPU time per position \
        (the thread's, the whole set over its positions, so other work on the machine does not \
        count; only for sets of a quarter second or more), and the set's total time."
    )]
    Bench(BenchArgs),
}

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Lines of moves (default: stdin)
    #[arg(value_name = "FILE")]
    pub file: Option<String>,
    /// Print the score of every column instead of the position's
    #[arg(long)]
    pub analyze: bool,
    #[command(flatten)]
    pub table: TableArgs,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Test sets: '<moves> <expected score>' lines
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
    /// Solve each set N times and show the fastest run (on a busy machine a run of a few
    /// milliseconds loses whole time slices to other work)
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    #[command(flatten)]
    pub table: TableArgs,
}

#[derive(Args, Debug)]
pub struct TableArgs {
    /// A transposition table of 2^B entries of 8 bytes (10-30); the default, 16 (512 KB),
    /// stays in the cache: larger tables save nodes on early positions but, measured, not time
    #[arg(long, value_name = "B", default_value_t = DEFAULT_BITS,
          value_parser = clap::value_parser!(u32).range(10..=30))]
    pub table_bits: u32,
}

/// Runs `ferrum connect4 solve|bench`.
pub fn run(args: Connect4Args) -> Result<(), String> {
    match args.command {
        Connect4Command::Solve(a) => solve_command(a),
        Connect4Command::Bench(a) => bench_command(a),
    }
}

fn solve_command(args: SolveArgs) -> Result<(), String> {
    let file = args.file.as_deref();
    let analyze = args.analyze;
    let input: Box<dyn BufRead> = match file {
        Some(path) => Box::new(BufReader::new(
            std::fs::File::open(path).map_err(|e| format!("cannot read '{path}': {e}"))?,
        )),
        None => Box::new(std::io::stdin().lock()),
    };
    let name = file.unwrap_or("stdin");
    let mut solver = Solver::with_table_bits(args.table.table_bits);
    let mut out = std::io::stdout().lock();
    let mut bad = 0;
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("cannot read '{name}': {e}"))?;
        let pos = match parse_line(&line, false) {
            Ok(Some((pos, _))) => pos,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("ferrum: {name} line {}: {e}", i + 1);
                bad += 1;
                continue;
            }
        };
        let moves = line.split_whitespace().next().unwrap_or("");
        solver.reset();
        let text = if analyze {
            let scores = solver.analyze(&pos);
            let cols: Vec<String> = scores
                .iter()
                .map(|s| s.map_or("-".to_string(), |v| v.to_string()))
                .collect();
            format!("{moves} {}", cols.join(" "))
        } else {
            let start = Instant::now();
            let score = solver.solve(&pos);
            let micros = start.elapsed().as_micros();
            format!("{moves} {score} {} {micros}", solver.nodes())
        };
        // A closed pipe (`| head`) ends the run quietly.
        if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    // The good lines are all answered; the status tells a script that some were not.
    match bad {
        0 => Ok(()),
        n => Err(format!("connect4 solve: {n} bad line(s) in {name}")),
    }
}

fn bench_command(args: BenchArgs) -> Result<(), String> {
    let mut solver = Solver::with_table_bits(args.table.table_bits);
    let mut sets = Vec::new();
    for path in &args.files {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
        sets.push((path, text));
    }
    println!(
        "{:<14} {:>9} {:>8} {:>11} {:>12} {:>12} {:>10}",
        "set", "positions", "correct", "mean nodes", "mean time", "cpu/pos", "total"
    );
    let lines: usize = sets.iter().map(|(_, t)| t.lines().count()).sum();
    let bar = progress::bar(lines as u64 * u64::from(args.repeat), "lines");
    for (path, text) in &sets {
        let name = Path::new(path)
            .file_name()
            .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
        bar.set_message(name.clone());
        let mut best: Option<SetResult> = None;
        for run in 0..args.repeat {
            let done = bar.position();
            let r = bench_set_with(
                text,
                &mut solver,
                &mut |line, e| {
                    // The same lines fail on every run: report them once.
                    if run == 0 {
                        progress::note(&bar, &format!("ferrum: {path} line {line}: {e}"));
                    }
                },
                &mut || bar.inc(1),
            );
            // Blank and bad lines count as done too.
            bar.set_position(done + text.lines().count() as u64);
            if best.is_none_or(|b| r.solving < b.solving) {
                best = Some(r);
            }
        }
        let Some(r) = best else { continue };
        let n = r.positions.max(1);
        let cpu = r.cpu.map_or("-".to_string(), |c| {
            format_micros(c.as_secs_f64() * 1e6 / n as f64)
        });
        let row = format!(
            "{name:<14} {:>9} {:>8} {:>11.1} {:>12} {cpu:>12} {:>8.2} s",
            r.positions,
            r.correct,
            r.nodes as f64 / n as f64,
            format_micros(r.solving.as_secs_f64() * 1e6 / n as f64),
            r.total.as_secs_f64()
        );
        bar.suspend(|| println!("{row}"));
    }
    bar.finish_and_clear();
    Ok(())
}

/// Microseconds as people read them: "4.6 µs", "255 µs", "3.20 ms".
pub fn format_micros(us: f64) -> String {
    if us < 100.0 {
        format!("{us:.1} µs")
    } else if us < 1000.0 {
        format!("{us:.0} µs")
    } else {
        format!("{:.2} ms", us / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_in_the_unit_that_fits() {
        assert_eq!(format_micros(4.62), "4.6 µs");
        assert_eq!(format_micros(255.4), "255 µs");
        assert_eq!(format_micros(3204.0), "3.20 ms");
    }
}
