//! Static evaluation, always from the side to move: material and piece-square tables, each
//! with a middlegame and an endgame value, blended by how much material is left (tapering).

use shakmaty::{Bitboard, Chess, Color, File, Piece, Position, Role, Square, attacks};

/// Centipawn value of each piece type for move ordering and exchange reckoning; the king has
/// none (it is never traded).
pub const fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// Material in the middlegame and the endgame, indexed by `Role as usize - 1`.
const MATERIAL_MG: [i32; 6] = [90, 320, 330, 480, 950, 0];
const MATERIAL_EG: [i32; 6] = [120, 300, 320, 540, 980, 0];

/// Game phase weight of each piece: 24 with all pieces on the board, 0 with none.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;

/// Steps from the centre: 0 on d4/e4/d5/e5, 6 in a corner.
const fn centre_distance(sq: usize) -> i32 {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let df = if file < 4 { 3 - file } else { file - 4 };
    let dr = if rank < 4 { 3 - rank } else { rank - 4 };
    df + dr
}

/// Piece-square bonus for a white piece of `role` on `sq` (a1 = 0); black mirrors the rank.
/// Written as rules rather than numbers: advance pawns, centralise pieces, keep the king
/// sheltered in the middlegame and active in the endgame.
const fn square_bonus(role: usize, sq: usize, endgame: bool) -> i32 {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let centre = centre_distance(sq);
    match (role, endgame) {
        // Pawns: worth more as they advance, more so in the endgame; central pawns matter
        // early.
        (0, false) => {
            let advance = [0, 0, 4, 10, 20, 35, 55, 0][rank as usize];
            let central = if (file == 3 || file == 4) && rank >= 2 && rank <= 4 {
                15
            } else {
                0
            };
            advance + central
        }
        (0, true) => [0, 0, 8, 18, 32, 55, 90, 0][rank as usize],
        // Knights: strongly prefer the centre, dislike the rim.
        (1, _) => 24 - 8 * centre,
        // Bishops: mildly central.
        (2, _) => 12 - 4 * centre,
        // Rooks: the seventh rank early on, otherwise indifferent.
        (3, false) => {
            if rank == 6 {
                20
            } else if file == 3 || file == 4 {
                5
            } else {
                0
            }
        }
        (3, true) => 0,
        // Queens: a little centralisation.
        (4, false) => 6 - 2 * centre,
        (4, true) => 12 - 4 * centre,
        // King in the middlegame: home rank, tucked to a side.
        (5, false) => {
            let home = if rank == 0 { 0 } else { -15 * rank };
            let side = match file {
                1 | 6 => 20,
                0 | 2 | 7 => 10,
                _ => -10,
            };
            home + side
        }
        // King in the endgame: come to the centre.
        _ => 30 - 10 * centre,
    }
}

const fn table(endgame: bool) -> [[i32; 64]; 6] {
    let mut t = [[0; 64]; 6];
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            let material = if endgame {
                MATERIAL_EG[role]
            } else {
                MATERIAL_MG[role]
            };
            t[role][sq] = material + square_bonus(role, sq, endgame);
            sq += 1;
        }
        role += 1;
    }
    t
}

/// Material plus square bonus, per role and square, seen from White.
const PST_MG: [[i32; 64]; 6] = table(false);
const PST_EG: [[i32; 64]; 6] = table(true);

/// A middlegame and an endgame value, blended later by the game phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair {
    pub mg: i32,
    pub eg: i32,
}

const fn pair(mg: i32, eg: i32) -> Pair {
    Pair { mg, eg }
}

impl std::ops::Add for Pair {
    type Output = Pair;
    fn add(self, o: Pair) -> Pair {
        pair(self.mg + o.mg, self.eg + o.eg)
    }
}

impl std::ops::AddAssign for Pair {
    fn add_assign(&mut self, o: Pair) {
        *self = *self + o;
    }
}

