//! Move ordering: the TT move first, then captures and promotions by MVV-LVA, then the two
//! killer moves of the ply, then the counter move to the opponent's last move, then quiet
//! moves by their history score.

use arrayvec::ArrayVec;
use shakmaty::{Chess, Color, Move, MoveList, Role};

use super::params;
use super::see::{piece_value, see};
use super::tt::PackedMove;

/// Priority classes, far enough apart that no in-class score crosses into the next.
const TT_MOVE: i32 = 1_000_000;
const GOOD_TACTICAL: i32 = 100_000;
const KILLER_1: i32 = 90_000;
const KILLER_2: i32 = 89_000;
const COUNTER: i32 = 88_000;
/// Captures that lose material by static exchange come after every quiet move: a quiet
/// score (history and continuation records, clamped inside ±`COUNTER`) stays above -88,000,
/// a losing capture (this plus under 30,000 of MVV-LVA and capture history) below -170,000.
const BAD_TACTICAL: i32 = -200_000;

/// What quiet moves caused cutoffs before: per side, from-square and to-square a score that
/// grows with the depth of each cutoff; per side, and per piece and square of the opponent's
/// last move, the quiet move that refuted it. (Killers live in the search stack.)
pub struct Heuristics {
    history: Box<[[[i32; 64]; 64]; 2]>,
    counters: Box<[[[Option<Move>; 64]; 6]; 2]>,
    /// Per side, capturing piece, target square and captured piece: how often the capture
    /// cut off, with the same bounded update as the quiet history.
    captures: Box<[[[[i32; 6]; 64]; 6]; 2]>,
    /// Continuation history (with `continuation_history` on): per distance back (the
    /// opponent's last move, our move before it), side to move, and piece and target square
    /// of that move, the quiet moves' records by piece and target square. Flat, indexed by
    /// `continuation_base` plus `continuation_slot`: 2.4 MB, allocated zeroed by the first
    /// cutoff that writes a record (empty until then: all records 0).
    continuation: Vec<i32>,
}

/// Entries of the continuation history.
const CONTINUATION_ENTRIES: usize = 2 * 2 * 6 * 64 * 6 * 64;

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics {
            history: Box::new([[[0; 64]; 64]; 2]),
            counters: Box::new([[[None; 64]; 6]; 2]),
            captures: Box::new([[[[0; 6]; 64]; 6]; 2]),
            continuation: Vec::new(),
        }
    }
}

/// Whether continuation history is on (`continuation_history` > 0).
pub fn continuation_on() -> bool {
    params::continuation_history() > 0
}

/// Where the records after `previous`, played `distance` (1 or 2) plies before a node
/// where `side` moves, begin in the continuation table.
fn continuation_base(side: Color, distance: usize, previous: Move) -> usize {
    debug_assert!(distance == 1 || distance == 2);
    ((((distance - 1) * 2 + side as usize) * 6 + previous.role() as usize - 1) * 64
        + previous.to() as usize)
        * 6
        * 64
}

/// The place of `m`'s record from a base (`continuation_base`).
fn continuation_slot(m: Move) -> usize {
    (m.role() as usize - 1) * 64 + m.to() as usize
}

/// The two moves before a node that continuation history keys on: the opponent's last move
/// and ours before it (None at the root's edge or after a null move).
#[derive(Clone, Copy, Default)]
pub struct Previous {
    pub one: Option<Move>,
    pub two: Option<Move>,
}

impl Previous {
    /// The continuation table's bases for a node where `side` moves (None where a move is
    /// missing, or with continuation history off).
    pub fn bases(self, side: Color) -> [Option<usize>; 2] {
        if !continuation_on() {
            return [None; 2];
        }
        [
            self.one.map(|p| continuation_base(side, 1, p)),
            self.two.map(|p| continuation_base(side, 2, p)),
        ]
    }
}

/// The bounded update of a history entry `h` by `bonus`: less in proportion to how large
/// the entry already is, so entries stay within `history_max` (in i64: a tuning build's
/// largest bound and bonus multiply past i32).
fn gravity(h: i32, bonus: i32) -> i32 {
    let max = i64::from(params::history_max());
    (i64::from(bonus) - i64::from(h) * i64::from(bonus).abs() / max) as i32
}

