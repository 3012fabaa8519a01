//! Move ordering: the TT move first, then captures and promotions by MVV-LVA, then the two
//! killer moves of the ply, then the counter move to the opponent's last move, then quiet
//! moves by their history score.

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
/// Captures that lose material by static exchange come after every quiet move.
const BAD_TACTICAL: i32 = -100_000;

/// What quiet moves caused cutoffs before: per side, from-square and to-square a score that
/// grows with the depth of each cutoff; per side, and per piece and square of the opponent's
/// last move, the quiet move that refuted it. (Killers live in the search stack.)
pub struct Heuristics {
    history: Box<[[[i32; 64]; 64]; 2]>,
    counters: Box<[[[Option<Move>; 64]; 6]; 2]>,
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics {
            history: Box::new([[[0; 64]; 64]; 2]),
            counters: Box::new([[[None; 64]; 6]; 2]),
        }
    }
}

fn squares(m: Move) -> (usize, usize) {
    let p = PackedMove::new(m).0;
    ((p & 63) as usize, ((p >> 6) & 63) as usize)
}

impl Heuristics {
    pub fn history(&self, side: Color, m: Move) -> i32 {
        let (from, to) = squares(m);
        self.history[side as usize][from][to]
    }

    /// A quiet move refuted the position: reward its history; the quiet moves tried before
    /// it, which did not cut, are penalised.
    pub fn on_cutoff(&mut self, side: Color, depth: i32, best: Move, tried: &[Move]) {
        let bonus = (depth * depth).min(params::history_max());
        self.adjust(side, best, bonus);
        for &m in tried {
            if m != best {
                self.adjust(side, m, -bonus);
            }
        }
    }

    /// Moves an entry by `bonus`, less in proportion to how large it already is.
    fn adjust(&mut self, side: Color, m: Move, bonus: i32) {
        let (from, to) = squares(m);
        let h = &mut self.history[side as usize][from][to];
        // History scores stay within a bound: this "gravity" pulls them back toward zero.
        *h += bonus - *h * bonus.abs() / params::history_max();
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
}

/// Whether a capture or promotion does not lose material. Taking a piece worth at least the
/// taker is always fine; otherwise the exchange is played out.
pub fn is_good_tactical(pos: &Chess, m: Move) -> bool {
    let victim = m.capture().map_or(0, piece_value);
    (victim >= piece_value(m.role()) && m.role() != Role::King) || see(pos, m) >= 0
}

/// Scores each move; the picker takes them highest first.
pub fn score_moves(
    pos: &Chess,
    moves: &MoveList,
    tt_move: PackedMove,
    quiet: Option<&QuietOrder>,
    scores: &mut [i32],
) {
    let killers = quiet.map_or([None; 2], |q| q.killers);
    let counter = quiet.and_then(|q| q.counter);
    for (m, s) in moves.iter().zip(scores.iter_mut()) {
        *s = if tt_move.matches(*m) {
            TT_MOVE
        } else if is_tactical(*m) {
            let class = if is_good_tactical(pos, *m) {
                GOOD_TACTICAL
            } else {
                BAD_TACTICAL
            };
            class + mvv_lva(*m)
        } else if killers[0] == Some(*m) {
            KILLER_1
        } else if killers[1] == Some(*m) {
            KILLER_2
        } else if counter == Some(*m) {
            COUNTER
        } else {
            quiet.map_or(0, |q| q.heuristics.history(q.side, *m))
        };
    }
}

/// Hands out moves best first by selection: cheap when a cutoff comes early.
pub struct Picker {
    moves: MoveList,
    scores: [i32; 256],
    next: usize,
}

impl Picker {
    pub fn new(
        pos: &Chess,
        moves: MoveList,
        tt_move: PackedMove,
        quiet: Option<&QuietOrder>,
    ) -> Picker {
        let mut scores = [0; 256];
        score_moves(pos, &moves, tt_move, quiet, &mut scores[..moves.len()]);
        Picker {
            moves,
            scores,
            next: 0,
        }
    }
}

impl Iterator for Picker {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
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
        let moves = pos.legal_moves();
        let quiet = *moves.iter().find(|m| !m.is_capture()).unwrap();
        let order: Vec<Move> = Picker::new(&pos, moves, PackedMove::new(quiet), None).collect();
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
        let order: Vec<Move> =
            Picker::new(&pos, pos.legal_moves(), PackedMove::NONE, None).collect();
        let last = order.last().unwrap();
        assert_eq!(
            (last.capture(), last.role()),
            (Some(Role::Pawn), Role::Queen)
        );
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
        };
        let order: Vec<String> = Picker::new(&pos, moves.clone(), PackedMove::NONE, Some(&q))
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        // Killers of ply 3, newest first; then b1c3 by its history; a2a3 was penalised: last.
        assert_eq!(&order[..3], &["d2d4", "g1f3", "b1c3"]);
        assert_eq!(order.last().map(String::as_str), Some("a2a3"));
        assert!(h.history(Color::White, find("a2a3")) < 0);
        assert_eq!(h.history(Color::Black, find("b1c3")), 0);
    }
}
