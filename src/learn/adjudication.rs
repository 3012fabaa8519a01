//! When a self-play game is called before its end, from the search scores of its moves: won
//! once both sides' searches agree, ply after ply, that one side is winning; drawn once, late
//! in the game, the score stays near zero.

use crate::search::score::MATE_BOUND;

/// A game is adjudicated won once the score stays beyond this for `ADJUDICATE_PLIES` plies.
const ADJUDICATE_SCORE: i32 = 1000;
const ADJUDICATE_PLIES: usize = 6;
/// A game is adjudicated drawn once, after `DRAW_AFTER_PLY`, the score stays within
/// `DRAW_SCORE` for `DRAW_PLIES` plies.
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: usize = 12;
const DRAW_AFTER_PLY: usize = 80;
/// Calls a game before its end from its search scores: won once both sides' searches agree,
/// ply after ply, that one side is winning; drawn once, late in the game, the score stays
/// near zero.
#[derive(Default)]
pub struct Adjudication {
    /// Plies in a row whose score was beyond `ADJUDICATE_SCORE` for the same side.
    decisive_plies: usize,
    white_ahead: bool,
    /// Plies in a row whose score was within `DRAW_SCORE`.
    quiet_plies: usize,
}

impl Adjudication {
    /// After the search at `ply` scored `score` for the side to move (White when
    /// `white_to_move`): the result for White if the game is now decided.
    pub fn after(&mut self, ply: usize, white_to_move: bool, score: i32) -> Option<f32> {
        let white_score = if white_to_move { score } else { -score };
        if white_score.abs() >= ADJUDICATE_SCORE.min(MATE_BOUND)
            && (self.decisive_plies == 0 || (white_score > 0) == self.white_ahead)
        {
            self.white_ahead = white_score > 0;
            self.decisive_plies += 1;
            if self.decisive_plies >= ADJUDICATE_PLIES {
                return Some(if self.white_ahead { 1.0 } else { 0.0 });
            }
        } else {
            self.decisive_plies = 0;
        }
        self.quiet_plies = if score.abs() <= DRAW_SCORE {
            self.quiet_plies + 1
        } else {
            0
        };
        (ply >= DRAW_AFTER_PLY && self.quiet_plies >= DRAW_PLIES).then_some(0.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `scores` (for the side to move, White moving first when `white_first`) from
    /// `first_ply` on; the ply at which the game is called and the result, if it is.
    fn adjudicate(first_ply: usize, white_first: bool, scores: &[i32]) -> Option<(usize, f32)> {
        let mut a = Adjudication::default();
        scores.iter().enumerate().find_map(|(i, &s)| {
            let white_to_move = white_first == (i % 2 == 0);
            a.after(first_ply + i, white_to_move, s).map(|r| (i, r))
        })
    }

    #[test]
    fn a_game_is_called_won_after_six_plies_both_sides_agree_on() {
        // White winning: +1200 for White to move is -1200 for Black to move.
        let white_wins = [1200, -1200, 1200, -1200, 1200, -1200, 1200, -1200];
        assert_eq!(adjudicate(10, true, &white_wins), Some((5, 1.0)));
        // The same game with Black to move first: White is still the one ahead.
        let from_black = [-1200, 1200, -1200, 1200, -1200, 1200, -1200];
        assert_eq!(adjudicate(10, false, &from_black), Some((5, 1.0)));
        let black_wins = [-1500, 1500, -1500, 1500, -1500, 1500];
        assert_eq!(adjudicate(3, true, &black_wins), Some((5, 0.0)));
        // One search that does not agree (a score below 1000) starts the count again.
        let doubt = [
            1200, -1200, 1200, -1200, 1200, -900, 1200, -1200, 1200, -1200, 1200, -1200,
        ];
        assert_eq!(adjudicate(10, true, &doubt), Some((11, 1.0)));
        // Nor does a swing to the other side count for the first: the swing resets the count
        // and the other side's six plies start after it.
        let swing = [
            1200, -1200, 1200, 1200, -1200, 1200, -1200, 1200, -1200, 1200,
        ];
        assert_eq!(adjudicate(10, true, &swing), Some((9, 0.0)));
        // A balanced game, however steady its small edge, is never called won.
        let edge: Vec<i32> = (0..60).map(|i| if i % 2 == 0 { 40 } else { -40 }).collect();
        assert_eq!(adjudicate(0, true, &edge), None);
    }

    #[test]
    fn a_game_is_called_drawn_after_twelve_quiet_plies_past_ply_eighty() {
        let quiet = [0, 5, -10, 10, 3, 0, -2, 7, 0, 0, 1, -1, 0, 0];
        assert_eq!(adjudicate(20, true, &quiet), None);
        // Starting at ply 70 the twelfth quiet ply is 81: drawn there.
        assert_eq!(adjudicate(70, true, &quiet), Some((11, 0.5)));
        // One score beyond 10 cp starts the count again.
        let broken = [0, 0, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(adjudicate(90, true, &broken), Some((17, 0.5)));
    }
}