/// Whether capture history is on (`capture_history_divisor` > 0).
pub fn capture_history_on() -> bool {
    params::capture_history_divisor() > 0
}

/// The capture-history entry of `m` for `side`: None for a move that captures nothing.
fn capture_entry(side: Color, m: Move) -> Option<(usize, usize, usize, usize)> {
    let victim = m.capture()?;
    Some((
        side as usize,
        m.role() as usize - 1,
        m.to() as usize,
        victim as usize - 1,
    ))
}

fn squares(m: Move) -> (usize, usize) {
    let p = PackedMove::new(m).0;
    ((p & 63) as usize, ((p >> 6) & 63) as usize)
}

/// The history bonus of a cutoff at `depth` (the quiet moves tried before it lose as much).
pub fn history_bonus(depth: i32) -> i32 {
    let d = depth.max(1);
    (params::history_bonus_quadratic() * d * d + params::history_bonus_linear() * (d - 1))
        .min(params::history_bonus_cap())
        .min(params::history_max())
}

impl Heuristics {
    pub fn history(&self, side: Color, m: Move) -> i32 {
        self.history_of(side, PackedMove::new(m))
    }

    fn history_of(&self, side: Color, m: PackedMove) -> i32 {
        let (from, to) = (m.0 as usize & 63, (m.0 as usize >> 6) & 63);
        self.history[side as usize][from][to]
    }

    /// A quiet move refuted the position: reward its history; the quiet moves tried before
    /// it, which did not cut, are penalised.
    pub fn on_cutoff(&mut self, side: Color, depth: i32, best: Move, tried: &[Move]) {
        self.reward(depth, best, tried, |h, m, bonus| h.adjust(side, m, bonus));
    }

    /// `best` gains the bonus of `depth` in a table and each other move of `tried` loses as
    /// much, through that table's `adjust`.
    fn reward(
        &mut self,
        depth: i32,
        best: Move,
        tried: &[Move],
        mut adjust: impl FnMut(&mut Heuristics, Move, i32),
    ) {
        let bonus = history_bonus(depth);
        adjust(self, best, bonus);
        for &m in tried {
            if m != best {
                adjust(self, m, -bonus);
            }
        }
    }

    /// Moves an entry by `bonus`, less in proportion to how large it already is.
    fn adjust(&mut self, side: Color, m: Move, bonus: i32) {
        let (from, to) = squares(m);
        let h = &mut self.history[side as usize][from][to];
        // History scores stay within a bound: this "gravity" pulls them back toward zero.
        *h += gravity(*h, bonus);
    }

    /// The continuation history of the quiet move `m` after the moves at `bases` (see
    /// `Previous::bases`): the sum of its records, 0 where a base is missing.
    pub fn continuation(&self, bases: [Option<usize>; 2], m: Move) -> i32 {
        if self.continuation.is_empty() {
            return 0;
        }
        let slot = continuation_slot(m);
        bases
            .iter()
            .flatten()
            .map(|&b| self.continuation[b + slot])
            .sum()
    }

    /// A quiet move cut off at `depth` after the moves at `bases`: its continuation records
    /// gain the history bonus and those of the quiet moves `tried` before it lose as much.
    pub fn on_continuation_cutoff(
        &mut self,
        bases: [Option<usize>; 2],
        depth: i32,
        best: Move,
        tried: &[Move],
    ) {
        if self.continuation.is_empty() {
            self.continuation = vec![0; CONTINUATION_ENTRIES];
        }
        for base in bases.into_iter().flatten() {
            self.reward(depth, best, tried, |h, m, bonus| {
                let e = &mut h.continuation[base + continuation_slot(m)];
                *e += gravity(*e, bonus);
            });
        }
    }

    /// Every entry back to its start (nothing learnt).
    pub fn clear(&mut self) {
        self.continuation.fill(0);
        self.history.as_flattened_mut().as_flattened_mut().fill(0);
        self.counters
            .as_flattened_mut()
            .as_flattened_mut()
            .fill(None);
        self.captures
            .as_flattened_mut()
            .as_flattened_mut()
            .as_flattened_mut()
            .fill(0);
    }

    /// The capture history of `m` for `side` (0 for a move that captures nothing).
    pub fn capture_history(&self, side: Color, m: Move) -> i32 {
        capture_entry(side, m).map_or(0, |(s, a, t, v)| self.captures[s][a][t][v])
    }

