//! What the evaluation is made of, for people and for the tuner: the per-group breakdown
//! and `eval` report, and the trace of feature counts `ferrum tune` fits weights to.

use shakmaty::{Chess, Color, Position};

use super::info::{Info, sign};
use super::scale::scale_for;
use super::weights::{Features, Pair, Sum, param, weight};
use super::{FULL_SCALE, MAX_PHASE, PawnTerms, evaluate, phase, taper_scaled, terms};

/// Every feature with its count (White minus Black), for tuning.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub counts: Vec<(usize, i32)>,
}

impl Features for Trace {
    fn add(&mut self, index: usize, count: i32) {
        if count != 0 {
            self.counts.push((index, count));
        }
    }
}

/// The groups the report prints, in order.
const GROUPS: [&str; 8] = [
    "material",
    "squares",
    "mobility and king attack",
    "pawns",
    "pieces",
    "king shelter",
    "threats",
    "tempo",
];

/// The report group of the weight at `index`.
fn group(index: usize) -> usize {
    use param::*;
    match index {
        i if i < PST => 0,
        i if i < BISHOP_PAIR => 1,
        i if (MOBILITY..MOBILITY + 8).contains(&i) => 2,
        i if (KING_ZONE_ATTACK..KING_ZONE_ATTACK + 8).contains(&i) => 2,
        KING_DANGER | SAFE_CHECK => 2,
        i if (DOUBLED_PAWN..KING_SHIELD_PAWN).contains(&i) => 3,
        BISHOP_PAIR | ROOK_OPEN_FILE | ROOK_HALF_OPEN_FILE => 4,
        KING_SHIELD_PAWN => 5,
        THREAT_BY_PAWN | THREAT_BY_MINOR | THREAT_BY_ROOK | HANGING => 6,
        _ => 7,
    }
}

/// Sums each group for each colour, from that colour's point of view.
struct Groups {
    color: Color,
    /// `[white, black]` per group.
    sums: [[Pair; 2]; GROUPS.len()],
}

impl Features for Groups {
    fn add(&mut self, index: usize, count: i32) {
        let side = usize::from(self.color == Color::Black);
        self.sums[group(index)][side] += weight(index) * (count * sign(self.color));
    }

    fn side(&mut self, color: Color) {
        self.color = color;
    }
}

/// Each group of terms for each colour, as `eval` prints it: `[white, black]`, each from
/// that colour's own point of view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    pub terms: Vec<(&'static str, [Pair; 2])>,
    pub phase: i32,
    /// Endgame scale for the side ahead, out of `FULL_SCALE`.
    pub scale: i32,
    /// The blended score from White's point of view.
    pub white: i32,
}

impl Breakdown {
    /// All terms, White minus Black, before tapering.
    pub fn total(&self) -> Pair {
        self.terms
            .iter()
            .fold(Pair::default(), |acc, (_, [w, b])| acc + *w - *b)
    }

    pub fn term(&self, name: &str) -> [Pair; 2] {
        self.terms
            .iter()
            .find(|(n, _)| *n == name)
            .map_or([Pair::default(); 2], |(_, p)| *p)
    }
}

pub fn breakdown(pos: &Chess) -> Breakdown {
    let info = Info::new(pos);
    let mut groups = Groups {
        color: Color::White,
        sums: [[Pair::default(); 2]; GROUPS.len()],
    };
    terms(&info, PawnTerms::Live, &mut groups);
    let mut b = Breakdown {
        terms: GROUPS.into_iter().zip(groups.sums).collect(),
        phase: phase(info.board),
        scale: FULL_SCALE,
        white: 0,
    };
    let total = b.total();
    b.scale = scale_for(info.board, total, b.phase);
    b.white = taper_scaled(total, b.phase, b.scale);
    b
}

/// The `eval` report: a line per group of terms with each colour's middlegame/endgame value
/// (from that colour's point of view) and the difference, then phase, scale and score.
pub fn report(pos: &Chess) -> Vec<String> {
    let b = breakdown(pos);
    let cell = |p: Pair| format!("{}/{}", p.mg, p.eg);
    let mut lines = vec![format!(
        "{:<26} {:>12} {:>12} {:>12}",
        "term (mg/eg)", "white", "black", "white-black"
    )];
    for (name, [w, bl]) in &b.terms {
        lines.push(format!(
            "{name:<26} {:>12} {:>12} {:>12}",
            cell(*w),
            cell(*bl),
            cell(*w - *bl)
        ));
    }
    lines.push(format!(
        "{:<26} {:>12} {:>12} {:>12}",
        "total",
        "",
        "",
        cell(b.total())
    ));
    let side = if pos.turn() == Color::White {
        "white"
    } else {
        "black"
    };
    lines.push(format!(
        "phase {}/{MAX_PHASE}, endgame scale {}/{FULL_SCALE}; White's view {} cp; side to move ({side}) {} cp",
        b.phase,
        b.scale,
        b.white,
        evaluate(pos)
    ));
    lines
}

/// What the tuner needs of a position: the phase, the endgame scale and the feature counts.
pub fn trace(pos: &Chess) -> (i32, i32, Trace) {
    let info = Info::new(pos);
    let mut t = Trace::default();
    terms(&info, PawnTerms::Live, &mut t);
    let mut sum = Sum::default();
    for &(i, c) in &t.counts {
        sum.add(i, c);
    }
    let phase = phase(info.board);
    (phase, scale_for(info.board, sum.total, phase), t)
}

#[cfg(test)]
mod tests {
    use super::super::testing::pos;
    use super::*;
    use crate::eval::evaluate_with;

    #[test]
    fn every_weight_falls_in_the_group_of_its_term() {
        assert_eq!(GROUPS[group(param::MATERIAL + 8)], "material");
        assert_eq!(GROUPS[group(param::PST + 767)], "squares");
        assert_eq!(GROUPS[group(param::SAFE_CHECK)], "mobility and king attack");
        assert_eq!(
            GROUPS[group(param::KING_ZONE_ATTACK + 7)],
            "mobility and king attack"
        );
        assert_eq!(GROUPS[group(param::PASSED_KING_DISTANCE)], "pawns");
        assert_eq!(GROUPS[group(param::ROOK_HALF_OPEN_FILE)], "pieces");
        assert_eq!(GROUPS[group(param::KING_SHIELD_PAWN)], "king shelter");
        assert_eq!(GROUPS[group(param::HANGING)], "threats");
        assert_eq!(GROUPS[group(param::TEMPO)], "tempo");
    }

    #[test]
    fn the_trace_rebuilds_the_evaluation_exactly() {
        let mut cache = crate::eval::PawnCache::new();
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "4k3/p7/p7/8/8/8/5PPP/R5K1 w - - 0 1",
            "4k3/5p2/4b3/8/8/2B5/5PP1/4K3 w - - 0 1",
            "6k1/5ppp/8/7Q/8/6R1/8/K7 w - - 0 1",
        ] {
            let p = pos(fen);
            let (phase, scale, t) = trace(&p);
            let mut sum = Pair::default();
            for (i, c) in t.counts {
                sum += weight(i) * c;
            }
            let rebuilt = taper_scaled(sum, phase, scale);
            assert_eq!(rebuilt, breakdown(&p).white, "{fen}");
            // Twice, so the second call reads the pawn table.
            assert_eq!(evaluate(&p), rebuilt, "{fen}");
            assert_eq!(evaluate(&p), rebuilt, "{fen}");
            assert_eq!(evaluate_with(&p, &mut cache), rebuilt, "{fen}");
            assert_eq!(evaluate_with(&p, &mut cache), rebuilt, "{fen}");
        }
    }
}