impl std::ops::Sub for Pair {
    type Output = Pair;
    fn sub(self, o: Pair) -> Pair {
        pair(self.mg - o.mg, self.eg - o.eg)
    }
}

impl std::ops::Mul<i32> for Pair {
    type Output = Pair;
    fn mul(self, k: i32) -> Pair {
        pair(self.mg * k, self.eg * k)
    }
}

/// Evaluation weights beyond material and squares (centipawns, middlegame / endgame).
const BISHOP_PAIR: Pair = pair(30, 50);
/// Per square a piece attacks that is neither ours nor guarded by an enemy pawn, counted
/// from a typical number so that an average piece scores about zero.
const MOBILITY_KNIGHT: Pair = pair(4, 4);
const MOBILITY_BISHOP: Pair = pair(5, 5);
const MOBILITY_ROOK: Pair = pair(2, 4);
const MOBILITY_QUEEN: Pair = pair(1, 2);
const MOBILITY_BASE: [i32; 4] = [4, 6, 7, 13];
const ROOK_OPEN_FILE: Pair = pair(25, 10);
const ROOK_HALF_OPEN_FILE: Pair = pair(12, 6);
const DOUBLED_PAWN: Pair = pair(-10, -20);
const ISOLATED_PAWN: Pair = pair(-10, -12);
/// A passed pawn by its rank counted from its own side (index 1 = second rank).
const PASSED_PAWN: [Pair; 8] = [
    pair(0, 0),
    pair(2, 8),
    pair(5, 12),
    pair(10, 22),
    pair(20, 40),
    pair(35, 70),
    pair(55, 110),
    pair(0, 0),
];
/// Own pawns on the three files around a castled king, one or two ranks ahead of it.
const KING_SHIELD_PAWN: Pair = pair(12, 0);

/// The terms behind a score, for `eval` on the command line; every pair is White minus Black.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    pub material_and_squares: Pair,
    pub mobility: Pair,
    pub pawns: Pair,
    pub pieces: Pair,
    pub king: Pair,
    pub phase: i32,
    /// The blended score from White's point of view.
    pub white: i32,
}

impl Breakdown {
    /// All terms added up, before tapering.
    pub fn total(&self) -> Pair {
        self.material_and_squares + self.mobility + self.pawns + self.pieces + self.king
    }
}

fn pieces(board: &shakmaty::Board, role: Role, color: Color) -> Bitboard {
    board.by_role(role) & board.by_color(color)
}

/// Squares attacked by the pawns of `color`.
fn pawn_attack_span(board: &shakmaty::Board, color: Color) -> Bitboard {
    let mut attacked = Bitboard::EMPTY;
    for sq in pieces(board, Role::Pawn, color) {
        attacked |= attacks::pawn_attacks(color, sq);
    }
    attacked
}

/// The files next to `file` (one or two of them).
fn adjacent_files(file: File) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    if let Some(f) = file.offset(-1) {
        b |= Bitboard::from_file(f);
    }
    if let Some(f) = file.offset(1) {
        b |= Bitboard::from_file(f);
    }
    b
}

/// Squares in front of `sq` from `color`'s side, on its file and the neighbouring ones.
fn front_span(sq: Square, color: Color) -> Bitboard {
    let files = Bitboard::from_file(sq.file()) | adjacent_files(sq.file());
    let rank = sq.rank() as u32;
    let ahead = match color {
        Color::White => Bitboard(!0u64 << 8).shift((rank as i32) * 8),
        Color::Black => Bitboard(!0u64 >> 8).shift(-(((7 - rank) as i32) * 8)),
    };
    files & ahead
}

