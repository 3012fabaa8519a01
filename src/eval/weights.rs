//! The weight layout: every tuned weight is a middlegame/endgame pair, declared once in the
//! typed `Weights` struct with the names `ferrum tune` writes beside it. The values live in
//! `eval/tuned.rs` as a flat array, which is the slice view the tuner reads and writes.

use std::mem::{offset_of, size_of};

use crate::eval::tuned::PARAMS;

/// A middlegame and an endgame value, blended later by the game phase.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair {
    pub mg: i32,
    pub eg: i32,
}

pub const fn pair(mg: i32, eg: i32) -> Pair {
    Pair { mg, eg }
}

impl std::ops::Add for Pair {
    type Output = Pair;
    fn add(self, o: Pair) -> Pair {
        pair(self.mg + o.mg, self.eg + o.eg)
    }
}

impl std::ops::AddAssign for Pair {
    fn add_assign(&mut self, o: Pair) {
        *self = *self + o;
    }
}

impl std::ops::Sub for Pair {
    type Output = Pair;
    fn sub(self, o: Pair) -> Pair {
        pair(self.mg - o.mg, self.eg - o.eg)
    }
}

impl std::ops::Mul<i32> for Pair {
    type Output = Pair;
    fn mul(self, k: i32) -> Pair {
        pair(self.mg * k, self.eg * k)
    }
}

/// One field of `Weights`: where its pairs start in the flat view, how many there are, and
/// the names `eval/tuned.rs` writes beside them.
pub struct Field {
    pub index: usize,
    pub pairs: usize,
    pub names: &'static [&'static str],
}

