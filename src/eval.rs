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
/// Endgame scale factors are out of this: full value.
pub const FULL_SCALE: i32 = 64;

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

impl std::ops::Neg for Pair {
    type Output = Pair;
    fn neg(self) -> Pair {
        pair(-self.mg, -self.eg)
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
    /// Square tables: for each role (pawn to king) and square seen from White (a1 first),
    /// one pair.
    pub const PST: usize = MATERIAL + 10;
    pub const BISHOP_PAIR: usize = PST + 6 * 64 * 2;
    /// Mobility of knight, bishop, rook, queen, per safe square beyond a typical count.
    pub const MOBILITY: usize = BISHOP_PAIR + 2;
    pub const ROOK_OPEN_FILE: usize = MOBILITY + 8;
    pub const ROOK_HALF_OPEN_FILE: usize = ROOK_OPEN_FILE + 2;
    pub const DOUBLED_PAWN: usize = ROOK_HALF_OPEN_FILE + 2;
    pub const ISOLATED_PAWN: usize = DOUBLED_PAWN + 2;
    /// A pawn no neighbour can support whose advance square an enemy pawn guards.
    pub const BACKWARD_PAWN: usize = ISOLATED_PAWN + 2;
    /// A pawn guarded by a pawn or with a pawn beside it.
    pub const CONNECTED_PAWN: usize = BACKWARD_PAWN + 2;
    /// Passed pawn on its second to seventh rank (six pairs).
    pub const PASSED_PAWN: usize = CONNECTED_PAWN + 2;
    /// Passed pawn with a piece on the square in front.
    pub const PASSED_BLOCKED: usize = PASSED_PAWN + 12;
    /// Per rank of advance: the enemy king's distance to the square in front of a passed
    /// pawn less our king's.
    pub const PASSED_KING_DISTANCE: usize = PASSED_BLOCKED + 2;
    /// Own pawn on the three files around a king on its first two ranks, one or two ahead.
    pub const KING_SHIELD_PAWN: usize = PASSED_KING_DISTANCE + 2;
    /// Squares next to the enemy king attacked by a knight, bishop, rook, queen, counted when
    /// at least two pieces take part.
    pub const KING_ZONE_ATTACK: usize = KING_SHIELD_PAWN + 2;
    /// Enemy pieces (not pawns) attacked by our pawns.
    pub const THREAT_BY_PAWN: usize = KING_ZONE_ATTACK + 8;
    /// Enemy rooks and queens attacked by our knights and bishops.
    pub const THREAT_BY_MINOR: usize = THREAT_BY_PAWN + 2;
    /// Enemy queens attacked by our rooks.
    pub const THREAT_BY_ROOK: usize = THREAT_BY_MINOR + 2;
    /// Enemy pieces (not pawns, not the king) we attack that nothing defends.
    pub const HANGING: usize = THREAT_BY_ROOK + 2;
    /// The side to move.
    pub const TEMPO: usize = HANGING + 2;
    /// The square of the attack units on the enemy king zone (a knight or bishop square 2,
    /// a rook square 3, a queen square 5) over 16, with at least two attackers: danger grows
    /// faster than the attack.
    pub const KING_DANGER: usize = TEMPO + 2;
    /// Squares from which a piece of ours could check the enemy king, that it reaches and
    /// the enemy does not guard.
    pub const SAFE_CHECK: usize = KING_DANGER + 2;
    pub const COUNT: usize = SAFE_CHECK + 2;

    const ROLES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];
    /// Names of the single pairs after the square tables, in order.
    const TERMS: [&str; (COUNT - BISHOP_PAIR) / 2] = [
        "bishop pair",
        "knight mobility",
        "bishop mobility",
        "rook mobility",
        "queen mobility",
        "rook on open file",
        "rook on half-open file",
        "doubled pawn",
        "isolated pawn",
        "backward pawn",
        "connected pawn",
        "passed pawn rank 2",
        "passed pawn rank 3",
        "passed pawn rank 4",
        "passed pawn rank 5",
        "passed pawn rank 6",
        "passed pawn rank 7",
        "blocked passed pawn",
        "passed pawn king distance",
        "king shield pawn",
        "knight on king zone",
        "bishop on king zone",
        "rook on king zone",
        "queen on king zone",
        "pawn attacks piece",
        "minor attacks major",
        "rook attacks queen",
        "hanging piece",
        "tempo",
        "king danger",
        "safe check",
    ];

