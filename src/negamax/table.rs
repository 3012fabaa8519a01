//! The transposition table of the generic searches: a value found for a position is kept
//! with the depth it was searched to and what kind of value it is (exact, or a bound from a
//! cut-off), so the same position reached by another move order is not searched again.

/// What a stored value says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value itself (it fell inside the window).
    Exact,
    /// The true value is at least this (the search failed high).
    Lower,
    /// The true value is at most this (the search failed low).
    Upper,
}

impl Bound {
    /// The kind of a fail-soft value searched with the window (alpha, beta).
    pub fn of(value: i32, alpha: i32, beta: i32) -> Bound {
        if value <= alpha {
            Bound::Upper
        } else if value >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<M> {
    pub key: u64,
    pub depth: u32,
    pub value: i32,
    pub bound: Bound,
    /// The move that gave the value (None when the node had no move to search).
    pub best: Option<M>,
}

/// A fixed number of slots indexed by key; a new entry replaces the old one in its slot.
pub struct Table<M> {
    slots: Vec<Option<Entry<M>>>,
}

impl<M: Copy> Table<M> {
    pub fn new(slots: usize) -> Table<M> {
        Table {
            slots: vec![None; slots.max(1)],
        }
    }

    fn index(&self, key: u64) -> usize {
        (key % self.slots.len() as u64) as usize
    }

    pub fn probe(&self, key: u64) -> Option<Entry<M>> {
        self.slots[self.index(key)].filter(|e| e.key == key)
    }

    pub fn store(&mut self, entry: Entry<M>) {
        let i = self.index(entry.key);
        self.slots[i] = Some(entry);
    }

    pub fn clear(&mut self) {
        self.slots.fill(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_classified_against_the_window() {
        assert_eq!(Bound::of(3, 3, 8), Bound::Upper);
        assert_eq!(Bound::of(-5, 3, 8), Bound::Upper);
        assert_eq!(Bound::of(4, 3, 8), Bound::Exact);
        assert_eq!(Bound::of(8, 3, 8), Bound::Lower);
    }

    #[test]
    fn an_entry_is_found_by_its_key_only() {
        let mut t: Table<u8> = Table::new(7);
        let e = Entry {
            key: 10,
            depth: 2,
            value: -4,
            bound: Bound::Lower,
            best: Some(3),
        };
        t.store(e);
        assert_eq!(t.probe(10), Some(e));
        // Key 17 shares slot 3 with key 10 but is another position.
        assert_eq!(t.probe(17), None);
        t.store(Entry { key: 17, ..e });
        assert_eq!(t.probe(10), None);
        t.clear();
        assert_eq!(t.probe(17), None);
    }
}
