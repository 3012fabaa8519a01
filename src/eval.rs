//! Static evaluation, always from the side to move. Every term has a middlegame and an
//! endgame value, blended by how much material is left (tapering). The piece-square bonuses
//! are fixed rules; material and every other term are weights in `eval_params.rs`, which
//! `ferrum tune` fits to game results, so the same code serves search and tuning.

use shakmaty::{Bitboard, Board, Chess, Color, File, Piece, Position, Role, Square, attacks};

use crate::eval_params::PARAMS;

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
            t[role][sq] = square_bonus(role, sq, endgame);
            sq += 1;
        }
        role += 1;
    }
    t
}

/// Square bonus per role and square, seen from White.
const PST_MG: [[i32; 64]; 6] = table(false);
const PST_EG: [[i32; 64]; 6] = table(true);

/// A middlegame and an endgame value, blended later by the game phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair {
    pub mg: i32,
    pub eg: i32,
}

pub const fn pair(mg: i32, eg: i32) -> Pair {
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

/// Where each weight lives in `PARAMS`: every weight is a middlegame/endgame pair, stored at
/// `index` (middlegame) and `index + 1` (endgame).
pub mod param {
    /// Material of pawn, knight, bishop, rook, queen.
    pub const MATERIAL: usize = 0;
    pub const BISHOP_PAIR: usize = 10;
    /// Mobility of knight, bishop, rook, queen, per safe square beyond a typical count.
    pub const MOBILITY: usize = 12;
    pub const ROOK_OPEN_FILE: usize = 20;
    pub const ROOK_HALF_OPEN_FILE: usize = 22;
    pub const DOUBLED_PAWN: usize = 24;
    pub const ISOLATED_PAWN: usize = 26;
    /// Passed pawn on its second to seventh rank (six pairs).
    pub const PASSED_PAWN: usize = 28;
    /// Own pawn on the three files around a king on its first two ranks, one or two ahead.
    pub const KING_SHIELD_PAWN: usize = 40;
    pub const COUNT: usize = 42;
    /// Names for the tuner's output, one per pair.
    pub const NAMES: [&str; COUNT / 2] = [
        "pawn",
        "knight",
        "bishop",
        "rook",
        "queen",
        "bishop pair",
        "knight mobility",
        "bishop mobility",
        "rook mobility",
        "queen mobility",
        "rook on open file",
        "rook on half-open file",
        "doubled pawn",
        "isolated pawn",
        "passed pawn rank 2",
        "passed pawn rank 3",
        "passed pawn rank 4",
        "passed pawn rank 5",
        "passed pawn rank 6",
        "passed pawn rank 7",
        "king shield pawn",
    ];
}

/// Safe squares a piece is expected to reach, subtracted before mobility is weighted.
const MOBILITY_BASE: [i32; 4] = [4, 6, 7, 13];

/// The weight pair at `index` of the current parameters.
pub fn weight(index: usize) -> Pair {
    pair(PARAMS[index], PARAMS[index + 1])
}

/// Receives the evaluation's features: "add `count` times the weight pair at `index`",
/// counts positive for White and negative for Black. Search sums the weights; the tuner
/// keeps the counts.
pub trait Features {
    fn add(&mut self, index: usize, count: i32);
}

/// Sums weights as features arrive.
struct Sum {
    total: Pair,
}

impl Features for Sum {
    fn add(&mut self, index: usize, count: i32) {
        self.total += weight(index) * count;
    }
}

/// Every feature with its count (White minus Black), for tuning.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub counts: Vec<(usize, i32)>,
}

impl Features for Trace {
    fn add(&mut self, index: usize, count: i32) {
        if count != 0 {
            self.counts.push((index, count));
        }
    }
}

/// The terms behind a score, for `eval` on the command line; every pair is White minus Black.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    pub squares: Pair,
    pub material: Pair,
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
        self.squares + self.material + self.mobility + self.pawns + self.pieces + self.king
    }
}

fn pieces(board: &Board, role: Role, color: Color) -> Bitboard {
    board.by_role(role) & board.by_color(color)
}

