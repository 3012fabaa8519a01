//! `ferrum connect4`: `solve` scores positions read a line at a time (or every column with
//! `--analyze`), `bench` solves test sets and compares with their expected scores. A bad
//! line is reported on stderr with its number and the run goes on; `solve` then exits non-zero.
//! `solve` shows its progress on stderr and may be bounded per position (nodes, seconds).

use std::cell::RefCell;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};

use super::progress;
use crate::connect4::sets::{SetResult, bench_set_with, parse_line};
use crate::connect4::solver::{Progress, Solver, Watch};
use crate::connect4::table::DEFAULT_BITS;

/// The two forms, as the help's usage line.
pub const USAGE: &str = "ferrum connect4 solve [FILE] [--analyze] [--table-bits B] [--max-nodes N]
                             [--time S] [--progress [S]]
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
        status is then non-zero. Early positions can take hours (the empty board is the \
        hardest): progress goes to stderr, and --max-nodes or --time give up a position \
        (reported on stderr with the bounds proven so far; the exit status is then non-zero)."
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
    /// Give up a position after N nodes
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_nodes: Option<u64>,
    /// Give up a position after S seconds
    #[arg(long, value_name = "S", value_parser = seconds)]
    pub time: Option<f64>,
    /// A progress line on stderr every S seconds (5 without S); by default every 5 s when
    /// stderr is a terminal, none otherwise
    #[arg(long, value_name = "S", num_args = 0..=1, default_missing_value = "5",
          value_parser = seconds)]
    pub progress: Option<f64>,
}

// A number of seconds above zero (and below a century, so a Duration holds it).
fn seconds(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(s) if s > 0.0 && s < 3.2e9 => Ok(s),
        _ => Err(format!("'{v}' is not a positive number of seconds")),
    }
}

/// The watch is called this many nodes apart (fewer under a smaller --max-nodes): about a
/// tenth of a second of solving at most, cheap next to the nodes between calls.
const WATCH_EVERY: u64 = 1 << 20;

/// Progress lines come this many seconds apart when stderr is a terminal.
const PROGRESS_SECONDS: f64 = 5.0;

/// How one position's solve is bounded and shown.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    max_nodes: Option<u64>,
    time: Option<Duration>,
    progress: Option<Duration>,
}

/// Why a solve was given up, and how far it had come.
#[derive(Clone, Debug)]
struct GaveUp {
    limit: String,
    progress: Progress,
    elapsed: Duration,
}

/// The watch for one position (`what` names it in progress lines): progress lines as
/// `bounds` asks, a stop at its limits (recorded in `gave_up`).
fn watch(
    what: String,
    bounds: Bounds,
    analyze: bool,
    gave_up: Rc<RefCell<Option<GaveUp>>>,
) -> Watch {
    let start = Instant::now();
    let mut shown = start;
    Box::new(move |p: &Progress| {
        let now = Instant::now();
        let elapsed = now - start;
        let limit = match (bounds.max_nodes, bounds.time) {
            (Some(n), _) if p.nodes >= n => Some(format!("--max-nodes {n}")),
            (_, Some(t)) if elapsed >= t => Some(format!("--time {}", t.as_secs_f64())),
            _ => None,
        };
        if let Some(limit) = limit {
            *gave_up.borrow_mut() = Some(GaveUp {
                limit,
                progress: *p,
                elapsed,
            });
            return false;
        }
        if bounds.progress.is_some_and(|every| now - shown >= every) {
            shown = now;
            eprintln!("connect4 solve: {what}: {}", describe(p, elapsed, analyze));
        }
        true
    })
}

/// "52428800 nodes in 3.1 s (16.9M nodes/s), score between -2 and 5" (no bounds for
/// --analyze, whose solves are of the columns' positions).
fn describe(p: &Progress, elapsed: Duration, analyze: bool) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = p.nodes as f64 / secs.max(1e-9) / 1e6;
    let mut text = format!("{} nodes in {secs:.1} s ({rate:.1}M nodes/s)", p.nodes);
    if !analyze {
        text += &format!(", score between {} and {}", p.low, p.high);
    }
    text
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
    let mut solver =
        Solver::try_with_table_bits(args.table.table_bits).map_err(|e| format!("connect4: {e}"))?;
    let mut out = std::io::stdout().lock();
    let mut bad = 0;
    let mut unsolved = 0;
    let progress = args
        .progress
        .or(std::io::stderr().is_terminal().then_some(PROGRESS_SECONDS));
    let bounds = Bounds {
        max_nodes: args.max_nodes,
        time: args.time.map(Duration::from_secs_f64),
        progress: progress.map(Duration::from_secs_f64),
    };
    let watched = bounds.max_nodes.is_some() || bounds.time.is_some() || progress.is_some();
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
        let what = format!("{name} line {} ({moves})", i + 1);
        let gave_up = Rc::new(RefCell::new(None));
        if watched {
            let every = bounds.max_nodes.map_or(WATCH_EVERY, |n| n.min(WATCH_EVERY));
            let w = watch(what.clone(), bounds, analyze, Rc::clone(&gave_up));
            solver.set_watch(every, w);
        }
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
        if solver.stopped() {
            if let Some(g) = gave_up.borrow().as_ref() {
                eprintln!(
                    "ferrum: {what}: not solved, gave up at {} after {}",
                    g.limit,
                    describe(&g.progress, g.elapsed, analyze)
                );
            }
            unsolved += 1;
            continue;
        }
        // A closed pipe (`| head`) ends the run quietly.
        if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    // The good lines are all answered; the status tells a script that some were not.
    let mut problems = Vec::new();
    if bad > 0 {
        problems.push(format!("{bad} bad line(s) in {name}"));
    }
    if unsolved > 0 {
        problems.push(format!(
            "{unsolved} position(s) not solved within the limits"
        ));
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(format!("connect4 solve: {}", problems.join("; "))),
    }
}

fn bench_command(args: BenchArgs) -> Result<(), String> {
    let mut solver =
        Solver::try_with_table_bits(args.table.table_bits).map_err(|e| format!("connect4: {e}"))?;
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
    fn limits_and_progress_are_checked_and_described() {
        assert!(seconds("0.5").is_ok() && seconds("0").is_err() && seconds("x").is_err());
        let p = Progress {
            nodes: 3_000_000,
            low: -2,
            high: 5,
        };
        let two = Duration::from_secs(2);
        assert_eq!(
            describe(&p, two, false),
            "3000000 nodes in 2.0 s (1.5M nodes/s), score between -2 and 5"
        );
        assert_eq!(
            describe(&p, two, true),
            "3000000 nodes in 2.0 s (1.5M nodes/s)"
        );
        let gave_up = Rc::new(RefCell::new(None));
        let bounds = Bounds {
            max_nodes: Some(1000),
            time: None,
            progress: None,
        };
        let mut w = watch("x".to_string(), bounds, false, Rc::clone(&gave_up));
        assert!(w(&Progress { nodes: 999, ..p }));
        assert!(gave_up.borrow().is_none());
        assert!(!w(&Progress { nodes: 1000, ..p }));
        assert_eq!(gave_up.borrow().as_ref().unwrap().limit, "--max-nodes 1000");
    }

    #[test]
    fn times_read_in_the_unit_that_fits() {
        assert_eq!(format_micros(4.62), "4.6 µs");
        assert_eq!(format_micros(255.4), "255 µs");
        assert_eq!(format_micros(3204.0), "3.20 ms");
    }
}
