//! The transposition table: a shared, lock-free hash of search results keyed by Zobrist key.
//! Several search threads may read and write it at once; a torn write reads as a miss.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use shakmaty::Move;

use super::score::{MATE, score_from_tt, score_to_tt};
use crate::basics::memory::advise_huge_pages;

/// What a stored score says about the true value of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is exactly the score.
    Exact,
    /// The search failed high: the true value is at least the score.
    Lower,
    /// The search failed low: the true value is at most the score.
    Upper,
}

impl Bound {
    /// What a fail-soft search's `score` is for a node entered with the window
    /// (`alpha`, `beta`): a lower bound at beta or above, exact inside, an upper bound at
    /// alpha or below.
    pub fn of_result(score: i32, alpha: i32, beta: i32) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Whether a score with this bound decides a node searched with the window
    /// (`alpha`, `beta`): exact, at least beta, or at most alpha.
    pub fn decides(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }

    fn to_bits(self) -> u64 {
        match self {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        }
    }

    fn from_bits(bits: u64) -> Option<Bound> {
        match bits {
            1 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Upper),
            _ => None,
        }
    }
}

/// A move packed in 16 bits: enough to find it again among the legal moves of the position.
///
/// ```text
///  15 14 13 12 | 11 ........ 6 | 5 ......... 0
///   0  promo   |  to square    |  from square
/// ```
/// Castling is stored king-square to rook-square, as shakmaty represents it. Zero is "no move"
/// (from a1 to a1 can never be a move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PackedMove(pub u16);

impl PackedMove {
    pub const NONE: PackedMove = PackedMove(0);

    pub fn new(m: Move) -> PackedMove {
        let (from, to) = match m {
            Move::Castle { king, rook } => (king, rook),
            _ => (m.from().unwrap_or(m.to()), m.to()),
        };
        let promo = m.promotion().map_or(0, |r| r as u16);
        PackedMove(from as u16 | (to as u16) << 6 | promo << 12)
    }

    pub fn is_none(self) -> bool {
        self.0 == 0
    }

    pub fn matches(self, m: Move) -> bool {
        !self.is_none() && PackedMove::new(m) == self
    }
}

/// One entry as the search stores and probes it, the score as "distance from this node"
/// (the table converts mate scores to and from "distance from the stored node").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    pub mv: PackedMove,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// One slot of a lock-free table that threads read and write at once (this one and perft's):
/// two 64-bit words, the first `key ^ data`, the second `data`, so a slot whose two words
/// come from different writes fails the key check and reads as empty. Zero data is empty.
pub struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 16);

impl Slot {
    /// The data stored for `key`, if this slot holds it whole.
    pub fn load(&self, key: u64) -> Option<u64> {
        let data = self.data.load(Ordering::Relaxed);
        let check = self.check.load(Ordering::Relaxed);
        (check ^ data == key && data != 0).then_some(data)
    }

    /// The key and data the slot holds, whichever key that is (a torn slot gives a key no
    /// position has, almost surely).
    pub fn peek(&self) -> (u64, u64) {
        let data = self.data.load(Ordering::Relaxed);
        (self.check.load(Ordering::Relaxed) ^ data, data)
    }

    pub fn store(&self, key: u64, data: u64) {
        self.data.store(data, Ordering::Relaxed);
        self.check.store(key ^ data, Ordering::Relaxed);
    }

    fn clear(&self) {
        self.store(0, 0);
    }
}

/// `count` empty slots, backed by huge pages where the system allows; `None` when the
/// memory cannot be had.
pub fn slot_table(count: usize) -> Option<Vec<Slot>> {
    let mut slots = Vec::new();
    slots.try_reserve_exact(count).ok()?;
    // Refused advice leaves a table that works the same, more slowly.
    let _ = advise_huge_pages(slots.spare_capacity_mut());
    slots.extend((0..count).map(|_| Slot {
        check: AtomicU64::new(0),
        data: AtomicU64::new(0),
    }));
    Some(slots)
}

/// Entry layout of the transposition table, in a slot's data word:
///
/// ```text
/// data bits:  63..58  57..56  55..48  47........32  31........16  15.........0
///              age    bound   depth   static eval   score (i16)   packed move
/// ```
type Entry = Slot;

const AGE_MASK: u8 = 63;

/// Stored evaluations are clamped to this either way, so "none" (-INFINITY, a position in
/// check) reads back as `-EVAL_LIMIT`.
pub const EVAL_LIMIT: i32 = 30000;

fn pack(mv: PackedMove, score: i16, eval: i16, depth: u8, bound: Bound, age: u8) -> u64 {
    u64::from(mv.0)
        | u64::from(score as u16) << 16
        | u64::from(eval as u16) << 32
        | u64::from(depth) << 48
        | bound.to_bits() << 56
        | u64::from(age & AGE_MASK) << 58
}