fn sign(color: Color) -> i32 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// Squares attacked by the pawns of `color`.
fn pawn_attack_span(board: &Board, color: Color) -> Bitboard {
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
    let rank = sq.rank() as i32;
    let ahead = match color {
        Color::White => Bitboard(!0u64 << 8).shift(rank * 8),
        Color::Black => Bitboard(!0u64 >> 8).shift(-(7 - rank) * 8),
    };
    files & ahead
}

/// Phase (24 = all pieces, 0 = none) and the fixed square bonuses, White minus Black.
fn squares_and_phase(board: &Board) -> (Pair, i32) {
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
    (psq, phase.min(MAX_PHASE))
}

fn material(board: &Board, f: &mut impl Features) {
    for (i, role) in [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ]
    .into_iter()
    .enumerate()
    {
        let diff = pieces(board, role, Color::White).count() as i32
            - pieces(board, role, Color::Black).count() as i32;
        f.add(param::MATERIAL + 2 * i, diff);
    }
}

fn mobility(board: &Board, color: Color, f: &mut impl Features) {
    let occupied = board.occupied();
    let targets = !board.by_color(color) & !pawn_attack_span(board, !color);
    for (i, role) in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .into_iter()
        .enumerate()
    {
        for sq in pieces(board, role, color) {
            let reach = attacks::attacks(sq, Piece { color, role }, occupied) & targets;
            f.add(
                param::MOBILITY + 2 * i,
                sign(color) * (reach.count() as i32 - MOBILITY_BASE[i]),
            );
        }
    }
}

fn pawn_structure(board: &Board, color: Color, f: &mut impl Features) {
    let ours = pieces(board, Role::Pawn, color);
    let theirs = pieces(board, Role::Pawn, !color);
    for file in File::ALL {
        let on_file = (ours & Bitboard::from_file(file)).count() as i32;
        if on_file > 1 {
            f.add(param::DOUBLED_PAWN, sign(color) * (on_file - 1));
        }
        if on_file > 0 && (ours & adjacent_files(file)).is_empty() {
            f.add(param::ISOLATED_PAWN, sign(color) * on_file);
        }
    }
    for sq in ours {
        if (front_span(sq, color) & theirs).is_empty() {
            let rank = match color {
                Color::White => sq.rank() as usize,
                Color::Black => 7 - sq.rank() as usize,
            };
            // Pawns stand on ranks 2 to 7 (index 1 to 6).
            if (1..=6).contains(&rank) {
                f.add(param::PASSED_PAWN + 2 * (rank - 1), sign(color));
            }
        }
    }
}

fn piece_terms(board: &Board, color: Color, f: &mut impl Features) {
    if pieces(board, Role::Bishop, color).more_than_one() {
        f.add(param::BISHOP_PAIR, sign(color));
    }
    let our_pawns = pieces(board, Role::Pawn, color);
    let all_pawns = board.pawns();
    for sq in pieces(board, Role::Rook, color) {
        let file = Bitboard::from_file(sq.file());
        if (file & all_pawns).is_empty() {
            f.add(param::ROOK_OPEN_FILE, sign(color));
        } else if (file & our_pawns).is_empty() {
            f.add(param::ROOK_HALF_OPEN_FILE, sign(color));
        }
    }
}

fn king_shelter(board: &Board, color: Color, f: &mut impl Features) {
    let Some(king) = pieces(board, Role::King, color).first() else {
        return;
    };
    let home = match color {
        Color::White => king.rank() as u32 <= 1,
        Color::Black => king.rank() as u32 >= 6,
    };
    if !home {
        return;
    }
    let step = if color == Color::White { 8 } else { -8 };
    let near = attacks::king_attacks(king);
    let shield = front_span(king, color) & (near | near.shift(step));
    let count = (shield & pieces(board, Role::Pawn, color)).count() as i32;
    f.add(param::KING_SHIELD_PAWN, sign(color) * count);
}

/// Every weighted feature of the position (White minus Black).
pub fn features(board: &Board, f: &mut impl Features) {
    material(board, f);
    for color in Color::ALL {
        mobility(board, color, f);
        pawn_structure(board, color, f);
        piece_terms(board, color, f);
        king_shelter(board, color, f);
    }
}

