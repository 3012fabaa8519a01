//! What kind of node is searched (root, PV, non-PV: types, so that each kind's search is
//! compiled apart), and a node's bookkeeping as its moves are searched: the best score and
//! move so far, alpha and the line as they rise, the cutoff's credit to move ordering, and
//! the result stored in the table as a bound of the window.

use shakmaty::{Chess, Move, MoveList, Position};

use super::ordering::is_tactical;
use super::score::{INFINITY, TB_WIN_BOUND};
use super::searcher::Searcher;
use super::tt::{Bound, PackedMove, TtEntry};

/// A kind of node, known when the search is compiled: the root (whose moves are the root
/// list's and which does no pruning, probing or extension of its own), a PV node (an open
/// window: the principal variation may run through it; nothing prunes it by its table
/// entry), or a non-PV node (a null window: proved better or worse than a bound).
pub trait NodeType {
    const ROOT: bool;
    const PV: bool;
}

/// The root node (a PV node too).
pub struct Root;
/// A node below the root searched with an open window.
pub struct Pv;
/// A node searched with a null window.
pub struct NonPv;

impl NodeType for Root {
    const ROOT: bool = true;
    const PV: bool = true;
}

impl NodeType for Pv {
    const ROOT: bool = false;
    const PV: bool = true;
}

impl NodeType for NonPv {
    const ROOT: bool = false;
    const PV: bool = false;
}

/// A node's best score and move so far, and its window's lower end as it rises.
pub(super) struct NodeBest {
    pub score: i32,
    pub mv: Option<Move>,
    pub alpha: i32,
    /// Alpha as the node was entered, before any move raised it.
    alpha_orig: i32,
}

/// The quiet moves of a node searched without a cutoff. A local of the node, not a part of
/// `NodeBest`: a move list is large, and a value returned by a constructor is copied whole.
pub(super) struct Tried {
    pub quiets: MoveList,
}

impl Tried {
    pub(super) fn new() -> Tried {
        Tried {
            quiets: MoveList::new(),
        }
    }
}

impl NodeBest {
    pub(super) fn new(floor: i32, alpha: i32, alpha_orig: i32) -> NodeBest {
        NodeBest {
            score: floor,
            mv: None,
            alpha,
            alpha_orig,
        }
    }
}

/// Where a move was searched: what a cutoff needs to credit it.
pub(super) struct Node<'p> {
    pub pos: &'p Chess,
    pub ply: usize,
    pub depth: i32,
    /// The move that led here (None at the root and after a null move), for the
    /// counter-move table.
    pub previous: Option<Move>,
}

/// What a move's score did to its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    Worse,
    /// It raised alpha (the node's line is now through it).
    Raised,
    Cutoff,
}

impl Searcher<'_> {
    /// The `m` of the node `at` scored `score`: the node keeps its best score and move,
    /// raises alpha and its line, and on a cutoff the move (if quiet) gains history; a quiet
    /// move that did not cut off joins `tried`. The root and the interior share it.
    pub(super) fn record(
        &mut self,
        node: &mut NodeBest,
        at: &Node,
        m: Move,
        score: i32,
        beta: i32,
        tried: &mut Tried,
    ) -> Step {
        let mut step = Step::Worse;
        if score > node.score {
            node.score = score;
            node.mv = Some(m);
            if score > node.alpha {
                node.alpha = score;
                self.td.pv.update(at.ply, m);
                if score >= beta {
                    self.quiet_cutoff(at.pos, at.ply, at.depth, m, &tried.quiets, at.previous);
                    return Step::Cutoff;
                }
                step = Step::Raised;
            }
        }
        if !is_tactical(m) {
            tried.quiets.push(m);
        }
        step
    }

    /// Stores a searched node's score as a bound of the window it was searched with.
    pub(super) fn store_node(
        &self,
        key: u64,
        node: &NodeBest,
        beta: i32,
        static_eval: i32,
        depth: i32,
    ) {
        if !self.use_tt {
            return;
        }
        let bound = Bound::of_result(node.score, node.alpha_orig, beta);
        // A node that failed low stores no move, so the table keeps the move it had for the
        // position: a fail-low node's best move is only the least bad.
        let mv = match node.mv {
            Some(m) if bound != Bound::Upper => PackedMove::new(m),
            _ => PackedMove::NONE,
        };
        let entry = TtEntry {
            mv,
            score: node.score,
            eval: static_eval,
            depth,
            bound,
        };
        self.tt.store(key, self.td.stack.ply(), entry);
    }

    /// `raw`, the static evaluation of `pos`, as the correction history corrects it; not
    /// without pruning, as the reference search it is compared with has no correction.
    pub(super) fn corrected(&self, pos: &Chess, raw: i32) -> i32 {
        if self.prune {
            self.td.correction.apply(pos.turn(), pos.board(), raw)
        } else {
            raw
        }
    }

    /// Records a searched node's result against its static evaluation in the correction
    /// history, where it says something about the evaluation: a fail-high above the
    /// corrected estimate `static_eval`, a fail-low below it, or an exact score. Not in check
    /// (no evaluation), not for mate or tablebase scores, and not when a capture or
    /// promotion raised alpha: the evaluation is not meant to see those.
    pub(super) fn correct(
        &mut self,
        pos: &Chess,
        node: &NodeBest,
        beta: i32,
        depth: i32,
        static_eval: i32,
        raw_eval: i32,
    ) {
        if !self.prune
            || static_eval == -INFINITY
            || node.score.abs() >= TB_WIN_BOUND
            || (node.score > node.alpha_orig && node.mv.is_some_and(is_tactical))
        {
            return;
        }
        let says = if node.score >= beta {
            node.score > static_eval
        } else if node.score <= node.alpha_orig {
            node.score < static_eval
        } else {
            true
        };
        if says {
            let diff = node.score - raw_eval;
            self.td
                .correction
                .update(pos.turn(), pos.board(), depth, diff);
        }
    }

    /// A move at `ply` caused a cutoff: if quiet, it becomes a killer, gains history (the
    /// quiets tried before it lose some) and the counter move to `previous`.
    fn quiet_cutoff(
        &mut self,
        pos: &Chess,
        ply: usize,
        depth: i32,
        m: Move,
        quiets_tried: &[Move],
        previous: Option<Move>,
    ) {
        if is_tactical(m) {
            return;
        }
        self.td.stack.add_killer(ply, m);
        let side = pos.turn();
        self.td.history.update(side, depth, m, quiets_tried);
        if let Some(p) = previous {
            self.td.counters.set(side, p, m);
        }
    }
}