    /// A move cut off at `depth` after the captures `tried` (which did not): a capture that
    /// cut gains capture history; the captures tried before it lose as much.
    pub fn on_capture_cutoff(&mut self, side: Color, depth: i32, best: Move, tried: &[Move]) {
        self.reward(depth, best, tried, |h, m, bonus| {
            h.adjust_capture(side, m, bonus)
        });
    }

    fn adjust_capture(&mut self, side: Color, m: Move, bonus: i32) {
        if let Some((s, a, t, v)) = capture_entry(side, m) {
            let h = &mut self.captures[s][a][t][v];
            *h += gravity(*h, bonus);
        }
    }

    /// The quiet move that last refuted `previous`, the opponent's move, for `side`.
    pub fn counter(&self, side: Color, previous: Move) -> Option<Move> {
        self.counters[side as usize][previous.role() as usize - 1][previous.to() as usize]
    }

    pub fn set_counter(&mut self, side: Color, previous: Move, reply: Move) {
        self.counters[side as usize][previous.role() as usize - 1][previous.to() as usize] =
            Some(reply);
    }
}

/// Most valuable victim first, least valuable attacker breaking ties; a promotion counts as
/// capturing the piece it becomes.
fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, piece_value) + m.promotion().map_or(0, piece_value);
    let attacker = match m.role() {
        Role::King => 1000,
        r => piece_value(r),
    };
    victim * 16 - attacker / 10
}

pub fn is_tactical(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// Where quiet moves are ordered from: the heuristics, the ply's killers and the side to move.
pub struct QuietOrder<'a> {
    pub heuristics: &'a Heuristics,
    pub killers: [Option<Move>; 2],
    pub side: Color,
    /// The counter move to the opponent's last move, if any.
    pub counter: Option<Move>,
    /// The continuation table's bases of the node (`Previous::bases`).
    pub continuation: [Option<usize>; 2],
}

impl<'a> QuietOrder<'a> {
    /// The order of a node where `side` moves, with its ply's `killers`, after the moves
    /// `previous`: the counter move and the continuation bases follow from them.
    pub fn new(
        heuristics: &'a Heuristics,
        killers: [Option<Move>; 2],
        side: Color,
        previous: Previous,
    ) -> QuietOrder<'a> {
        QuietOrder {
            heuristics,
            killers,
            side,
            counter: previous.one.and_then(|p| heuristics.counter(side, p)),
            continuation: previous.bases(side),
        }
    }
}

/// Whether a capture or promotion does not lose material. Taking a piece worth at least the
/// taker is always fine; otherwise the exchange is played out.
pub fn is_good_tactical(pos: &Chess, m: Move) -> bool {
    let victim = m.capture().map_or(0, piece_value);
    (victim >= piece_value(m.role()) && m.role() != Role::King) || see(pos, m) >= 0
}

/// A killer or counter move with its packed form: most moves differ from it in the packed
/// form already, a cheaper comparison than the whole move's (which still decides).
#[derive(Clone, Copy)]
struct Marked {
    packed: PackedMove,
    mv: Option<Move>,
}

impl Marked {
    fn new(mv: Option<Move>) -> Marked {
        Marked {
            packed: mv.map_or(PackedMove::NONE, PackedMove::new),
            mv,
        }
    }

    /// Whether `m` (packed as `packed`) is this move.
    #[inline(always)]
    fn is(self, m: Move, packed: PackedMove) -> bool {
        self.packed == packed && self.mv == Some(m)
    }
}