/// The tapered blend of a middlegame/endgame pair at `phase`.
pub fn taper(p: Pair, phase: i32) -> i32 {
    (p.mg * phase + p.eg * (MAX_PHASE - phase)) / MAX_PHASE
}

pub fn breakdown(pos: &Chess) -> Breakdown {
    let board = pos.board();
    let (squares, phase) = squares_and_phase(board);
    let group = |term: &dyn Fn(&mut Sum)| {
        let mut s = Sum {
            total: Pair::default(),
        };
        term(&mut s);
        s.total
    };
    let mut b = Breakdown {
        squares,
        material: group(&|s| material(board, s)),
        mobility: group(&|s| Color::ALL.iter().for_each(|&c| mobility(board, c, s))),
        pawns: group(&|s| Color::ALL.iter().for_each(|&c| pawn_structure(board, c, s))),
        pieces: group(&|s| Color::ALL.iter().for_each(|&c| piece_terms(board, c, s))),
        king: group(&|s| Color::ALL.iter().for_each(|&c| king_shelter(board, c, s))),
        phase,
        white: 0,
    };
    b.white = taper(b.total(), phase);
    b
}

/// The score for the side to move: positive when it stands better.
pub fn evaluate(pos: &Chess) -> i32 {
    let board = pos.board();
    let (squares, phase) = squares_and_phase(board);
    let mut sum = Sum { total: squares };
    features(board, &mut sum);
    let white = taper(sum.total, phase);
    match pos.turn() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// What the tuner needs of a position: the fixed part of the score (White's view, already
/// tapered), the phase, and the feature counts.
pub fn trace(pos: &Chess) -> (i32, i32, Trace) {
    let board = pos.board();
    let (squares, phase) = squares_and_phase(board);
    let mut t = Trace::default();
    features(board, &mut t);
    (taper(squares, phase), phase, t)
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
        assert_eq!(two_bishops - single, weight(param::BISHOP_PAIR));
        // A passed pawn on the sixth; the same pawn blocked by an enemy pawn ahead is not.
        let passed = breakdown(&pos("4k3/8/1P6/8/8/8/8/4K3 w - - 0 1")).pawns;
        let passed6 = weight(param::PASSED_PAWN + 2 * 4);
        let isolated = weight(param::ISOLATED_PAWN);
        assert_eq!(passed, passed6 + isolated);
        let black_passed = breakdown(&pos("4k3/8/8/8/8/1p6/8/4K3 w - - 0 1")).pawns;
        assert_eq!(black_passed, pair(0, 0) - passed6 - isolated);
        // Doubled and isolated: two pawns on one file with no neighbours.
        let doubled = breakdown(&pos("4k3/p7/p7/8/8/8/8/4K3 w - - 0 1")).pawns;
        let passed = |rank: usize| weight(param::PASSED_PAWN + 2 * (rank - 2));
        assert_eq!(
            doubled,
            pair(0, 0) - weight(param::DOUBLED_PAWN) - isolated * 2 - passed(2) - passed(3)
        );
        // A rook on an open file, and one on a file with only enemy pawns.
        let open = breakdown(&pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")).pieces;
        assert_eq!(open, weight(param::ROOK_OPEN_FILE));
        let half = breakdown(&pos("4k3/p7/8/8/8/8/8/R3K3 w - - 0 1")).pieces;
        assert_eq!(half, weight(param::ROOK_HALF_OPEN_FILE));
        // Three pawns in front of a castled king.
        let shield = breakdown(&pos("6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1")).king;
        assert_eq!(shield, weight(param::KING_SHIELD_PAWN) * 3);
    }

    #[test]
    fn the_trace_rebuilds_the_evaluation_exactly() {
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "4k3/p7/p7/8/8/8/5PPP/R5K1 w - - 0 1",
        ] {
            let p = pos(fen);
            let (fixed, phase, t) = trace(&p);
            let mut sum = Pair::default();
            for (i, c) in t.counts {
                sum += weight(i) * c;
            }
            // Tapering is linear up to rounding: the fixed and weighted parts may each round.
            let rebuilt = fixed + taper(sum, phase);
            assert!((rebuilt - breakdown(&p).white).abs() <= 1, "{fen}");
        }
    }
}
