//! What quiet moves did before, learnt from the search's cutoffs and kept from one search to
//! the next: the butterfly history (per side, from-square and to-square, a score that rises
//! with each cutoff and falls with each failure, within its bound) and the counter moves
//! (per side and the opponent's last move, the quiet move that refuted it). Each table is
//! written only here, on a cutoff; the move picker and the reductions only read them.
//! (Killers live in the search stack.)

use shakmaty::{Color, Move};

use super::params;
use super::tt::PackedMove;

/// The history bonus of a cutoff at `depth` (the quiet moves tried before it lose as much):
/// `quadratic d² + linear (d - 1)`, at most the cap and never above the table's bound.
pub fn history_bonus(depth: i32) -> i32 {
    let d = depth.max(1);
    (params::history_bonus_quadratic() * d * d + params::history_bonus_linear() * (d - 1))
        .min(params::history_bonus_cap())
        .min(params::history_max())
}

/// The bounded update of an entry `h` by `bonus`: less in proportion to how large the entry
/// already is, so that entries stay within `max` either way ("gravity"). In i64: a tuning
/// build's largest bound and bonus multiply past i32.
fn gravity(h: i32, bonus: i32, max: i32) -> i32 {
    (i64::from(bonus) - i64::from(h) * i64::from(bonus).abs() / i64::from(max)) as i32
}

/// The butterfly history of quiet moves: per side, from-square and to-square, an i16 score
/// within ±`history_max` (at most 32,767).
pub struct QuietHistory {
    entries: Box<[[[i16; 64]; 64]; 2]>,
}

