//! Move ordering: the TT move first, then captures and promotions by MVV-LVA, then the two
//! killer moves of the ply, then the counter move to the opponent's last move, then quiet
//! moves by their history score (`history.rs`, which the picker only reads), then captures
//! that lose material.

use arrayvec::ArrayVec;
use shakmaty::{Chess, Color, Move, MoveList, Role};

use super::history::{CounterMoves, QuietHistory};
use super::see::{piece_value, see};
use super::tt::PackedMove;

/// Priority classes, far enough apart that no in-class score crosses into the next.
const TT_MOVE: i32 = 1_000_000;
const GOOD_TACTICAL: i32 = 100_000;
const KILLER_1: i32 = 90_000;
const KILLER_2: i32 = 89_000;
const COUNTER: i32 = 88_000;
/// Captures that lose material by static exchange come after every quiet move: a quiet
/// score (its history, within ±`history_max`) stays above -88,000, a losing capture (this
/// plus under 30,000 of MVV-LVA) below -170,000.
const BAD_TACTICAL: i32 = -200_000;

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

/// Where quiet moves are ordered from: the history, the ply's killers and the side to move.
pub struct QuietOrder<'a> {
    pub history: &'a QuietHistory,
    pub killers: [Option<Move>; 2],
    pub side: Color,
    /// The counter move to the opponent's last move, if any.
    pub counter: Option<Move>,
}

impl<'a> QuietOrder<'a> {
    /// The order of a node where `side` moves, with its ply's `killers`, after the opponent's
    /// move `previous` (None at the root and after a null move): its counter move follows.
    pub fn new(
        history: &'a QuietHistory,
        counters: &CounterMoves,
        killers: [Option<Move>; 2],
        side: Color,
        previous: Option<Move>,
    ) -> QuietOrder<'a> {
        QuietOrder {
            history,
            killers,
            side,
            counter: previous.and_then(|p| counters.get(side, p)),
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
#[inline(always)]
fn optimistic_score(
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
        GOOD_TACTICAL + mvv_lva(m)
    } else if killers[0].is(m, packed) {
        KILLER_1
    } else if killers[1].is(m, packed) {
        KILLER_2
    } else if counter.is(m, packed) {
        COUNTER
    } else {
        quiet.map_or(0, |q| q.history.get_packed(q.side, packed))
    }
}

/// Whether a score is that of a capture or promotion not yet checked by exchange.
fn is_unchecked_tactical(score: i32) -> bool {
    (GOOD_TACTICAL..TT_MOVE).contains(&score)
}

/// The picker keeps each move's score as a key: the score times 256 plus 255 less the
/// move's slot in the list, so the largest key is the first of the highest scores, found in
/// one pass the compiler vectorises. Scores must stay inside ±2^23 (8,388,608): the classes
/// are at most a million and a quiet move's history at most 32,767 (an i16); a score made
/// of several history terms must keep within it too.
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
        picker.keys.extend(
            picker
                .moves
                .iter()
                .enumerate()
                .map(|(i, &m)| key(optimistic_score(m, tt_move, killers, counter, quiet), i)),
        );
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
                let s = optimistic_score(m, tt_move, killers, counter, quiet);
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
        let mut h = QuietHistory::default();
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
                let quiet: Vec<Move> = moves
                    .iter()
                    .filter(|m| !is_tactical(**m))
                    .copied()
                    .collect();
                for pair in quiet.chunks(2).step_by(2) {
                    h.update(side, 1 + (rng.next_u31() % 4) as i32, pair[0], pair);
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
                        history: &h,
                        killers,
                        side,
                        counter,
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
        let mut h = QuietHistory::default();
        h.update(Color::White, 4, find("g1f3"), &[]);
        h.update(Color::White, 2, find("d2d4"), &[find("a2a3")]);
        h.update(Color::White, 8, find("b1c3"), &[]);
        let q = QuietOrder {
            history: &h,
            killers: [Some(find("d2d4")), Some(find("g1f3"))],
            side: Color::White,
            counter: None,
        };
        let mut list = moves.clone();
        let order: Vec<String> = Picker::new(&pos, &mut list, PackedMove::NONE, Some(&q))
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        // Killers of ply 3, newest first; then b1c3 by its history; a2a3 was penalised: last.
        assert_eq!(&order[..3], &["d2d4", "g1f3", "b1c3"]);
        assert_eq!(order.last().map(String::as_str), Some("a2a3"));
        assert!(h.get(Color::White, find("a2a3")) < 0);
        assert_eq!(h.get(Color::Black, find("b1c3")), 0);
    }
}
