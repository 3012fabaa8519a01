//! Fail-soft alpha-beta negamax and quiescence search; every score is from the side to move.

use shakmaty::{Chess, Move, MoveList, Position};
use shakmaty_syzygy::Wdl;

use super::correction::{corrected, nonpawn_keys};
use super::node::{Node, NodeBest, Step, Tried};
use super::ordering::{
    Picker, Previous, QuietOrder, continuation_on, is_good_tactical, is_tactical,
};
use super::params;
use super::score::{
    DRAW, INFINITY, MATE_BOUND, MAX_PLY, TB_WIN_BOUND, is_mate, mated_in, tb_win_in,
};
use super::searcher::Searcher;
use super::see::{loses_by_exchange, see};
use super::tt::{Bound, EVAL_LIMIT, PackedMove, TtHit};
use crate::basics::position::{child_zobrist, gives_check};
use crate::basics::tactical::tactical_moves_into;
use crate::eval::pawn_key;

/// Plies to reduce the `moves`-th move at `depth`: grows with the logarithm of both.
#[cfg(not(feature = "tune"))]
fn lmr_reduction(depth: i32, moves: usize) -> i32 {
    static TABLE: std::sync::OnceLock<[[i32; 64]; 64]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = lmr_formula(d, m);
            }
        }
        t
    });
    table[(depth as usize).min(63)][moves.min(63)]
}

/// A tuning build computes each reduction afresh, as the parameters may change.
#[cfg(feature = "tune")]
fn lmr_reduction(depth: i32, moves: usize) -> i32 {
    lmr_formula((depth as usize).min(63), moves.min(63))
}

