//! The NNUE's accumulators: the first layer's sums of one position for both perspectives,
//! made from scratch at the root and brought up to date from the parent's on every move;
//! `Network::evaluate` scores a position from sums made afresh. The sums are i16: a net is
//! loaded only if no position's sums can leave that range (`nnue::widest_sum`), and the
//! trainer writes only such nets. With king buckets (`nnue::KingLayout`) a perspective's
//! inputs depend on its king's square: a move that takes that king into another bucket, or
//! across the mirror line, needs the sums made afresh (`Network::crosses`).

use shakmaty::{Board, Chess, Color, Piece, Position, Role, Square};

#[cfg(target_arch = "x86_64")]
use super::nnue::has_avx2;
use super::nnue::{Network, View, add_row, feature, narrow_w2, widest_sum};

mod kernels;
#[cfg(target_arch = "x86_64")]
use kernels::changed_avx2;
use kernels::{add_sub, add_sub2, add2_sub2, sub_row};

/// The first layer's sums of one position for both perspectives (indexed by colour), kept
/// per ply in the search and brought up to date from the parent's by the pieces that moved,
/// with where each perspective's inputs lie (its king's bucket and mirroring).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accumulator {
    pub sums: [Vec<i16>; 2],
    pub views: [View; 2],
}

pub use crate::basics::changes::Changes;

impl Network {
    /// The evaluation of `pos` from the side to move, in centipawns, from sums made from
    /// scratch.
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        let mut acc = Accumulator::with_hidden(self.hidden);
        acc.refresh(self, pos.board());
        acc.evaluate(self, pos)
    }

    /// Whether the changes `c` move a king into another bucket or across the mirror line
    /// (or take a king off the board): then that perspective's inputs all move, and the sums
    /// are made afresh instead of updated. Never with a net without king buckets.
    #[inline]
    pub fn crosses(&self, c: &Changes) -> bool {
        if self.kings.count() == 0 {
            return false;
        }
        c.removed().iter().any(|&(piece, from)| {
            piece.role == Role::King
                && !c.added().iter().any(|&(p, to)| {
                    p == piece
                        && self.kings.view_at(piece.color, to)
                            == self.kings.view_at(piece.color, from)
                })
        })
    }
}

impl Accumulator {
    /// An accumulator with room for `hidden` sums per perspective, so updates never allocate.
    pub fn with_hidden(hidden: usize) -> Accumulator {
        Accumulator {
            sums: [vec![0; hidden], vec![0; hidden]],
            views: [View::PLAIN; 2],
        }
    }

    /// Both perspectives' sums of `board` from scratch.
    #[inline]
    pub fn refresh(&mut self, net: &Network, board: &Board) {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU has AVX2, as checked just above.
            unsafe { self.refresh_avx2(net, board) };
            return;
        }
        self.refresh_portable(net, board);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn refresh_avx2(&mut self, net: &Network, board: &Board) {
        self.refresh_portable(net, board);
    }

    #[inline(always)]
    fn refresh_portable(&mut self, net: &Network, board: &Board) {
        // What the 16-bit sums and the output's fast path take for granted (`from_bytes`
        // and the trainer see to it; a net built by hand must too).
        debug_assert!(widest_sum(net.hidden, &net.w1, &net.b1).is_none());
        debug_assert_eq!(net.narrow_w2, narrow_w2(&net.w2));
        for perspective in Color::ALL {
            let view = net.kings.view_of(perspective, board);
            self.views[perspective as usize] = view;
            let sums = &mut self.sums[perspective as usize];
            sums.clear();
            sums.extend_from_slice(&net.b1);
            for (sq, piece) in board.iter() {
                add_row(sums, net.row(view.index(feature(perspective, sq, piece))));
            }
        }
    }

    /// The sums of `after` from `parent`, the sums of `before`: the rows of the pieces that
    /// left a square are taken off and those of the pieces that arrived added, in one pass
    /// over the sums. Comparing the boards covers every kind of move (castling in any
    /// starting position, en passant, promotions); a null move changes nothing. A king
    /// that changes bucket (`Network::crosses`) has the sums made afresh.
    #[inline]
    pub fn update_from(
        &mut self,
        net: &Network,
        parent: &Accumulator,
        before: &Board,
        after: &Board,
    ) {
        let c = Changes::between(before, after);
        if c.needs_refresh() || net.crosses(&c) {
            self.refresh(net, after);
            return;
        }
        self.apply(net, parent, &c);
    }

