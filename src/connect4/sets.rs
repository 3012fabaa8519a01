//! Connect-Four test sets: a line of moves with its expected score, and a whole set solved
//! and checked against its scores, with nodes and times.

use std::time::{Duration, Instant};

use super::position::Position;
use super::solver::Solver;

/// A line of moves, optionally followed by an expected score: the position and that score.
/// Ok(None) for a blank line; `need_score` makes the score compulsory.
pub fn parse_line(line: &str, need_score: bool) -> Result<Option<(Position, Option<i32>)>, String> {
    let mut tokens = line.split_whitespace();
    let Some(moves) = tokens.next() else {
        return Ok(None);
    };
    let pos = Position::from_moves(moves).map_err(|e| format!("{e} in '{moves}'"))?;
    let score = match tokens.next() {
        Some(t) => Some(
            t.parse::<i32>()
                .map_err(|_| format!("'{t}' is not a score (after the moves '{moves}')"))?,
        ),
        None if need_score => return Err(format!("no expected score after '{moves}'")),
        None => None,
    };
    if let Some(extra) = tokens.next() {
        return Err(format!("unexpected '{extra}' after the moves and score"));
    }
    Ok(Some((pos, score)))
}

/// One test set's figures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SetResult {
    pub positions: u64,
    pub correct: u64,
    pub bad_lines: u64,
    pub nodes: u64,
    /// Time spent solving (the table resets between positions are not counted).
    pub solving: Duration,
    /// Wall time for the whole set.
    pub total: Duration,
    /// Processor time this thread spent on the whole set, where the system tells it.
    pub cpu: Option<Duration>,
}

/// Solves every line of `text` (`<moves> <expected>`), resetting the table before each;
/// bad lines go to `errors` with their number.
pub fn bench_set(
    text: &str,
    solver: &mut Solver,
    errors: &mut dyn FnMut(usize, String),
) -> SetResult {
    bench_set_with(text, solver, errors, &mut || {})
}

/// `bench_set`, calling `solved` after each position (outside the timed part).
pub fn bench_set_with(
    text: &str,
    solver: &mut Solver,
    errors: &mut dyn FnMut(usize, String),
    solved: &mut dyn FnMut(),
) -> SetResult {
    let start = Instant::now();
    let cpu_start = thread_cpu_time();
    let mut r = SetResult::default();
    for (i, line) in text.lines().enumerate() {
        let (pos, expected) = match parse_line(line, true) {
            Ok(Some((pos, Some(expected)))) => (pos, expected),
            Ok(_) => continue,
            Err(e) => {
                errors(i + 1, e);
                r.bad_lines += 1;
                continue;
            }
        };
        solver.reset();
        let t = Instant::now();
        let score = solver.solve(&pos);
        r.solving += t.elapsed();
        r.positions += 1;
        r.nodes += solver.nodes();
        r.correct += u64::from(score == expected);
        solved();
    }
    r.total = start.elapsed();
    // The system accounts processor time by scheduler ticks: a short set's figure would be
    // mostly rounding.
    r.cpu = thread_cpu_time()
        .zip(cpu_start)
        .map(|(end, begin)| end.saturating_sub(begin))
        .filter(|_| r.total >= MIN_CPU_SPAN);
    r
}

/// The shortest set whose processor time is reported.
const MIN_CPU_SPAN: Duration = Duration::from_millis(250);

/// Time this thread has run on a processor (Linux: the first field of its schedstat), so a
/// benchmark on a busy machine can tell its own work from waiting for a core.
fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_with_an_optional_score_and_refuse_junk() {
        let (pos, score) = parse_line("4455 18", false).unwrap().unwrap();
        assert_eq!((pos.moves(), score), (4, Some(18)));
        assert_eq!(parse_line("4455", false).unwrap().unwrap().1, None);
        assert!(parse_line("   ", false).unwrap().is_none());
        assert!(
            parse_line("4455", true)
                .unwrap_err()
                .contains("no expected score")
        );
        assert!(
            parse_line("4455 x", false)
                .unwrap_err()
                .contains("'x' is not a score")
        );
        assert!(
            parse_line("4455 1 2", false)
                .unwrap_err()
                .contains("unexpected '2'")
        );
        let e = parse_line("44409", false).unwrap_err();
        assert!(e.contains("move 4 '0' is not a column 1-7"), "{e}");
    }

    #[test]
    fn a_bench_counts_correct_scores_and_reports_bad_lines() {
        let text = "4455 18\n44455554221 -15\n4455 17\n12121215 3\n\n1212121 -18\n";
        let mut bad = Vec::new();
        let r = bench_set(text, &mut Solver::new(), &mut |l, e| bad.push((l, e)));
        assert_eq!((r.positions, r.correct, r.bad_lines), (4, 3, 1));
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].0, 4);
        assert!(bad[0].1.contains("after the game was won"), "{}", bad[0].1);
        assert!(r.nodes > 0);
    }

    #[test]
    fn a_short_set_reports_no_processor_time() {
        // Microseconds of work: far under the span whose processor time would be more than
        // rounding of scheduler ticks.
        let r = bench_set("4455 18\n", &mut Solver::new(), &mut |_, e| panic!("{e}"));
        assert_eq!((r.positions, r.correct), (1, 1));
        assert!(r.total < MIN_CPU_SPAN);
        assert_eq!(r.cpu, None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_threads_processor_time_grows_with_its_work() {
        let before = thread_cpu_time().expect("Linux reports a thread's processor time");
        // Solving until the figure moves (it grows by scheduler ticks at the coarsest).
        let mut solver = Solver::new();
        let pos = crate::connect4::Position::from_moves("5554224333234511764415115").unwrap();
        let mut after = before;
        for _ in 0..10_000 {
            solver.reset();
            assert_eq!(solver.solve(&pos), 4);
            after = thread_cpu_time().expect("still reported");
            if after > before {
                break;
            }
        }
        assert!(after > before, "{before:?} after 10,000 solves");
    }
}
