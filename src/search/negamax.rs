//! The search of a node, root and interior alike: fail-soft alpha-beta negamax with principal
//! variation search, its pruning, reductions and extensions. Every score is from the side to
//! move. The kind of node is a type (`node::NodeType`): the root's own work, and what is not
//! done at PV nodes, is decided when the search is compiled. Quiescence is in
//! `quiescence.rs`.

use shakmaty::{Chess, Move, MoveList, Position};
use shakmaty_syzygy::Wdl;

use super::node::{Node, NodeBest, NodeType, NonPv, Pv, Step, Tried};
use super::ordering::{Picker, QuietOrder, is_tactical};
use super::params;
use super::score::{
    DRAW, INFINITY, MATE_BOUND, MAX_PLY, TB_WIN_BOUND, is_mate, mated_in, tb_win_in,
};
use super::searcher::Searcher;
use super::see::loses_by_exchange;
use super::stats::{Event, Stats};
use super::tt::{Bound, PackedMove, TtEntry};
use crate::basics::position::gives_check;

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

/// Quiet moves tried at `depth` after which late move pruning skips the rest.
fn late_move_count(depth: i32) -> usize {
    (params::lmp_base_moves() + depth * depth) as usize
}

impl Searcher<'_> {
    /// Searches `pos`, the stack's current node, to `depth` within (`alpha`, `beta`). A
    /// non-PV node has a null window; the root is `search_root`'s (its moves are the root
    /// list's candidates).
    pub(super) fn negamax<N: NodeType>(
        &mut self,
        pos: &Chess,
        mut alpha: i32,
        beta: i32,
        depth: i32,
    ) -> i32 {
        let ply = self.td.stack.ply();
        debug_assert_eq!(N::ROOT, ply == 0);
        debug_assert!(N::PV || beta - alpha == 1);
        self.td.pv.clear(ply);
        if !N::ROOT && self.td.stack.is_draw(pos) {
            return DRAW;
        }
        let frame = *self.td.stack.at(ply);
        let (in_check, excluded) = (frame.in_check, frame.excluded);
        debug_assert_eq!(in_check, pos.is_check());
        // Check extension: a position in check is searched one ply deeper, so forcing lines
        // are not cut off at the horizon. Not again in a search without one of the moves
        // (singular extensions): the node's depth already has it.
        let depth = if in_check && self.prune && excluded.is_none() {
            // Counted at the depth the node is searched at, as its `Node` is.
            self.td.stats.add(Event::CheckExtension, depth + 1);
            depth + 1
        } else {
            depth
        };
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiescence(pos, alpha, beta);
        }
        self.visit();
        self.td.stats.add(Event::Node, depth);
        if self.stopped {
            return DRAW;
        }

        let key = self.td.stack.key();
        let tt_hit = if self.use_tt {
            self.tt.probe(key, ply)
        } else {
            None
        };
        // The root searches the previous iteration's best move first, whatever the table
        // holds, so an unfinished iteration can only replace it with a move that beat it.
        let tt_move = match self.root_hint {
            Some(hint) if N::ROOT => PackedMove::new(hint),
            _ => tt_hit.map_or(PackedMove::NONE, |h| h.mv),
        };
        // At PV nodes the table's score is not taken: the search goes on to find the line.
        // Nor in a search without one of the moves (singular extensions): the table's entry
        // is of the node with all of them.
        if let Some(hit) = tt_hit
            && !N::PV
            && excluded.is_none()
            && hit.depth >= depth
            && hit.bound.decides(hit.score, alpha, beta)
        {
            self.td.stats.add(Event::TableCut, depth);
            return hit.score;
        }

        // A position just reached by a capture or pawn move, with few enough pieces, is
        // scored by the tablebases: a win or loss as a bound just inside the mate range, a
        // draw exactly. Where the bound does not decide the node, the search goes on within
        // it. (The root's moves are narrowed by the tables before the search instead.)
        let (mut tb_floor, mut tb_ceiling) = (-INFINITY, INFINITY);
        let alpha_orig = alpha;
        if !N::ROOT
            && let Some(tb) = self.tb
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
                        self.td.evaluate(pos)
                    };
                    let entry = TtEntry {
                        mv: tt_move,
                        score,
                        eval,
                        depth: (depth + params::tb_store_extra_depth()).min(MAX_PLY as i32 - 1),
                        bound,
                    };
                    self.tt.store(key, ply, entry);
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
            _ => self.td.evaluate(pos),
        };
        // What searches found of this pawn structure corrects the estimate (the table keeps
        // the evaluation itself).
        let static_eval = self.corrected(pos, raw_eval);
        // Without an evaluation two plies back (near the root, or after a check) the
        // position is taken as improving, which errs on the side of searching more.
        let before = self.td.stack.two_back(ply).static_eval;
        let improving = !in_check && (before == -INFINITY || static_eval > before);
        let frame = self.td.stack.at_mut(ply);
        (frame.static_eval, frame.improving) = (static_eval, improving);
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
        let selective = self.prune && !N::PV && !in_check;
        // Reverse futility pruning: far enough above beta that a shallow search will not
        // bring the score back down; the margin is a ply smaller when things are improving.
        if selective
            && depth <= params::rfp_max_depth()
            && beta.abs() < MATE_BOUND
            && estimate - params::rfp_margin() * (depth - i32::from(improving)) >= beta
        {
            self.td.stats.add(Event::ReverseFutilityCut, depth);
            return estimate;
        }
        if !N::ROOT
            && excluded.is_none()
            && let Some(score) = self.null_move(pos, depth, beta, estimate)
        {
            self.td.stats.add(Event::NullMoveCut, depth);
            return score;
        }
        // Stopped inside the null-move search: no node more may be visited.
        if self.stopped {
            return DRAW;
        }
        // Internal iterative reduction: without a table move the ordering is a guess, and a
        // shallower search finds one for the next iteration.
        let depth =
            if !N::ROOT && self.prune && depth >= params::iir_min_depth() && tt_move.is_none() {
                self.td.stats.add(Event::InternalReduction, depth);
                depth - 1
            } else {
                depth
            };

        self.td.stats.add(Event::MoveLoop, depth);
        let mut moves = pos.legal_moves();
        if N::ROOT {
            let candidates = &self.root_candidates;
            moves.retain(|m| candidates.contains(m));
        }
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

        let singular = if !N::ROOT && excluded.is_none() {
            match self.singular(pos, &moves, tt_hit, depth, beta) {
                Singular::Cut(score) => return score,
                Singular::Stopped => return DRAW,
                Singular::Extend => true,
                Singular::No => false,
            }
        } else {
            false
        };

        let mut node = NodeBest::new(tb_floor, alpha, alpha_orig);
        let mut tried = Tried::new();
        let frame = *self.td.stack.at(ply);
        let previous = frame.played;
        let order = QuietOrder::new(
            &self.td.history,
            &self.td.counters,
            frame.killers,
            pos.turn(),
            previous,
        );
        // Iterated by reference: moving the picker (a kilobyte of keys) into the loop's
        // adaptor would copy it at every node.
        let mut picker = Picker::new(pos, &mut moves, tt_move, Some(&order));
        for (i, m) in picker.by_ref().enumerate() {
            // Near the leaves, quiet moves late in the ordering (late move pruning) or with
            // no hope of reaching alpha (futility pruning) are skipped, once a move has been
            // searched and as long as we are not being mated; checks are always searched.
            let (mut late, mut futile) = (false, false);
            if selective && i > 0 && !is_tactical(m) && node.score > -MATE_BOUND {
                late = depth <= params::lmp_max_depth()
                    && tried.quiets.len() >= late_move_count(depth);
                futile = depth <= params::futility_max_depth()
                    && estimate + params::futility_margin() * depth <= node.alpha;
            }
            // Exchange pruning: a move that loses too much material by exchange is skipped,
            // once a move has been searched, at PV nodes too and even if it gives check.
            if !N::ROOT
                && self.prune
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
                )
            {
                self.td.stats.add(Event::ExchangePruned, depth);
                continue;
            }
            let pruned = if late {
                Event::LateMovePruned
            } else {
                Event::FutilityPruned
            };
            // A pruned move that cannot give check is skipped without being made.
            if (late || futile) && gives_check(pos, m) == Some(false) {
                if futile {
                    node.score = node.score.max(estimate + params::futility_margin() * depth);
                }
                self.td.stats.add(pruned, depth);
                continue;
            }
            let child = self.td.push_move(pos, m);
            self.tt.prefetch(self.td.stack.key());
            if (late || futile) && !self.td.stack.at(ply + 1).in_check {
                self.td.stats.add(pruned, depth);
                self.td.pop_move();
                if futile {
                    // Fail-soft: the skipped move might have been worth up to this much, so
                    // the bound stored for this node must not claim less.
                    node.score = node.score.max(estimate + params::futility_margin() * depth);
                }
                continue;
            }
            let extension = i32::from(i == 0 && singular && tt_move.matches(m));
            let score = self.search_child::<N>(&child, m, i, depth + extension, node.alpha, beta);
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
            let step = self.record(&mut node, &at, m, score, beta, &mut tried);
            if N::ROOT && step != Step::Worse {
                self.root_best = Some((m, score));
            }
            if step == Step::Cutoff {
                break;
            }
        }

        node.score = node.score.min(tb_ceiling);
        // The root's result is true of the position only when it searched every move; a
        // search without one of the moves is not the node's.
        let store = if N::ROOT {
            self.root_whole
        } else {
            excluded.is_none()
        };
        if store {
            self.store_node(key, &node, beta, raw_eval, depth);
            self.correct(pos, &node, beta, depth, static_eval, raw_eval);
        }
        node.score
    }

    /// Null-move pruning: if passing the move still leaves us at or above beta after a
    /// shallower search, a real move would too. Not in check, not twice in a row, not with
    /// beta among mate or tablebase scores, and not with only king and pawns (where passing
    /// may be the best move: zugzwang).
    fn null_move(&mut self, pos: &Chess, depth: i32, beta: i32, estimate: i32) -> Option<i32> {
        let frame = self.td.stack.at(self.td.stack.ply());
        if !self.prune
            || depth < params::null_min_depth()
            || frame.after_null
            || beta.abs() >= TB_WIN_BOUND
            || frame.in_check
        {
            return None;
        }
        let board = pos.board();
        let ours = board.by_color(pos.turn());
        if (ours & !(board.pawns() | board.kings())).is_empty() || estimate < beta {
            return None;
        }
        let null_pos = pos.clone().swap_turn().ok()?;
        let reduction = params::null_base_reduction() + depth / params::null_depth_divisor();
        let floor = self.td.push_null(pos);
        let score = -self.negamax::<NonPv>(&null_pos, -beta, -beta + 1, depth - 1 - reduction);
        self.td.pop_null(floor);
        if self.stopped || score < beta {
            return None;
        }
        // A mate (or tablebase win) found after passing is not a real one, as passing is not
        // a move: claim only the bound.
        Some(if score >= TB_WIN_BOUND { beta } else { score })
    }

    /// Singular extension of the table move: when a search of the node without it, at half
    /// the depth, fails low against the stored score less a margin, it is the only good move
    /// and is searched a ply deeper; when that search fails high even against beta, several
    /// moves reach beta and the node is cut (multi-cut).
    fn singular(
        &mut self,
        pos: &Chess,
        moves: &MoveList,
        tt_hit: Option<TtEntry>,
        depth: i32,
        beta: i32,
    ) -> Singular {
        let Some(hit) = tt_hit else {
            return Singular::No;
        };
        if !self.prune
            || depth < params::singular_min_depth()
            || hit.mv.is_none()
            || hit.bound == Bound::Upper
            || hit.depth < depth - params::singular_depth_margin()
            || hit.score.abs() >= TB_WIN_BOUND
            || self.td.stack.ply() as i32 >= 2 * self.root_depth
        {
            return Singular::No;
        }
        let Some(tm) = moves.iter().copied().find(|m| hit.mv.matches(*m)) else {
            return Singular::No;
        };
        let singular_beta = hit.score - params::singular_margin() * depth;
        let ply = self.td.stack.ply();
        let kept = *self.td.stack.at(ply);
        self.td.stack.at_mut(ply).excluded = Some(tm);
        let score = self.negamax::<NonPv>(pos, singular_beta - 1, singular_beta, (depth - 1) / 2);
        // The node's own frame and line are its again: the search without the move may have
        // left another evaluation and its line there.
        let frame = self.td.stack.at_mut(ply);
        (frame.excluded, frame.static_eval, frame.improving) =
            (None, kept.static_eval, kept.improving);
        self.td.pv.clear(ply);
        if self.stopped {
            Singular::Stopped
        } else if score < singular_beta {
            self.td.stats.add(Event::SingularExtension, depth);
            Singular::Extend
        } else if singular_beta >= beta {
            self.td.stats.add(Event::MultiCut, depth);
            Singular::Cut(singular_beta)
        } else {
            Singular::No
        }
    }

    /// Searches `child`, the position after the `i`-th move `m` of the node above it (the
    /// stack's current node is the child), by principal variation search: the first move
    /// gets the full window; the rest are only proved worse with a null window, and searched
    /// again if that fails.
    #[inline]
    fn search_child<N: NodeType>(
        &mut self,
        child: &Chess,
        m: Move,
        i: usize,
        depth: i32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if i == 0 {
            return if N::PV {
                -self.negamax::<Pv>(child, -beta, -alpha, depth - 1)
            } else {
                -self.negamax::<NonPv>(child, -beta, -alpha, depth - 1)
            };
        }
        let ply = self.td.stack.ply();
        let (node, child_frame) = (*self.td.stack.at(ply - 1), self.td.stack.at(ply));
        // Late move reductions: quiet moves far down the ordering are searched less deep
        // first; one that surprises is searched again at full depth.
        let reduction = if self.prune
            && depth >= params::lmr_min_depth()
            && i >= params::lmr_min_moves() as usize
            && !node.in_check
            && !is_tactical(m)
            && !child_frame.in_check
        {
            let r = lmr_reduction(depth, i) - i32::from(N::PV) + i32::from(!node.improving);
            let divisor = params::lmr_history_divisor();
            let by_history = if divisor > 0 {
                // The mover is the side not to move in the child.
                self.td.history.get(!child.turn(), m) / divisor
            } else {
                0
            };
            let most = (depth - 2).max(0);
            let reduction = (r - by_history).clamp(0, most);
            if Stats::counting() {
                let without = r.clamp(0, most);
                if reduction < without {
                    self.td.stats.add(Event::ReducedLessByHistory, depth);
                } else if reduction > without {
                    self.td.stats.add(Event::ReducedMoreByHistory, depth);
                }
            }
            reduction
        } else {
            0
        };
        if reduction > 0 {
            self.td.stats.add(Event::Reduced, depth);
        }
        let reduced = depth - 1 - reduction;
        let mut s = -self.negamax::<NonPv>(child, -alpha - 1, -alpha, reduced);
        if s > alpha && reduction > 0 && !self.stopped {
            s = -self.negamax::<NonPv>(child, -alpha - 1, -alpha, depth - 1);
        }
        // At a non-PV node the window is null: a score above alpha is at beta.
        if N::PV && s > alpha && s < beta && !self.stopped {
            -self.negamax::<Pv>(child, -beta, -alpha, depth - 1)
        } else {
            s
        }
    }
}

/// What the singular search found of the table move.
enum Singular {
    /// Nothing to do: no search, or the move is not singular.
    No,
    /// The only good move: searched a ply deeper.
    Extend,
    /// Other moves reach beta too: the node is cut with this score.
    Cut(i32),
    Stopped,
}
