//! The generic searches checked against each other on a small game with transpositions:
//! three counters raised one at a time, with values drawn from a hash of the counters.

use super::*;

/// Counters a, b, c in 0..=3; a move raises one. The same counters are the same position
/// whatever the order (transpositions), and the side to move is the parity of their sum.
struct Counters {
    c: [u8; 3],
    salt: u64,
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl Counters {
    fn new(salt: u64) -> Counters {
        Counters { c: [0; 3], salt }
    }

    fn hash(&self) -> u64 {
        mix(self.key() ^ self.salt)
    }
}

impl Game for Counters {
    type Move = usize;
    type Moves = Vec<usize>;

    fn moves(&self) -> Vec<usize> {
        // Some positions forbid a counter, so branching varies and some have no move.
        (0..3)
            .filter(|&i| self.c[i] < 3 && (self.hash() >> (8 + i)) & 3 != 0)
            .collect()
    }

    fn play(&mut self, m: usize) {
        self.c[m] += 1;
    }

    fn undo(&mut self, m: usize) {
        self.c[m] -= 1;
    }

    fn terminal(&self) -> Option<i32> {
        let sum: u8 = self.c.iter().sum();
        (sum > 0 && self.hash().is_multiple_of(9)).then(|| (self.hash() >> 20) as i32 % 30)
    }

    fn value_without_moves(&self) -> i32 {
        -7
    }

    fn heuristic(&mut self, effort: &mut Effort) -> Option<i32> {
        effort.spend()?;
        Some((self.hash() >> 40) as i32 % 50)
    }

    fn key(&self) -> u64 {
        u64::from(self.c[0]) | u64::from(self.c[1]) << 8 | u64::from(self.c[2]) << 16
    }
}

fn plain(salt: u64, depth: u32) -> (i32, u64) {
    let mut e = Effort::unlimited();
    let v = negamax(&mut Counters::new(salt), depth, &mut e, &mut Silent);
    (v.unwrap_or(i32::MIN), e.nodes)
}

#[test]
fn alpha_beta_equals_plain_negamax_and_visits_no_more_nodes() {
    let mut fewer = 0;
    for salt in 0..200 {
        for depth in 1..=6 {
            let (truth, all) = plain(salt, depth);
            let mut e = Effort::unlimited();
            let v = alphabeta(
                &mut Counters::new(salt),
                depth,
                -INF,
                INF,
                &mut e,
                &mut Silent,
            );
            assert_eq!(v, Some(truth), "salt {salt} depth {depth}");
            assert!(e.nodes <= all);
            fewer += usize::from(e.nodes < all);
        }
    }
    assert!(
        fewer > 500,
        "alpha-beta pruned in only {fewer} of 1200 searches"
    );
}

#[test]
fn fail_soft_values_bound_the_truth_outside_the_window() {
    for salt in 0..200 {
        let (truth, _) = plain(salt, 4);
        for (alpha, beta) in [
            (truth, truth + 5),
            (truth - 5, truth),
            (truth - 1, truth + 1),
        ] {
            let mut e = Effort::unlimited();
            let v = alphabeta(
                &mut Counters::new(salt),
                4,
                alpha,
                beta,
                &mut e,
                &mut Silent,
            );
            let v = v.unwrap_or(i32::MIN);
            if v <= alpha {
                assert!(truth <= v, "salt {salt}: fail-low {v} under {truth}");
            } else if v >= beta {
                assert!(truth >= v, "salt {salt}: fail-high {v} over {truth}");
            } else {
                assert_eq!(v, truth, "salt {salt}");
            }
        }
    }
}

#[test]
fn the_table_changes_the_work_but_not_the_value() {
    let mut saved = 0;
    for salt in 0..200 {
        for depth in 1..=7 {
            let (truth, all) = plain(salt, depth);
            let mut table = Table::new(1 << 10);
            let mut e = Effort::unlimited();
            let mut g = Counters::new(salt);
            let v = alphabeta_tt(&mut g, depth, -INF, INF, &mut table, &mut e, &mut Silent);
            assert_eq!(v, Some(truth), "salt {salt} depth {depth}");
            saved += usize::from(e.nodes < all);
        }
    }
    assert!(saved > 700, "{saved}");
}

#[test]
fn iterative_deepening_reports_each_depth_value() {
    for salt in 0..50 {
        let mut table = Table::new(1 << 10);
        let mut e = Effort::unlimited();
        let mut g = Counters::new(salt);
        let done = iterative_deepening(&mut g, 6, &mut table, &mut e, &mut Silent).unwrap();
        assert_eq!(done.len(), 6);
        for it in &done {
            assert_eq!(it.value, plain(salt, it.depth).0, "salt {salt}");
        }
        assert_eq!(done.iter().map(|i| i.nodes).sum::<u64>(), e.nodes);
        // The best move of the last iteration is a move of the root.
        if let Some(best) = done[5].best {
            assert!(g.moves().contains(&best));
        }
    }
}

#[test]
fn null_window_search_finds_the_exact_value() {
    for salt in 0..200 {
        let (truth, _) = plain(salt, 6);
        let mut table = Table::new(1 << 10);
        let mut e = Effort::unlimited();
        let v = solve(&mut Counters::new(salt), 6, -60, 60, &mut table, &mut e);
        assert_eq!(v, Some(truth), "salt {salt}");
    }
}

#[test]
fn every_search_gives_up_when_the_budget_runs_out() {
    let mut g = Counters::new(3);
    let (_, all) = plain(3, 5);
    let mut e = Effort::with_budget(all / 2);
    assert_eq!(negamax(&mut g, 5, &mut e, &mut Silent), None);
    let mut e = Effort::with_budget(3);
    assert_eq!(alphabeta(&mut g, 5, -INF, INF, &mut e, &mut Silent), None);
    let mut e = Effort::with_budget(3);
    let mut t = Table::new(16);
    assert_eq!(
        alphabeta_tt(&mut g, 5, -INF, INF, &mut t, &mut e, &mut Silent),
        None
    );
    // Taken back move by move on the way out: the game is where it started.
    assert_eq!(g.key(), 0);
}
