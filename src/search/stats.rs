//! How often each selective part of the search acted in one search, and at which depth:
//! counted by a tuning build (`--features tune`), whose tests check that each part acts
//! where it should and nowhere else and whose `bench --pruning` prints the counts by depth;
//! a normal build counts nothing and pays nothing for it.

/// Something a selective part of the search did at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A node was searched (quiescence not included), counted at the depth it came with:
    /// what the node events (cuts, extensions) are set beside.
    Node,
    /// A node came to its moves, counted at the depth they are searched at (a ply less after
    /// an internal iterative reduction): what the move events (pruned, reduced) are set beside.
    MoveLoop,
    /// A node in check was searched a ply deeper.
    CheckExtension,
    /// The table's bound decided a node.
    TableCut,
    /// Reverse futility: the estimate stood far enough above beta.
    ReverseFutilityCut,
    /// Passing the move still held beta.
    NullMoveCut,
    /// A node without a table move was searched a ply shallower.
    InternalReduction,
    /// The table move was the only good one and was searched a ply deeper.
    SingularExtension,
    /// The search without the table move held beta too.
    MultiCut,
    /// A quiet move was skipped as too late in the order.
    LateMovePruned,
    /// A quiet move was skipped as unable to reach alpha.
    FutilityPruned,
    /// A move was skipped as losing too much by exchange.
    ExchangePruned,
    /// A late move was searched shallower first.
    Reduced,
    /// ... and less (or not) because of its good history.
    ReducedLessByHistory,
    /// ... and more because of its bad history.
    ReducedMoreByHistory,
}

/// Events counted.
#[cfg(feature = "tune")]
const EVENTS: usize = Event::ReducedMoreByHistory as usize + 1;

/// Depths told apart: 0 to `DEPTHS - 2` each, and `DEPTHS - 1` for that and deeper.
pub const DEPTHS: usize = 24;

/// Counts of each `Event` by the depth of the node it happened at, over one search (all zero
/// in a normal build).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    #[cfg(feature = "tune")]
    counts: [[u64; DEPTHS]; EVENTS],
}

impl Stats {
    /// Counts `event` at a node of `depth` plies (a tuning build only).
    #[inline(always)]
    pub fn add(&mut self, event: Event, depth: i32) {
        #[cfg(feature = "tune")]
        {
            let bucket = (depth.max(0) as usize).min(DEPTHS - 1);
            self.counts[event as usize][bucket] += 1;
        }
        #[cfg(not(feature = "tune"))]
        let _ = (event, depth);
    }

    /// How often `event` happened at any depth (0 in a normal build).
    pub fn count(&self, event: Event) -> u64 {
        (0..DEPTHS).map(|d| self.count_at(event, d)).sum()
    }

    /// How often `event` happened at nodes of `depth` plies, the last depth counting the
    /// deeper ones too (0 in a normal build).
    pub fn count_at(&self, event: Event, depth: usize) -> u64 {
        #[cfg(feature = "tune")]
        {
            self.counts[event as usize].get(depth).copied().unwrap_or(0)
        }
        #[cfg(not(feature = "tune"))]
        {
            let _ = (event, depth);
            0
        }
    }

    /// Adds `other`'s counts to these (another search's).
    pub fn merge(&mut self, other: &Stats) {
        #[cfg(feature = "tune")]
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            for (m, t) in mine.iter_mut().zip(theirs.iter()) {
                *m += t;
            }
        }
        #[cfg(not(feature = "tune"))]
        let _ = other;
    }

    /// Whether this build counts events.
    pub const fn counting() -> bool {
        cfg!(feature = "tune")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tuning_build_counts_each_event_apart_and_a_normal_build_none() {
        let mut s = Stats::default();
        s.add(Event::MultiCut, 5);
        s.add(Event::MultiCut, 7);
        s.add(Event::CheckExtension, 1);
        let counted = u64::from(Stats::counting());
        assert_eq!(s.count(Event::MultiCut), 2 * counted);
        assert_eq!(s.count_at(Event::MultiCut, 5), counted);
        assert_eq!(s.count_at(Event::MultiCut, 6), 0);
        assert_eq!(s.count(Event::CheckExtension), counted);
        assert_eq!(s.count(Event::ReducedMoreByHistory), 0);
    }

    #[test]
    fn depths_past_the_last_are_counted_in_it_and_negative_ones_at_zero() {
        let mut s = Stats::default();
        s.add(Event::Node, DEPTHS as i32 + 5);
        s.add(Event::Node, DEPTHS as i32 - 1);
        s.add(Event::Node, -2);
        let counted = u64::from(Stats::counting());
        assert_eq!(s.count_at(Event::Node, DEPTHS - 1), 2 * counted);
        assert_eq!(s.count_at(Event::Node, 0), counted);
        assert_eq!(s.count_at(Event::Node, DEPTHS), 0);
    }

    #[test]
    fn merging_adds_the_counts_depth_by_depth() {
        let (mut a, mut b) = (Stats::default(), Stats::default());
        a.add(Event::Reduced, 3);
        b.add(Event::Reduced, 3);
        b.add(Event::Reduced, 4);
        a.merge(&b);
        let counted = u64::from(Stats::counting());
        assert_eq!(a.count_at(Event::Reduced, 3), 2 * counted);
        assert_eq!(a.count_at(Event::Reduced, 4), counted);
    }
}
