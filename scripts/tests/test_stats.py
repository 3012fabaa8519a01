"""Statistics against hand-worked examples and symmetry properties."""

import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import stats  # noqa: E402

# Hand-worked pentanomial example used below: counts [LL, LD, DD/WL, WD, WW].
PENTA = [5, 20, 40, 25, 10]


class EloScale(unittest.TestCase):
    def test_even_score_is_zero_elo(self):
        self.assertEqual(stats.score_to_elo(0.5), 0.0)

    def test_three_quarters_is_190_85_elo(self):
        # 1/0.75 - 1 = 1/3; -400 * log10(1/3) = 400 * 0.47712 = 190.85
        self.assertAlmostEqual(stats.score_to_elo(0.75), 190.85, places=2)

    def test_elo_and_score_are_inverse(self):
        for elo in (-400.0, -35.5, 0.0, 5.0, 190.85, 700.0):
            self.assertAlmostEqual(stats.score_to_elo(stats.elo_to_score(elo)), elo, places=9)

    def test_perfect_scores_are_infinite(self):
        self.assertEqual(stats.score_to_elo(1.0), math.inf)
        self.assertEqual(stats.score_to_elo(0.0), -math.inf)

    def test_format_handles_negative_zero_and_infinity(self):
        self.assertEqual(stats.format_elo(-0.0, 12.345), "+0.00 +/- 12.35")
        self.assertEqual(stats.format_elo(math.inf, math.inf), "+inf +/- inf")


class Pentanomial(unittest.TestCase):
    def test_worked_example_mean_variance_elo_and_error(self):
        # N = 100 pairs.
        # mean = (20*0.25 + 40*0.5 + 25*0.75 + 10*1) / 100 = (5 + 20 + 18.75 + 10) / 100 = 0.5375
        # E[x^2] = (20*0.0625 + 40*0.25 + 25*0.5625 + 10*1) / 100 = 35.3125 / 100 = 0.353125
        # var = 0.353125 - 0.5375^2 = 0.353125 - 0.28890625 = 0.06421875
        # Elo = -400 * log10(1/0.5375 - 1) = -400 * log10(0.860465) = 26.107
        # se = sqrt(0.06421875 / 100) = 0.0253414; 1.959964 * se = 0.0496683
        # interval 0.4878317 .. 0.5871683 -> Elo -8.457 .. +61.196; half width 34.826
        s = stats.pentanomial_stats(PENTA)
        self.assertEqual(s["n"], 100)
        self.assertAlmostEqual(s["score"], 0.5375, places=12)
        self.assertAlmostEqual(s["variance"], 0.06421875, places=12)
        self.assertAlmostEqual(s["elo"], 26.107, places=3)
        self.assertAlmostEqual(s["error"], 34.826, places=3)

    def test_matches_elo_printed_by_fastchess_and_openbench(self):
        # Published match reports (pentanomial counts -> "Elo: x +/- y"):
        # fastchess, brunocodutra/cinder PRs #813 and #802; OpenBench, Yoshie2000/PlentyChess PR #334.
        published = [([177, 1629, 3083, 1780, 221], 6.03, 3.49),
                     ([363, 3205, 5861, 3376, 414], 3.59, 2.53),
                     ([214, 8992, 19871, 9102, 235], 0.69, 1.25),
                     ([5, 942, 2469, 1050, 5], 4.20, 3.43)]
        for counts, elo, error in published:
            with self.subTest(counts=counts):
                s = stats.pentanomial_stats(counts)
                self.assertAlmostEqual(s["elo"], elo, delta=0.005)
                self.assertAlmostEqual(s["error"], error, delta=0.005)

    def test_worked_example_llr_symmetric_bounds(self):
        # s(+5) = 1 / (1 + 10^(-5/400)) = 1 / (1 + 0.9716280) = 0.5071951, s(-5) = 0.4928049.
        # s0 + s1 = 1, so LLR = N (s1 - s0) (2 mean - 1) / (2 var)
        #   = 100 * 0.0143902 * 0.075 / 0.1284375 = 0.84030
        self.assertAlmostEqual(stats.llr_pentanomial(PENTA, -5, 5), 0.84030, places=4)

    def test_worked_example_llr_zero_to_five(self):
        # s0 = 0.5, s1 = 0.5071951:
        # LLR = 100 * 0.0071951 * (1.075 - 1.0071951) / 0.1284375
        #     = 100 * 0.0071951 * 0.0678049 / 0.1284375 = 0.37984
        self.assertAlmostEqual(stats.llr_pentanomial(PENTA, 0, 5), 0.37984, places=4)

    def test_exact_gsprt_agrees_with_normal_approximation(self):
        # Both tests estimate the same log-likelihood ratio; near zero Elo they
        # differ by a few percent at most.
        counts = [100, 300, 800, 320, 110]
        approx = stats.llr_pentanomial(counts, 0, 5)
        exact = stats.llr_pentanomial_mle(counts, 0, 5)
        self.assertAlmostEqual(approx, exact, delta=0.02 * abs(exact))
        self.assertAlmostEqual(stats.llr_pentanomial_mle(PENTA, -5, 5), 0.8270, places=2)

    def test_swapping_engines_negates_elo_and_llr(self):
        reverse = PENTA[::-1]
        a, b = stats.pentanomial_stats(PENTA), stats.pentanomial_stats(reverse)
        self.assertAlmostEqual(a["elo"], -b["elo"], places=9)
        self.assertAlmostEqual(a["error"], b["error"], places=9)
        self.assertAlmostEqual(a["los"], 1 - b["los"], places=9)
        # Mirroring the hypotheses too: the evidence for elo1 over elo0 for engine 1
        # is the evidence for -elo0 over -elo1 for engine 2, i.e. the same LLR negated.
        self.assertAlmostEqual(stats.llr_pentanomial(reverse, -5, 0), -stats.llr_pentanomial(PENTA, 0, 5), places=9)

    def test_llr_is_zero_halfway_between_hypotheses(self):
        # mean 0.5 is exactly halfway between s(-5) and s(+5).
        self.assertAlmostEqual(stats.llr_pentanomial([10, 20, 40, 20, 10], -5, 5), 0.0, places=12)

    def test_all_draws_accept_h0_instead_of_dividing_by_zero(self):
        llr = stats.llr_pentanomial([0, 0, 100, 0, 0], 0, 5)
        self.assertTrue(math.isfinite(llr))
        self.assertLess(llr, stats.sprt_bounds(0.05, 0.05)[0])

    def test_no_games_no_evidence(self):
        self.assertEqual(stats.llr_pentanomial([0, 0, 0, 0, 0], 0, 5), 0.0)
        self.assertEqual(stats.pentanomial_stats([0, 0, 0, 0, 0])["error"], math.inf)

    def test_bad_counts_are_rejected(self):
        with self.assertRaises(ValueError):
            stats.pentanomial_stats([1, 2, 3])
        with self.assertRaises(ValueError):
            stats.llr_pentanomial([1, -1, 0, 0, 0], 0, 5)


