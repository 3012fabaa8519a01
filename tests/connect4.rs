//! The Connect-Four solver against the test sets' exact scores, the generic negamax against
//! the solver, and the `ferrum connect4` command end to end.

use std::io::Write;
use std::process::{Command, Stdio};

use ferrum::connect4::position::CELLS;
use ferrum::connect4::sets::{bench_set, parse_line};
use ferrum::connect4::{Board, Position, Solver};
use ferrum::negamax::{self, Effort, INF, Silent, Table};

fn set(name: &str) -> String {
    let path = format!("{}/tests/data/connect4/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every `step`-th line of a set.
fn sample(text: &str, step: usize) -> String {
    text.lines()
        .step_by(step)
        .map(|l| format!("{l}\n"))
        .collect()
}

fn assert_all_correct(name: &str, text: &str, expected_positions: u64) {
    let mut solver = Solver::new();
    let r = bench_set(text, &mut solver, &mut |line, e| {
        panic!("{name} line {line}: {e}")
    });
    assert_eq!(r.positions, expected_positions, "{name}");
    assert_eq!(r.correct, r.positions, "{name}: {r:?}");
}

#[test]
fn every_position_of_the_end_game_sets_scores_exactly() {
    assert_all_correct("Test_L3_R1", &set("Test_L3_R1"), 1000);
    assert_all_correct("Test_L2_R1", &set("Test_L2_R1"), 1000);
}

#[test]
fn every_position_of_the_early_short_set_scores_exactly() {
    assert_all_correct("Test_L1_R1", &set("Test_L1_R1"), 1000);
}

#[test]
fn every_position_of_the_long_middle_game_set_scores_exactly() {
    assert_all_correct("Test_L2_R2", &set("Test_L2_R2"), 1000);
}

/// The test set's lines as (position, expected score).
fn lines(text: &str) -> Vec<(Position, i32)> {
    text.lines()
        .filter_map(|l| match parse_line(l, true) {
            Ok(Some((p, Some(s)))) => Some((p, s)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_generic_null_window_search_agrees_with_the_solver() {
    let mut table = Table::new(1 << 16);
    for (pos, expected) in lines(&sample(&set("Test_L3_R1"), 10)) {
        let depth = CELLS - pos.moves();
        let mut effort = Effort::unlimited();
        let found = negamax::solve(&mut Board(pos), depth, -22, 22, &mut table, &mut effort);
        assert_eq!(found, Some(expected), "{pos:?}");
        table.clear();
    }
}

#[test]
fn plain_negamax_and_alpha_beta_agree_with_the_solver_near_the_end() {
    let mut compared = 0;
    for (pos, expected) in lines(&set("Test_L3_R1")) {
        let depth = CELLS - pos.moves();
        if depth > 8 {
            continue;
        }
        let mut all = Effort::unlimited();
        let plain = negamax::negamax(&mut Board(pos), depth, &mut all, &mut Silent);
        assert_eq!(plain, Some(expected), "{pos:?}");
        let mut pruned = Effort::unlimited();
        let ab = negamax::alphabeta(&mut Board(pos), depth, -INF, INF, &mut pruned, &mut Silent);
        assert_eq!(ab, Some(expected), "{pos:?}");
        assert!(pruned.nodes <= all.nodes);
        compared += 1;
    }
    assert!(
        compared >= 50,
        "only {compared} positions with at most 8 empty cells"
    );
}

fn ferrum(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrum"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ferrum");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("ferrum runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn solve_reports_bad_lines_by_number_goes_on_and_fails_at_the_end() {
    let input = "4455\n44448\n4444444\n1212121 3\n12121213\n44x\n\n44455554221 -15\n";
    let (code, out, err) = ferrum(&["connect4", "solve"], input);
    assert_eq!(code, 2, "{err}");
    let scores: Vec<(&str, &str)> = out
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!(f.len(), 4, "{l}");
            (f[0], f[1])
        })
        .collect();
    assert_eq!(
        scores,
        [("4455", "18"), ("1212121", "-18"), ("44455554221", "-15")]
    );
    assert!(
        err.contains("line 2: move 5 '8' is not a column 1-7"),
        "{err}"
    );
    assert!(err.contains("line 3: move 7: column 4 is full"), "{err}");
    assert!(
        err.contains("line 5: move 8 comes after the game was won"),
        "{err}"
    );
    assert!(
        err.contains("line 6: move 3 'x' is not a column 1-7"),
        "{err}"
    );
    assert!(
        err.contains("connect4 solve: 4 bad line(s) in stdin"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 5, "{err}");
    let (code, _, err) = ferrum(&["connect4", "solve"], "4455\n\n44455554221 -15\n");
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn analyze_scores_every_column() {
    let (code, out, _) = ferrum(
        &["connect4", "solve", "--analyze"],
        "5554224333234511764415115\n",
    );
    assert_eq!(code, 0);
    assert_eq!(out.trim(), "5554224333234511764415115 -8 -8 -8 -8 - 4 -8");
}

#[test]
fn bench_prints_a_row_per_set_and_help_exits_cleanly() {
    let dir = std::env::temp_dir().join(format!("ferrum-c4-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("three");
    std::fs::write(&file, "4455 18\n44455554221 -15\n4455 0\n4458 1\n").expect("write");
    let path = file.to_string_lossy().into_owned();
    let (code, out, err) = ferrum(&["connect4", "bench", "--repeat", "3", &path], "");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 2, "{out}");
    let row: Vec<&str> = out
        .lines()
        .nth(1)
        .expect("a row")
        .split_whitespace()
        .collect();
    assert_eq!(&row[..3], ["three", "3", "2"]);
    // The bad line is reported once, not once a run.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("line 4: move 4 '8' is not a column 1-7"),
        "{err}"
    );
    let (code, out, _) = ferrum(&["connect4", "--help"], "");
    assert_eq!(code, 0);
    assert!(out.contains("ferrum connect4 bench FILE"));
    let (code, _, err) = ferrum(&["connect4", "frobnicate"], "");
    assert_eq!(code, 2);
    assert!(
        err.contains("unrecognized subcommand 'frobnicate'"),
        "{err}"
    );
}

/// An early position can take hours: --max-nodes gives it up with a message naming the limit
/// and the bounds proven so far, the other lines are still solved, and the status says so.
#[test]
fn solve_gives_up_a_position_at_max_nodes_and_goes_on() {
    let (code, out, err) = ferrum(&["connect4", "solve", "--max-nodes", "100000"], "4\n4455\n");
    assert_eq!(code, 2, "{err}");
    assert!(
        out.starts_with("4455 18 ") && out.lines().count() == 1,
        "{out}"
    );
    assert!(
        err.contains(
            "ferrum: stdin line 1 (4): not solved, gave up at --max-nodes 100000 after 100000 nodes"
        ),
        "{err}"
    );
    assert!(err.contains("score between "), "{err}");
    assert!(
        err.contains("connect4 solve: 1 position(s) not solved within the limits"),
        "{err}"
    );
}

/// --progress prints where the solve stands every S seconds on stderr, and --time gives up
/// after S seconds.
#[test]
fn solve_shows_progress_and_gives_up_at_its_time() {
    let started = std::time::Instant::now();
    let (code, out, err) = ferrum(
        &["connect4", "solve", "--time", "1", "--progress", "0.2"],
        "4\n",
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    let progress = err
        .lines()
        .filter(|l| l.starts_with("connect4 solve: stdin line 1 (4): ") && l.contains(" nodes in "))
        .count();
    assert!(progress >= 1, "{err}");
    assert!(
        err.contains("not solved, gave up at --time 1 after "),
        "{err}"
    );
    // Given up, not solved: the empty board's neighbours take far longer than this.
    assert!(started.elapsed().as_secs() < 60);
}