// Declares `Weights` and `FIELDS` from one list, so the order, sizes and names cannot drift
// apart. A field with one name per pair gets a line per pair; the square tables (64 pairs
// per name) get a line per rank.
macro_rules! weights {
    ($($(#[$doc:meta])* $field:ident: $ty:ty = $names:expr,)*) => {
        /// Every tuned weight, in the order of the flat view.
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Weights {
            $($(#[$doc])* pub $field: $ty,)*
        }

        /// The fields of `Weights` in order.
        pub const FIELDS: &[Field] = &[$(Field {
            index: offset_of!(Weights, $field) / size_of::<i32>(),
            pairs: size_of::<$ty>() / size_of::<Pair>(),
            names: &$names,
        },)*];
    };
}

const ROLES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

weights! {
    /// Material of pawn, knight, bishop, rook, queen.
    material: [Pair; 5] = ["pawn", "knight", "bishop", "rook", "queen"],
    /// Square tables: for each role (pawn to king) and square seen from White (a1 first).
    squares: [[Pair; 64]; 6] = ROLES,
    bishop_pair: Pair = ["bishop pair"],
    /// Mobility of knight, bishop, rook, queen, per safe square beyond a typical count.
    mobility: [Pair; 4] = [
        "knight mobility",
        "bishop mobility",
        "rook mobility",
        "queen mobility",
    ],
    rook_open_file: Pair = ["rook on open file"],
    rook_half_open_file: Pair = ["rook on half-open file"],
    doubled_pawn: Pair = ["doubled pawn"],
    isolated_pawn: Pair = ["isolated pawn"],
    /// A pawn no neighbour can support whose advance square an enemy pawn guards.
    backward_pawn: Pair = ["backward pawn"],
    /// A pawn guarded by a pawn or with a pawn beside it.
    connected_pawn: Pair = ["connected pawn"],
    /// Passed pawn on its second to seventh rank.
    passed_pawn: [Pair; 6] = [
        "passed pawn rank 2",
        "passed pawn rank 3",
        "passed pawn rank 4",
        "passed pawn rank 5",
        "passed pawn rank 6",
        "passed pawn rank 7",
    ],
    /// Passed pawn with a piece on the square in front.
    passed_blocked: Pair = ["blocked passed pawn"],
    /// Per rank of advance: the enemy king's distance to the square in front of a passed
    /// pawn less our king's.
    passed_king_distance: Pair = ["passed pawn king distance"],
    /// Own pawn on the three files around a king on its first two ranks, one or two ahead.
    king_shield_pawn: Pair = ["king shield pawn"],
    /// Squares next to the enemy king attacked by a knight, bishop, rook, queen, counted
    /// when at least two pieces take part.
    king_zone_attack: [Pair; 4] = [
        "knight on king zone",
        "bishop on king zone",
        "rook on king zone",
        "queen on king zone",
    ],
    /// Enemy pieces (not pawns) attacked by our pawns.
    threat_by_pawn: Pair = ["pawn attacks piece"],
    /// Enemy rooks and queens attacked by our knights and bishops.
    threat_by_minor: Pair = ["minor attacks major"],
    /// Enemy queens attacked by our rooks.
    threat_by_rook: Pair = ["rook attacks queen"],
    /// Enemy pieces (not pawns, not the king) we attack that nothing defends.
    hanging: Pair = ["hanging piece"],
    /// The side to move.
    tempo: Pair = ["tempo"],
    /// The square of the attack units on the enemy king zone (a knight or bishop square 2,
    /// a rook square 3, a queen square 5) over 16, with at least two attackers: danger
    /// grows faster than the attack.
    king_danger: Pair = ["king danger"],
    /// Squares from which a piece of ours could check the enemy king, that it reaches and
    /// the enemy does not guard.
    safe_check: Pair = ["safe check"],
}

/// Number of weights in the flat view (two per pair).
pub const COUNT: usize = size_of::<Weights>() / size_of::<i32>();

// The flat view is only sound if `Weights` is exactly `COUNT` packed `i32`s.
const _: () = assert!(size_of::<Weights>() == COUNT * size_of::<i32>());
const _: () = assert!(std::mem::align_of::<Weights>() == std::mem::align_of::<i32>());

impl Weights {
    /// The typed view of a flat weight array.
    pub const fn from_flat(flat: [i32; COUNT]) -> Weights {
        // SAFETY: `Weights` is `repr(C)` and made only of `Pair`s (two `i32`s, `repr(C)`)
        // and arrays of them, so it has no padding and the same size as `[i32; COUNT]`.
        unsafe { std::mem::transmute::<[i32; COUNT], Weights>(flat) }
    }

    /// The flat view the tuner works on: middlegame then endgame of each pair, in order.
    pub fn as_slice(&self) -> &[i32] {
        // SAFETY: as in `from_flat`; the borrow keeps `self` alive and unaliased-mutably.
        unsafe { &*(self as *const Weights as *const [i32; COUNT]) }
    }
}

/// The current weights, typed.
pub static WEIGHTS: Weights = Weights::from_flat(PARAMS);

/// Where each weight pair lives in the flat view: the middlegame value at the index, the
/// endgame one after it. Derived from `Weights`, so it follows the struct.
pub mod param {
    use super::Weights;
    use std::mem::{offset_of, size_of};

    macro_rules! at {
        ($field:ident) => {
            offset_of!(Weights, $field) / size_of::<i32>()
        };
    }

    pub const MATERIAL: usize = at!(material);
    pub const PST: usize = at!(squares);
    pub const BISHOP_PAIR: usize = at!(bishop_pair);
    pub const MOBILITY: usize = at!(mobility);
    pub const ROOK_OPEN_FILE: usize = at!(rook_open_file);
    pub const ROOK_HALF_OPEN_FILE: usize = at!(rook_half_open_file);
    pub const DOUBLED_PAWN: usize = at!(doubled_pawn);
    pub const ISOLATED_PAWN: usize = at!(isolated_pawn);
    pub const BACKWARD_PAWN: usize = at!(backward_pawn);
    pub const CONNECTED_PAWN: usize = at!(connected_pawn);
    pub const PASSED_PAWN: usize = at!(passed_pawn);
    pub const PASSED_BLOCKED: usize = at!(passed_blocked);
    pub const PASSED_KING_DISTANCE: usize = at!(passed_king_distance);
    pub const KING_SHIELD_PAWN: usize = at!(king_shield_pawn);
    pub const KING_ZONE_ATTACK: usize = at!(king_zone_attack);
    pub const THREAT_BY_PAWN: usize = at!(threat_by_pawn);
    pub const THREAT_BY_MINOR: usize = at!(threat_by_minor);
    pub const THREAT_BY_ROOK: usize = at!(threat_by_rook);
    pub const HANGING: usize = at!(hanging);
    pub const TEMPO: usize = at!(tempo);
    pub const KING_DANGER: usize = at!(king_danger);
    pub const SAFE_CHECK: usize = at!(safe_check);
    pub const COUNT: usize = super::COUNT;

    /// How `eval/tuned.rs` is laid out: (first index, pairs on the line, comment). Square
    /// tables go a rank to a line.
    pub fn rows() -> Vec<(usize, usize, String)> {
        let mut rows = Vec::new();
        for field in super::FIELDS {
            let per_name = field.pairs / field.names.len();
            for (n, name) in field.names.iter().enumerate() {
                let first = field.index + 2 * per_name * n;
                if per_name == 1 {
                    rows.push((first, 1, (*name).to_string()));
                    continue;
                }
                for rank in 0..per_name / 8 {
                    rows.push((first + 2 * 8 * rank, 8, format!("{name} rank {}", rank + 1)));
                }
            }
        }
        rows
    }
}

/// The weight pair at `index` of the current parameters.
pub fn weight(index: usize) -> Pair {
    pair(PARAMS[index], PARAMS[index + 1])
}

/// Receives the evaluation's features: "add `count` times the weight pair at `index`",
/// counts positive for White and negative for Black. Search sums the weights; the tuner
/// keeps the counts; the report sorts them into groups.
pub trait Features {
    fn add(&mut self, index: usize, count: i32);
    /// Announces the colour whose features follow; only the report needs it.
    fn side(&mut self, _color: shakmaty::Color) {}
}

/// Sums weights as features arrive.
#[derive(Default)]
pub struct Sum {
    pub total: Pair,
}

impl Features for Sum {
    fn add(&mut self, index: usize, count: i32) {
        self.total += weight(index) * count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_matches_the_flat_array_and_the_typed_view() {
        assert_eq!(COUNT, 840);
        assert_eq!(
            (param::MATERIAL, param::PST, param::BISHOP_PAIR),
            (0, 10, 778)
        );
        assert_eq!(param::SAFE_CHECK + 2, COUNT);
        assert_eq!(WEIGHTS.as_slice(), &PARAMS[..]);
        assert_eq!(WEIGHTS.tempo, weight(param::TEMPO));
        assert_eq!(WEIGHTS.passed_pawn[4], weight(param::PASSED_PAWN + 8));
        assert_eq!(WEIGHTS.squares[1][63], weight(param::PST + 2 * (64 + 63)));
    }

    #[test]
    fn the_rows_cover_every_weight_once_in_order() {
        let rows = param::rows();
        let mut next = 0;
        for (first, pairs, _) in &rows {
            assert_eq!(*first, next);
            next += 2 * pairs;
        }
        assert_eq!(next, COUNT);
        assert_eq!(rows[5].2, "pawn rank 1");
        assert_eq!(rows[5 + 8 * 6].2, "bishop pair");
        assert_eq!(rows.last().map(|r| r.2.as_str()), Some("safe check"));
    }
}
