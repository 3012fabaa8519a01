//! The lag a game's clocks show: what each of our moves cost on the GUI's clock beyond the
//! time we spent thinking (the GUI, the pipe, a busy machine).
//!
//! `Move Overhead` is a guess made before the game; the clocks the GUI sends are evidence.
//! After each timed search we remember our clock and how long we took; when the next `go`
//! comes two plies later in the same game, its clock tells what the move really cost. From
//! two such moves on, the reserve the clock keeps for the moves ahead follows the largest lag
//! seen in the game (plus a margin), so a fast GUI does not starve a short clock and a slow
//! one is allowed for even when `Move Overhead` is too small.

/// Measurements needed before the clocks' evidence replaces `Move Overhead`.
const MEASURED_MOVES: usize = 2;
/// Lags beyond this (ms) are taken as this: a clock that jumps by more is no lag to plan for.
const MAX_LAG_MS: i64 = 10_000;
/// The smallest lag planned for once measured (ms): pipes and schedulers still cost a little.
const MIN_LAG_MS: i64 = 2;

/// A timed search whose cost the next `go`'s clock will show.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Sent {
    /// The key of the position searched and how many positions came before it in the game.
    key: u64,
    plies: usize,
    /// Our clock and increment at that `go`, in ms.
    clock: i64,
    inc: i64,
    /// Time from reading `go` to writing `bestmove`, in ms (None until the search ends).
    spent: Option<i64>,
}

/// The lags a game's clocks have shown so far.
#[derive(Debug, Default)]
pub struct LagMeter {
    sent: Option<Sent>,
    measured: usize,
    largest: i64,
}

impl LagMeter {
    /// Forgets the game (on `ucinewgame`).
    pub fn clear(&mut self) {
        *self = LagMeter::default();
    }

    /// Reads the clock of a new `go`: if it comes two plies after our last timed search in
    /// the same game (`past_keys` hold the keys of the positions before this one), what that
    /// move cost beyond our thinking is one more measurement. A `go` that does not follow on
    /// starts the game's evidence again.
    pub fn observe(&mut self, past_keys: &[u64], clock: Option<i64>) {
        let Some(sent) = self.sent.take() else {
            return;
        };
        let follows =
            past_keys.len() == sent.plies + 2 && past_keys.get(sent.plies) == Some(&sent.key);
        match (follows, clock, sent.spent) {
            (true, Some(now), Some(spent)) => {
                let charged = sent.clock.saturating_add(sent.inc).saturating_sub(now);
                let lag = charged.saturating_sub(spent).clamp(0, MAX_LAG_MS);
                self.largest = self.largest.max(lag);
                self.measured += 1;
            }
            (true, _, _) => {}
            (false, _, _) => {
                self.measured = 0;
                self.largest = 0;
            }
        }
    }

    /// Notes a timed search about to start on `key` (with `plies` positions before it), our
    /// clock and increment. Pondering and untimed searches are not noted: the GUI's clock does
    /// not run with them as ours does.
    pub fn start(&mut self, key: u64, plies: usize, clock: i64, inc: i64) {
        self.sent = Some(Sent {
            key,
            plies,
            clock,
            inc,
            spent: None,
        });
    }

    /// Notes how long the search just ended took, from reading `go` to writing `bestmove`.
    pub fn finish(&mut self, spent_ms: i64) {
        if let Some(sent) = &mut self.sent {
            sent.spent = Some(spent_ms.max(0));
        }
    }

    /// The lag to keep back for each move ahead: None until the game's clocks have shown it
    /// `MEASURED_MOVES` times, then the largest seen plus a quarter and `MIN_LAG_MS`.
    pub fn lag(&self) -> Option<i64> {
        (self.measured >= MEASURED_MOVES).then(|| self.largest + self.largest / 4 + MIN_LAG_MS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GUI's side of a game: the keys of the positions played and our clock.
    struct Gui {
        keys: Vec<u64>,
        clock: i64,
    }

    impl Gui {
        fn new(clock: i64) -> Gui {
            Gui {
                keys: Vec::new(),
                clock,
            }
        }

        /// One of our moves: `go` with our clock, a search of `spent` ms, and the GUI charging
        /// `lag` ms more before it adds the increment; then the other side's reply.
        fn our_move(&mut self, meter: &mut LagMeter, inc: i64, spent: i64, lag: i64) {
            meter.observe(&self.keys, Some(self.clock));
            let key = self.keys.len() as u64 + 1;
            meter.start(key, self.keys.len(), self.clock, inc);
            meter.finish(spent);
            self.clock += inc - spent - lag;
            self.keys.extend([key, key + 1_000_000]);
        }
    }

    #[test]
    fn the_clocks_show_the_lag_once_two_moves_are_measured() {
        let mut meter = LagMeter::default();
        let mut gui = Gui::new(10_000);
        gui.our_move(&mut meter, 100, 300, 40);
        gui.our_move(&mut meter, 100, 300, 40);
        assert_eq!(meter.lag(), None, "one move measured");
        gui.our_move(&mut meter, 100, 300, 40);
        assert_eq!(meter.lag(), Some(40 + 10 + MIN_LAG_MS));
    }

    #[test]
    fn the_largest_lag_of_the_game_is_kept() {
        let mut meter = LagMeter::default();
        let mut gui = Gui::new(60_000);
        for lag in [3, 90, 4, 2] {
            gui.our_move(&mut meter, 0, 500, lag);
        }
        meter.observe(&gui.keys, Some(gui.clock));
        assert_eq!(meter.lag(), Some(90 + 22 + MIN_LAG_MS));
    }

    #[test]
    fn a_go_that_does_not_follow_on_forgets_the_game() {
        let mut meter = LagMeter::default();
        let mut gui = Gui::new(60_000);
        for _ in 0..3 {
            gui.our_move(&mut meter, 0, 200, 10);
        }
        assert_eq!(meter.lag(), Some(10 + 2 + MIN_LAG_MS));
        // A new game on a smaller clock without `ucinewgame`: no lag of a minute is inferred.
        let mut new_game = Gui::new(1000);
        new_game.our_move(&mut meter, 0, 10, 0);
        assert_eq!(meter.lag(), None);
        new_game.our_move(&mut meter, 0, 10, 0);
        new_game.our_move(&mut meter, 0, 10, 0);
        assert_eq!(meter.lag(), Some(MIN_LAG_MS));
    }

    #[test]
    fn a_clock_that_rises_beyond_the_increment_is_no_negative_lag() {
        let mut meter = LagMeter::default();
        let mut gui = Gui::new(5000);
        for _ in 0..3 {
            gui.our_move(&mut meter, 0, 100, -4000);
        }
        assert_eq!(meter.lag(), Some(MIN_LAG_MS));
    }

    #[test]
    fn a_search_whose_time_is_unknown_measures_nothing() {
        let mut meter = LagMeter::default();
        for _ in 0..3 {
            // No `finish`: a ponder search, or one that never ended.
            meter.start(1, 0, 5000, 0);
            meter.observe(&[1, 2], Some(4000));
        }
        assert_eq!(meter.lag(), None);
    }
}