/// A move's place in the order. A capture or promotion is scored as if it kept its material;
/// the picker checks that by exchange only when the move comes up, which saves the exchange
/// for every capture a cutoff makes unnecessary.
/// `CONTINUATION`: whether `quiet` has continuation bases to add (decided once per node, so
/// that the search without continuation history scores its moves as it did).
#[inline(always)]
fn optimistic_score<const CONTINUATION: bool>(
    m: Move,
    tt_move: PackedMove,
    killers: [Marked; 2],
    counter: Marked,
    quiet: Option<&QuietOrder>,
) -> i32 {
    let packed = PackedMove::new(m);
    if packed == tt_move && !tt_move.is_none() {
        TT_MOVE
    } else if is_tactical(m) {
        let learned = match quiet {
            Some(q) if capture_history_on() => {
                // Kept clear of the class below whatever the divisor: the smallest capture's
                // MVV-LVA place is 1,500.
                (q.heuristics.capture_history(q.side, m) / params::capture_history_divisor())
                    .clamp(-1000, 1000)
            }
            _ => 0,
        };
        GOOD_TACTICAL + mvv_lva(m) + learned
    } else if killers[0].is(m, packed) {
        KILLER_1
    } else if killers[1].is(m, packed) {
        KILLER_2
    } else if counter.is(m, packed) {
        COUNTER
    } else {
        quiet.map_or(0, |q| {
            let h = q.heuristics.history_of(q.side, packed);
            if CONTINUATION {
                // Kept inside the quiet moves' class, whatever the bound of a record.
                (h + q.heuristics.continuation(q.continuation, m))
                    .clamp(-(COUNTER - 1), COUNTER - 1)
            } else {
                h
            }
        })
    }
}

/// Whether a score is that of a capture or promotion not yet checked by exchange.
fn is_unchecked_tactical(score: i32) -> bool {
    (GOOD_TACTICAL..TT_MOVE).contains(&score)
}

/// The picker keeps each move's score as a key: the score times 256 plus 255 less the
/// move's slot in the list, so the largest key is the first of the highest scores, found in
/// one pass the compiler vectorises. Scores must stay inside ±2^23 (8,388,608): the classes
/// are at most a million and a quiet move's history at most 65,536 (the bound's largest
/// setting); a score made of several history terms must keep within it too.
#[inline(always)]
fn key(score: i32, slot: usize) -> i32 {
    debug_assert!(score.abs() < 1 << 23 && slot < 256);
    score * 256 + (255 - slot as i32)
}

#[inline(always)]
fn score_of(key: i32) -> i32 {
    key >> 8
}

#[inline(always)]
fn slot_of(key: i32) -> usize {
    255 - (key & 255) as usize
}

/// Hands out moves best first by selection: cheap when a cutoff comes early. It works in the
/// caller's list (which it leaves in no useful order). A capture found to lose material when
/// it comes up moves to the losing class and the choice is made again: since scores only
/// fall, the move chosen is the one a fully scored list gives, in the same order.
pub struct Picker<'a> {
    pos: &'a Chess,
    moves: &'a mut MoveList,
    /// The moves' scores as keys (see `key`).
    keys: ArrayVec<i32, 256>,
    next: usize,
    /// Whether tactical moves still need their exchange checked.
    check_exchanges: bool,
}

impl<'a> Picker<'a> {
    pub fn new(
        pos: &'a Chess,
        moves: &'a mut MoveList,
        tt_move: PackedMove,
        quiet: Option<&QuietOrder>,
    ) -> Picker<'a> {
        let killers = quiet.map_or([None; 2], |q| q.killers).map(Marked::new);
        let counter = Marked::new(quiet.and_then(|q| q.counter));
        // The keys are written in place: a list collected first would be copied in.
        let mut picker = Picker {
            pos,
            moves,
            keys: ArrayVec::new(),
            next: 0,
            check_exchanges: true,
        };
        let moves = picker.moves.iter().enumerate();
        if quiet.is_some_and(|q| q.continuation != [None; 2]) {
            picker.keys.extend(moves.map(|(i, &m)| {
                key(
                    optimistic_score::<true>(m, tt_move, killers, counter, quiet),
                    i,
                )
            }));
        } else {
            picker.keys.extend(moves.map(|(i, &m)| {
                key(
                    optimistic_score::<false>(m, tt_move, killers, counter, quiet),
                    i,
                )
            }));
        }
        picker
    }

    /// Orders captures and promotions the caller has already found not to lose material
    /// (quiescence), the table's move first: no exchange is evaluated a second time.
    pub fn known_good(pos: &'a Chess, moves: &'a mut MoveList, tt_move: PackedMove) -> Picker<'a> {
        let mut picker = Picker {
            pos,
            moves,
            keys: ArrayVec::new(),
            next: 0,
            check_exchanges: false,
        };
        picker
            .keys
            .extend(picker.moves.iter().enumerate().map(|(i, &m)| {
                let score = if tt_move.matches(m) {
                    TT_MOVE
                } else {
                    GOOD_TACTICAL + mvv_lva(m)
                };
                key(score, i)
            }));
        picker
    }
}