fn lmr_formula(depth: usize, moves: usize) -> i32 {
    if depth == 0 || moves == 0 {
        return 0;
    }
    let base = f64::from(params::lmr_base()) / 100.0;
    let divisor = f64::from(params::lmr_divisor()) / 100.0;
    (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32
}

/// Quiet moves tried at `depth` after which late move pruning skips the rest: fewer when
/// the position is not improving (with `lmp_not_improving_percent` below 100).
fn late_move_count(depth: i32, improving: bool) -> usize {
    let count = params::lmp_base_moves() + depth * depth;
    let percent = params::lmp_not_improving_percent();
    if improving || percent >= 100 {
        count as usize
    } else {
        (count * percent / 100).max(1) as usize
    }
}

impl Searcher<'_> {
    /// Null-move pruning: if passing the move still leaves us at or above beta after a
    /// shallower search, a real move would too. Not in check, not twice in a row, not with
    /// beta among mate or tablebase scores, and not with only king and pawns (where passing
    /// may be the best move: zugzwang).
    #[allow(clippy::too_many_arguments)]
    fn null_move(
        &mut self,
        pos: &Chess,
        depth: i32,
        beta: i32,
        ply: usize,
        static_eval: i32,
        in_check: bool,
        cut_node: bool,
    ) -> Option<i32> {
        if !self.prune
            || depth < params::null_min_depth()
            || self.td.stack.at(ply).after_null
            || beta.abs() >= TB_WIN_BOUND
            || in_check
        {
            return None;
        }
        let board = pos.board();
        let ours = board.by_color(pos.turn());
        if (ours & !(board.pawns() | board.kings())).is_empty() || static_eval < beta {
            return None;
        }
        let null_pos = pos.clone().swap_turn().ok()?;
        let margin = if params::null_eval_max_reduction() > 0 {
            ((static_eval - beta) / params::null_eval_divisor())
                .min(params::null_eval_max_reduction())
        } else {
            0
        };
        let reduction =
            params::null_base_reduction() + depth / params::null_depth_divisor() + margin;
        let floor = self.td.push_null(pos, ply);
        // After passing, the side to move is the one that just moved, and a legal position
        // never leaves the side that moved in check.
        let score = -self.negamax(
            &null_pos,
            false,
            depth - 1 - reduction,
            -beta,
            -beta + 1,
            ply + 1,
            !cut_node,
        );
        self.td.pop_null(ply, floor);
        if self.stopped || score < beta {
            return None;
        }
        // A mate (or tablebase win) found after passing is not a real one, as passing is not
        // a move: claim only the bound.
        Some(if score >= TB_WIN_BOUND { beta } else { score })
    }

    /// A node below the root (`ply` >= 1; the root is `search_root`); `in_check` is
    /// `pos.is_check()`, which the parent already knows. `cut_node`: a null-window node
    /// expected to fail high, never a PV node. Expectations alternate down the tree: a child
    /// of a node expected to fail low is expected to fail high and the other way round,
    /// except that a reduced search's child is always expected to fail high, and a PV node's
    /// children are PV nodes (its first move, its re-searches) or expected to fail high.
    #[allow(clippy::too_many_arguments)]
    pub fn negamax(
        &mut self,
        pos: &Chess,
        in_check: bool,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        debug_assert!(ply > 0);
        debug_assert!(!cut_node || beta - alpha == 1);
        self.td.pv.clear(ply);
        if self.td.stack.is_draw(pos, ply) {
            return DRAW;
        }
        debug_assert_eq!(in_check, pos.is_check());
        // Check extension: a position in check is searched one ply deeper, so forcing lines
        // are not cut off at the horizon. Not again in a search without one of the moves
        // (singular extensions): the node's depth already has it.
        let depth = if in_check && self.prune && self.td.stack.at(ply).excluded.is_none() {
            depth + 1
        } else {
            depth
        };
        if depth <= 0 || ply >= MAX_PLY {
            let key = self.td.stack.key();
            return self.quiescence(pos, in_check, alpha, beta, ply, key);
        }
        self.visit(ply);
        if self.stopped {
            return DRAW;
        }

        let key = self.td.stack.key();
        let tt_hit = if self.use_tt {
            self.tt.probe(key, ply)
        } else {
            None
        };
        let tt_move = tt_hit.map_or(PackedMove::NONE, |h| h.mv);
        // At PV nodes the table's score is not taken: the search goes on to find the line.
        // Nor in a search without one of the moves (singular extensions): the table's entry
        // is of the node with all of them.
        let pv_node = beta - alpha > 1;
        let excluded = self.td.stack.at(ply).excluded;
        if let Some(hit) = tt_hit
            && !pv_node
            && excluded.is_none()
            && hit.depth >= depth
            && hit.bound.decides(hit.score, alpha, beta)
        {
            return hit.score;
        }

        // A position just reached by a capture or pawn move, with few enough pieces, is
        // scored by the tablebases: a win or loss as a bound just inside the mate range, a
        // draw exactly. Where the bound does not decide the node, the search goes on within
        // it.
        let (mut tb_floor, mut tb_ceiling) = (-INFINITY, INFINITY);
        let alpha_orig = alpha;
        if let Some(tb) = self.tb
            && excluded.is_none()
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
            if bound.decides(score, alpha, beta) {
                if self.use_tt {
                    let eval = if in_check {
                        -INFINITY
                    } else {
                        self.td.evaluate(pos, ply)
                    };
                    let stored_depth =
                        (depth + params::tb_store_extra_depth()).min(MAX_PLY as i32 - 1);
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
        let raw_eval = match tt_hit {
            _ if in_check => -INFINITY,
            Some(hit) if self.use_tt => hit.eval,
            _ => self.td.evaluate(pos, ply),
        };
        // What the search found of this pawn structure before corrects the estimate; the
        // table keeps the evaluation itself.
        let static_eval = corrected(&self.td.correction, pos.turn(), pos.board(), raw_eval);
        self.td.stack.at_mut(ply).static_eval = static_eval;
        // Without an evaluation two plies back (near the root, or after a check) the
        // position is taken as improving, which errs on the side of searching more.
        let before = self.td.stack.two_back(ply).static_eval;
        let improving = !in_check && (before == -INFINITY || static_eval > before);
        // A stored bound on the true score, when it lies on the right side, is a better
        // estimate than the static one.
        // Not in a search without one of the moves: the stored score may be that move's.
        let estimate = match tt_hit {
            Some(hit) if !in_check && excluded.is_none() && !is_mate(hit.score) => {
                match hit.bound {
                    Bound::Exact => hit.score,
                    Bound::Lower => hit.score.max(static_eval),
                    Bound::Upper => hit.score.min(static_eval),
                }
            }
            _ => static_eval,
        };
        let selective = self.prune && !pv_node && !in_check;
        // Reverse futility pruning: far enough above beta that a shallow search will not
        // bring the score back down; the margin is a ply smaller when things are improving.
        if selective
            && depth <= params::rfp_max_depth()
            && beta.abs() < MATE_BOUND
            && estimate - params::rfp_margin() * (depth - i32::from(improving)) >= beta
        {
            return estimate;
        }
        if excluded.is_none()
            && !(pv_node && params::null_skip_pv() != 0)
            && let Some(score) = self.null_move(pos, depth, beta, ply, estimate, in_check, cut_node)
        {
            return score;
        }
        if selective
            && excluded.is_none()
            && let Some(score) = self.probcut(
                pos,
                key,
                depth,
                beta,
                ply,
                static_eval,
                raw_eval,
                tt_hit,
                cut_node,
            )
        {
            return score;
        }
        // Stopped inside the null-move search or ProbCut: no node more may be visited.
        if self.stopped {
            return DRAW;
        }
        let depth = if self.prune && depth >= params::iir_min_depth() && tt_move.is_none() {
            depth - 1
        } else {
            depth
        };

        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { DRAW };
        }
        if let Some(x) = excluded {
            moves.retain(|m| *m != x);
            // Without the left-out move nothing is playable: all the others "fail low".
            if moves.is_empty() {
                return alpha;
            }
        }

        // Singular extension of the table move: when a search of the node without it, at
        // half the depth, fails low against the stored score less a margin, it is the only
        // good move and is searched a ply deeper; when that search fails high even against
        // beta, several moves reach beta and the node is cut (multi-cut).
        let mut tt_extension = 0;
        if let Some(hit) = tt_hit
            && self.prune
            && excluded.is_none()
            && depth >= params::singular_min_depth()
            && !tt_move.is_none()
            && hit.bound != Bound::Upper
            && hit.depth >= depth - params::singular_depth_margin()
            && hit.score.abs() < TB_WIN_BOUND
            && (ply as i32) < 2 * self.root_depth
            && let Some(tm) = moves.iter().copied().find(|m| tt_move.matches(*m))
        {
            let singular_beta = hit.score - params::singular_margin() * depth;
            self.td.stack.at_mut(ply).excluded = Some(tm);
            let score = self.negamax(
                pos,
                in_check,
                (depth - 1) / 2,
                singular_beta - 1,
                singular_beta,
                ply,
                cut_node,
            );
            // The node's own frame and line are its again: the search without the move
            // may have left another evaluation (corrected since) and its line there.
            let frame = self.td.stack.at_mut(ply);
            frame.excluded = None;
            frame.static_eval = static_eval;
            self.td.pv.clear(ply);
            if self.stopped {
                return DRAW;
            }
            if score < singular_beta {
                tt_extension = 1;
            } else if singular_beta >= beta {
                return singular_beta;
            } else if hit.score >= beta {
                // Not singular, and the table says the node holds beta: the table move is
                // likely not the only one that does, so it is searched less deep.
                tt_extension = -params::singular_negative_extension();
            }
        }

        let mut node = NodeBest::new(tb_floor, alpha, alpha_orig);
        let mut tried = Tried::new();
        let frame = *self.td.stack.at(ply);
        let previous = Previous {
            one: frame.played,
            two: self.td.stack.at(ply - 1).played,
        };
        let order = QuietOrder::new(&self.td.heuristics, frame.killers, pos.turn(), previous);
        let continuation = order.continuation;
        // Iterated by reference: moving the picker (a kilobyte of keys) into the loop's
        // adaptor would copy it at every node.
        let mut picker = Picker::new(pos, &mut moves, tt_move, Some(&order));
        // Quiet moves skipped by history pruning (counted with the tried ones for late move
        // pruning).
        let mut history_skipped = 0;
        for (i, m) in picker.by_ref().enumerate() {
            // Near the leaves, quiet moves late in the ordering (late move pruning) or with
            // no hope of reaching alpha (futility pruning) are skipped, once a move has been
            // searched and as long as we are not being mated; checks are always searched.
            let (mut late, mut futile) = (false, false);
            let prunable_quiet = selective && i > 0 && !is_tactical(m) && node.score > -MATE_BOUND;
            if prunable_quiet {
                late = depth <= params::lmp_max_depth()
                    && tried.quiets.len() + history_skipped >= late_move_count(depth, improving);
                futile = depth <= params::futility_max_depth()
                    && estimate + params::futility_margin() * depth <= node.alpha;
            }
            // Exchange pruning: a move that loses too much material by exchange is skipped,
            // once a move has been searched, at PV nodes too and even if it gives check (a
            // capture allowed more or less by its capture history, when that is on).
            if self.prune
                && !in_check
                && i > 0
                && !late
                && !futile
                && depth <= params::see_prune_max_depth()
                && node.score > -MATE_BOUND
                && loses_by_exchange(
                    pos,
                    m,
                    depth,
                    params::see_quiet_margin(),
                    params::see_capture_margin(),
                    match params::see_capture_history_divisor() {
                        0 => 0,
                        d => self.td.heuristics.capture_history(pos.turn(), m) / d,
                    },
                )
            {
                continue;
            }
            // History pruning: a quiet move whose history (and continuation records) says it
            // keeps failing is skipped as a late one would be, and counts as tried for late
            // move pruning. After exchange pruning, which a late move does not meet: one that
            // gives check (and so is searched) is still tested for losing material.
            let mut by_history = false;
            if prunable_quiet && !late && depth <= params::history_prune_max_depth() {
                let h = self.td.heuristics.history(pos.turn(), m)
                    + self.td.heuristics.continuation(continuation, m);
                by_history = h < -params::history_prune_margin() * depth;
                late = by_history;
            }
            // A pruned move that cannot give check is skipped without being made.
            if (late || futile) && gives_check(pos, m) == Some(false) {
                if futile {
                    node.score = node.score.max(estimate + params::futility_margin() * depth);
                }
                history_skipped += usize::from(by_history);
                continue;
            }
            let child = self.td.push_move(pos, m, ply);
            self.tt.prefetch(self.td.stack.key());
            let child_in_check = child.is_check();
            if (late || futile) && !child_in_check {
                history_skipped += usize::from(by_history);
                self.td.pop_move();
                if futile {
                    // Fail-soft: the skipped move might have been worth up to this much, so
                    // the bound stored for this node must not claim less.
                    node.score = node.score.max(estimate + params::futility_margin() * depth);
                }
                continue;
            }
            let extension = if i == 0 && tt_extension != 0 && tt_move.matches(m) {
                tt_extension
            } else {
                0
            };
            let score = self.search_child(
                &child,
                child_in_check,
                m,
                i,
                depth + extension,
                node.alpha,
                beta,
                ply,
                pv_node,
                cut_node,
                in_check,
                improving,
                continuation,
            );
            self.td.pop_move();
            if self.stopped {
                return node.score.max(DRAW);
            }
            let at = Node {
                pos,
                ply,
                depth,
                previous,
            };
            if self.record(&mut node, &at, m, score, beta, &mut tried) == Step::Cutoff {
                break;
            }
        }

        node.score = node.score.min(tb_ceiling);
        if excluded.is_none() {
            self.correct(pos, &node, beta, alpha_orig, depth, static_eval, raw_eval);
            self.store_node(key, &node, beta, raw_eval, depth, ply);
        }
        node.score
    }

    /// Records a searched node's score against its static evaluation in the correction
    /// history (when on): not in check (`static_eval` is -INFINITY there), not when a capture
    /// or promotion raised alpha (the evaluation is not meant to see those; at a fail-low
    /// node the move kept is only the least bad), not for mate
    /// scores, and only where the score's bound says something about the evaluation: a
    /// fail-high above it, a fail-low below it, or an exact score.
    #[allow(clippy::too_many_arguments)]
    fn correct(
        &mut self,
        pos: &Chess,
        node: &NodeBest,
        beta: i32,
        alpha_orig: i32,
        depth: i32,
        static_eval: i32,
        raw_eval: i32,
    ) {
        let limit = params::correction_limit();
        if limit == 0
            || static_eval == -INFINITY
            || node.score.abs() >= TB_WIN_BOUND
            || (node.score > alpha_orig && node.mv.is_some_and(is_tactical))
        {
            return;
        }
        let informative = if node.score >= beta {
            node.score > static_eval
        } else if node.score <= alpha_orig {
            node.score < static_eval
        } else {
            true
        };
        if informative {
            let key = pawn_key(pos.board());
            let diff = node.score - raw_eval;
            self.td
                .correction
                .update(pos.turn(), key, depth, diff, limit);
            if params::correction_nonpawn_weight() > 0 {
                let keys = nonpawn_keys(pos.board());
                self.td
                    .correction
                    .update_nonpawn(pos.turn(), keys, depth, diff, limit);
            }
        }
    }

    /// ProbCut: a capture that wins enough by exchange to lift the static evaluation to
    /// `beta + probcut_margin`, and whose quiescence and then a search `probcut_reduction`
    /// plies shallower stay at or above that raised bound, cuts the node: the full search
    /// would almost surely fail high too. The result is stored as a lower bound of the
    /// shallower search. Not when the table holds a search at least that deep whose score
    /// stays below the raised bound (`probcut_margin` 0: never).
    #[allow(clippy::too_many_arguments)]
    fn probcut(
        &mut self,
        pos: &Chess,
        key: u64,
        depth: i32,
        beta: i32,
        ply: usize,
        static_eval: i32,
        raw_eval: i32,
        tt_hit: Option<TtHit>,
        cut_node: bool,
    ) -> Option<i32> {
        let margin = params::probcut_margin();
        if margin == 0 || depth < params::probcut_min_depth() || beta.abs() >= TB_WIN_BOUND {
            return None;
        }
        let raised = beta + margin;
        let reduced = depth - params::probcut_reduction();
        if let Some(hit) = tt_hit
            && hit.depth >= reduced
            && hit.bound != Bound::Lower
            && hit.score < raised
        {
            return None;
        }
        let mut moves = MoveList::new();
        tactical_moves_into(pos, &mut moves);
        moves.retain(|m| see(pos, *m) >= raised - static_eval);
        let tt_move = tt_hit.map_or(PackedMove::NONE, |h| h.mv);
        let mut picker = Picker::known_good(pos, &mut moves, tt_move);
        for m in picker.by_ref() {
            let child = self.td.push_move(pos, m, ply);
            let child_key = self.td.stack.key();
            self.tt.prefetch(child_key);
            let child_in_check = child.is_check();
            // The quick look first: most captures that will not hold fail here, cheaply.
            let mut score = -self.quiescence(
                &child,
                child_in_check,
                -raised,
                -raised + 1,
                ply + 1,
                child_key,
            );
            if score >= raised && reduced > 0 && !self.stopped {
                score = -self.negamax(
                    &child,
                    child_in_check,
                    reduced,
                    -raised,
                    -raised + 1,
                    ply + 1,
                    !cut_node,
                );
            }
            self.td.pop_move();
            if self.stopped {
                return None;
            }
            if score >= raised {
                if self.use_tt {
                    self.tt.store(
                        key,
                        PackedMove::new(m),
                        score,
                        raw_eval,
                        reduced + 1,
                        Bound::Lower,
                        ply,
                    );
                }
                return Some(score);
            }
        }
        None
    }

    /// Searches the `i`-th move of a node (its `child`) by principal variation search: the
    /// first move gets the full window; the rest are only proved worse with a null window,
    /// and searched again if that fails. `cut_node` is the node's (see `negamax`): the first
    /// move of an expected fail-high node is expected to fail low and the other way round; a
    /// reduced search expects to fail high.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn search_child(
        &mut self,
        child: &Chess,
        child_in_check: bool,
        m: Move,
        i: usize,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
        in_check: bool,
        improving: bool,
        continuation: [Option<usize>; 2],
    ) -> i32 {
        if i == 0 {
            let child_cut = !pv_node && !cut_node;
            return -self.negamax(
                child,
                child_in_check,
                depth - 1,
                -beta,
                -alpha,
                ply + 1,
                child_cut,
            );
        }
        // Late move reductions: quiet moves far down the ordering are searched less deep
        // first; one that surprises is searched again at full depth.
        let reduction = if self.prune
            && depth >= params::lmr_min_depth()
            && i >= params::lmr_min_moves() as usize
            && !in_check
            && !is_tactical(m)
            && !child_in_check
        {
            let mut r = lmr_reduction(depth, i) - i32::from(pv_node) + i32::from(!improving);
            if cut_node {
                r += params::lmr_cut_node();
            }
            let divisor = params::lmr_history_divisor();
            if divisor > 0 {
                // The mover is the side not to move in the child. With continuation history
                // on, its records after the two moves before this node (the node's bases,
                // `QuietOrder::continuation`) count too, as in the picker.
                let mut h = self.td.heuristics.history(!child.turn(), m);
                if continuation_on() {
                    h += self.td.heuristics.continuation(continuation, m);
                }
                r -= h / divisor;
            }
            r.clamp(0, (depth - 2).max(0))
        } else {
            0
        };
        let reduced = depth - 1 - reduction;
        // A reduced search expects to fail high; an unreduced one, the opposite of this node.
        let mut s = -self.negamax(
            child,
            child_in_check,
            reduced,
            -alpha - 1,
            -alpha,
            ply + 1,
            reduction > 0 || !cut_node,
        );
        if s > alpha && reduction > 0 && !self.stopped {
            s = -self.negamax(
                child,
                child_in_check,
                depth - 1,
                -alpha - 1,
                -alpha,
                ply + 1,
                !cut_node,
            );
        }
        if s > alpha && s < beta && !self.stopped {
            -self.negamax(
                child,
                child_in_check,
                depth - 1,
                -beta,
                -alpha,
                ply + 1,
                false,
            )
        } else {
            s
        }
    }

    /// Resolves captures and promotions until the position is quiet; the side to move may
    /// "stand pat" on the static score. In check (`in_check`, known to the parent), every
    /// evasion is searched instead.
    /// `key` is the position's key (read only with `qsearch_tt` on).
    pub fn quiescence(
        &mut self,
        pos: &Chess,
        in_check: bool,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        key: u64,
    ) -> i32 {
        self.td.pv.clear(ply);
        self.visit(ply);
        if self.stopped {
            return DRAW;
        }
        if pos.is_insufficient_material() {
            return DRAW;
        }
        debug_assert_eq!(in_check, pos.is_check());
        if ply >= MAX_PLY {
            return if in_check {
                DRAW
            } else {
                self.td.evaluate(pos, ply)
            };
        }

        // With the table on: a stored bound that decides a null window ends the search here,
        // a stored evaluation saves computing it, and the stored move goes first.
        let with_table = self.use_tt && params::qsearch_tt() > 0;
        let hit = if with_table {
            self.tt.probe(key, ply)
        } else {
            None
        };
        // Without pruning only quiescence's own entries (depth 0) bound it, so a search of
        // fixed depth keeps its exact value.
        if let Some(h) = hit
            && beta - alpha == 1
            && (self.prune || h.depth == 0)
            && h.bound.decides(h.score, alpha, beta)
        {
            return h.score;
        }
        let tt_move = hit.map_or(PackedMove::NONE, |h| h.mv);
        let alpha_orig = alpha;

        let mut best = -INFINITY;
        let mut static_eval = -INFINITY;
        if !in_check {
            static_eval = match hit {
                // Not the table's clamp of "none" (an entry stored in check).
                Some(h) if h.eval > -EVAL_LIMIT => h.eval,
                _ => self.td.evaluate(pos, ply),
            };
            // Standing pat on the corrected evaluation, as the interior estimates with it;
            // the table keeps the evaluation itself.
            best = corrected(&self.td.correction, pos.turn(), pos.board(), static_eval);
            if best >= beta {
                if with_table && hit.is_none() {
                    self.tt.store_shallow(
                        key,
                        PackedMove::NONE,
                        best,
                        static_eval,
                        Bound::Lower,
                        ply,
                    );
                }
                return best;
            }
            alpha = alpha.max(best);
        }

        let mut moves = MoveList::new();
        if in_check {
            moves = pos.legal_moves();
            if moves.is_empty() {
                return mated_in(ply);
            }
        } else {
            // Only captures and promotions that do not lose material by exchange, written
            // into the list in place.
            tactical_moves_into(pos, &mut moves);
            if self.prune {
                moves.retain(|m| is_good_tactical(pos, *m));
            }
        }
        let mut picker = if self.prune && !in_check {
            Picker::known_good(pos, &mut moves, tt_move)
        } else {
            Picker::new(pos, &mut moves, tt_move, None)
        };
        let mut best_move = None;
        // By reference, as in `negamax`: the picker is not copied into the loop.
        for m in picker.by_ref() {
            let child = self.td.play_in_quiescence(pos, m, ply);
            let child_key = if with_table {
                child_zobrist(pos, key, m, &child)
            } else {
                0
            };
            let score =
                -self.quiescence(&child, child.is_check(), -beta, -alpha, ply + 1, child_key);
            if self.stopped {
                return best.max(DRAW);
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    self.td.pv.update(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if with_table {
            let bound = Bound::of_result(best, alpha_orig, beta);
            let mv = best_move.map_or(PackedMove::NONE, PackedMove::new);
            self.tt
                .store_shallow(key, mv, best, static_eval, bound, ply);
        }
        best
    }
}
