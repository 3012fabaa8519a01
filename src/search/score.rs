//! Score conventions: centipawns from the side to move, mate scores counted in plies from the
//! root, and their conversion to and from the "plies from this node" form the TT stores.

/// Deepest ply the search ever reaches; arrays per ply are this long.
pub const MAX_PLY: usize = 128;
/// Score of giving mate on the board at the root; mate in n plies scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Larger than any score, for window bounds.
pub const INFINITY: i32 = MATE + 1;
/// Scores at or beyond this are mates.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
pub const DRAW: i32 = 0;
/// A tablebase win `ply` plies from the root scores `TB_WIN - ply`: below every mate, above
/// every evaluation, so a real mate still outranks it.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores at or beyond this are tablebase wins or mates.
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;
// A net's evaluation, with the margins the search adds to it, stays below every tablebase win.
const _: () = assert!(crate::eval::nnue::OUTPUT_LIMIT + 1_000 < TB_WIN_BOUND as i64);

/// What UCI shows for a tablebase win at the root, in centipawns (less its distance).
const TB_WIN_CP: i32 = 20_000;

/// Score of a tablebase win found `ply` plies from the root.
pub const fn tb_win_in(ply: usize) -> i32 {
    TB_WIN - ply as i32
}

/// Score of the side to move being checkmated `ply` plies from the root.
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

pub const fn is_mate(score: i32) -> bool {
    score >= MATE_BOUND || score <= -MATE_BOUND
}

/// Root-relative mate (and tablebase win) scores become node-relative before they are
/// stored, so a transposition reached at another ply still reads the right distance.
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score + ply as i32
    } else if score <= -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score - ply as i32
    } else if score <= -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// A score as UCI shows it: centipawns, or moves to mate (negative when we are mated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UciScore {
    Cp(i32),
    Mate(i32),
}

pub fn to_uci(score: i32) -> UciScore {
    if score >= MATE_BOUND {
        UciScore::Mate((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        UciScore::Mate(-(MATE + score) / 2)
    } else if score >= TB_WIN_BOUND {
        UciScore::Cp(TB_WIN_CP - (TB_WIN - score))
    } else if score <= -TB_WIN_BOUND {
        UciScore::Cp(-TB_WIN_CP + (TB_WIN + score))
    } else {
        UciScore::Cp(score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_distances_convert_to_moves() {
        assert_eq!(to_uci(MATE - 1), UciScore::Mate(1));
        assert_eq!(to_uci(MATE - 3), UciScore::Mate(2));
        assert_eq!(to_uci(MATE - 5), UciScore::Mate(3));
        assert_eq!(to_uci(mated_in(0)), UciScore::Mate(0));
        assert_eq!(to_uci(mated_in(2)), UciScore::Mate(-1));
        assert_eq!(to_uci(mated_in(4)), UciScore::Mate(-2));
        assert_eq!(to_uci(37), UciScore::Cp(37));
        assert_eq!(to_uci(-37), UciScore::Cp(-37));
        assert_eq!(to_uci(tb_win_in(5)), UciScore::Cp(19_995));
        assert_eq!(to_uci(-tb_win_in(6)), UciScore::Cp(-19_994));
    }

    #[test]
    fn evaluations_sit_below_tablebase_wins_below_mates_inside_the_window_bounds() {
        // Being mated at the root is still inside the widest window, so a mated line can
        // become a node's best.
        assert!(-INFINITY < mated_in(0) && -mated_in(0) < INFINITY);
        // A mate found at the deepest ply is a mate; a score one below it is not.
        let deepest = MATE - MAX_PLY as i32;
        assert!(is_mate(deepest) && is_mate(-deepest) && is_mate(mated_in(MAX_PLY)));
        assert!(!is_mate(deepest - 1) && !is_mate(-(deepest - 1)));
        // Large evaluations are neither mates nor tablebase wins, and the table keeps them as
        // they are whatever the ply.
        for cp in [250, 3_000, 15_000] {
            assert!(!is_mate(cp) && !is_mate(-cp), "{cp}");
            assert_eq!(score_to_tt(cp, 9), cp);
            assert_eq!(score_to_tt(-cp, 9), -cp);
            assert_eq!(score_from_tt(cp, 9), cp);
        }
        // A tablebase win at any ply is no mate and below every mate, but still read as a
        // tablebase win (moved by the ply in the table, shown in the 20000 cp range).
        for ply in [0, 1, MAX_PLY - 1] {
            let tb = tb_win_in(ply);
            assert!(!is_mate(tb) && tb < deepest, "{ply}");
            assert!(tb >= TB_WIN_BOUND, "{ply}");
            assert_eq!(to_uci(tb), UciScore::Cp(20_000 - ply as i32));
            assert_eq!(score_to_tt(tb, 4), tb + 4);
        }
    }

    #[test]
    fn tt_conversion_round_trips_positive_and_negative_mates() {
        for ply in [0, 1, 7, 60] {
            for s in [
                MATE - 3,
                MATE - 90,
                mated_in(4),
                mated_in(100),
                tb_win_in(3),
                -tb_win_in(40),
                0,
                250,
                -250,
            ] {
                assert_eq!(score_from_tt(score_to_tt(s, ply), ply), s);
            }
        }
        // A mate stored at ply 10 and read at ply 2 is 8 plies nearer the root.
        assert_eq!(score_from_tt(score_to_tt(MATE - 15, 10), 2), MATE - 7);
        assert_eq!(score_from_tt(score_to_tt(mated_in(14), 10), 2), mated_in(6));
        assert_eq!(
            score_from_tt(score_to_tt(tb_win_in(10), 10), 2),
            tb_win_in(2)
        );
    }
}
