//! The Connect-Four solver: null-window searches (the generic driver of `crate::negamax`)
//! over a specialised alpha-beta that never plays into an immediate loss, clamps its window
//! to the scores still reachable, keeps bounds in a table and tries threatening moves first.
//! A watch, when set, sees its progress every so many nodes and may stop it.

use super::position::{CELLS, Position, WIDTH, loss_score, win_now_score};
use super::table::{DEFAULT_BITS, Known, Table};
use crate::negamax::null_window;

/// Enhanced transposition cut-offs are looked for only with more empty cells than this:
/// near the end, searching a child costs little more than looking it up.
const ETC_MIN_EMPTY: u32 = 6;

/// Columns from the centre out: central stones take part in more lines.
const CENTRE_OUT: [usize; WIDTH] = [3, 2, 4, 1, 5, 0, 6];

/// What a watch sees of a solve under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Positions searched since the last reset.
    pub nodes: u64,
    /// The score of the position being solved is proven to lie in [low, high].
    pub low: i32,
    pub high: i32,
}

/// Called every so many nodes with the progress; `false` stops the solve.
pub type Watch = Box<dyn FnMut(&Progress) -> bool>;

pub struct Solver {
    table: Table,
    nodes: u64,
    /// The watch and how many nodes apart it is called.
    watch: Option<(u64, Watch)>,
    /// The node count at which the watch is next called (never without one; at once, for
    /// every node, once stopped).
    next_check: u64,
    stopped: bool,
    /// The bounds proven so far on the score of the position `solve` was given.
    bounds: (i32, i32),
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// A solver with the default table.
    pub fn new() -> Solver {
        Solver::with_table_bits(DEFAULT_BITS)
    }

    /// A solver whose table has 2^bits slots (8 bytes each).
    pub fn with_table_bits(bits: u32) -> Solver {
        Solver::with_table(Table::new(bits))
    }

    /// As `with_table_bits`, with an error when the table's memory cannot be had.
    pub fn try_with_table_bits(bits: u32) -> Result<Solver, String> {
        Table::try_new(bits).map(Solver::with_table)
    }

    fn with_table(table: Table) -> Solver {
        Solver {
            table,
            nodes: 0,
            watch: None,
            next_check: u64::MAX,
            stopped: false,
            bounds: (0, 0),
        }
    }

    /// Forgets the table, the node count and a stop, so the next position is solved from
    /// scratch (the watch stays).
    pub fn reset(&mut self) {
        self.table.reset();
        self.nodes = 0;
        self.stopped = false;
        self.next_check = self.watch.as_ref().map_or(u64::MAX, |(every, _)| *every);
    }

    /// Calls `watch` every `every` nodes from now on (replacing any watch, and forgetting
    /// a stop); once it answers `false` the solve stops and `stopped()` says so.
    pub fn set_watch(&mut self, every: u64, watch: Watch) {
        let every = every.max(1);
        self.watch = Some((every, watch));
        self.stopped = false;
        self.next_check = self.nodes.saturating_add(every);
    }

    /// Whether the watch stopped the search: the scores since the last reset mean nothing.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Positions searched since the last reset.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact score of `pos` for the side to move: 22 minus the winner's stones at the
    /// end of the game (negative when the side to move loses), 0 for a draw; meaningless
    /// when the watch stopped the search (see `stopped`).
    pub fn solve(&mut self, pos: &Position) -> i32 {
        if pos.is_lost() {
            return loss_score(pos.moves());
        }
        if pos.is_full() {
            return 0;
        }
        if pos.can_win_next() {
            return win_now_score(pos.moves());
        }
        // The opponent wins with its next stone at worst; we cannot win with ours.
        let min = -((CELLS - pos.moves()) as i32 / 2);
        let max = (CELLS - 1 - pos.moves()) as i32 / 2;
        self.bounds = (min, max);
        let found = null_window(min, max, split, |m| {
            let value = self.search(pos, m, m + 1);
            if self.stopped {
                return None;
            }
            // What the driver learns from the probe, kept for the watch to show.
            if value > m {
                self.bounds.0 = value.min(max);
            } else {
                self.bounds.1 = value.max(min);
            }
            Some(value)
        });
        // Only a stop leaves the driver without an answer.
        found.unwrap_or(0)
    }

