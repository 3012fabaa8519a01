//! The solver's transposition table: one u64 per slot, 2^k slots, holding a lower or an
//! upper bound on a position's score. `reset` is O(1): a generation number in every entry
//! makes the entries of earlier positions invisible.

use super::position::KEY_BITS;

/// Slots by default: 2^16 (512 KB). The table is reset before each position, and a solve
/// of the test sets' positions visits tens of thousands of nodes: a small table that stays
/// in the processor's caches is faster than a large one (measured: docs/layout.md).
pub const DEFAULT_BITS: u32 = 16;

// Entry layout (generation 0 is never current: an empty slot):
//
//   63        56 55      49 48                   0
//   [generation ][  bound  ][        key          ]
//
// The key (< 2^49) is kept whole, so positions are told apart exactly. The bound is the
// score + 32 (6 bits) and a flag: a lower bound (1) or an upper bound (0).
const BOUND_SHIFT: u32 = KEY_BITS;
const GENERATION_SHIFT: u32 = KEY_BITS + 7;
const MAX_GENERATION: u64 = (1 << (64 - GENERATION_SHIFT)) - 1;
const KEY_MASK: u64 = (1 << KEY_BITS) - 1;
const LOWER_FLAG: u64 = 1 << 6;
const OFFSET: i32 = 32;

/// What the table knows about a position's score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    AtLeast(i32),
    AtMost(i32),
}

pub struct Table {
    slots: Vec<u64>,
    shift: u32,
    generation: u64,
}

impl Default for Table {
    fn default() -> Table {
        Table::new(DEFAULT_BITS)
    }
}

impl Table {
    /// A table of 2^bits slots (bits from 1 to 32).
    pub fn new(bits: u32) -> Table {
        let bits = bits.clamp(1, 32);
        Table {
            // Written now (an entry of generation 0, empty), so the pages are mapped before
            // the first solve rather than faulted in during it.
            slots: vec![1; 1 << bits],
            shift: 64 - bits,
            generation: 1,
        }
    }

    /// As `new`, with an error instead of an abort when the memory cannot be had.
    pub fn try_new(bits: u32) -> Result<Table, String> {
        let bits = bits.clamp(1, 32);
        let len = 1usize << bits;
        let mut slots = Vec::new();
        slots.try_reserve_exact(len).map_err(|_| {
            format!(
                "cannot allocate a table of 2^{bits} entries ({} MB)",
                (len * 8) >> 20
            )
        })?;
        slots.resize(len, 1);
        Ok(Table {
            slots,
            shift: 64 - bits,
            generation: 1,
        })
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Forgets every entry.
    pub fn reset(&mut self) {
        if self.generation == MAX_GENERATION {
            self.slots.fill(1);
            self.generation = 0;
        }
        self.generation += 1;
    }

    // Multiplicative hashing: keys are sums of bitboards, far from uniform in their low
    // bits; the high bits of the product mix all of them.
    fn index(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    pub fn get(&self, key: u64) -> Option<Known> {
        let entry = self.slots[self.index(key)];
        if entry & KEY_MASK != key || entry >> GENERATION_SHIFT != self.generation {
            return None;
        }
        let bound = entry >> BOUND_SHIFT;
        let score = (bound & 63) as i32 - OFFSET;
        Some(if bound & LOWER_FLAG != 0 {
            Known::AtLeast(score)
        } else {
            Known::AtMost(score)
        })
    }

    /// Stores `known` for `key`, replacing whatever the slot held.
    pub fn put(&mut self, key: u64, known: Known) {
        let bound = match known {
            Known::AtLeast(s) => LOWER_FLAG | (s + OFFSET) as u64,
            Known::AtMost(s) => (s + OFFSET) as u64,
        };
        let i = self.index(key);
        self.slots[i] = self.generation << GENERATION_SHIFT | bound << BOUND_SHIFT | key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_come_back_for_their_key_only() {
        let mut t = Table::new(4);
        let key = (1 << 48) + 12_345;
        t.put(key, Known::AtLeast(-21));
        assert_eq!(t.get(key), Some(Known::AtLeast(-21)));
        // A key sharing the slot is another position.
        let other = (1..1000u64)
            .find(|&k| k != key && t.index(k) == t.index(key))
            .unwrap();
        assert_eq!(t.get(other), None);
        t.put(key, Known::AtMost(21));
        assert_eq!(t.get(key), Some(Known::AtMost(21)));
        t.put(other, Known::AtMost(-3));
        assert_eq!(t.get(other), Some(Known::AtMost(-3)));
        assert_eq!(t.get(key), None);
    }

    #[test]
    fn a_table_made_with_an_error_path_is_the_same_empty_table() {
        let (a, b) = (Table::new(12), Table::try_new(12).unwrap());
        assert_eq!((a.len(), a.shift), (b.len(), b.shift));
        assert_eq!(a.slots, b.slots);
    }

    #[test]
    fn reset_forgets_everything_even_when_generations_wrap() {
        let mut t = Table::new(10);
        t.put(99, Known::AtLeast(5));
        t.reset();
        assert_eq!(t.get(99), None);
        t.generation = MAX_GENERATION;
        t.put(99, Known::AtLeast(5));
        assert_eq!(t.get(99), Some(Known::AtLeast(5)));
        t.reset();
        assert_eq!(t.generation, 1);
        assert_eq!(t.get(99), None);
        // The empty pattern is no position's entry.
        assert_eq!(t.get(1), None);
    }

    #[test]
    fn every_generation_through_a_wrap_holds_its_entries() {
        // More resets than generations: each one's entry must read back until the next.
        let mut t = Table::new(8);
        assert_eq!((t.len(), t.is_empty()), (256, false));
        for i in 0..3 * MAX_GENERATION {
            t.put(77, Known::AtMost(-2));
            assert_eq!(t.get(77), Some(Known::AtMost(-2)), "after {i} resets");
            t.reset();
            assert_eq!(t.get(77), None, "after {} resets", i + 1);
        }
    }

    #[test]
    fn keys_spread_over_the_slots() {
        // A hundred positions in 2^16 slots: the hash gives each its own (checked for these
        // keys), so all of them are still there at the end.
        let mut t = Table::new(16);
        let keys: Vec<u64> = (1..=100u64).map(|i| i * 0x1_0203 + (i << 40)).collect();
        for (i, &k) in keys.iter().enumerate() {
            t.put(k, Known::AtLeast(i as i32 % 20));
        }
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(t.get(k), Some(Known::AtLeast(i as i32 % 20)), "{k:#x}");
        }
    }
}
