//! Fail-soft alpha-beta negamax and quiescence search; every score is from the side to move.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::{Chess, Move, MoveList, Position};

use super::ordering::{Heuristics, Picker, QuietOrder, is_good_tactical, is_tactical};
use super::score::{DRAW, INFINITY, MATE_BOUND, MAX_PLY, is_mate, mated_in, tb_win_in};
use super::time::Clock;
use super::tt::{Bound, PackedMove, TranspositionTable};
use crate::eval::evaluate;
use crate::position::{child_zobrist, gives_check, is_repetition_draw, null_zobrist};
use crate::syzygy::Probe;
use shakmaty_syzygy::Wdl;

/// Poll the clock and stop signals once per this many nodes (a power of two).
const POLL_INTERVAL: u64 = 1024;
/// Null-move pruning: least depth, and reduction `base + depth / divisor`.
const NULL_MIN_DEPTH: i32 = 3;
const NULL_BASE_REDUCTION: i32 = 2;
const NULL_DEPTH_DIVISOR: i32 = 4;

/// Reverse futility pruning: up to this depth, with this margin per ply.
const RFP_MAX_DEPTH: i32 = 6;
const RFP_MARGIN: i32 = 80;
/// Futility pruning of quiet moves: up to this depth, with this margin per ply.
const FUTILITY_MAX_DEPTH: i32 = 3;
const FUTILITY_MARGIN: i32 = 110;
/// Late move pruning: up to this depth, quiet moves after `base + depth^2` quiets are skipped.
const LMP_MAX_DEPTH: i32 = 3;
const LMP_BASE_MOVES: usize = 3;

/// Internal iterative reduction: a node this deep with no move from the table is searched
/// one ply shallower (it is probably not worth a full search, and its result seeds the table).
const IIR_MIN_DEPTH: i32 = 4;

/// Late move reductions start at this depth and this move number (0-based).
const LMR_MIN_DEPTH: i32 = 3;
const LMR_MIN_MOVES: usize = 3;

/// Plies to reduce the `moves`-th move at `depth`: grows with the logarithm of both.
fn lmr_reduction(depth: i32, moves: usize) -> i32 {
    static TABLE: OnceLock<[[i32; 64]; 64]> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as i32;
            }
        }
        t
    });
    table[(depth as usize).min(63)][moves.min(63)]
}

/// Principal variations collected bottom-up: row `ply` holds the best line from that ply.
struct PvTable {
    moves: Vec<[Option<Move>; MAX_PLY + 1]>,
    len: [usize; MAX_PLY + 1],
}

impl PvTable {
    fn new() -> PvTable {
        PvTable {
            moves: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            len: [0; MAX_PLY + 1],
        }
    }

    fn clear(&mut self, ply: usize) {
        self.len[ply] = 0;
    }

    /// The line at `ply` becomes `m` followed by the child's line.
    fn update(&mut self, ply: usize, m: Move) {
        let child_len = if ply < MAX_PLY { self.len[ply + 1] } else { 0 };
        self.moves[ply][0] = Some(m);
        for i in 0..child_len.min(MAX_PLY - ply) {
            self.moves[ply][i + 1] = self.moves[ply + 1][i];
        }
        self.len[ply] = 1 + child_len.min(MAX_PLY - ply);
    }

