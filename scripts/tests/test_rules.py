"""Time-control parsing, clock accounting, game-end rules and adjudication."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import chess  # noqa: E402

from adjudicate import AdjudicationRules, rules_ending  # noqa: E402
from clock import Clock, TimeControl, parse_tc  # noqa: E402


class TimeControls(unittest.TestCase):
    def test_forms(self):
        self.assertEqual(parse_tc("10+0.1"), TimeControl(0, 10.0, 0.1))
        self.assertEqual(parse_tc("40/10+0.1"), TimeControl(40, 10.0, 0.1))
        self.assertEqual(parse_tc("40/1:30"), TimeControl(40, 90.0, 0.0))
        self.assertEqual(parse_tc("8+0.08").pgn(), "8+0.08")
        self.assertEqual(parse_tc("40/60").pgn(), "40/60")

    def test_bad_strings_name_the_problem(self):
        for bad, word in (("ten+1", "'ten'"), ("0/10", "move count"), ("x/10", "'x'"),
                          ("0+0", "no time"), ("10+-1", "non-negative"), ("nan", "finite")):
            with self.subTest(bad=bad):
                with self.assertRaises(ValueError) as ctx:
                    parse_tc(bad)
                self.assertIn(word, str(ctx.exception))


class Clocks(unittest.TestCase):
    def test_increment_is_added_after_the_move(self):
        clock = Clock(parse_tc("10+0.1"))
        self.assertFalse(clock.spend(1.0, 0.1))
        self.assertAlmostEqual(clock.remaining, 9.1)
        self.assertIsNone(clock.movestogo())

    def test_overstepping_beyond_tolerance_flags(self):
        clock = Clock(parse_tc("1+0"))
        self.assertFalse(clock.spend(1.05, 0.1))  # within tolerance
        clock = Clock(parse_tc("1+0"))
        self.assertTrue(clock.spend(1.2, 0.1))

    def test_moves_per_period(self):
        clock = Clock(parse_tc("2/10"))
        self.assertEqual(clock.movestogo(), 2)
        clock.spend(3.0, 0.0)
        self.assertEqual(clock.movestogo(), 1)
        clock.spend(3.0, 0.0)  # end of the period: another 10 s
        self.assertAlmostEqual(clock.remaining, 14.0)
        self.assertEqual(clock.movestogo(), 2)


class Rules(unittest.TestCase):
    def test_mate(self):
        board = chess.Board()
        for san in ("f3", "e5", "g4", "Qh4#"):
            board.push_san(san)
        ending = rules_ending(board)
        self.assertEqual((ending.result, ending.reason), ("0-1", "Black mates"))

    def test_stalemate_and_dead_position(self):
        self.assertEqual(rules_ending(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")).reason, "Draw by stalemate")
        self.assertEqual(rules_ending(chess.Board("8/8/8/4k3/8/8/2K5/5N2 w - - 0 1")).result, "1/2-1/2")

    def test_fifty_moves(self):
        self.assertEqual(rules_ending(chess.Board("8/8/8/4k3/8/8/2K5/R7 w - - 100 80")).reason, "Draw by fifty moves rule")
        self.assertIsNone(rules_ending(chess.Board("8/8/8/4k3/8/8/2K5/R7 w - - 99 80")))

    def test_threefold_counts_only_game_positions(self):
        board = chess.Board()
        for _ in range(2):
            for uci in ("g1f3", "g8f6", "f3g1", "f6g8"):
                self.assertIsNone(rules_ending(board))
                board.push_uci(uci)
        self.assertEqual(rules_ending(board).reason, "Draw by 3-fold repetition")


class Adjudication(unittest.TestCase):
    def test_resign_needs_k_consecutive_bad_scores(self):
        rules = AdjudicationRules(resign_score=500, resign_moves=3)
        self.assertIsNone(rules.check([-600, -600], [600, 600]))
        self.assertIsNone(rules.check([-600, -400, -600], [600, 600, 600]))
        self.assertEqual(rules.check([-600, -600, -600], [0, 0, 0]).result, "0-1")
        self.assertEqual(rules.check([0, 0, 0], [-100000, -700, -900]).result, "1-0")

    def test_twosided_resign_needs_agreement(self):
        rules = AdjudicationRules(resign_score=500, resign_moves=2, resign_twosided=True)
        self.assertIsNone(rules.check([-600, -600], [0, 0]))
        self.assertEqual(rules.check([-600, -600], [550, 600]).result, "0-1")

    def test_missing_scores_break_a_streak(self):
        rules = AdjudicationRules(resign_score=500, resign_moves=2)
        self.assertIsNone(rules.check([-600, None], [600, 600]))

    def test_draw_after_move_number(self):
        rules = AdjudicationRules(draw_score=10, draw_moves=2, draw_after_move=4)
        self.assertIsNone(rules.check([0, 0, 0], [5, 5, 5]))  # only 3 moves each
        self.assertEqual(rules.check([0, 0, 0, 0], [5, 5, -5, 5]).result, "1/2-1/2")
        self.assertIsNone(rules.check([0, 0, 0, 20], [5, 5, -5, 5]))

    def test_disabled_rules_never_adjudicate(self):
        self.assertIsNone(AdjudicationRules().check([-100000] * 50, [100000] * 50))


if __name__ == "__main__":
    unittest.main()