impl Default for QuietHistory {
    fn default() -> QuietHistory {
        QuietHistory {
            entries: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

impl QuietHistory {
    /// The entries' bound, either way.
    pub fn bound() -> i32 {
        params::history_max()
    }

    /// The score of `m` for `side`.
    pub fn get(&self, side: Color, m: Move) -> i32 {
        self.get_packed(side, PackedMove::new(m))
    }

    /// The score of the move packed as `m` (its from- and to-squares) for `side`.
    #[inline(always)]
    pub fn get_packed(&self, side: Color, m: PackedMove) -> i32 {
        let (from, to) = (m.0 as usize & 63, (m.0 as usize >> 6) & 63);
        i32::from(self.entries[side as usize][from][to])
    }

    /// A quiet move `best` refuted the position at `depth`: it gains the bonus of the depth,
    /// and each other quiet move `tried` before it, which did not cut, loses as much.
    pub fn update(&mut self, side: Color, depth: i32, best: Move, tried: &[Move]) {
        let bonus = history_bonus(depth);
        self.add(side, best, bonus);
        for &m in tried {
            if m != best {
                self.add(side, m, -bonus);
            }
        }
    }

    /// Moves the entry of `m` by `bonus`, less in proportion to how large it already is.
    fn add(&mut self, side: Color, m: Move, bonus: i32) {
        let p = PackedMove::new(m).0 as usize;
        let e = &mut self.entries[side as usize][p & 63][(p >> 6) & 63];
        let h = i32::from(*e);
        // Gravity keeps h + its change within the bound, which fits in i16.
        *e = (h + gravity(h, bonus, Self::bound())) as i16;
    }

    /// Every entry back to zero.
    pub fn clear(&mut self) {
        self.entries.as_flattened_mut().as_flattened_mut().fill(0);
    }
}

/// The counter moves: per side to move, and per piece and target square of the opponent's
/// last move, the quiet move that last refuted it.
pub struct CounterMoves {
    moves: Box<[[[Option<Move>; 64]; 6]; 2]>,
}

impl Default for CounterMoves {
    fn default() -> CounterMoves {
        CounterMoves {
            moves: Box::new([[[None; 64]; 6]; 2]),
        }
    }
}

impl CounterMoves {
    /// The quiet move that last refuted `previous`, the opponent's move, for `side`.
    pub fn get(&self, side: Color, previous: Move) -> Option<Move> {
        self.moves[side as usize][previous.role() as usize - 1][previous.to() as usize]
    }

    /// `reply`, a quiet move of `side`, refuted the opponent's `previous`.
    pub fn set(&mut self, side: Color, previous: Move, reply: Move) {
        self.moves[side as usize][previous.role() as usize - 1][previous.to() as usize] =
            Some(reply);
    }

    /// Every entry back to none.
    pub fn clear(&mut self) {
        self.moves.as_flattened_mut().as_flattened_mut().fill(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, Position};

    fn find(pos: &Chess, uci: &str) -> Move {
        pos.legal_moves()
            .into_iter()
            .find(|m| m.to_uci(CastlingMode::Standard).to_string() == uci)
            .unwrap()
    }

    #[test]
    fn history_bonuses_grow_with_depth_up_to_the_cap_and_never_pass_the_bound() {
        assert_eq!(
            [1, 2, 4, 8, 12].map(history_bonus),
            [16, 192, 640, 1536, 1536]
        );
        let mut last = 0;
        for d in -3..=128 {
            let b = history_bonus(d);
            assert!(
                b >= last && b >= 1 && b <= QuietHistory::bound(),
                "{d}: {b}"
            );
            last = b;
        }
    }

    /// The bounded update: the rewarded move approaches the bound from below and the
    /// penalised one from above, without passing it, at any depth; the other side's entries
    /// and the other moves' are untouched, and clear forgets them.
    #[test]
    fn quiet_history_entries_move_toward_the_bound_and_stay_within_it() {
        let pos = Chess::default();
        let (good, bad, other) = (find(&pos, "g1f3"), find(&pos, "a2a3"), find(&pos, "e2e4"));
        let mut h = QuietHistory::default();
        h.update(Color::White, 4, good, &[bad, good]);
        assert_eq!(h.get(Color::White, good), 640);
        assert_eq!(h.get(Color::White, bad), -640);
        // A second bonus of 640 adds 640 less 640 x 640 / 16384 (25).
        h.update(Color::White, 4, good, &[]);
        assert_eq!(h.get(Color::White, good), 640 + 640 - 25);
        for i in 0..5000 {
            h.update(Color::White, 1 + i % 128, good, &[bad]);
            let (g, b) = (h.get(Color::White, good), h.get(Color::White, bad));
            assert!(0 < g && g <= QuietHistory::bound(), "{i}: {g}");
            assert!(-QuietHistory::bound() <= b && b < 0, "{i}: {b}");
        }
        assert!(h.get(Color::White, good) > QuietHistory::bound() * 9 / 10);
        assert_eq!(h.get(Color::Black, good), 0);
        assert_eq!(h.get(Color::White, other), 0);
        assert_eq!(
            h.get_packed(Color::White, PackedMove::new(good)),
            h.get(Color::White, good)
        );
        h.clear();
        assert_eq!(h.get(Color::White, good), 0);
    }

    #[test]
    fn a_counter_move_is_kept_per_side_and_per_piece_and_square_of_the_move_refuted() {
        let pos = Chess::default();
        let e4 = find(&pos, "e2e4");
        let mut after = pos.clone();
        after.play_unchecked(e4);
        let (e5, c5) = (find(&after, "e7e5"), find(&after, "c7c5"));
        let mut c = CounterMoves::default();
        assert_eq!(c.get(Color::Black, e4), None);
        c.set(Color::Black, e4, e5);
        assert_eq!(c.get(Color::Black, e4), Some(e5));
        // The newest refutation replaces the old one; the other side's table is apart.
        c.set(Color::Black, e4, c5);
        assert_eq!(c.get(Color::Black, e4), Some(c5));
        assert_eq!(c.get(Color::White, e4), None);
        // A knight's move to e4 is another entry than the pawn's.
        let knight_to_e4 = Move::Normal {
            role: shakmaty::Role::Knight,
            from: shakmaty::Square::F2,
            capture: None,
            to: shakmaty::Square::E4,
            promotion: None,
        };
        assert_eq!(c.get(Color::Black, knight_to_e4), None);
        c.clear();
        assert_eq!(c.get(Color::Black, e4), None);
    }
}