fn mobility(board: &shakmaty::Board, color: Color) -> Pair {
    let occupied = board.occupied();
    let targets = !board.by_color(color) & !pawn_attack_span(board, !color);
    let mut total = Pair::default();
    let kinds = [
        (Role::Knight, MOBILITY_KNIGHT, MOBILITY_BASE[0]),
        (Role::Bishop, MOBILITY_BISHOP, MOBILITY_BASE[1]),
        (Role::Rook, MOBILITY_ROOK, MOBILITY_BASE[2]),
        (Role::Queen, MOBILITY_QUEEN, MOBILITY_BASE[3]),
    ];
    for (role, weight, base) in kinds {
        for sq in pieces(board, role, color) {
            let reach = attacks::attacks(sq, Piece { color, role }, occupied) & targets;
            total += weight * (reach.count() as i32 - base);
        }
    }
    total
}

fn pawn_structure(board: &shakmaty::Board, color: Color) -> Pair {
    let ours = pieces(board, Role::Pawn, color);
    let theirs = pieces(board, Role::Pawn, !color);
    let mut total = Pair::default();
    for file in File::ALL {
        let on_file = (ours & Bitboard::from_file(file)).count() as i32;
        if on_file > 1 {
            total += DOUBLED_PAWN * (on_file - 1);
        }
        if on_file > 0 && (ours & adjacent_files(file)).is_empty() {
            total += ISOLATED_PAWN * on_file;
        }
    }
    for sq in ours {
        if (front_span(sq, color) & theirs).is_empty() {
            let rank = match color {
                Color::White => sq.rank() as usize,
                Color::Black => 7 - sq.rank() as usize,
            };
            total += PASSED_PAWN[rank];
        }
    }
    total
}

fn piece_terms(board: &shakmaty::Board, color: Color) -> Pair {
    let mut total = Pair::default();
    if pieces(board, Role::Bishop, color).more_than_one() {
        total += BISHOP_PAIR;
    }
    let our_pawns = pieces(board, Role::Pawn, color);
    let all_pawns = board.pawns();
    for sq in pieces(board, Role::Rook, color) {
        let file = Bitboard::from_file(sq.file());
        if (file & all_pawns).is_empty() {
            total += ROOK_OPEN_FILE;
        } else if (file & our_pawns).is_empty() {
            total += ROOK_HALF_OPEN_FILE;
        }
    }
    total
}

fn king_shelter(board: &shakmaty::Board, color: Color) -> Pair {
    let Some(king) = pieces(board, Role::King, color).first() else {
        return Pair::default();
    };
    let home = match color {
        Color::White => king.rank() as u32 <= 1,
        Color::Black => king.rank() as u32 >= 6,
    };
    if !home {
        return Pair::default();
    }
    let shield = front_span(king, color)
        & (attacks::king_attacks(king)
            | attacks::king_attacks(king).shift(if color == Color::White { 8 } else { -8 }));
    KING_SHIELD_PAWN * (shield & pieces(board, Role::Pawn, color)).count() as i32
}

pub fn breakdown(pos: &Chess) -> Breakdown {
    let board = pos.board();
    let mut psq = Pair::default();
    let mut phase = 0;
    for role in Role::ALL {
        let r = role as usize - 1;
        for sq in pieces(board, role, Color::White) {
            psq += pair(PST_MG[r][sq as usize], PST_EG[r][sq as usize]);
            phase += PHASE_WEIGHT[r];
        }
        for sq in pieces(board, role, Color::Black) {
            let m = sq.flip_vertical() as usize;
            psq = psq - pair(PST_MG[r][m], PST_EG[r][m]);
            phase += PHASE_WEIGHT[r];
        }
    }
    let both =
        |f: fn(&shakmaty::Board, Color) -> Pair| f(board, Color::White) - f(board, Color::Black);
    let mut b = Breakdown {
        material_and_squares: psq,
        mobility: both(mobility),
        pawns: both(pawn_structure),
        pieces: both(piece_terms),
        king: both(king_shelter),
        phase: phase.min(MAX_PHASE),
        white: 0,
    };
    let sum = b.total();
    b.white = (sum.mg * b.phase + sum.eg * (MAX_PHASE - b.phase)) / MAX_PHASE;
    b
}