    fn line(&self, ply: usize) -> Vec<Move> {
        self.moves[ply][..self.len[ply]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }
}

/// Per-thread search state.
pub struct Searcher<'a> {
    pub tt: &'a TranspositionTable,
    pub clock: &'a Clock,
    pub nodes: u64,
    pub seldepth: usize,
    pub stopped: bool,
    /// Zobrist keys from the last irreversible move of the game up to the current node.
    keys: Vec<u64>,
    pv: PvTable,
    /// Only these root moves are searched when non-empty (`go searchmoves`).
    pub root_moves: Vec<Move>,
    /// Root moves already given a MultiPV line in this iteration.
    pub excluded: Vec<Move>,
    /// Nodes of every thread of this search, when threads share the count.
    shared_nodes: Option<&'a AtomicU64>,
    /// Nodes counted here but not yet added to `shared_nodes`.
    unshared: u64,
    /// Best root move found by the iteration in progress, with its score.
    pub root_best: Option<(Move, i32)>,
    /// Off only in tests that compare against the reference search.
    pub use_tt: bool,
    /// Selectivity that can change the result (pruning, reductions, extensions); off for the
    /// oracle comparison.
    pub prune: bool,
    /// Index in `keys` of the position after the latest null move on the current line (0 if
    /// none): repetitions are looked for only from there.
    null_floor: usize,
    /// Whether the move into each ply was a null move.
    after_null: [bool; MAX_PLY + 2],
    /// The move into each ply (None at the root and after a null move), for counter moves.
    played: [Option<Move>; MAX_PLY + 2],
    /// Static evaluation at each ply of the current line (-INFINITY when in check), to tell
    /// whether the side to move is improving on its position two plies earlier.
    evals: [i32; MAX_PLY + 2],
    pub heuristics: Heuristics,
    /// The previous iteration's best move, searched first at the root whatever the table
    /// holds, so an unfinished iteration can only replace it with a move that beat it.
    pub root_hint: Option<Move>,
    /// Syzygy tables to probe below the root, when loaded.
    pub tb: Option<Probe<'a>>,
}