impl Iterator for Picker<'_> {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let best = loop {
            let top = self.keys[self.next..n]
                .iter()
                .copied()
                .fold(i32::MIN, i32::max);
            let (score, best) = (score_of(top), slot_of(top));
            if !self.check_exchanges
                || !is_unchecked_tactical(score)
                || is_good_tactical(self.pos, self.moves[best])
            {
                break best;
            }
            self.keys[best] = key(score - GOOD_TACTICAL + BAD_TACTICAL, best);
        };
        // The slot handed out is not read again: its old move simply takes the chosen one's
        // place, as a swap would leave it, with its key's slot made the new one.
        let m = self.moves[best];
        self.moves[best] = self.moves[self.next];
        self.keys[best] = key(score_of(self.keys[self.next]), best);
        self.next += 1;
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Position, fen::Fen};

    #[test]
    fn capture_history_is_kept_per_victim_and_bounded() {
        // The knight on d5 can take the queen on c7 or the rook on e7, or step to b4.
        let fen: Fen = "4k3/2q1r3/8/3N4/8/8/8/7K w - - 0 1".parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let moves = pos.legal_moves();
        let find = |uci: &str| {
            *moves
                .iter()
                .find(|m| m.to_uci(CastlingMode::Standard).to_string() == uci)
                .unwrap()
        };
        let (takes_queen, takes_rook, quiet) = (find("d5c7"), find("d5e7"), find("d5b4"));
        let mut h = Heuristics::default();
        for i in 0..3000 {
            h.on_capture_cutoff(Color::White, 1 + i % 64, takes_rook, &[takes_queen]);
            let (r, q) = (
                h.capture_history(Color::White, takes_rook),
                h.capture_history(Color::White, takes_queen),
            );
            assert!(0 < r && r <= params::history_max(), "{i}: {r}");
            assert!(-params::history_max() <= q && q < 0, "{i}: {q}");
        }
        // A quiet cutoff only penalises the captures tried; quiet moves have no entry.
        let before = h.capture_history(Color::White, takes_rook);
        h.on_capture_cutoff(Color::White, 6, quiet, &[takes_rook]);
        assert!(h.capture_history(Color::White, takes_rook) < before);
        assert_eq!(h.capture_history(Color::White, quiet), 0);
        assert_eq!(h.capture_history(Color::Black, takes_rook), 0);
    }

    /// Every (distance, side, piece, square) of an earlier move has its own block of the
    /// continuation table, and every piece and square its own record in it, all inside the
    /// table; a cutoff after one earlier move leaves the records after another alone, and
    /// records stay within the history bound.
    #[test]
    fn continuation_records_are_kept_apart_and_bounded() {
        let mut seen = std::collections::HashSet::new();
        let pieces = [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ];
        for distance in [1, 2] {
            for side in Color::ALL {
                for role in pieces {
                    for to in shakmaty::Square::ALL {
                        let previous = Move::Put { role, to };
                        let base = continuation_base(side, distance, previous);
                        assert!(seen.insert(base), "{distance} {side:?} {role:?} {to:?}");
                        assert_eq!(base % (6 * 64), 0);
                        assert!(base + 6 * 64 <= CONTINUATION_ENTRIES);
                    }
                }
            }
        }
        assert_eq!(seen.len() * 6 * 64, CONTINUATION_ENTRIES);
        let slots: std::collections::HashSet<usize> = pieces
            .iter()
            .flat_map(|&role| {
                shakmaty::Square::ALL.map(|to| continuation_slot(Move::Put { role, to }))
            })
            .collect();
        assert_eq!(slots.len(), 6 * 64);
        assert!(slots.iter().all(|&s| s < 6 * 64));

        let pos = Chess::default();
        let moves = pos.legal_moves();
        let (good, bad) = (moves[0], moves[1]);
        let e5 = Move::Normal {
            role: Role::Pawn,
            from: shakmaty::Square::E7,
            capture: None,
            to: shakmaty::Square::E5,
            promotion: None,
        };
        let d5 = Move::Normal {
            role: Role::Pawn,
            from: shakmaty::Square::D7,
            capture: None,
            to: shakmaty::Square::D5,
            promotion: None,
        };
        let after_e5 = [Some(continuation_base(Color::White, 1, e5)), None];
        let after_d5 = [Some(continuation_base(Color::White, 1, d5)), None];
        let both = [after_e5[0], Some(continuation_base(Color::White, 2, d5))];
        let mut h = Heuristics::default();
        for i in 0..5000 {
            h.on_continuation_cutoff(after_e5, 1 + i % 64, good, &[bad]);
            let (g, b) = (
                h.continuation(after_e5, good),
                h.continuation(after_e5, bad),
            );
            assert!(0 < g && g <= params::history_max(), "{i}: {g}");
            assert!(-params::history_max() <= b && b < 0, "{i}: {b}");
        }
        assert_eq!(h.continuation(after_d5, good), 0);
        assert_eq!(h.continuation([None; 2], good), 0);
        assert_eq!(h.continuation(both, good), h.continuation(after_e5, good));
        // The plain history is a table of its own.
        assert_eq!(h.history(Color::White, good), 0);
        h.clear();
        assert_eq!(h.continuation(after_e5, good), 0);
    }

    #[test]
    fn history_bonuses_grow_with_depth_and_entries_stay_within_the_bound() {
        let mut last = 0;
        for d in 1..=128 {
            let b = history_bonus(d);
            assert!(
                b >= last && b >= 1 && b <= params::history_max(),
                "{d}: {b}"
            );
            last = b;
        }
        // The bounded update: the rewarded move approaches the bound from below and the
        // penalised one from above, without passing it, at any depth.
        let pos = Chess::default();
        let moves = pos.legal_moves();
        let (good, bad) = (moves[0], moves[1]);
        let mut h = Heuristics::default();
        for i in 0..5000 {
            h.on_cutoff(Color::White, 1 + i % 128, good, &[bad]);
            let (g, b) = (h.history(Color::White, good), h.history(Color::White, bad));
            assert!(0 < g && g <= params::history_max(), "{i}: {g}");
            assert!(-params::history_max() <= b && b < 0, "{i}: {b}");
        }
        assert!(h.history(Color::White, good) > params::history_max() * 9 / 10);
        assert_eq!(h.history(Color::Black, good), 0);
    }

    #[test]
    fn tt_move_then_captures_by_victim_then_quiets() {
        // White can take the queen with the pawn, or the rook with the pawn or the queen.
        let fen: Fen = "4k3/8/2q1r3/3P4/8/8/4Q3/K7 w - - 0 1".parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let mut moves = pos.legal_moves();
        let quiet = *moves.iter().find(|m| !m.is_capture()).unwrap();
        let order: Vec<Move> =
            Picker::new(&pos, &mut moves, PackedMove::new(quiet), None).collect();
        assert_eq!(order[0], quiet);
        assert_eq!(order[1].capture(), Some(Role::Queen));
        assert_eq!(order[1].role(), Role::Pawn);
        assert_eq!(
            (order[2].capture(), order[2].role()),
            (Some(Role::Rook), Role::Pawn)
        );
        assert_eq!(
            (order[3].capture(), order[3].role()),
            (Some(Role::Rook), Role::Queen)
        );
        assert!(order[4..].iter().all(|m| !m.is_capture()));
    }

    #[test]
    fn losing_captures_come_after_quiet_moves() {
        // Qxd5 takes a pawn defended by a pawn: it loses the queen and goes last.
        let fen: Fen = "4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1".parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let mut moves = pos.legal_moves();
        let order: Vec<Move> = Picker::new(&pos, &mut moves, PackedMove::NONE, None).collect();
        let last = order.last().unwrap();
        assert_eq!(
            (last.capture(), last.role()),
            (Some(Role::Pawn), Role::Queen)
        );
    }

    /// The order of the first version of the picker: every move scored up front, exchanges
    /// included, then chosen by selection with swaps.
    fn eager_order(pos: &Chess, tt_move: PackedMove, quiet: Option<&QuietOrder>) -> Vec<Move> {
        let mut moves = pos.legal_moves();
        let mut scores: Vec<i32> = moves
            .iter()
            .map(|&m| {
                let killers = quiet.map_or([None; 2], |q| q.killers).map(Marked::new);
                let counter = Marked::new(quiet.and_then(|q| q.counter));
                let s = match quiet.is_some_and(|q| q.continuation != [None; 2]) {
                    true => optimistic_score::<true>(m, tt_move, killers, counter, quiet),
                    false => optimistic_score::<false>(m, tt_move, killers, counter, quiet),
                };
                if is_unchecked_tactical(s) && !is_good_tactical(pos, m) {
                    s - GOOD_TACTICAL + BAD_TACTICAL
                } else {
                    s
                }
            })
            .collect();
        let mut order = Vec::new();
        for next in 0..moves.len() {
            let mut best = next;
            for i in next + 1..moves.len() {
                if scores[i] > scores[best] {
                    best = i;
                }
            }
            moves.swap(next, best);
            scores.swap(next, best);
            order.push(moves[next]);
        }
        order
    }

    #[test]
    fn checking_exchanges_late_gives_the_order_of_scoring_them_all_first() {
        use crate::basics::rng::Lcg;
        let mut rng = Lcg(7);
        let mut h = Heuristics::default();
        let mut compared = 0;
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbqkb1r/pp1p1ppp/2p5/4P3/2B5/8/PPP1NnPP/RNBQK2R w KQkq - 0 6",
        ] {
            let mut pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            for _ in 0..40 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Some history, so quiet moves are not all tied, and some ties left.
                let side = pos.turn();
                for m in moves.iter().filter(|m| !is_tactical(**m)).step_by(3) {
                    h.adjust(side, *m, (rng.next_u31() % 200) as i32 - 100);
                }
                let tt_move = match rng.next_u31() % 3 {
                    0 => PackedMove::NONE,
                    _ => PackedMove::new(moves[rng.next_u31() as usize % moves.len()]),
                };
                // Killers and a counter move among the quiet moves, when there are some.
                let quiets: Vec<Move> = moves
                    .iter()
                    .filter(|m| !is_tactical(**m))
                    .copied()
                    .collect();
                let mut any_quiet = || match quiets.len() {
                    0 => None,
                    n => Some(quiets[rng.next_u31() as usize % n]),
                };
                let (killers, counter) = ([any_quiet(), any_quiet()], any_quiet());
                for quiet in [false, true] {
                    let q = QuietOrder {
                        heuristics: &h,
                        killers,
                        side,
                        counter,
                        continuation: [None; 2],
                    };
                    let q = quiet.then_some(&q);
                    let mut list = moves.clone();
                    let lazy: Vec<Move> = Picker::new(&pos, &mut list, tt_move, q).collect();
                    assert_eq!(lazy, eager_order(&pos, tt_move, q));
                    compared += 1;
                }
                let m = moves[rng.next_u31() as usize % moves.len()];
                pos.play_unchecked(m);
            }
        }
        assert!(compared > 100, "{compared}");
    }

    #[test]
    fn killers_come_before_other_quiets_and_history_orders_the_rest() {
        let pos = Chess::default();
        let moves = pos.legal_moves();
        let find = |s: &str| {
            *moves
                .iter()
                .find(|m| m.to_uci(CastlingMode::Standard).to_string() == s)
                .unwrap()
        };
        let mut h = Heuristics::default();
        h.on_cutoff(Color::White, 4, find("g1f3"), &[]);
        h.on_cutoff(Color::White, 2, find("d2d4"), &[find("a2a3")]);
        h.on_cutoff(Color::White, 8, find("b1c3"), &[]);
        let q = QuietOrder {
            heuristics: &h,
            killers: [Some(find("d2d4")), Some(find("g1f3"))],
            side: Color::White,
            counter: None,
            continuation: [None; 2],
        };
        let mut list = moves.clone();
        let order: Vec<String> = Picker::new(&pos, &mut list, PackedMove::NONE, Some(&q))
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        // Killers of ply 3, newest first; then b1c3 by its history; a2a3 was penalised: last.
        assert_eq!(&order[..3], &["d2d4", "g1f3", "b1c3"]);
        assert_eq!(order.last().map(String::as_str), Some("a2a3"));
        assert!(h.history(Color::White, find("a2a3")) < 0);
        assert_eq!(h.history(Color::Black, find("b1c3")), 0);
    }
}
