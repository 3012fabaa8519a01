//! How often each selective part of the search acted in one search: counted by a tuning
//! build (`--features tune`), whose tests check that each part acts where it should and
//! nowhere else; a normal build counts nothing and pays nothing for it.

/// Something a selective part of the search did at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
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

/// Counts of each `Event` over one search (all zero in a normal build).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    #[cfg(feature = "tune")]
    counts: [u64; EVENTS],
}

impl Stats {
    /// Counts `event` (a tuning build only).
    #[inline(always)]
    pub fn add(&mut self, event: Event) {
        #[cfg(feature = "tune")]
        {
            self.counts[event as usize] += 1;
        }
        #[cfg(not(feature = "tune"))]
        let _ = event;
    }

    /// How often `event` happened (0 in a normal build).
    pub fn count(&self, event: Event) -> u64 {
        #[cfg(feature = "tune")]
        {
            self.counts[event as usize]
        }
        #[cfg(not(feature = "tune"))]
        {
            let _ = event;
            0
        }
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
        s.add(Event::MultiCut);
        s.add(Event::MultiCut);
        s.add(Event::CheckExtension);
        let counted = u64::from(Stats::counting());
        assert_eq!(s.count(Event::MultiCut), 2 * counted);
        assert_eq!(s.count(Event::CheckExtension), counted);
        assert_eq!(s.count(Event::ReducedMoreByHistory), 0);
    }
}