impl<'a> Searcher<'a> {
    /// `keys` are the game's repetition keys, ending with the root position's.
    pub fn new(tt: &'a TranspositionTable, clock: &'a Clock, keys: Vec<u64>) -> Searcher<'a> {
        Searcher {
            tt,
            clock,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            keys,
            pv: PvTable::new(),
            root_moves: Vec::new(),
            excluded: Vec::new(),
            shared_nodes: None,
            unshared: 0,
            root_best: None,
            use_tt: true,
            prune: true,
            after_null: [false; MAX_PLY + 2],
            played: [None; MAX_PLY + 2],
            evals: [-INFINITY; MAX_PLY + 2],
            null_floor: 0,
            heuristics: Heuristics::default(),
            root_hint: None,
            tb: None,
        }
    }

    pub fn pv(&self) -> Vec<Move> {
        self.pv.line(0)
    }

    /// Lazy SMP: every thread adds its nodes to one counter, now and then.
    pub fn share_nodes(&mut self, counter: &'a AtomicU64) {
        self.shared_nodes = Some(counter);
    }

    /// Adds the nodes not yet counted to the shared count (at the end of a search).
    pub fn flush_nodes(&mut self) {
        if let Some(c) = self.shared_nodes {
            c.fetch_add(self.unshared, Ordering::Relaxed);
            self.unshared = 0;
        }
    }

    /// Nodes of all threads of this search (this thread's alone when it runs alone).
    pub fn total_nodes(&self) -> u64 {
        match self.shared_nodes {
            Some(c) => c.load(Ordering::Relaxed) + self.unshared,
            None => self.nodes,
        }
    }

    /// Counts a node and, now and then, asks the clock whether to stop.
    fn visit(&mut self, ply: usize) {
        self.nodes += 1;
        self.unshared += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.nodes.is_multiple_of(POLL_INTERVAL) {
            if let Some(c) = self.shared_nodes {
                c.fetch_add(self.unshared, Ordering::Relaxed);
                self.unshared = 0;
            }
            if self.clock.must_stop(self.total_nodes()) {
                self.stopped = true;
            }
        } else if self.clock.node_limit_reached(self.total_nodes())
            && self.clock.must_stop(self.total_nodes())
        {
            self.stopped = true;
        }
    }

    fn is_draw(&self, pos: &Chess, ply: usize) -> bool {
        // Nothing before a null move can recur: the free tempo is not a real move.
        let keys = &self.keys[self.null_floor..];
        if is_repetition_draw(keys, pos.halfmoves(), ply) || pos.is_insufficient_material() {
            return true;
        }
        // After fifty moves without capture or pawn move it is a draw, unless this is mate.
        pos.halfmoves() >= 100 && !pos.is_checkmate()
    }

    fn play(&mut self, pos: &Chess, m: Move) -> Chess {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let key = child_zobrist(pos, self.keys[self.keys.len() - 1], m, &child);
        self.tt.prefetch(key);
        self.keys.push(key);
        child
    }

    fn unplay(&mut self) {
        self.keys.pop();
    }

    /// Null-move pruning: if passing the move still leaves us at or above beta after a
    /// shallower search, a real move would too. Not in check, not twice in a row, and not
    /// with only king and pawns (where passing may be the best move: zugzwang).
    fn null_move(
        &mut self,
        pos: &Chess,
        depth: i32,
        beta: i32,
        ply: usize,
        static_eval: i32,
    ) -> Option<i32> {
        if !self.prune
            || ply == 0
            || depth < NULL_MIN_DEPTH
            || self.after_null[ply]
            || beta.abs() >= MATE_BOUND
            || pos.is_check()
        {
            return None;
        }
        let board = pos.board();
        let ours = board.by_color(pos.turn());
        if (ours & !(board.pawns() | board.kings())).is_empty() || static_eval < beta {
            return None;
        }
        let null_pos = pos.clone().swap_turn().ok()?;
        let reduction = NULL_BASE_REDUCTION + depth / NULL_DEPTH_DIVISOR;
        self.keys
            .push(null_zobrist(pos, self.keys[self.keys.len() - 1]));
        let floor = std::mem::replace(&mut self.null_floor, self.keys.len() - 1);
        self.after_null[ply + 1] = true;
        self.played[ply + 1] = None;
        let score = -self.negamax(&null_pos, depth - 1 - reduction, -beta, -beta + 1, ply + 1);
        self.after_null[ply + 1] = false;
        self.null_floor = floor;
        self.keys.pop();
        if self.stopped || score < beta {
            return None;
        }
        // A mate found after passing is not a real mate: claim only the bound.
        Some(if score >= MATE_BOUND { beta } else { score })
    }

    pub fn negamax(
        &mut self,
        pos: &Chess,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.pv.clear(ply);
        if ply > 0 && self.is_draw(pos, ply) {
            return DRAW;
        }
        let in_check = pos.is_check();
        // Check extension: a position in check is searched one ply deeper, so forcing lines
        // are not cut off at the horizon.
        let depth = if in_check && self.prune {
            depth + 1
        } else {
            depth
        };
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiescence(pos, alpha, beta, ply);
        }
        self.visit(ply);
        if self.stopped {
            return DRAW;
        }

        let key = self.keys[self.keys.len() - 1];
        let tt_hit = if self.use_tt {
            self.tt.probe(key, ply)
        } else {
            None
        };
        let tt_move = match (ply, self.root_hint) {
            (0, Some(hint)) => PackedMove::new(hint),
            _ => tt_hit.map_or(PackedMove::NONE, |h| h.mv),
        };
        // At PV nodes the table's score is not taken: the search goes on to find the line.
        let pv_node = beta - alpha > 1;
        if let Some(hit) = tt_hit
            && ply > 0
            && !pv_node
            && hit.depth >= depth
        {
            let usable = match hit.bound {
                Bound::Exact => true,
                Bound::Lower => hit.score >= beta,
                Bound::Upper => hit.score <= alpha,
            };
            if usable {
                return hit.score;
            }
        }

        // A position just reached by a capture or pawn move, with few enough pieces, is
        // scored by the tablebases: a win or loss as a bound just inside the mate range, a
        // draw exactly. Where the bound does not decide the node, the search goes on within
        // it.
        let (mut tb_floor, mut tb_ceiling) = (-INFINITY, INFINITY);
        let alpha_orig = alpha;
        if ply > 0
            && let Some(tb) = self.tb
            && depth >= tb.depth
            && pos.halfmoves() == 0
            && !pos.castles().any()
            && pos.board().occupied().count() <= tb.limit
            && let Some(wdl) = tb.tables.probe_wdl(pos)
        {
            let (score, bound) = match wdl {
                Wdl::Win => (tb_win_in(ply), Bound::Lower),
                Wdl::Loss => (-tb_win_in(ply), Bound::Upper),
                Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => (DRAW, Bound::Exact),
            };
            let decides = match bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if decides {
                if self.use_tt {
                    let eval = if in_check { -INFINITY } else { evaluate(pos) };
                    let stored_depth = (depth + 6).min(MAX_PLY as i32 - 1);
                    self.tt
                        .store(key, tt_move, score, eval, stored_depth, bound, ply);
                }
                return score;
            }
            match bound {
                Bound::Lower => {
                    tb_floor = score;
                    alpha = alpha.max(score);
                }
                _ => tb_ceiling = score,
            }
        }

        // The table keeps the static evaluation too, which saves computing it again.
        let static_eval = match tt_hit {
            _ if in_check => -INFINITY,
            Some(hit) if self.use_tt => hit.eval,
            _ => evaluate(pos),
        };
        self.evals[ply] = static_eval;
        // Without an evaluation two plies back (near the root, or after a check) the
        // position is taken as improving, which errs on the side of searching more.
        let improving = !in_check
            && (ply < 2 || self.evals[ply - 2] == -INFINITY || static_eval > self.evals[ply - 2]);
        // A stored bound on the true score, when it lies on the right side, is a better
        // estimate than the static one.
        let estimate = match tt_hit {
            Some(hit) if !in_check && !is_mate(hit.score) => match hit.bound {
                Bound::Exact => hit.score,
                Bound::Lower => hit.score.max(static_eval),
                Bound::Upper => hit.score.min(static_eval),
            },
            _ => static_eval,
        };
        let selective = self.prune && ply > 0 && !pv_node && !in_check;
        // Reverse futility pruning: far enough above beta that a shallow search will not
        // bring the score back down; the margin is a ply smaller when things are improving.
        if selective
            && depth <= RFP_MAX_DEPTH
            && beta.abs() < MATE_BOUND
            && estimate - RFP_MARGIN * (depth - i32::from(improving)) >= beta
        {
            return estimate;
        }
        if let Some(score) = self.null_move(pos, depth, beta, ply, estimate) {
            return score;
        }
        let depth = if self.prune && ply > 0 && depth >= IIR_MIN_DEPTH && tt_move.is_none() {
            depth - 1
        } else {
            depth
        };

        let mut moves = pos.legal_moves();
        if ply == 0 {
            if !self.root_moves.is_empty() {
                moves.retain(|m| self.root_moves.contains(m));
            }
            moves.retain(|m| !self.excluded.contains(m));
        }
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { DRAW };
        }

        let mut best = tb_floor;
        let mut best_move = None;
        let mut quiets_tried = MoveList::new();
        let previous = self.played[ply];
        let order = QuietOrder {
            heuristics: &self.heuristics,
            ply,
            side: pos.turn(),
            counter: previous.and_then(|p| self.heuristics.counter(pos.turn(), p)),
        };
        let picker = Picker::new(pos, &mut moves, tt_move, Some(&order));
        for (i, m) in picker.enumerate() {
            // Near the leaves, quiet moves late in the ordering (late move pruning) or with
            // no hope of reaching alpha (futility pruning) are skipped, once a move has been
            // searched and as long as we are not being mated; checks are always searched.
            let (mut late, mut futile) = (false, false);
            if selective && i > 0 && !is_tactical(m) && best > -MATE_BOUND {
                late = depth <= LMP_MAX_DEPTH
                    && quiets_tried.len() >= LMP_BASE_MOVES + (depth * depth) as usize;
                futile = depth <= FUTILITY_MAX_DEPTH && estimate + FUTILITY_MARGIN * depth <= alpha;
            }
            // A pruned move that cannot give check is skipped without being made.
            if (late || futile) && gives_check(pos, m) == Some(false) {
                if futile {
                    best = best.max(estimate + FUTILITY_MARGIN * depth);
                }
                continue;
            }
            let child = self.play(pos, m);
            self.played[ply + 1] = Some(m);
            if (late || futile) && !child.is_check() {
                self.unplay();
                if futile {
                    // Fail-soft: the skipped move might have been worth up to this much, so
                    // the bound stored for this node must not claim less.
                    best = best.max(estimate + FUTILITY_MARGIN * depth);
                }
                continue;
            }
            // Principal variation search: the first move gets the full window; the rest are
            // only proved worse with a null window, and searched again if that fails.
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
            } else {
                // Late move reductions: quiet moves far down the ordering are searched less
                // deep first; one that surprises is searched again at full depth.
                let reduction = if self.prune
                    && depth >= LMR_MIN_DEPTH
                    && i >= LMR_MIN_MOVES
                    && !in_check
                    && !is_tactical(m)
                    && !child.is_check()
                {
                    let r = lmr_reduction(depth, i) - i32::from(pv_node) + i32::from(!improving);
                    r.clamp(0, depth - 2)
                } else {
                    0
                };
                let mut s =
                    -self.negamax(&child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
                if s > alpha && reduction > 0 && !self.stopped {
                    s = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                }
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
                } else {
                    s
                }
            };
            self.unplay();
            if self.stopped {
                return best.max(DRAW);
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    self.pv.update(ply, m);
                    if ply == 0 {
                        self.root_best = Some((m, score));
                    }
                    if score >= beta {
                        if !is_tactical(m) {
                            self.heuristics
                                .on_cutoff(ply, pos.turn(), depth, m, &quiets_tried);
                            if let Some(p) = previous {
                                self.heuristics.set_counter(pos.turn(), p, m);
                            }
                        }
                        break;
                    }
                }
            }
            if !is_tactical(m) {
                quiets_tried.push(m);
            }
        }

        let best = best.min(tb_ceiling);
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let packed = best_move.map_or(PackedMove::NONE, PackedMove::new);
        // A root searched over a subset of moves (searchmoves, MultiPV lines after the first)
        // says nothing true of the position.
        if self.use_tt && (ply > 0 || (self.root_moves.is_empty() && self.excluded.is_empty())) {
            self.tt
                .store(key, packed, best, static_eval, depth, bound, ply);
        }
        best
    }

    /// Resolves captures and promotions until the position is quiet; the side to move may
    /// "stand pat" on the static score. In check, every evasion is searched instead.
    pub fn quiescence(&mut self, pos: &Chess, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv.clear(ply);
        self.visit(ply);
        if self.stopped {
            return DRAW;
        }
        if pos.is_insufficient_material() {
            return DRAW;
        }
        let in_check = pos.is_check();
        if ply >= MAX_PLY {
            return if in_check { DRAW } else { evaluate(pos) };
        }

        let mut best = -INFINITY;
        if !in_check {
            best = evaluate(pos);
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }

        let mut moves = pos.legal_moves();
        if in_check && moves.is_empty() {
            return mated_in(ply);
        }
        if !in_check {
            // Only captures and promotions that do not lose material by exchange.
            let prune = self.prune;
            moves.retain(|m| is_tactical(*m) && (!prune || is_good_tactical(pos, *m)));
        }
        let picker = if self.prune && !in_check {
            Picker::known_good(pos, &mut moves)
        } else {
            Picker::new(pos, &mut moves, PackedMove::NONE, None)
        };
        for m in picker {
            // No key is pushed: quiescence never looks for repetitions.
            let mut child = pos.clone();
            child.play_unchecked(m);
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                return best.max(DRAW);
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.pv.update(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}