    /// How `eval_params.rs` is laid out: (first index, pairs on the line, comment). Square
    /// tables go a rank to a line.
    pub fn rows() -> Vec<(usize, usize, String)> {
        let mut rows = Vec::new();
        for (i, role) in ROLES.iter().take(5).enumerate() {
            rows.push((MATERIAL + 2 * i, 1, (*role).to_string()));
        }
        for (r, role) in ROLES.iter().enumerate() {
            for rank in 0..8 {
                let index = PST + 2 * (64 * r + 8 * rank);
                rows.push((index, 8, format!("{role} rank {}", rank + 1)));
            }
        }
        for (i, name) in TERMS.iter().enumerate() {
            rows.push((BISHOP_PAIR + 2 * i, 1, (*name).to_string()));
        }
        rows
    }
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
#[derive(Default)]
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

fn pieces(board: &Board, role: Role, color: Color) -> Bitboard {
    board.by_role(role) & board.by_color(color)
}

fn sign(color: Color) -> i32 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// Rank of `sq` as `color` sees it: 0 on its own back rank.
fn relative_rank(sq: Square, color: Color) -> usize {
    match color {
        Color::White => sq.rank() as usize,
        Color::Black => 7 - sq.rank() as usize,
    }
}

/// One step toward the enemy for `color`, as a bitboard shift.
fn forward(color: Color) -> i32 {
    match color {
        Color::White => 8,
        Color::Black => -8,
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

/// Ranks strictly ahead of `sq` from `color`'s side.
fn ranks_ahead(sq: Square, color: Color) -> Bitboard {
    let rank = sq.rank() as i32;
    match color {
        Color::White => Bitboard(!0u64 << 8).shift(rank * 8),
        Color::Black => Bitboard(!0u64 >> 8).shift(-(7 - rank) * 8),
    }
}

/// Squares in front of `sq` from `color`'s side, on its file and the neighbouring ones.
fn front_span(sq: Square, color: Color) -> Bitboard {
    let files = Bitboard::from_file(sq.file()) | adjacent_files(sq.file());
    files & ranks_ahead(sq, color)
}

/// What each side attacks, gathered once per evaluation.
#[derive(Clone, Copy, Default)]
struct Attacks {
    pawns: Bitboard,
    minors: Bitboard,
    rooks: Bitboard,
    all: Bitboard,
}

fn attack_maps(board: &Board) -> [Attacks; 2] {
    let occupied = board.occupied();
    let mut maps = [Attacks::default(); 2];
    for color in Color::ALL {
        let a = &mut maps[color as usize];
        a.pawns = pawn_attack_span(board, color);
        a.all = a.pawns;
        for sq in board.by_color(color) & !board.pawns() {
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            let reach = attacks::attacks(sq, piece, occupied);
            match piece.role {
                Role::Knight | Role::Bishop => a.minors |= reach,
                Role::Rook => a.rooks |= reach,
                _ => {}
            }
            a.all |= reach;
        }
    }
    maps
}

fn material(board: &Board, color: Color, f: &mut impl Features) {
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
        let n = pieces(board, role, color).count() as i32;
        f.add(param::MATERIAL + 2 * i, sign(color) * n);
    }
}

fn squares(board: &Board, color: Color, f: &mut impl Features) {
    for role in Role::ALL {
        let r = role as usize - 1;
        for sq in pieces(board, role, color) {
            let seen = match color {
                Color::White => sq,
                Color::Black => sq.flip_vertical(),
            };
            f.add(param::PST + 2 * (64 * r + seen as usize), sign(color));
        }
    }
}

/// Game phase: 24 with all pieces on the board, 0 with only kings and pawns.
pub fn phase(board: &Board) -> i32 {
    let phase: i32 = Role::ALL
        .iter()
        .map(|&role| PHASE_WEIGHT[role as usize - 1] * board.by_role(role).count() as i32)
        .sum();
    phase.min(MAX_PHASE)
}

/// Attack units per king-zone square a knight, bishop, rook or queen hits.
const ATTACK_UNITS: [i32; 4] = [2, 2, 3, 5];
/// Attack units beyond this add no more danger.
const MAX_ATTACK_UNITS: i32 = 40;

/// Mobility of each piece, its share in an attack on the enemy king, and the safe squares
/// it could check from.
fn activity(board: &Board, color: Color, maps: &[Attacks; 2], f: &mut impl Features) {
    let occupied = board.occupied();
    let their_king = pieces(board, Role::King, !color).first();
    let safe = !maps[!color as usize].all & !board.by_color(color);
    let checks_from = their_king.map(|k| {
        let (diagonal, straight) = (
            attacks::bishop_attacks(k, occupied),
            attacks::rook_attacks(k, occupied),
        );
        [
            attacks::knight_attacks(k),
            diagonal,
            straight,
            diagonal | straight,
        ]
    });
    let mut safe_checks = 0;
    let targets = !board.by_color(color) & !pawn_attack_span(board, !color);
    let zone = their_king.map(|k| {
        let near = attacks::king_attacks(k) | Bitboard::from_square(k);
        near | near.shift(forward(!color))
    });
    let mut zone_hits = [0; 4];
    let mut attackers = 0;
    for (i, role) in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .into_iter()
        .enumerate()
    {
        for sq in pieces(board, role, color) {
            let reach = attacks::attacks(sq, Piece { color, role }, occupied);
            f.add(
                param::MOBILITY + 2 * i,
                sign(color) * ((reach & targets).count() as i32 - MOBILITY_BASE[i]),
            );
            if let Some(zone) = zone {
                let hits = (reach & zone).count() as i32;
                if hits > 0 {
                    zone_hits[i] += hits;
                    attackers += 1;
                }
            }
            if let Some(from) = checks_from {
                safe_checks += (reach & from[i] & safe).count() as i32;
            }
        }
    }
    if attackers >= 2 {
        let mut units = 0;
        for (i, hits) in zone_hits.into_iter().enumerate() {
            f.add(param::KING_ZONE_ATTACK + 2 * i, sign(color) * hits);
            units += ATTACK_UNITS[i] * hits;
        }
        let units = units.min(MAX_ATTACK_UNITS);
        f.add(param::KING_DANGER, sign(color) * (units * units / 16));
    }
    f.add(param::SAFE_CHECK, sign(color) * safe_checks);
}

/// Pawn-only terms of `color`; returns its passed pawns.
fn pawn_structure(board: &Board, color: Color, f: &mut impl Features) -> Bitboard {
    let ours = pieces(board, Role::Pawn, color);
    let theirs = pieces(board, Role::Pawn, !color);
    let their_attacks = pawn_attack_span(board, !color);
    let mut passed = Bitboard::EMPTY;
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
        let neighbours = ours & adjacent_files(sq.file());
        let beside = neighbours & Bitboard::from_rank(sq.rank());
        let guarded = !(attacks::pawn_attacks(!color, sq) & ours).is_empty();
        if guarded || !beside.is_empty() {
            f.add(param::CONNECTED_PAWN, sign(color));
        }
        let stop = Bitboard::from_square(sq).shift(forward(color));
        let supporters = neighbours & !ranks_ahead(sq, color);
        if !neighbours.is_empty() && supporters.is_empty() && !(stop & their_attacks).is_empty() {
            f.add(param::BACKWARD_PAWN, sign(color));
        }
        let ahead_on_file = Bitboard::from_file(sq.file()) & ranks_ahead(sq, color);
        if (front_span(sq, color) & theirs).is_empty() && (ahead_on_file & ours).is_empty() {
            let rank = relative_rank(sq, color);
            // Pawns stand on ranks 2 to 7 (index 1 to 6).
            if (1..=6).contains(&rank) {
                f.add(param::PASSED_PAWN + 2 * (rank - 1), sign(color));
                passed |= Bitboard::from_square(sq);
            }
        }
    }
    passed
}

/// Terms of passed pawns that depend on the pieces: a blocker in front, and which king is
/// nearer the square the pawn goes to next.
fn passed_pawn_terms(board: &Board, color: Color, passed: Bitboard, f: &mut impl Features) {
    let (Some(own_king), Some(their_king)) = (
        pieces(board, Role::King, color).first(),
        pieces(board, Role::King, !color).first(),
    ) else {
        return;
    };
    for sq in passed {
        let Some(stop) = Bitboard::from_square(sq).shift(forward(color)).first() else {
            continue;
        };
        if board.occupied().contains(stop) {
            f.add(param::PASSED_BLOCKED, sign(color));
        }
        let advance = relative_rank(sq, color) as i32 - 1;
        let distance = their_king.distance(stop) as i32 - own_king.distance(stop) as i32;
        f.add(
            param::PASSED_KING_DISTANCE,
            sign(color) * advance * distance,
        );
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
    if relative_rank(king, color) > 1 {
        return;
    }
    let near = attacks::king_attacks(king);
    let shield = front_span(king, color) & (near | near.shift(forward(color)));
    let count = (shield & pieces(board, Role::Pawn, color)).count() as i32;
    f.add(param::KING_SHIELD_PAWN, sign(color) * count);
}

/// Enemy pieces attacked by cheaper ones, and enemy pieces attacked and not defended.
fn threats(board: &Board, color: Color, maps: &[Attacks; 2], f: &mut impl Features) {
    let ours = &maps[color as usize];
    let theirs = &maps[!color as usize];
    let enemy = board.by_color(!color);
    let pieces_ = enemy & !board.pawns() & !board.kings();
    let majors = enemy & (board.rooks() | board.queens());
    let s = sign(color);
    f.add(
        param::THREAT_BY_PAWN,
        s * (ours.pawns & pieces_).count() as i32,
    );
    f.add(
        param::THREAT_BY_MINOR,
        s * (ours.minors & majors).count() as i32,
    );
    f.add(
        param::THREAT_BY_ROOK,
        s * (ours.rooks & enemy & board.queens()).count() as i32,
    );
    f.add(
        param::HANGING,
        s * (ours.all & pieces_ & !theirs.all).count() as i32,
    );
}

/// Every term of `color` that does not need the pawn table.
fn piece_features(board: &Board, color: Color, maps: &[Attacks; 2], f: &mut impl Features) {
    material(board, color, f);
    squares(board, color, f);
    activity(board, color, maps, f);
    piece_terms(board, color, f);
    king_shelter(board, color, f);
    threats(board, color, maps, f);
}

/// Every weighted feature of the position (White minus Black), with the side to move.
pub fn features(board: &Board, turn: Color, f: &mut impl Features) {
    let maps = attack_maps(board);
    for color in Color::ALL {
        piece_features(board, color, &maps, f);
        let passed = pawn_structure(board, color, f);
        passed_pawn_terms(board, color, passed, f);
    }
    f.add(param::TEMPO, sign(turn));
}

/// Material of `color` without pawns, in pawn units (minor 3, rook 5, queen 9).
fn piece_units(board: &Board, color: Color) -> i32 {
    let n = |role| pieces(board, role, color).count() as i32;
    3 * (n(Role::Knight) + n(Role::Bishop)) + 5 * n(Role::Rook) + 9 * n(Role::Queen)
}

/// How much of an advantage for `strong` can be won, out of `FULL_SCALE`: drawish endgame
/// material is scaled toward zero.
pub fn endgame_scale(board: &Board, strong: Color) -> i32 {
    let weak = !strong;
    let strong_pawns = pieces(board, Role::Pawn, strong);
    let strong_units = piece_units(board, strong);
    let weak_units = piece_units(board, weak);
    if strong_pawns.is_empty() {
        // A single minor piece cannot mate; two knights cannot force it against a bare king.
        let knights = pieces(board, Role::Knight, strong).count();
        let weak_pawns = pieces(board, Role::Pawn, weak);
        if strong_units <= 3 || (strong_units == 6 && knights == 2 && weak_pawns.is_empty()) {
            return 0;
        }
        // A rook or minor piece against a minor piece (or less) without pawns is usually a
        // draw; with more material on the board an extra piece still wins.
        if strong_units <= 5 && strong_units - weak_units <= 3 {
            return FULL_SCALE / 8;
        }
    }
    let bishops = board.bishops();
    let only_bishops =
        (board.knights() | board.rooks() | board.queens()).is_empty() && bishops.count() == 2;
    if only_bishops {
        let (ours, theirs) = (
            pieces(board, Role::Bishop, strong),
            pieces(board, Role::Bishop, weak),
        );
        let light = |b: Bitboard| !(b & Bitboard::LIGHT_SQUARES).is_empty();
        if ours.count() == 1 && theirs.count() == 1 && light(ours) != light(theirs) {
            return FULL_SCALE / 2;
        }
    }
    if wrong_rook_pawn(board, strong) {
        return 0;
    }
    FULL_SCALE
}

/// King, bishop and pawns all on one rook file against a bare king that holds the corner the
/// bishop cannot cover: a draw.
fn wrong_rook_pawn(board: &Board, strong: Color) -> bool {
    let weak = !strong;
    let pawns = pieces(board, Role::Pawn, strong);
    let bishop = pieces(board, Role::Bishop, strong);
    let others = board.knights() | board.rooks() | board.queens();
    if pawns.is_empty()
        || bishop.count() != 1
        || !others.is_empty()
        || board.by_color(weak).count() != 1
    {
        return false;
    }
    let file = if (pawns & !Bitboard::from_file(File::A)).is_empty() {
        File::A
    } else if (pawns & !Bitboard::from_file(File::H)).is_empty() {
        File::H
    } else {
        return false;
    };
    let back = match strong {
        Color::White => shakmaty::Rank::Eighth,
        Color::Black => shakmaty::Rank::First,
    };
    let corner = Square::from_coords(file, back);
    let (Some(b), Some(k)) = (bishop.first(), pieces(board, Role::King, weak).first()) else {
        return false;
    };
    b.is_light() != corner.is_light() && k.distance(corner) <= 1
}

/// The tapered blend of a middlegame/endgame pair at `phase`.
pub fn taper(p: Pair, phase: i32) -> i32 {
    (p.mg * phase + p.eg * (MAX_PHASE - phase)) / MAX_PHASE
}

/// The blend, scaled down by `scale` out of `FULL_SCALE` for drawish material.
pub fn taper_scaled(p: Pair, phase: i32, scale: i32) -> i32 {
    taper(p, phase) * scale / FULL_SCALE
}

/// The scale for whichever side the blended score favours (at zero the scale cannot matter).
fn scale_for(board: &Board, total: Pair, phase: i32) -> i32 {
    let strong = if taper(total, phase) >= 0 {
        Color::White
    } else {
        Color::Black
    };
    endgame_scale(board, strong)
}

/// Pawn-structure results cached by the exact pawn placement (pawn-only terms do not depend
/// on anything else): the White-minus-Black pair and each side's passed pawns.
#[derive(Clone, Copy, Default)]
struct PawnEntry {
    white: Bitboard,
    black: Bitboard,
    score: Pair,
    passed: [Bitboard; 2],
}

const PAWN_TABLE_SIZE: usize = 1 << 14;

thread_local! {
    static PAWN_TABLE: std::cell::RefCell<Vec<PawnEntry>> =
        std::cell::RefCell::new(vec![PawnEntry::default(); PAWN_TABLE_SIZE]);
}

fn pawn_entry(board: &Board) -> PawnEntry {
    let white = pieces(board, Role::Pawn, Color::White);
    let black = pieces(board, Role::Pawn, Color::Black);
    let mixed = (white.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ black.0.rotate_left(29))
        .wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let slot = (mixed >> 50) as usize & (PAWN_TABLE_SIZE - 1);
    let compute = || {
        let mut sum = Sum::default();
        let mut passed = [Bitboard::EMPTY; 2];
        for c in Color::ALL {
            passed[c as usize] = pawn_structure(board, c, &mut sum);
        }
        PawnEntry {
            white,
            black,
            score: sum.total,
            passed,
        }
    };
    PAWN_TABLE
        .try_with(|table| {
            let mut table = table.borrow_mut();
            let e = table[slot];
            // The all-zero entry of a board without pawns is correct as it is.
            if e.white == white && e.black == black {
                return e;
            }
            let fresh = compute();
            table[slot] = fresh;
            fresh
        })
        .unwrap_or_else(|_| compute())
}

/// The score for the side to move: positive when it stands better.
pub fn evaluate(pos: &Chess) -> i32 {
    let board = pos.board();
    let maps = attack_maps(board);
    let pawns = pawn_entry(board);
    let mut sum = Sum { total: pawns.score };
    for color in Color::ALL {
        piece_features(board, color, &maps, &mut sum);
        passed_pawn_terms(board, color, pawns.passed[color as usize], &mut sum);
    }
    sum.add(param::TEMPO, sign(pos.turn()));
    let phase = phase(board);
    let white = taper_scaled(sum.total, phase, scale_for(board, sum.total, phase));
    match pos.turn() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// Each group of terms for each colour, as `eval` prints it: `[white, black]`, each from
/// that colour's own point of view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    pub terms: Vec<(&'static str, [Pair; 2])>,
    pub phase: i32,
    /// Endgame scale for the side ahead, out of `FULL_SCALE`.
    pub scale: i32,
    /// The blended score from White's point of view.
    pub white: i32,
}

impl Breakdown {
    /// All terms, White minus Black, before tapering.
    pub fn total(&self) -> Pair {
        self.terms
            .iter()
            .fold(Pair::default(), |acc, (_, [w, b])| acc + *w - *b)
    }

    pub fn term(&self, name: &str) -> [Pair; 2] {
        self.terms
            .iter()
            .find(|(n, _)| *n == name)
            .map_or([Pair::default(); 2], |(_, p)| *p)
    }
}

pub fn breakdown(pos: &Chess) -> Breakdown {
    let board = pos.board();
    let maps = attack_maps(board);
    let per_colour = |term: &dyn Fn(Color, &mut Sum)| {
        Color::ALL.map(|c| {
            let mut s = Sum::default();
            term(c, &mut s);
            s.total * sign(c)
        })
    };
    let terms: Vec<(&'static str, [Pair; 2])> = vec![
        ("material", per_colour(&|c, s| material(board, c, s))),
        ("squares", per_colour(&|c, s| squares(board, c, s))),
        (
            "mobility and king attack",
            per_colour(&|c, s| activity(board, c, &maps, s)),
        ),
        (
            "pawns",
            per_colour(&|c, s| {
                let passed = pawn_structure(board, c, s);
                passed_pawn_terms(board, c, passed, s);
            }),
        ),
        ("pieces", per_colour(&|c, s| piece_terms(board, c, s))),
        (
            "king shelter",
            per_colour(&|c, s| king_shelter(board, c, s)),
        ),
        ("threats", per_colour(&|c, s| threats(board, c, &maps, s))),
        (
            "tempo",
            per_colour(&|c, s| {
                if c == pos.turn() {
                    s.add(param::TEMPO, sign(c));
                }
            }),
        ),
    ];
    let mut b = Breakdown {
        terms,
        phase: phase(board),
        scale: FULL_SCALE,
        white: 0,
    };
    let total = b.total();
    b.scale = scale_for(board, total, b.phase);
    b.white = taper_scaled(total, b.phase, b.scale);
    b
}

/// The `eval` report: a line per group of terms with each colour's middlegame/endgame value
/// (from that colour's point of view) and the difference, then phase, scale and score.
pub fn report(pos: &Chess) -> Vec<String> {
    let b = breakdown(pos);
    let cell = |p: Pair| format!("{}/{}", p.mg, p.eg);
    let mut lines = vec![format!(
        "{:<26} {:>12} {:>12} {:>12}",
        "term (mg/eg)", "white", "black", "white-black"
    )];
    for (name, [w, bl]) in &b.terms {
        lines.push(format!(
            "{name:<26} {:>12} {:>12} {:>12}",
            cell(*w),
            cell(*bl),
            cell(*w - *bl)
        ));
    }
    lines.push(format!(
        "{:<26} {:>12} {:>12} {:>12}",
        "total",
        "",
        "",
        cell(b.total())
    ));
    let side = if pos.turn() == Color::White {
        "white"
    } else {
        "black"
    };
    lines.push(format!(
        "phase {}/{MAX_PHASE}, endgame scale {}/{FULL_SCALE}; White's view {} cp; side to move ({side}) {} cp",
        b.phase,
        b.scale,
        b.white,
        evaluate(pos)
    ));
    lines
}

/// What the tuner needs of a position: the phase, the endgame scale and the feature counts.
pub fn trace(pos: &Chess) -> (i32, i32, Trace) {
    let board = pos.board();
    let mut t = Trace::default();
    features(board, pos.turn(), &mut t);
    let mut sum = Sum::default();
    for &(i, c) in &t.counts {
        sum.add(i, c);
    }
    let phase = phase(board);
    (phase, scale_for(board, sum.total, phase), t)
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

    /// The count (White minus Black) of the feature at `index`.
    fn feature_count(fen: &str, index: usize) -> i32 {
        let (_, _, t) = trace(&pos(fen));
        t.counts
            .iter()
            .filter(|(i, _)| *i == index)
            .map(|(_, c)| c)
            .sum()
    }

    #[test]
    fn safe_checks_are_the_checking_squares_a_piece_reaches_unguarded() {
        // The queen can check from d4, d8, h5 and h1.
        assert_eq!(
            feature_count("7k/8/8/8/8/8/8/K2Q4 w - - 0 1", param::SAFE_CHECK),
            4
        );
        // A knight on f5 guards d4.
        assert_eq!(
            feature_count("7k/8/8/5n2/8/8/8/K2Q4 w - - 0 1", param::SAFE_CHECK),
            3
        );
        // Colours swapped: the count changes sign.
        assert_eq!(
            feature_count("k2q4/8/8/8/8/8/8/7K b - - 0 1", param::SAFE_CHECK),
            -4
        );
    }

    #[test]
    fn king_danger_grows_with_the_square_of_the_attack() {
        // A rook on the g-file hits g6 and g7; a queen on h5 adds h6, h7, g6 and f7.
        let one = "6k1/5ppp/8/8/8/6R1/8/K7 w - - 0 1";
        assert_eq!(feature_count(one, param::KING_DANGER), 0, "a lone attacker");
        let two = "6k1/5ppp/8/7Q/8/6R1/8/K7 w - - 0 1";
        let (_, _, t) = trace(&pos(two));
        let hits = |i: usize| {
            t.counts
                .iter()
                .find(|(j, _)| *j == param::KING_ZONE_ATTACK + 2 * i)
                .map_or(0, |(_, c)| *c)
        };
        assert_eq!((hits(2), hits(3)), (2, 4));
        let units: i32 = 3 * 2 + 5 * 4;
        assert_eq!(
            feature_count(two, param::KING_DANGER),
            units.min(MAX_ATTACK_UNITS).pow(2) / 16
        );
    }

    /// A group of terms of one colour, from that colour's point of view.
    fn term(fen: &str, name: &str, color: Color) -> Pair {
        breakdown(&pos(fen)).term(name)[color as usize ^ 1]
    }

    #[test]
    fn start_position_is_level_but_for_the_move() {
        let b = breakdown(&Chess::default());
        assert_eq!(b.total(), weight(param::TEMPO));
        assert_eq!(evaluate(&Chess::default()), weight(param::TEMPO).mg);
    }

    #[test]
    fn score_is_from_the_side_to_move() {
        let w = evaluate(&pos("4k3/8/8/8/8/8/8/3RK3 w - - 0 1"));
        let b = evaluate(&pos("4k3/8/8/8/8/8/8/3RK3 b - - 0 1"));
        assert!(w > 300 && b < -300);
        let tempo = taper(weight(param::TEMPO), 2);
        assert!((w + b - 2 * tempo).abs() <= 2, "{w} {b} {tempo}");
    }

    #[test]
    fn colour_flipped_positions_score_the_same_for_the_side_to_move() {
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
            "2r3k1/1q3ppp/p2b4/1p1Pp3/4P1n1/1PN2N2/P1Q2PPP/2R3K1 b - - 0 1",
            "k7/8/8/8/8/8/P7/B3K3 w - - 0 1",
            "4k3/5p2/4b3/8/8/2B5/5PP1/4K3 b - - 0 1",
            "6k1/5ppp/8/7Q/8/6R1/8/K7 w - - 0 1",
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
        assert_eq!((pawns.phase, pawns.scale), (0, FULL_SCALE));
        assert_eq!(pawns.white, pawns.total().eg);
    }

    #[test]
    fn known_drawn_endings_score_near_zero() {
        for fen in [
            // Two knights cannot force mate; a lone minor piece cannot win against pawns.
            "4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1",
            "4k3/8/8/8/8/8/4p3/2B1K3 w - - 0 1",
            "4k3/4p3/8/8/8/8/8/1N2K3 b - - 0 1",
            // The bishop does not cover a8, and the defending king holds it.
            "k7/8/8/8/8/8/P7/B3K3 w - - 0 1",
            "8/8/8/8/8/4k3/7p/4b2K w - - 0 1",
        ] {
            let p = pos(fen);
            assert_eq!(breakdown(&p).scale, 0, "{fen}");
            assert_eq!(evaluate(&p), 0, "{fen}");
        }
        // Rook against minor piece: scaled hard but not to zero.
        let rook_minor = pos("4k3/8/8/3b4/8/8/8/3RK3 w - - 0 1");
        assert_eq!(breakdown(&rook_minor).scale, FULL_SCALE / 8);
        assert!(evaluate(&rook_minor).abs() < 40);
        // Two bishops against a knight, an extra piece among heavy ones, and two knights
        // against pawns are left alone.
        for fen in [
            "4k3/8/8/3n4/8/8/8/2B1KB2 w - - 0 1",
            "r3k3/q7/8/8/8/8/8/R1BQK3 w - - 0 1",
            "4k3/4p3/8/8/8/8/8/1NN1K3 w - - 0 1",
        ] {
            assert_eq!(breakdown(&pos(fen)).scale, FULL_SCALE, "{fen}");
        }
        // The right bishop wins; bishops of opposite colours halve the advantage.
        assert_eq!(
            breakdown(&pos("k7/8/8/8/8/8/P7/1B2K3 w - - 0 1")).scale,
            FULL_SCALE
        );
        let ocb = breakdown(&pos("4k3/5p2/4b3/8/8/2B5/5PP1/4K3 w - - 0 1"));
        assert_eq!(ocb.scale, FULL_SCALE / 2);
        assert_eq!(ocb.white, taper(ocb.total(), ocb.phase) / 2);
    }

    #[test]
    fn square_rules_prefer_central_knights_and_advanced_pawns() {
        let centre = evaluate(&pos("4k3/4p3/8/8/4N3/8/4P3/4K3 w - - 0 1"));
        let corner = evaluate(&pos("4k3/4p3/8/8/8/8/4P3/N3K3 w - - 0 1"));
        assert!(centre > corner);
        let far = evaluate(&pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"));
        let near = evaluate(&pos("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1"));
        assert!(far > near);
    }

    #[test]
    fn structure_terms_score_as_they_should() {
        let (w, b) = (Color::White, Color::Black);
        // The bishop pair is worth more than bishop and knight on the same squares.
        let two_bishops = term("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", "pieces", w);
        let single = term("4k3/8/8/8/8/8/8/2N1KB2 w - - 0 1", "pieces", w);
        assert_eq!(two_bishops - single, weight(param::BISHOP_PAIR));
        // A passed, isolated pawn on the sixth; the kings are 3 and 6 steps from b7, and
        // the pawn has advanced four ranks.
        let passed6 = weight(param::PASSED_PAWN + 2 * 4);
        let isolated = weight(param::ISOLATED_PAWN);
        let king_distance = weight(param::PASSED_KING_DISTANCE) * (4 * (3 - 6));
        let expected = passed6 + isolated + king_distance;
        assert_eq!(
            term("4k3/8/1P6/8/8/8/8/4K3 w - - 0 1", "pawns", w),
            expected
        );
        assert_eq!(
            term("4k3/8/8/8/8/1p6/8/4K3 w - - 0 1", "pawns", b),
            expected
        );
        // With a piece in front it is also blocked.
        assert_eq!(
            term("4k3/1n6/1P6/8/8/8/8/4K3 w - - 0 1", "pawns", w),
            expected + weight(param::PASSED_BLOCKED)
        );
        // Doubled and isolated: only the front pawn of the two is passed.
        assert_eq!(
            term("4k3/p7/p7/8/8/8/8/4K3 w - - 0 1", "pawns", b),
            weight(param::DOUBLED_PAWN) + isolated * 2 + weight(param::PASSED_PAWN + 2)
        );
        // Connected pawns (side by side, and one guarding the other); a backward pawn whose
        // advance square an enemy pawn guards. None of them is passed.
        assert_eq!(
            term("4k3/8/2p1p3/8/8/8/3PP3/4K3 w - - 0 1", "pawns", w),
            weight(param::CONNECTED_PAWN) * 2
        );
        assert_eq!(
            term("4k3/8/8/2p5/8/2P5/1P6/4K3 w - - 0 1", "pawns", w),
            weight(param::CONNECTED_PAWN)
        );
        assert_eq!(
            term("4k3/8/1p6/4p3/2P5/3P4/8/4K3 w - - 0 1", "pawns", w),
            weight(param::CONNECTED_PAWN) + weight(param::BACKWARD_PAWN)
        );
        // A rook on an open file, and one on a file with only enemy pawns.
        let open = term("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "pieces", w);
        assert_eq!(open, weight(param::ROOK_OPEN_FILE));
        let half = term("4k3/p7/8/8/8/8/8/R3K3 w - - 0 1", "pieces", w);
        assert_eq!(half, weight(param::ROOK_HALF_OPEN_FILE));
        // Three pawns in front of a castled king.
        let shield = term("6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1", "king shelter", w);
        assert_eq!(shield, weight(param::KING_SHIELD_PAWN) * 3);
    }

    #[test]
    fn threats_count_attacked_and_hanging_pieces() {
        let w = Color::White;
        // The e4 pawn forks knight and bishop; neither is defended, but pawns do not count
        // as hanging attackers twice: both are hanging too.
        let fork = term("4k3/8/8/3n1b2/4P3/8/8/4K3 w - - 0 1", "threats", w);
        assert_eq!(
            fork,
            weight(param::THREAT_BY_PAWN) * 2 + weight(param::HANGING) * 2
        );
        // A knight attacks a rook that its own king defends, and a rook attacks a queen.
        let minor = term("3rk3/8/4N3/8/8/8/8/4K3 w - - 0 1", "threats", w);
        assert_eq!(minor, weight(param::THREAT_BY_MINOR));
        let rook = term("3qk3/8/8/8/8/8/8/3RK3 w - - 0 1", "threats", w);
        assert_eq!(rook, weight(param::THREAT_BY_ROOK));
    }

    #[test]
    fn a_king_attack_needs_two_pieces() {
        let zone_counts = |fen: &str| {
            let p = pos(fen);
            let mut t = Trace::default();
            features(p.board(), p.turn(), &mut t);
            let zone = param::KING_ZONE_ATTACK..param::KING_ZONE_ATTACK + 8;
            t.counts
                .into_iter()
                .filter(|(i, _)| zone.contains(i))
                .collect::<Vec<_>>()
        };
        // The queen on d3 sees g6 and h7 next to the black king: alone, that is no attack.
        assert!(zone_counts("6k1/5ppp/8/8/8/3Q4/5PPP/6K1 w - - 0 1").is_empty());
        // With the knight on g5 (f7 and h7) it is: two squares each for knight and queen.
        assert_eq!(
            zone_counts("6k1/5ppp/8/6N1/8/3Q4/5PPP/6K1 w - - 0 1"),
            vec![
                (param::KING_ZONE_ATTACK, 2),
                (param::KING_ZONE_ATTACK + 6, 2)
            ]
        );
    }

    #[test]
    fn the_trace_rebuilds_the_evaluation_exactly() {
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "4k3/p7/p7/8/8/8/5PPP/R5K1 w - - 0 1",
            "4k3/5p2/4b3/8/8/2B5/5PP1/4K3 w - - 0 1",
            "6k1/5ppp/8/7Q/8/6R1/8/K7 w - - 0 1",
        ] {
            let p = pos(fen);
            let (phase, scale, t) = trace(&p);
            let mut sum = Pair::default();
            for (i, c) in t.counts {
                sum += weight(i) * c;
            }
            let rebuilt = taper_scaled(sum, phase, scale);
            assert_eq!(rebuilt, breakdown(&p).white, "{fen}");
            // Twice, so the second call reads the pawn table.
            assert_eq!(evaluate(&p), rebuilt, "{fen}");
            assert_eq!(evaluate(&p), rebuilt, "{fen}");
        }
    }
}