    /// The parent's sums with the changes `c` (at most two pieces off and two on, see
    /// `Changes::needs_refresh`, and no king into another bucket, see `Network::crosses`)
    /// made.
    #[inline]
    pub fn apply(&mut self, net: &Network, parent: &Accumulator, c: &Changes) {
        debug_assert!(!c.needs_refresh() && !net.crosses(c));
        self.views = parent.views;
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU has AVX2, as checked just above. A net without king buckets
            // takes the code whose input indices need no view (they are the features).
            unsafe {
                if net.kings.count() == 0 {
                    self.apply_avx2::<false>(net, parent, c);
                } else {
                    self.apply_avx2::<true>(net, parent, c);
                }
            }
            return;
        }
        self.apply_portable(net, parent, c);
    }

    /// The changes of a chess move in AVX2 registers, sixteen sums at a time, for sums whose
    /// length is a multiple of 16 (every net Ferrum trains); anything else takes
    /// `apply_portable` compiled for AVX2. `KINGS`: the net has king buckets (the views
    /// place the inputs; without, they are the plain view's and the indices the features).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn apply_avx2<const KINGS: bool>(&mut self, net: &Network, parent: &Accumulator, c: &Changes) {
        let n = net.hidden;
        let fits =
            n.is_multiple_of(16) && self.sums.iter().chain(&parent.sums).all(|s| s.len() == n);
        if !fits {
            self.apply_portable(net, parent, c);
            return;
        }
        for perspective in Color::ALL {
            let i = perspective as usize;
            let (out, from) = (&mut self.sums[i][..], &parent.sums[i][..]);
            let view = if KINGS { parent.views[i] } else { View::PLAIN };
            let row =
                |(piece, sq): (Piece, Square)| net.row(view.index(feature(perspective, sq, piece)));
            match (c.adds, c.subs) {
                (1, 1) => changed_avx2(out, from, [row(c.added[0])], [row(c.removed[0])]),
                (1, 2) => changed_avx2(
                    out,
                    from,
                    [row(c.added[0])],
                    [row(c.removed[0]), row(c.removed[1])],
                ),
                (2, 2) => changed_avx2(
                    out,
                    from,
                    [row(c.added[0]), row(c.added[1])],
                    [row(c.removed[0]), row(c.removed[1])],
                ),
                (0, 0) => out.copy_from_slice(from),
                _ => {
                    self.apply_portable(net, parent, c);
                    return;
                }
            }
        }
    }

    /// The parent's sums with the changed pieces' rows taken off and added, for any machine.
    #[inline(always)]
    fn apply_portable(&mut self, net: &Network, parent: &Accumulator, c: &Changes) {
        for perspective in Color::ALL {
            let i = perspective as usize;
            let (out, from) = (&mut self.sums[i], &parent.sums[i]);
            if out.len() != from.len() {
                out.resize(from.len(), 0);
            }
            let view = parent.views[i];
            let row =
                |(piece, sq): (Piece, Square)| net.row(view.index(feature(perspective, sq, piece)));
            match (c.adds, c.subs) {
                (0, 0) => out.copy_from_slice(from),
                (1, 1) => add_sub(out, from, row(c.added[0]), row(c.removed[0])),
                (1, 2) => add_sub2(
                    out,
                    from,
                    row(c.added[0]),
                    row(c.removed[0]),
                    row(c.removed[1]),
                ),
                (2, 2) => add2_sub2(
                    out,
                    from,
                    [row(c.added[0]), row(c.added[1])],
                    [row(c.removed[0]), row(c.removed[1])],
                ),
                _ => {
                    // Not a chess move (a piece appears or vanishes alone): row by row.
                    out.copy_from_slice(from);
                    for &(piece, sq) in &c.added[..c.adds] {
                        add_row(out, row((piece, sq)));
                    }
                    for &(piece, sq) in &c.removed[..c.subs] {
                        sub_row(out, row((piece, sq)));
                    }
                }
            }
        }
    }

    /// The network's output for `pos` (whose sums these are), from the side to move, in
    /// centipawns.
    pub fn evaluate(&self, net: &Network, pos: &Chess) -> i32 {
        let turn = pos.turn();
        let pieces = pos.board().occupied().count();
        net.output(
            &self.sums[turn as usize],
            &self.sums[turn.other() as usize],
            pieces,
        )
    }
}

#[cfg(test)]
mod tests;
