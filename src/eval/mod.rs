//! Static evaluation, always from the side to move. Every term has a middlegame and an
//! endgame value, blended by how much material is left (tapering); all of them, the square
//! tables included, are weights in `tuned.rs` that `ferrum tune` fits to game results.

pub mod accumulator;
mod info;
mod king;
pub mod net_file;
pub mod nnue;
mod pawns;
mod pieces;
mod report;
mod scale;
#[cfg(test)]
mod testing;
mod threats;
pub mod tuned;
pub mod weights;

use std::cell::RefCell;

use shakmaty::{Bitboard, Board, Chess, Color, Role};

use info::{Info, sign};
use weights::Sum;

pub use pawns::{PawnCache, pawn_key};
pub use report::{Breakdown, Trace, breakdown, report, trace};
pub use weights::{Features, Pair, Weights, pair, param, weight};

/// Game phase weight of each piece: 24 with all pieces on the board, 0 with none.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;
/// Endgame scale factors are out of this: full value.
pub const FULL_SCALE: i32 = 64;

/// Game phase: 24 with all pieces on the board, 0 with only kings and pawns.
pub fn phase(board: &Board) -> i32 {
    let phase: i32 = Role::ALL
        .iter()
        .map(|&role| PHASE_WEIGHT[role as usize - 1] * board.by_role(role).count() as i32)
        .sum();
    phase.min(MAX_PHASE)
}

/// The tapered blend of a middlegame/endgame pair at `phase`.
pub fn taper(p: Pair, phase: i32) -> i32 {
    (p.mg * phase + p.eg * (MAX_PHASE - phase)) / MAX_PHASE
}

/// The blend, scaled down by `scale` out of `FULL_SCALE` for drawish material.
pub fn taper_scaled(p: Pair, phase: i32, scale: i32) -> i32 {
    taper(p, phase) * scale / FULL_SCALE
}

/// Where the pawn-only terms come from: worked out as the terms go (the trace and the
/// report need each feature), or already summed in a pawn cache entry whose passed pawns
/// are given.
#[derive(Clone, Copy)]
enum PawnTerms {
    Live,
    Cached([Bitboard; 2]),
}

/// The one list of terms, each colour's in turn, then the side to move. Search, tuner and
/// report all come through here with different `Features` sinks.
fn terms(info: &Info, pawn_terms: PawnTerms, f: &mut impl Features) {
    for color in Color::ALL {
        f.side(color);
        pieces::material(info, color, f);
        pieces::squares(info, color, f);
        pieces::mobility(info, color, f);
        king::attack(info, color, f);
        pieces::placement(info, color, f);
        king::shelter(info, color, f);
        threats::threats(info, color, f);
        let passed = match pawn_terms {
            PawnTerms::Live => pawns::structure(info, color, f),
            PawnTerms::Cached(passed) => passed[color as usize],
        };
        pawns::passed(info, color, passed, f);
    }
    f.side(info.turn);
    f.add(param::TEMPO, sign(info.turn));
}

/// The summed terms, tapered and scaled, from the side to move.
fn finish(info: &Info, total: Pair) -> i32 {
    let phase = phase(info.board);
    let white = taper_scaled(total, phase, scale::scale_for(info.board, total, phase));
    match info.turn {
        Color::White => white,
        Color::Black => -white,
    }
}

/// The score for the side to move: positive when it stands better. The pawn-only terms
/// come from `cache`, which the caller owns (one per search thread).
pub fn evaluate_with(pos: &Chess, cache: &mut PawnCache) -> i32 {
    let info = Info::new(pos);
    let pawns = cache.probe(&info);
    let mut sum = Sum { total: pawns.score };
    terms(&info, PawnTerms::Cached(pawns.passed), &mut sum);
    finish(&info, sum.total)
}

thread_local! {
    /// The cache behind `evaluate`: one per thread, kept between calls.
    static PAWN_CACHE: RefCell<PawnCache> = RefCell::new(PawnCache::new());
}

