//! The pieces a move takes off squares and puts on them, read from the move or found by
//! comparing two boards: what the NNUE's accumulators (`eval::accumulator`) and the Zobrist
//! key's update (`basics::position::child_zobrist`) change.

use shakmaty::{Board, CastlingSide, Color, Move, Piece, Role, Square};

/// The pieces a move took off and put on squares (at most two of each in chess: castling
/// moves two pieces, a capture or en passant takes two off and puts one on). The search keeps
/// one per ply and applies it only when that ply's sums are needed (`Accumulator::apply`).
#[derive(Clone, Copy)]
pub struct Changes {
    pub(crate) added: [(Piece, Square); 2],
    pub(crate) removed: [(Piece, Square); 2],
    pub(crate) adds: usize,
    pub(crate) subs: usize,
}

impl Changes {
    /// No piece moved: a null move.
    pub const NONE: Changes = Changes {
        added: [(DUMMY, Square::A1); 2],
        removed: [(DUMMY, Square::A1); 2],
        adds: 0,
        subs: 0,
    };

    /// The pieces that differ between `before` and `after`; more than two of a kind (boards
    /// not a move apart) count up past 2, and the caller refreshes instead
    /// (`needs_refresh`).
    pub fn between(before: &Board, after: &Board) -> Changes {
        let mut c = Changes::NONE;
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                let (was, now) = (before.by_piece(piece), after.by_piece(piece));
                if was == now {
                    continue;
                }
                for sq in was & !now {
                    if let Some(slot) = c.removed.get_mut(c.subs) {
                        *slot = (piece, sq);
                    }
                    c.subs += 1;
                }
                for sq in now & !was {
                    if let Some(slot) = c.added.get_mut(c.adds) {
                        *slot = (piece, sq);
                    }
                    c.adds += 1;
                }
            }
        }
        c
    }

    /// The pieces `m`, played by `mover`, takes off and puts on, read from the move alone
    /// (the search's way: no boards compared). A Chess960 castling whose king or rook stays
    /// where it is takes that piece off and puts it back, which changes no sum.
    pub fn of_move(mover: Color, m: Move) -> Changes {
        let ours = |role| Piece { color: mover, role };
        let theirs = |role| Piece {
            color: mover.other(),
            role,
        };
        let mut c = Changes::NONE;
        let add = |c: &mut Changes, piece, sq| {
            c.added[c.adds] = (piece, sq);
            c.adds += 1;
        };
        let remove = |c: &mut Changes, piece, sq| {
            c.removed[c.subs] = (piece, sq);
            c.subs += 1;
        };
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                remove(&mut c, ours(role), from);
                if let Some(victim) = capture {
                    remove(&mut c, theirs(victim), to);
                }
                add(&mut c, ours(promotion.unwrap_or(role)), to);
            }
            Move::EnPassant { from, to } => {
                remove(&mut c, ours(Role::Pawn), from);
                remove(
                    &mut c,
                    theirs(Role::Pawn),
                    Square::from_coords(to.file(), from.rank()),
                );
                add(&mut c, ours(Role::Pawn), to);
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(rook > king);
                remove(&mut c, ours(Role::King), king);
                remove(&mut c, ours(Role::Rook), rook);
                add(&mut c, ours(Role::King), side.king_to(mover));
                add(&mut c, ours(Role::Rook), side.rook_to(mover));
            }
            Move::Put { role, to } => add(&mut c, ours(role), to),
        }
        c
    }

    /// More pieces changed than `Accumulator::apply` takes: the boards are not a move apart.
    pub fn needs_refresh(&self) -> bool {
        self.adds > 2 || self.subs > 2
    }

    /// The pieces put on squares (all of them unless `needs_refresh`).
    pub fn added(&self) -> &[(Piece, Square)] {
        &self.added[..self.adds.min(2)]
    }

    /// The pieces taken off squares (all of them unless `needs_refresh`).
    pub fn removed(&self) -> &[(Piece, Square)] {
        &self.removed[..self.subs.min(2)]
    }
}

const DUMMY: Piece = Piece {
    color: Color::White,
    role: Role::Pawn,
};
