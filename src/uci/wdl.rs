//! The win/draw/loss estimate `UCI_ShowWDL` adds to `info` lines (`wdl W D L`, per mille for
//! the side to move): a model of Ferrum's own games by the score and the material on the board.
//!
//! win = 1 / (1 + exp((a(m) - s) / b(m))), loss = 1 / (1 + exp((a(m) + s) / b(m))), draw the
//! rest, for the score s in centipawns and the material m (pawn 1, knight and bishop 3, rook 5,
//! queen 9, both sides), with log a and log b cubics in m / 58: a is the score at which a win
//! is as likely as not, b the spread around it. Recipe of the constants below (the script
//! says how it fits): `scripts/fit_wdl.py ../ferrum-data/net-s1918.bin --max-records 2013611`.

use shakmaty::{Board, Role};

use crate::search::score::{UciScore, to_uci};

// Fitted on the first 2,013,611 positions of net-s1918.bin (self-play of b89bfb8 with its
// embedded net n5b, 5000 nodes a move; records as README "Net training data"). Mean
// log-likelihood per position -0.660 (a uniform guess: -1.099). a is 61 cp at full material,
// 107 at 44, 238 at 20 and 890 at 4; b is about 100, more in bare endgames. Against the games
// (the script's calibration table) the predicted shares are within 7 percentage points in
// most score ranges from 9 points of material up, 15 at worst; with less the model is too
// cautious about large scores (20 points short of the wins at 400-800 cp; more below 4,
// which has only 5,000 positions and is modelled as 4).
const MATERIAL_MIN: i32 = 4;
const MATERIAL_MAX: i32 = 78;
const LOG_A: [f64; 4] = [-2.506554, 7.085843, -7.343922, 7.264352];
const LOG_B: [f64; 4] = [-1.869508, 4.563672, -3.459631, 5.445298];
/// Material is given to the cubics divided by this.
const NORM: f64 = 58.0;

/// The material on `board` as the model counts it: pawn 1, knight and bishop 3, rook 5,
/// queen 9, both sides (78 at the start).
pub fn material(board: &Board) -> i32 {
    let count = |role| board.by_role(role).count() as i32;
    count(Role::Pawn)
        + 3 * (count(Role::Knight) + count(Role::Bishop))
        + 5 * count(Role::Rook)
        + 9 * count(Role::Queen)
}

fn cubic(c: &[f64; 4], x: f64) -> f64 {
    ((c[0] * x + c[1]) * x + c[2]) * x + c[3]
}

/// The model's a and b at `material` (clamped to the range it was fitted on): the score of an
/// even chance of winning, and the spread around it; both positive, so win + loss <= 1.
fn parameters(material: i32) -> (f64, f64) {
    let x = f64::from(material.clamp(MATERIAL_MIN, MATERIAL_MAX)) / NORM;
    (cubic(&LOG_A, x).exp(), cubic(&LOG_B, x).exp())
}

/// Per mille chances of a win, a draw and a loss for the side to move, summing to exactly
/// 1000, from a search score (`score::to_uci`'s scale) with `material` on the board. A mate
/// found is a certain result; a tablebase win (cp near 20000) comes out as one too.
pub fn wdl(score: i32, material: i32) -> [u32; 3] {
    let cp = match to_uci(score) {
        UciScore::Mate(n) if n > 0 => return [1000, 0, 0],
        UciScore::Mate(_) => return [0, 0, 1000],
        UciScore::Cp(cp) => f64::from(cp),
    };
    let (a, b) = parameters(material);
    let win = 1.0 / (1.0 + ((a - cp) / b).exp());
    let loss = 1.0 / (1.0 + ((a + cp) / b).exp());
    // Rounding each keeps both monotonic in the score; the draw takes what is left.
    let w = (win * 1000.0).round() as u32;
    let l = ((loss * 1000.0).round() as u32).min(1000 - w);
    [w, 1000 - w - l, l]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::{MATE, mated_in, tb_win_in};
    use shakmaty::{Chess, Position};

    #[test]
    fn material_counts_pawns_1_minors_3_rooks_5_queens_9() {
        assert_eq!(material(Chess::default().board()), 78);
        let kings: Board = "8/8/8/4k3/8/8/3QK3/8".parse().unwrap();
        assert_eq!(material(&kings), 9);
    }

    #[test]
    fn the_three_sum_to_1000_for_every_score_and_material() {
        for m in -5..=100 {
            for score in (-30_000..=30_000).step_by(7) {
                let [w, d, l] = wdl(score, m);
                assert_eq!(w + d + l, 1000, "{score} {m}");
            }
        }
    }

    #[test]
    fn wins_grow_and_losses_shrink_with_the_score() {
        for m in 0..=80 {
            let mut last = wdl(-5000, m);
            for score in -5000..=5000 {
                let now = wdl(score, m);
                assert!(now[0] >= last[0], "win fell at {score} cp, material {m}");
                assert!(now[2] <= last[2], "loss rose at {score} cp, material {m}");
                last = now;
            }
        }
    }

    /// As in the games: an even score in an endgame is mostly a draw, a big advantage wins,
    /// and the model is the same for both sides.
    #[test]
    fn the_model_is_symmetric_and_endgames_are_drawish() {
        for m in [10, 40, 78] {
            for score in [0, 35, 150, 600] {
                let [w, _, l] = wdl(score, m);
                let [w2, _, l2] = wdl(-score, m);
                assert_eq!((w, l), (l2, w2), "{score} {m}");
            }
        }
        let [w, d, l] = wdl(0, 78);
        assert!(w == l && d > 250, "{w} {d} {l}");
        for m in [10, 40] {
            let [w, d, l] = wdl(0, m);
            assert!(w == l && d > 2 * w, "{w} {d} {l} at material {m}");
        }
        assert!(wdl(1500, 78)[0] > 900 && wdl(1500, 20)[0] > 900);
        assert!(wdl(-1500, 78)[2] > 900);
    }

    #[test]
    fn mates_and_tablebase_results_are_certain() {
        assert_eq!(wdl(MATE - 1, 40), [1000, 0, 0]);
        assert_eq!(wdl(MATE - 9, 3), [1000, 0, 0]);
        assert_eq!(wdl(mated_in(0), 40), [0, 0, 1000]);
        assert_eq!(wdl(mated_in(6), 78), [0, 0, 1000]);
        assert_eq!(wdl(tb_win_in(3), 5), [1000, 0, 0]);
        assert_eq!(wdl(-tb_win_in(3), 5), [0, 0, 1000]);
    }

    /// Over the fitted range a stays within what the data showed (tens of centipawns with
    /// all pieces on, hundreds in bare endgames) and falls as material grows; b stays a
    /// spread of tens to a few hundred centipawns.
    #[test]
    fn the_fitted_curves_stay_sensible_over_the_material_range() {
        let mut last_a = f64::INFINITY;
        for m in MATERIAL_MIN..=MATERIAL_MAX {
            let (a, b) = parameters(m);
            assert!((20.0..1500.0).contains(&a), "a {a} at {m}");
            assert!((20.0..500.0).contains(&b), "b {b} at {m}");
            assert!(a <= last_a + 1.0, "a rose to {a} at {m}");
            last_a = a;
        }
    }
}