/// `evaluate_with` for callers without a cache of their own (tests, the reference search,
/// datagen, the tuner): it uses a cache kept per thread, so the result is the same but
/// the cost depends on earlier calls on this thread.
pub fn evaluate(pos: &Chess) -> i32 {
    PAWN_CACHE
        .try_with(|cache| evaluate_with(pos, &mut cache.borrow_mut()))
        .unwrap_or_else(|_| {
            // The thread is shutting down and its cache is gone: work everything out.
            let info = Info::new(pos);
            let mut sum = Sum::default();
            terms(&info, PawnTerms::Live, &mut sum);
            finish(&info, sum.total)
        })
}

#[cfg(test)]
mod tests {
    use super::testing::{colour_flip, pos};
    use super::*;
    use shakmaty::Position;

    #[test]
    fn start_position_is_level_but_for_the_move() {
        let b = breakdown(&Chess::default());
        assert_eq!(b.total(), weight(param::TEMPO));
        assert_eq!(evaluate(&Chess::default()), weight(param::TEMPO).mg);
    }

    #[test]
    fn score_is_from_the_side_to_move() {
        let w = evaluate(&pos("4k3/8/8/8/8/8/8/3RK3 w - - 0 1"));
        let b = evaluate(&pos("4k3/8/8/8/8/8/8/3RK3 b - - 0 1"));
        assert!(w > 300 && b < -300);
        let tempo = taper(weight(param::TEMPO), 2);
        assert!((w + b - 2 * tempo).abs() <= 2, "{w} {b} {tempo}");
    }

    #[test]
    fn colour_flipped_positions_score_the_same_for_the_side_to_move() {
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
            "2r3k1/1q3ppp/p2b4/1p1Pp3/4P1n1/1PN2N2/P1Q2PPP/2R3K1 b - - 0 1",
            "k7/8/8/8/8/8/P7/B3K3 w - - 0 1",
            "4k3/5p2/4b3/8/8/2B5/5PP1/4K3 b - - 0 1",
            "6k1/5ppp/8/7Q/8/6R1/8/K7 w - - 0 1",
        ] {
            assert_eq!(evaluate(&pos(fen)), evaluate(&colour_flip(fen)), "{fen}");
        }
    }

    #[test]
    fn tapering_uses_the_middlegame_score_at_full_material_and_the_endgame_one_without_pieces() {
        let full = breakdown(&pos(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        ));
        assert_eq!(full.phase, MAX_PHASE);
        assert_eq!(full.white, full.total().mg);
        let pawns = breakdown(&pos("4k3/pp6/8/8/8/8/5PPP/4K3 w - - 0 1"));
        assert_eq!((pawns.phase, pawns.scale), (0, FULL_SCALE));
        assert_eq!(pawns.white, pawns.total().eg);
    }

    #[test]
    fn square_rules_prefer_central_knights_and_advanced_pawns() {
        let centre = evaluate(&pos("4k3/4p3/8/8/4N3/8/4P3/4K3 w - - 0 1"));
        let corner = evaluate(&pos("4k3/4p3/8/8/8/8/4P3/N3K3 w - - 0 1"));
        assert!(centre > corner);
        let far = evaluate(&pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"));
        let near = evaluate(&pos("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1"));
        assert!(far > near);
    }

    #[test]
    fn a_caller_owned_cache_gives_the_same_scores_hit_or_miss() {
        let mut cache = PawnCache::new();
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/p7/p7/8/8/8/5PPP/R5K1 w - - 0 1",
        ] {
            let p = pos(fen);
            let first = evaluate_with(&p, &mut cache);
            assert_eq!(evaluate_with(&p, &mut cache), first, "{fen}");
            assert_eq!(first, evaluate(&p), "{fen}");
            assert_eq!(first, breakdown(&p).white * sign(p.turn()), "{fen}");
        }
    }
}
