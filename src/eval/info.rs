//! What each side attacks, gathered in one pass per evaluation so the terms read it instead
//! of recomputing slider and pawn attacks, and the board geometry the terms share.

use shakmaty::{Bitboard, Board, Chess, Color, File, Position, Role, Square, attacks};

pub fn pieces(board: &Board, role: Role, color: Color) -> Bitboard {
    board.by_role(role) & board.by_color(color)
}

/// +1 for White, -1 for Black: feature counts are White minus Black.
pub fn sign(color: Color) -> i32 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// Rank of `sq` as `color` sees it: 0 on its own back rank.
pub fn relative_rank(sq: Square, color: Color) -> usize {
    match color {
        Color::White => sq.rank() as usize,
        Color::Black => 7 - sq.rank() as usize,
    }
}

/// One step toward the enemy for `color`, as a bitboard shift.
pub fn forward(color: Color) -> i32 {
    match color {
        Color::White => 8,
        Color::Black => -8,
    }
}

/// Squares attacked by the pawns of `color`.
pub fn pawn_attacks(board: &Board, color: Color) -> Bitboard {
    let pawns = pieces(board, Role::Pawn, color);
    let not_a = pawns & !Bitboard::from_file(File::A);
    let not_h = pawns & !Bitboard::from_file(File::H);
    match color {
        Color::White => not_a.shift(7) | not_h.shift(9),
        Color::Black => not_a.shift(-9) | not_h.shift(-7),
    }
}

/// The files next to `file` (one or two of them).
pub fn adjacent_files(file: File) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    if let Some(f) = file.offset(-1) {
        b |= Bitboard::from_file(f);
    }
    if let Some(f) = file.offset(1) {
        b |= Bitboard::from_file(f);
    }
    b
}

/// Ranks strictly ahead of `sq` from `color`'s side.
pub fn ranks_ahead(sq: Square, color: Color) -> Bitboard {
    let rank = sq.rank() as i32;
    match color {
        Color::White => Bitboard(!0u64 << 8).shift(rank * 8),
        Color::Black => Bitboard(!0u64 >> 8).shift(-(7 - rank) * 8),
    }
}

/// Squares in front of `sq` from `color`'s side, on its file and the neighbouring ones.
pub fn front_span(sq: Square, color: Color) -> Bitboard {
    let files = Bitboard::from_file(sq.file()) | adjacent_files(sq.file());
    files & ranks_ahead(sq, color)
}

/// The knights, bishops, rooks and queens, in that order, as the mobility and king-attack
/// weights index them.
pub const PIECE_ROLES: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// One piece's reach: its index in `PIECE_ROLES` and the squares it attacks.
#[derive(Clone, Copy, Default)]
pub struct Reach {
    pub kind: usize,
    pub attacks: Bitboard,
}

/// What one side attacks. A side has at most 15 pieces besides its king.
#[derive(Clone, Copy, Default)]
pub struct SideInfo {
    pub pawns: Bitboard,
    pub minors: Bitboard,
    pub rooks: Bitboard,
    pub all: Bitboard,
    pub king: Option<Square>,
    reaches: [Reach; 16],
    len: usize,
}

impl SideInfo {
    /// Each knight, bishop, rook and queen with its attacks: knights first, then bishops,
    /// rooks and queens, each by square.
    pub fn reaches(&self) -> &[Reach] {
        &self.reaches[..self.len]
    }
}

/// The position as the terms read it.
pub struct Info<'a> {
    pub board: &'a Board,
    pub turn: Color,
    /// Indexed by `Color as usize`.
    sides: [SideInfo; 2],
}

impl<'a> Info<'a> {
    #[inline(always)]
    pub fn new(pos: &'a Chess) -> Info<'a> {
        Info::of_board(pos.board(), pos.turn())
    }

    // Inlined so the struct is filled where the caller keeps it, not copied out.
    #[inline(always)]
    pub fn of_board(board: &'a Board, turn: Color) -> Info<'a> {
        let occupied = board.occupied();
        let mut info = Info {
            board,
            turn,
            sides: [SideInfo::default(); 2],
        };
        for color in Color::ALL {
            let s = &mut info.sides[color as usize];
            s.pawns = pawn_attacks(board, color);
            s.all = s.pawns;
            for (kind, role) in PIECE_ROLES.into_iter().enumerate() {
                for sq in pieces(board, role, color) {
                    let reach = match role {
                        Role::Knight => attacks::knight_attacks(sq),
                        Role::Bishop => attacks::bishop_attacks(sq, occupied),
                        Role::Rook => attacks::rook_attacks(sq, occupied),
                        _ => attacks::queen_attacks(sq, occupied),
                    };
                    match role {
                        Role::Knight | Role::Bishop => s.minors |= reach,
                        Role::Rook => s.rooks |= reach,
                        _ => {}
                    }
                    s.all |= reach;
                    if s.len < s.reaches.len() {
                        s.reaches[s.len] = Reach {
                            kind,
                            attacks: reach,
                        };
                        s.len += 1;
                    }
                }
            }
            s.king = pieces(board, Role::King, color).first();
            if let Some(king) = s.king {
                s.all |= attacks::king_attacks(king);
            }
        }
        info
    }

    pub fn side(&self, color: Color) -> &SideInfo {
        &self.sides[color as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>()
            .unwrap()
            .into_position::<Chess>(CastlingMode::Standard)
            .unwrap()
            .board()
            .clone()
    }

    #[test]
    fn pawn_attacks_by_shifts_equal_the_per_square_attacks() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "4k3/p6p/1p4P1/P6p/7P/2p5/1P4pP/4K3 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ] {
            let b = board(fen);
            for color in Color::ALL {
                let mut slow = Bitboard::EMPTY;
                for sq in pieces(&b, Role::Pawn, color) {
                    slow |= attacks::pawn_attacks(color, sq);
                }
                assert_eq!(pawn_attacks(&b, color), slow, "{fen} {color:?}");
            }
        }
    }

    #[test]
    fn one_pass_gathers_each_piece_and_every_attack() {
        let b = board("4k3/8/8/3n4/8/8/1B6/R3K2Q w - - 0 1");
        let info = Info::of_board(&b, Color::White);
        let white = info.side(Color::White);
        let kinds: Vec<usize> = white.reaches().iter().map(|r| r.kind).collect();
        assert_eq!(kinds, vec![1, 2, 3]);
        let black = info.side(Color::Black);
        assert_eq!(black.reaches().len(), 1);
        assert_eq!(black.minors, attacks::knight_attacks(Square::D5));
        assert_eq!(black.king, Some(Square::E8));
        assert!(white.all.contains(Square::D5) && white.all.contains(Square::F2));
    }
}
