//! The exact value by zero-width searches, as a solver finds it: each search only answers
//! "is the value above m?", which prunes far more than a full window, and its fail-soft
//! answer narrows the known range [min, max] until one value is left.

use super::game::{Effort, Game, Silent};
use super::table::Table;
use super::with_table::alphabeta_tt;

/// Where to ask next inside [min, max] (min < max): a value m with min <= m < max.
pub type Split = fn(i32, i32) -> i32;

/// Halves the range (rounding down, so the answer always shrinks it).
pub fn bisect(min: i32, max: i32) -> i32 {
    min + (max - min) / 2
}

/// The exact value, known to lie in [min, max], found by calling `probe(m)` for a search
/// with the window (m, m + 1) that returns a fail-soft value: above m means the value is at
/// least that, at most m means it is at most that. None when a probe gives up.
pub fn null_window<F>(mut min: i32, mut max: i32, split: Split, mut probe: F) -> Option<i32>
where
    F: FnMut(i32) -> Option<i32>,
{
    while min < max {
        let m = split(min, max).clamp(min, max - 1);
        let value = probe(m)?;
        if value > m {
            min = value.min(max);
        } else {
            max = value.max(min);
        }
    }
    Some(min)
}

/// Solves `game` to `depth` by zero-width alpha-beta searches sharing one table.
pub fn solve<G: Game>(
    game: &mut G,
    depth: u32,
    min: i32,
    max: i32,
    table: &mut Table<G::Move>,
    effort: &mut Effort,
) -> Option<i32> {
    null_window(min, max, bisect, |m| {
        alphabeta_tt(game, depth, m, m + 1, table, effort, &mut Silent)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A probe that answers as a fail-hard search over a known value would, counting calls.
    fn hard_probe(truth: i32, calls: &mut u32) -> impl FnMut(i32) -> Option<i32> + '_ {
        move |m| {
            *calls += 1;
            Some(if truth > m { m + 1 } else { m })
        }
    }

    #[test]
    fn bisection_finds_every_value_of_the_range_in_few_probes() {
        for truth in -21..=21 {
            let mut calls = 0;
            let found = null_window(-21, 21, bisect, hard_probe(truth, &mut calls));
            assert_eq!(found, Some(truth));
            assert!(calls <= 6, "{truth}: {calls} probes");
        }
    }

    #[test]
    fn a_fail_soft_answer_jumps_straight_to_the_value() {
        let mut calls = 0;
        let found = null_window(-21, 21, bisect, |_| {
            calls += 1;
            Some(7)
        });
        assert_eq!(found, Some(7));
        // Above 0: the range becomes [7, 21]; at 14 the answer 7 closes it.
        assert_eq!(calls, 2);
    }

    #[test]
    fn a_probe_that_gives_up_ends_the_search() {
        assert_eq!(null_window(-5, 5, bisect, |_| None), None);
    }
}