    /// Whether the search must unwind now: calls the watch when its turn has come.
    #[cold]
    fn stop_now(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        let Some((every, watch)) = self.watch.as_mut() else {
            self.next_check = u64::MAX;
            return false;
        };
        let progress = Progress {
            nodes: self.nodes,
            low: self.bounds.0,
            high: self.bounds.1,
        };
        if watch(&progress) {
            self.next_check = self.nodes.saturating_add(*every);
        } else {
            self.stopped = true;
        }
        self.stopped
    }

    /// The score of playing each column (None for a full one or a finished game).
    pub fn analyze(&mut self, pos: &Position) -> [Option<i32>; WIDTH] {
        let mut scores = [None; WIDTH];
        if pos.is_lost() {
            return scores;
        }
        for (col, score) in scores.iter_mut().enumerate() {
            if !pos.can_play(col) {
                continue;
            }
            *score = Some(if pos.is_winning_move(col) {
                win_now_score(pos.moves())
            } else {
                let mut child = *pos;
                child.play_col(col);
                -self.solve(&child)
            });
        }
        scores
    }

    /// Fail-soft score of `pos` in the window (alpha, beta). The side to move cannot win
    /// at once (the caller made sure), and the last move did not win.
    fn search(&mut self, pos: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes >= self.next_check && self.stop_now() {
            return 0;
        }
        let candidates = pos.non_losing_moves();
        let moves = pos.moves();
        if candidates == 0 {
            // Every move lets the opponent win with its next stone.
            return -((CELLS - moves) as i32 / 2);
        }
        if moves >= CELLS - 2 {
            // Neither side can win with the last two stones.
            return 0;
        }
        // The opponent cannot win with its next stone (we do not allow it), nor we now:
        // the score is within [floor, ceiling]. Cut-offs return the tightest bound known.
        let floor = -((CELLS - 2 - moves) as i32 / 2);
        if floor >= beta {
            return floor;
        }
        let ceiling = (CELLS - 1 - moves) as i32 / 2;
        if ceiling <= alpha {
            return ceiling;
        }
        alpha = alpha.max(floor);
        beta = beta.min(ceiling);
        let key = pos.key();
        match self.table.get(key) {
            Some(Known::AtMost(v)) if v <= alpha => return v,
            Some(Known::AtMost(v)) => beta = beta.min(v),
            Some(Known::AtLeast(v)) if v >= beta => return v,
            Some(Known::AtLeast(v)) => alpha = alpha.max(v),
            None => {}
        }
        let (cells, count) = ordered_moves(pos, candidates);
        if moves + ETC_MIN_EMPTY < CELLS && count > 1 {
            for &cell in &cells[..count] {
                let mut child = *pos;
                child.play(cell);
                if let Some(Known::AtMost(u)) = self.table.get(child.key())
                    && -u >= beta
                {
                    self.table.put(key, Known::AtLeast(-u));
                    return -u;
                }
            }
        }
        let mut best = floor;
        for &cell in &cells[..count] {
            let mut child = *pos;
            child.play(cell);
            let score = -self.search(&child, -beta, -alpha);
            if score >= beta {
                self.table.put(key, Known::AtLeast(score));
                return score;
            }
            best = best.max(score);
            alpha = alpha.max(score);
        }
        self.table.put(key, Known::AtMost(best));
        best
    }
}

/// The next value to test in [min, max]: the middle, or halfway from zero to the end of the
/// range on the middle's side when that is farther out. Far from zero a probe is cheap (a
/// quick win or loss is proved or refuted in a few plies), so those come first.
fn split(min: i32, max: i32) -> i32 {
    let mid = null_window::bisect(min, max);
    if mid <= 0 && min / 2 < mid {
        min / 2
    } else if mid >= 0 && max / 2 > mid {
        max / 2
    } else {
        mid
    }
}