/// The score for the side to move: positive when it stands better.
pub fn evaluate(pos: &Chess) -> i32 {
    let w = breakdown(pos).white;
    match pos.turn() {
        Color::White => w,
        Color::Black => -w,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, FromSetup, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// The same position with colours swapped and the board mirrored top to bottom.
    fn colour_flip(fen: &str) -> Chess {
        let p = pos(fen);
        let mut setup = p.to_setup(shakmaty::EnPassantMode::Legal);
        setup.mirror();
        Chess::from_setup(setup, CastlingMode::Standard).unwrap()
    }

    #[test]
    fn start_position_is_level() {
        assert_eq!(evaluate(&Chess::default()), 0);
    }

    #[test]
    fn score_is_from_the_side_to_move() {
        let w = evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 w - - 0 1"));
        let b = evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 b - - 0 1"));
        assert!(w > 250);
        assert_eq!(w, -b);
    }

    #[test]
    fn colour_flipped_positions_score_the_same_for_the_side_to_move() {
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
        ] {
            assert_eq!(evaluate(&pos(fen)), evaluate(&colour_flip(fen)), "{fen}");
        }
    }

    #[test]
    fn tapering_uses_the_middlegame_score_at_full_material_and_the_endgame_one_without_pieces() {
        let full = breakdown(&pos(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        ));
        assert_eq!(full.phase, MAX_PHASE);
        assert_eq!(full.white, full.total().mg);
        let pawns = breakdown(&pos("4k3/pp6/8/8/8/8/5PPP/4K3 w - - 0 1"));
        assert_eq!(pawns.phase, 0);
        assert_eq!(pawns.white, pawns.total().eg);
    }

    #[test]
    fn square_rules_prefer_central_knights_and_advanced_pawns() {
        let centre = evaluate(&pos("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1"));
        let corner = evaluate(&pos("4k3/8/8/8/8/8/8/N3K3 w - - 0 1"));
        assert!(centre > corner);
        let far = evaluate(&pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"));
        let near = evaluate(&pos("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1"));
        assert!(far > near);
    }

    #[test]
    fn structure_terms_score_as_they_should() {
        // The bishop pair is worth more than bishop and knight on the same squares.
        let two_bishops = breakdown(&pos("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1")).pieces;
        let single = breakdown(&pos("4k3/8/8/8/8/8/8/2N1KB2 w - - 0 1")).pieces;
        assert_eq!(two_bishops - single, BISHOP_PAIR);
        // A passed pawn on the sixth; the same pawn blocked by an enemy pawn ahead is not.
        let passed = breakdown(&pos("4k3/8/1P6/8/8/8/8/4K3 w - - 0 1")).pawns;
        assert_eq!(passed, PASSED_PAWN[5] + ISOLATED_PAWN);
        let black_passed = breakdown(&pos("4k3/8/8/8/8/1p6/8/4K3 w - - 0 1")).pawns;
        assert_eq!(black_passed, pair(0, 0) - PASSED_PAWN[5] - ISOLATED_PAWN);
        // Doubled and isolated: two pawns on one file with no neighbours.
        let doubled = breakdown(&pos("4k3/p7/p7/8/8/8/8/4K3 w - - 0 1")).pawns;
        assert_eq!(
            doubled,
            pair(0, 0) - DOUBLED_PAWN - ISOLATED_PAWN * 2 - PASSED_PAWN[1] - PASSED_PAWN[2]
        );
        // A rook on an open file, and one on a file with only enemy pawns.
        let open = breakdown(&pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")).pieces;
        assert_eq!(open, ROOK_OPEN_FILE);
        let half = breakdown(&pos("4k3/p7/8/8/8/8/8/R3K3 w - - 0 1")).pieces;
        assert_eq!(half, ROOK_HALF_OPEN_FILE);
        // Three pawns in front of a castled king.
        let shield = breakdown(&pos("6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1")).king;
        assert_eq!(shield, KING_SHIELD_PAWN * 3);
    }
}