class Trinomial(unittest.TestCase):
    def test_worked_example(self):
        # W 30, D 50, L 20: mean = (30 + 25) / 100 = 0.55
        # var = (30*0.45^2 + 50*0.05^2 + 20*0.55^2) / 100 = (6.075 + 0.125 + 6.05) / 100 = 0.1225
        # LLR[-5, 5] = 100 * 0.0143902 * (1.1 - 1) / (2 * 0.1225) = 0.58735
        s = stats.trinomial_stats(30, 50, 20)
        self.assertAlmostEqual(s["score"], 0.55)
        self.assertAlmostEqual(s["variance"], 0.1225)
        self.assertAlmostEqual(stats.llr_trinomial(30, 50, 20, -5, 5), 0.58735, places=4)

    def test_swapping_wins_and_losses_negates_elo(self):
        a, b = stats.trinomial_stats(30, 50, 20), stats.trinomial_stats(20, 50, 30)
        self.assertAlmostEqual(a["elo"], -b["elo"], places=9)
        self.assertAlmostEqual(a["error"], b["error"], places=9)


class Sprt(unittest.TestCase):
    def test_bounds_for_five_percent_errors(self):
        # log(0.05 / 0.95) = -2.9444, log(0.95 / 0.05) = +2.9444
        lower, upper = stats.sprt_bounds(0.05, 0.05)
        self.assertAlmostEqual(lower, -2.944, places=3)
        self.assertAlmostEqual(upper, 2.944, places=3)

    def test_asymmetric_bounds(self):
        lower, upper = stats.sprt_bounds(0.05, 0.1)
        self.assertAlmostEqual(lower, math.log(0.1 / 0.95))
        self.assertAlmostEqual(upper, math.log(0.9 / 0.05))

    def test_decision(self):
        self.assertEqual(stats.sprt_decision(3.0, -2.94, 2.94), "H1")
        self.assertEqual(stats.sprt_decision(-3.0, -2.94, 2.94), "H0")
        self.assertIsNone(stats.sprt_decision(0.5, -2.94, 2.94))

    def test_bad_error_rates_are_rejected(self):
        with self.assertRaises(ValueError):
            stats.sprt_bounds(0.0, 0.05)


if __name__ == "__main__":
    unittest.main()