fn unpack_age(data: u64) -> u8 {
    (data >> 58) as u8 & AGE_MASK
}

fn unpack_depth(data: u64) -> u8 {
    (data >> 48) as u8
}

pub struct TranspositionTable {
    entries: Vec<Entry>,
    age: AtomicU8,
}

/// Bytes in one megabyte as the Hash option counts them.
const MB: usize = 1 << 20;

impl TranspositionTable {
    /// A table of `mb` megabytes; `Err` names the size when the memory cannot be had.
    pub fn new(mb: usize) -> Result<TranspositionTable, String> {
        let cannot = || format!("cannot allocate a {mb} MB hash table");
        let bytes = mb.max(1).checked_mul(MB).ok_or_else(cannot)?;
        let count = (bytes / std::mem::size_of::<Entry>()).max(1);
        let entries = slot_table(count).ok_or_else(cannot)?;
        Ok(TranspositionTable {
            entries,
            age: AtomicU8::new(0),
        })
    }

    pub fn size_mb(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry>() / MB
    }

    pub fn clear(&self) {
        for e in &self.entries {
            e.clear();
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Called once per `go`: entries from older searches become preferred victims.
    pub fn new_search(&self) {
        let next = (self.age.load(Ordering::Relaxed) + 1) & AGE_MASK;
        self.age.store(next, Ordering::Relaxed);
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift maps the key onto the table without a modulo.
        ((u128::from(key) * self.entries.len() as u128) >> 64) as usize
    }

    /// Starts loading the entry for `key` into the cache: a probe of a position just reached
    /// otherwise waits on main memory, the most expensive instruction of a search node.
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let entry: *const Entry = &self.entries[self.index(key)];
            // SAFETY: a prefetch only hints the cache; the pointer is to a live entry anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(entry.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64, ply: usize) -> Option<TtEntry> {
        let data = self.entries[self.index(key)].load(key)?;
        let bound = Bound::from_bits((data >> 56) & 3)?;
        Some(TtEntry {
            mv: PackedMove(data as u16),
            // `ply` turns a stored "mate from here" back into "mate from the root".
            score: score_from_tt(i32::from((data >> 16) as u16 as i16), ply),
            eval: i32::from((data >> 32) as u16 as i16),
            depth: i32::from(unpack_depth(data)),
            bound,
        })
    }

    /// Stores the result `entry` of the node of `key`, `ply` plies from the root. An entry of
    /// this search that was searched deeper for another key is kept; the old move is kept
    /// when the new result has none for the same key.
    pub fn store(&self, key: u64, ply: usize, entry: TtEntry) {
        self.write(key, ply, entry, false);
    }

    /// Stores a quiescence result (`entry`, of depth 0), but only over an empty entry,
    /// another depth-0 one, or one from an earlier search: a deeper result of this search is
    /// never lost to it.
    pub fn store_shallow(&self, key: u64, ply: usize, entry: TtEntry) {
        self.write(key, ply, entry, true);
    }

    /// `store` and `store_shallow`: one look at the old entry decides whether it gives way.
    fn write(&self, key: u64, ply: usize, entry: TtEntry, shallow: bool) {
        let TtEntry {
            mv,
            score,
            eval,
            depth,
            bound,
        } = entry;
        let e = &self.entries[self.index(key)];
        let (old_key, old) = e.peek();
        let age = self.age.load(Ordering::Relaxed);
        let same = old_key == key && old != 0;
        let depth = depth.clamp(0, 255);
        let this_search = old != 0 && unpack_age(old) == age;
        let keep_old = if shallow {
            this_search && unpack_depth(old) != 0
        } else {
            !same && this_search && i32::from(unpack_depth(old)) > depth + 3
        };
        if keep_old {
            return;
        }
        let mv = if mv.is_none() && same {
            PackedMove(old as u16)
        } else {
            mv
        };
        let score = score_to_tt(score, ply).clamp(-MATE, MATE) as i16;
        let data = pack(
            mv,
            score,
            eval.clamp(-EVAL_LIMIT, EVAL_LIMIT) as i16,
            depth as u8,
            bound,
            age,
        );
        e.store(key, data);
    }

    /// Permille of sampled entries written by the current search, for `info hashfull`.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let sample = self.entries.len().min(1000);
        let used = self.entries[..sample]
            .iter()
            .filter(|e| {
                let d = e.data.load(Ordering::Relaxed);
                d != 0 && unpack_age(d) == age
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::search::score::{MATE, mated_in};

    fn entry(mv: PackedMove, score: i32, eval: i32, depth: i32, bound: Bound) -> TtEntry {
        TtEntry {
            mv,
            score,
            eval,
            depth,
            bound,
        }
    }

    #[test]
    fn a_quiescence_result_never_replaces_a_deeper_entry_of_this_search() {
        let tt = TranspositionTable::new(1).unwrap();
        let key = 0x1234_5678_9ABC_DEF0;
        tt.store(key, 0, entry(PackedMove::NONE, 50, 10, 6, Bound::Exact));
        tt.store_shallow(key, 0, entry(PackedMove::NONE, -80, 10, 0, Bound::Upper));
        assert_eq!(tt.probe(key, 0).map(|h| (h.score, h.depth)), Some((50, 6)));
        // Over nothing, and over its own depth-0 entries, it is stored.
        let other = 0x8FED_CBA9_8765_4321; // another slot
        tt.store_shallow(other, 0, entry(PackedMove::NONE, 30, 10, 0, Bound::Lower));
        tt.store_shallow(other, 0, entry(PackedMove::NONE, 40, 10, 0, Bound::Exact));
        assert_eq!(
            tt.probe(other, 0).map(|h| (h.score, h.depth)),
            Some((40, 0))
        );
        // A deeper entry of an earlier search gives way.
        tt.new_search();
        tt.store_shallow(key, 0, entry(PackedMove::NONE, -80, 10, 0, Bound::Upper));
        assert_eq!(tt.probe(key, 0).map(|h| (h.score, h.depth)), Some((-80, 0)));
    }

    #[test]
    fn store_then_probe_round_trips_every_field() {
        let tt = TranspositionTable::new(1).unwrap();
        let key = 0x1234_5678_9abc_def0;
        let mv = PackedMove(0x2abc);
        tt.store(key, 3, entry(mv, -123, 45, 17, Bound::Lower));
        let hit = tt.probe(key, 3).unwrap();
        assert_eq!(
            hit,
            TtEntry {
                mv,
                score: -123,
                eval: 45,
                depth: 17,
                bound: Bound::Lower
            }
        );
        assert!(tt.probe(key ^ 1, 3).is_none());
    }

    #[test]
    fn mate_scores_are_stored_relative_to_the_node() {
        let tt = TranspositionTable::new(1).unwrap();
        // Found at ply 4: we mate in 7 plies from the root, i.e. 3 plies from this node.
        let root_score = MATE - 7;
        tt.store(
            1,
            4,
            entry(PackedMove::NONE, root_score, 0, 5, Bound::Exact),
        );
        // Probed from ply 2 by a transposition: now mate is 5 plies from the root.
        assert_eq!(tt.probe(1, 2).unwrap().score, MATE - 5);
        // Negative mates: we are mated in 6 plies from the root, found at ply 5.
        tt.store(
            2,
            5,
            entry(PackedMove::NONE, mated_in(6), 0, 5, Bound::Upper),
        );
        assert_eq!(tt.probe(2, 1).unwrap().score, mated_in(2));
        assert_eq!(tt.probe(2, 5).unwrap().score, mated_in(6));
    }

    #[test]
    fn a_torn_entry_reads_as_a_miss() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.store(77, 0, entry(PackedMove(5), 10, 0, 3, Bound::Exact));
        let i = tt.index(77);
        tt.entries[i].data.fetch_xor(1 << 20, Ordering::Relaxed);
        assert!(tt.probe(77, 0).is_none());
    }

    #[test]
    fn new_result_without_move_keeps_the_old_move() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.store(9, 0, entry(PackedMove(321), 10, 0, 3, Bound::Exact));
        tt.store(9, 0, entry(PackedMove::NONE, 20, 0, 4, Bound::Upper));
        let hit = tt.probe(9, 0).unwrap();
        assert_eq!(
            (hit.mv, hit.score, hit.bound),
            (PackedMove(321), 20, Bound::Upper)
        );
    }

    /// Two keys that share slot 0 of a 1 MB table (the slot is the key's top bits).
    const KEY_A: u64 = 1;
    const KEY_B: u64 = 2;

    fn depth_of(tt: &TranspositionTable, key: u64) -> Option<i32> {
        tt.probe(key, 0).map(|h| h.depth)
    }

    #[test]
    fn a_deep_entry_of_this_search_is_kept_against_a_much_shallower_other_key() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.index(KEY_A), tt.index(KEY_B));
        tt.store(KEY_A, 0, entry(PackedMove(1), 0, 0, 10, Bound::Exact));
        // Depth 6 is more than three plies shallower: A stays.
        tt.store(KEY_B, 0, entry(PackedMove(2), 0, 0, 6, Bound::Exact));
        assert_eq!(
            (depth_of(&tt, KEY_A), depth_of(&tt, KEY_B)),
            (Some(10), None)
        );
        // Depth 7 is within three plies: B takes the slot.
        tt.store(KEY_B, 0, entry(PackedMove(2), 0, 0, 7, Bound::Exact));
        assert_eq!(
            (depth_of(&tt, KEY_A), depth_of(&tt, KEY_B)),
            (None, Some(7))
        );
    }

    #[test]
    fn the_same_key_is_always_overwritten_even_by_a_shallower_result() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.store(KEY_A, 0, entry(PackedMove(1), 50, 0, 20, Bound::Exact));
        tt.store(KEY_A, 0, entry(PackedMove(3), -5, 0, 1, Bound::Upper));
        let hit = tt.probe(KEY_A, 0).unwrap();
        assert_eq!(
            (hit.mv, hit.score, hit.depth, hit.bound),
            (PackedMove(3), -5, 1, Bound::Upper)
        );
    }

    #[test]
    fn entries_of_an_earlier_search_give_way_whatever_their_depth() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.store(KEY_A, 0, entry(PackedMove(1), 0, 0, 30, Bound::Exact));
        tt.new_search();
        // Still readable in the next search...
        assert_eq!(depth_of(&tt, KEY_A), Some(30));
        // ...but replaced by anything stored in it.
        tt.store(KEY_B, 0, entry(PackedMove(2), 0, 0, 0, Bound::Lower));
        assert_eq!(
            (depth_of(&tt, KEY_A), depth_of(&tt, KEY_B)),
            (None, Some(0))
        );
        // The new entry is of the current search: it is protected in turn.
        tt.store(KEY_A, 0, entry(PackedMove(1), 0, 0, 0, Bound::Exact));
        assert_eq!(depth_of(&tt, KEY_A), Some(0));
        tt.store(KEY_B, 0, entry(PackedMove(2), 0, 0, 20, Bound::Exact));
        tt.store(KEY_A, 0, entry(PackedMove(1), 0, 0, 16, Bound::Exact));
        assert_eq!(
            (depth_of(&tt, KEY_A), depth_of(&tt, KEY_B)),
            (None, Some(20))
        );
    }

    #[test]
    fn ages_count_modulo_64_and_clear_forgets_everything() {
        let tt = TranspositionTable::new(1).unwrap();
        // Every search has its own age until 64 of them have passed.
        let ages: Vec<u8> = (0..64)
            .map(|_| {
                tt.new_search();
                tt.age.load(Ordering::Relaxed)
            })
            .collect();
        assert_eq!(ages, (1..64).chain([0]).collect::<Vec<u8>>());
        tt.store(KEY_A, 0, entry(PackedMove(1), 0, 0, 30, Bound::Exact));
        // 63 searches later the entry is still old...
        for _ in 0..63 {
            tt.new_search();
        }
        tt.store(KEY_B, 0, entry(PackedMove(2), 0, 0, 1, Bound::Exact));
        assert_eq!(depth_of(&tt, KEY_B), Some(1));
        // ...and after 64 the age has wrapped round: this deep entry counts as current.
        tt.store(KEY_A, 0, entry(PackedMove(1), 0, 0, 30, Bound::Exact));
        tt.new_search();
        for _ in 0..63 {
            tt.new_search();
        }
        tt.store(KEY_B, 0, entry(PackedMove(2), 0, 0, 1, Bound::Exact));
        assert_eq!(
            (depth_of(&tt, KEY_A), depth_of(&tt, KEY_B)),
            (Some(30), None)
        );
        tt.clear();
        assert_eq!((depth_of(&tt, KEY_A), tt.hashfull()), (None, 0));
    }

    #[test]
    fn packed_moves_identify_moves_including_castling_and_promotion() {
        use shakmaty::{CastlingMode, Chess, Position, fen::Fen};
        let fen: Fen = "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1".parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let moves = pos.legal_moves();
        for a in &moves {
            let p = PackedMove::new(*a);
            assert!(!p.is_none());
            let same: Vec<_> = moves.iter().filter(|b| p.matches(**b)).collect();
            assert_eq!(same, vec![a], "{a:?}");
        }
    }

    /// The option's value is read back from the table: a table holds as many megabytes as
    /// it was asked for (16-byte entries fill them exactly).
    #[test]
    fn a_table_is_the_size_asked_for() {
        for mb in [1, 3, 16] {
            let tt = TranspositionTable::new(mb).unwrap();
            assert_eq!(tt.entries.len(), mb * MB / 16);
            assert_eq!(tt.size_mb(), mb);
        }
    }

    #[test]
    fn hashfull_counts_current_entries_only() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.hashfull(), 0);
        for k in 0..200_000u64 {
            tt.store(
                k.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                0,
                entry(PackedMove(1), 0, 0, 1, Bound::Exact),
            );
        }
        assert!(tt.hashfull() > 900);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
    }
}