/// The cells of `candidates` (one per column), the ones leaving most threats of our own
/// first, ties from the centre out.
fn ordered_moves(pos: &Position, candidates: u64) -> ([u64; WIDTH], usize) {
    let mut cells = [0u64; WIDTH];
    let mut scores = [0u32; WIDTH];
    let mut count = 0;
    for col in CENTRE_OUT {
        let cell = candidates & pos.column_cells(col);
        if cell == 0 {
            continue;
        }
        let score = pos.threats_after(cell);
        // Insertion after every entry scoring at least as much: stable, so ties keep the
        // centre-out order.
        let mut i = count;
        while i > 0 && scores[i - 1] < score {
            cells[i] = cells[i - 1];
            scores[i] = scores[i - 1];
            i -= 1;
        }
        cells[i] = cell;
        scores[i] = score;
        count += 1;
    }
    (cells, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect4::sets::bench_set;

    fn solve(line: &str) -> i32 {
        let pos = Position::from_moves(line).unwrap();
        Solver::new().solve(&pos)
    }

    #[test]
    fn probes_split_every_range_and_lean_outward() {
        for min in -21..21 {
            for max in min + 1..=21 {
                let m = split(min, max);
                assert!(min <= m && m < max, "[{min}, {max}] -> {m}");
            }
        }
        assert_eq!(split(-18, 18), -9);
        assert_eq!(split(1, 18), 9);
        assert_eq!(split(-3, 2), -1);
    }

    #[test]
    fn published_examples_score_as_documented() {
        // "4455": the side to move wins with its 4th stone.
        assert_eq!(solve("4455"), 18);
        // "44455554221": whatever the side to move plays, the opponent wins with its 7th.
        assert_eq!(solve("44455554221"), -15);
    }

    /// A watch that never stops changes nothing (score and nodes); one that stops is obeyed
    /// within its interval, sees proven bounds around the true score, and a reset clears
    /// the stop.
    #[test]
    fn a_watch_sees_the_progress_and_can_stop_the_solve() {
        use std::cell::RefCell;
        use std::rc::Rc;
        let pos = Position::from_moves("4455").unwrap();
        // 16176 nodes from a fresh table (Test_L1_R1).
        let hard = Position::from_moves("32164625").unwrap();
        let mut plain = Solver::new();
        let score = plain.solve(&hard);
        let mut watched = Solver::new();
        let seen = Rc::new(RefCell::new(Vec::new()));
        let log = Rc::clone(&seen);
        watched.set_watch(
            1000,
            Box::new(move |p| {
                log.borrow_mut().push(*p);
                true
            }),
        );
        assert_eq!(watched.solve(&hard), score);
        assert_eq!(watched.nodes(), plain.nodes());
        assert!(!watched.stopped());
        let seen = seen.borrow();
        assert_eq!(seen.len() as u64, plain.nodes() / 1000);
        for (i, p) in seen.iter().enumerate() {
            assert_eq!(p.nodes, 1000 * (i as u64 + 1));
            assert!(p.low <= score && score <= p.high, "{p:?}");
        }

        let mut stopping = Solver::new();
        stopping.set_watch(500, Box::new(|p| p.nodes < 2000));
        stopping.solve(&hard);
        assert!(stopping.stopped());
        // The stop at 2000 nodes unwinds the search at once: each node on the path only
        // visits its remaining children, which return at their first step.
        let most = 2000 + (WIDTH * CELLS as usize) as u64;
        assert!(stopping.nodes() <= most, "{}", stopping.nodes());
        stopping.reset();
        assert!(!stopping.stopped());
        assert_eq!(stopping.solve(&pos), 18);
    }

    #[test]
    fn finished_and_immediate_games_need_no_search() {
        let mut s = Solver::new();
        let won = Position::from_moves("1212121").unwrap();
        assert_eq!(s.solve(&won), -18);
        let win_now = Position::from_moves("121212").unwrap();
        assert_eq!(s.solve(&win_now), 18);
        assert_eq!(s.nodes(), 0);
    }

    #[test]
    fn analysis_scores_each_column_and_its_best_is_the_position_score() {
        let pos = Position::from_moves("44455554221").unwrap();
        let mut s = Solver::new();
        let scores = s.analyze(&pos);
        assert!(scores.iter().flatten().all(|&v| v == -15));
        // A test-set position (Test_L2_R1, line 1) of score 4.
        let pos = Position::from_moves("5554224333234511764415115").unwrap();
        let scores = s.analyze(&pos);
        assert_eq!(scores.iter().flatten().max(), Some(&4));
        assert_eq!(s.solve(&pos), 4);
        // Column 5 is full.
        assert_eq!(scores[4], None);
        assert_eq!(scores.iter().flatten().count(), 6);
    }

    #[test]
    fn moves_leaving_more_threats_come_first_then_the_centre() {
        let empty = Position::default();
        let (cells, count) = ordered_moves(&empty, empty.playable());
        assert_eq!(count, 7);
        let cols: Vec<usize> = cells.iter().map(|&c| Position::column_of(c)).collect();
        assert_eq!(cols, CENTRE_OUT);
        // The first player has columns 2 and 3 of the bottom row: a stone on column 4
        // opens two winning cells (1 and 5), on 1 or 5 only one, elsewhere none.
        let pos = Position::from_moves("2636").unwrap();
        let (cells, count) = ordered_moves(&pos, pos.non_losing_moves());
        let cols: Vec<usize> = cells[..count]
            .iter()
            .map(|&c| Position::column_of(c))
            .collect();
        assert_eq!(cols, [3, 4, 0, 2, 1, 5, 6]);
    }

    #[test]
    fn a_reset_forgets_the_table_and_the_node_count() {
        let pos = Position::from_moves("5554224333234511764415115").unwrap();
        let mut s = Solver::new();
        assert_eq!(s.solve(&pos), 4);
        let fresh = s.nodes();
        assert!(fresh > 0);
        s.reset();
        assert_eq!(s.nodes(), 0);
        // From an empty table the same search again, node for node; the table kept would
        // have saved nodes.
        assert_eq!(s.solve(&pos), 4);
        assert_eq!(s.nodes(), fresh);
        assert!(s.solve(&pos) == 4 && s.nodes() < 2 * fresh);
    }

    /// `search` is fail-soft alpha-beta over any window, and where its bounds decide it
    /// answers with the tightest one before any child. A side that cannot win with its next
    /// stone wins with the one after at best: 22 less its stones by then, so a window from
    /// that score up fails low at once with it. With two cells left and no four to make with
    /// them, the score is 0 whatever the window.
    #[test]
    fn the_search_answers_at_once_where_its_bounds_decide() {
        for line in ["", "4", "44", "5554224333234511764415115"] {
            let pos = Position::from_moves(line).unwrap();
            assert!(!pos.can_win_next(), "{line}");
            let best = 22 - (pos.moves() as i32 / 2 + 2);
            let mut s = Solver::new();
            assert_eq!(s.search(&pos, best, best + 1), best, "{line}");
            assert_eq!(s.nodes(), 1, "{line}");
        }
        // The first 40 stones of a game that filled the board with no four (found by random
        // play): the last two cells are both in column 3.
        let pos = Position::from_moves("4557146376176147672424763164551222125353").unwrap();
        assert!(pos.moves() == 40 && !pos.can_win_next());
        let mut s = Solver::new();
        for (alpha, beta) in [(-5, 5), (-1, 1), (0, 1), (-1, 0)] {
            let before = s.nodes();
            assert_eq!(s.search(&pos, alpha, beta), 0, "({alpha}, {beta})");
            assert_eq!(s.nodes(), before + 1, "({alpha}, {beta})");
        }
    }

    /// Every 20th position of the end-game and middle-game sets (tests/connect4.rs solves all
    /// of them): here so that a quick run of the unit tests alone sees the solver's bounds and
    /// table at work on more than a few positions.
    ///
    /// The nodes each sample takes are the solver's signature, as `bench` is the chess
    /// search's: a change that widens a window or reorders moves keeps every score but not
    /// the count. A change meant to alter the search updates the figures and says so.
    #[test]
    fn a_sample_of_the_test_sets_scores_exactly_with_the_same_nodes() {
        for (text, nodes) in [
            (include_str!("../../tests/data/connect4/Test_L3_R1"), 2865),
            (include_str!("../../tests/data/connect4/Test_L2_R1"), 15931),
        ] {
            let sample: String = text
                .lines()
                .step_by(20)
                .map(|l| l.to_owned() + "\n")
                .collect();
            let r = bench_set(&sample, &mut Solver::new(), &mut |i, e| panic!("{i}: {e}"));
            assert_eq!(r.positions, 50);
            assert_eq!(r.correct, r.positions, "positions scored as published");
            assert_eq!(r.nodes, nodes, "the solver's node signature changed");
        }
    }
}
