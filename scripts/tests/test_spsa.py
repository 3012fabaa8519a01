"""spsa.py: the gain schedule, the update driven on a synthetic noisy objective (and
failing with its sign flipped), and whole tunes against the scripted fake_engine.py
(the log, the values the engines were sent, resuming, refusals)."""

import json
import math
import os
import random
import subprocess
import sys
import tempfile
import unittest
from collections import Counter
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SCRIPTS))


import spsa  # noqa: E402
from books import opening_book  # noqa: E402
from spsa import Param  # noqa: E402

SPSA = SCRIPTS / "spsa.py"
FAKE = Path(__file__).resolve().parent / "fake_engine.py"


class Schedule(unittest.TestCase):
    def test_gains_at_the_first_and_the_last_iteration(self):
        params = [Param("x", 80, 20, 200, 9.0, 0.002), Param("y", 3, 1, 8, 1.0, 0.004)]
        n = 2000
        schedule = spsa.make_schedule(params, n)
        self.assertEqual(schedule.big_a, 200.0)
        c_1, a_1 = spsa.gains(schedule, 1)
        c_n, a_n = spsa.gains(schedule, n)
        for i, p in enumerate(params):
            c = p.c_end * n ** 0.101
            a = p.r_end * p.c_end ** 2 * (200 + n) ** 0.602
            self.assertTrue(math.isclose(c_1[i], c, rel_tol=1e-12))
            self.assertTrue(math.isclose(a_1[i], a / 201 ** 0.602, rel_tol=1e-12))
            # The schedule ends exactly at c_end and a_end = r_end * c_end^2.
            self.assertTrue(math.isclose(c_n[i], p.c_end, rel_tol=1e-12), (c_n[i], p.c_end))
            self.assertTrue(math.isclose(a_n[i], p.a_end, rel_tol=1e-12), (a_n[i], p.a_end))
        self.assertTrue(math.isclose(params[0].a_end, 0.002 * 81, rel_tol=1e-12))
        # Both gains shrink from the first iteration to the last.
        self.assertGreater(c_1[0], c_n[0])
        self.assertGreater(a_1[0], a_n[0])

    def test_default_c_end_is_a_twentieth_of_the_range_at_least_one(self):
        self.assertEqual(spsa.default_c_end(20, 200), 9.0)
        self.assertEqual(spsa.default_c_end(1, 8), 1.0)

    def test_sent_values_are_rounded_and_clamped_and_theta_stays_in_range(self):
        params = [Param("x", 98, 0, 100, 5.0, 0.002), Param("y", 3, 1, 8, 1.0, 0.002)]
        plus, minus = spsa.perturb([98.0, 2.4], [4.0, 1.0], [1, -1], params)
        self.assertEqual(plus, [100, 1])   # 102 clamped, 1.4 rounded
        self.assertEqual(minus, [94, 3])   # 3.4 rounded
        theta = spsa.update([98.0, 2.4], [10.0, 0.5], [4.0, 1.0], [1, -1], 2.0, params)
        self.assertEqual(theta, [100.0, 1.4])  # 98 + 5 clamped; 2.4 - 1
        self.assertEqual(spsa.update([50.0, 4.0], [1.0, 1.0], [2.0, 1.0], [-1, 1], -2.0, params), [51.0, 2.0])

    def test_an_iteration_draws_the_same_signs_for_the_same_seed_and_k(self):
        draws = {k: spsa.draw_delta(spsa.iteration_rng(7, k), 16) for k in range(1, 6)}
        self.assertEqual(draws[3], spsa.draw_delta(spsa.iteration_rng(7, 3), 16))
        self.assertEqual(len({tuple(d) for d in draws.values()}), 5)
        self.assertNotEqual(draws[1], spsa.draw_delta(spsa.iteration_rng(8, 1), 16))


class Convergence(unittest.TestCase):
    """A synthetic tune: the Elo of values x is -sum((x - OPTIMUM)^2) / 10, the plus side
    wins each game with the logistic probability of the Elo difference, else loses."""

    OPTIMUM = (60.0, 140.0)
    START = (160, 40)
    TOLERANCE = 10.0  # 5% of the range

    def tune(self, sign: int, seed: int, iterations: int = 2000) -> list:
        params = [Param("x", self.START[0], 0, 200, 10.0, 0.01), Param("y", self.START[1], 0, 200, 10.0, 0.01)]
        schedule = spsa.make_schedule(params, iterations)
        theta = [float(v) for v in self.START]
        games = random.Random(seed)

        def elo(values):
            return -sum((v - o) ** 2 for v, o in zip(values, self.OPTIMUM)) / 10

        for k in range(1, iterations + 1):
            c_k, a_k = spsa.gains(schedule, k)
            delta = spsa.draw_delta(spsa.iteration_rng(seed, k), len(params))
            plus, minus = spsa.perturb(theta, c_k, delta, params)
            p_plus = 1 / (1 + 10 ** ((elo(minus) - elo(plus)) / 400))
            result = sum(1 if games.random() < p_plus else -1 for _ in range(2))
            theta = spsa.update(theta, a_k, c_k, delta, sign * result, params)
        return theta

    def test_the_update_finds_the_optimum_from_far_away(self):
        for seed in (1, 2):
            theta = self.tune(+1, seed)
            misses = [abs(t - o) for t, o in zip(theta, self.OPTIMUM)]
            self.assertLess(max(misses), self.TOLERANCE, (seed, theta))

    def test_a_flipped_update_does_not(self):
        for seed in (1, 2):
            theta = self.tune(-1, seed)
            misses = [abs(t - o) for t, o in zip(theta, self.OPTIMUM)]
            # It climbs away from the optimum to the far ends of the ranges.
            self.assertGreater(min(misses), 5 * self.TOLERANCE, (seed, theta))


class FakeEngineTunes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.book = self.dir / "book.epd"
        opening_book(self.book)
        self.engine_logs = self.dir / "engines"
        self.engine_logs.mkdir()

    def tearDown(self):
        self.tmp.cleanup()

    def run_spsa(self, *args: str, params=("--params", "alpha,beta"), mode: str = "spin") -> subprocess.CompletedProcess:
        env = dict(os.environ, FAKE_ENGINE_LOG=str(self.engine_logs / "{pid}.log"))
        return subprocess.run([sys.executable, str(SPSA), "--engine", f"cmd={sys.executable} {FAKE} {mode}",
                               "option.Hash=2", *params, "--book", str(self.book), "--nodes", "1", *args],
                              capture_output=True, text=True, timeout=30, env=env)

    def games_seen(self) -> list:
        """(alpha, beta) in effect at each game in which a fake engine process was asked for
        a move: its defaults, changed by the `setoption` lines it read before the game's
        first `go`."""
        seen = []
        for path in self.engine_logs.glob("*.log"):
            values = {"alpha": 50, "beta": 0}
            new_game = False
            for line in path.read_text().splitlines():
                words = line.split()
                if words[:2] == ["setoption", "name"] and words[2] in values:
                    values[words[2]] = int(words[4])
                elif words == ["ucinewgame"]:
                    new_game = True
                elif words[:1] == ["go"] and new_game:
                    seen.append((values["alpha"], values["beta"]))
                    new_game = False
            path.unlink()
        return seen

    def expect_usage_error(self, proc: subprocess.CompletedProcess, text: str) -> None:
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn(text, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)

    def test_a_tune_logs_what_it_sends_and_resumes(self):
        log = self.dir / "tune.jsonl"
        # With alpha below 20 the fake forfeits, so the side with the higher alpha wins
        # both games of every pair: alpha must rise at every iteration.
        first = self.run_spsa("--c-end", "alpha=40", "--iterations", "3", "--seed", "5", "--log", str(log))
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        lines = [json.loads(line) for line in log.read_text().splitlines()]
        self.assertEqual(len(lines), 4)
        header, records = lines[0], lines[1:]
        tune = header["tune"]
        self.assertEqual(header["iterations"], 3)
        self.assertEqual(tune["params"], [
            {"name": "alpha", "start": 50, "min": 0, "max": 100, "c_end": 40.0, "r_end": 0.002},
            {"name": "beta", "start": 0, "min": -20, "max": 20, "c_end": 2.0, "r_end": 0.002}])
        self.assertEqual((tune["seed"], tune["pairs"], tune["nodes"]), (5, 1, 1))
        self.assertEqual(tune["engine"]["options"], {"Hash": "2"})
        self.assertEqual(len(tune["engine"]["sha256"]), 64)
        self.assertEqual(len(tune["book_sha256"]), 64)
        self.assertEqual([r["k"] for r in records], [1, 2, 3])
        alpha = 50.0
        for r in records:
            up = r["delta"]["alpha"]
            self.assertEqual(r["result"], 2 * up, r)
            self.assertEqual(r["points"], [1.0, 1.0] if up == 1 else [0.0, 0.0])
            self.assertEqual([f["by"] for f in r["forfeits"]], ["minus" if up == 1 else "plus"] * 2)
            self.assertGreater(r["theta"]["alpha"], alpha)
            alpha = r["theta"]["alpha"]
        self.assertEqual(records[-1]["c_k"]["alpha"], 40.0)
        # Each process played its games with exactly the values logged for its side,
        # including the processes restarted after a forfeit. The side with the low alpha
        # moves in both games of its pair; the other only when it is White, since as Black
        # it wins before its first move.
        expected = Counter()
        for r in records:
            loser, winner = ("minus", "plus") if r["delta"]["alpha"] == 1 else ("plus", "minus")
            expected[(r[loser]["alpha"], r[loser]["beta"])] += 2
            expected[(r[winner]["alpha"], r[winner]["beta"])] += 1
        self.assertEqual(Counter(self.games_seen()), expected)
        self.assertIn("3/3: result", first.stdout)
        final = round(records[-1]["theta"]["alpha"])
        self.assertIn(f"option.alpha={final} option.beta=", first.stdout)
        self.assertIn(f"    alpha = {final}, 0..=100;", first.stdout)

        # Resumed with a longer schedule: only iterations 4 and 5 are played.
        more = self.run_spsa("--c-end", "alpha=40", "--iterations", "5", "--log", str(log))
        self.assertEqual(more.returncode, 0, more.stdout + more.stderr)
        self.assertIn("Resumed 3 iterations", more.stdout)
        self.assertNotIn("3/5:", more.stdout)
        self.assertIn("4/5:", more.stdout)
        lines = log.read_text().splitlines()
        self.assertEqual(len(lines), 6)
        self.assertEqual(json.loads(lines[0]), header)
        later = [json.loads(line) for line in lines[4:]]
        self.assertEqual([r["k"] for r in later], [4, 5])
        self.assertGreater(later[0]["theta"]["alpha"], alpha)
        self.assertEqual(len(self.games_seen()), 6)
        # A finished tune plays nothing more and prints its result.
        done = self.run_spsa("--c-end", "alpha=40", "--iterations", "5", "--log", str(log))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("0 to play", done.stdout)
        self.assertIn("after 5 iterations", done.stdout)
        self.assertEqual(self.games_seen(), [])

        # Another parameter set, another c_end, seed or limit is another tune.
        for args, text in [
            (["--params", "alpha", "--c-end", "alpha=40"], "the parameters (alpha, beta in the log) differ"),
            (["--params", "alpha,beta"], "params.alpha.c_end differ"),
            (["--params", "alpha,beta", "--c-end", "alpha=40", "--seed", "6"], "differs from the log's seed 5"),
        ]:
            proc = self.run_spsa("--iterations", "5", "--log", str(log), *args[2:], params=args[:2])
            self.expect_usage_error(proc, text)
        self.expect_usage_error(self.run_spsa("--c-end", "alpha=40", "--iterations", "4", "--log", str(log)),
                                "holds iteration 5, more than --iterations 4")
        self.assertEqual(len(log.read_text().splitlines()), 6)

    def test_a_cut_line_is_dropped_and_the_iteration_replayed_alike(self):
        log = self.dir / "tune.jsonl"
        proc = self.run_spsa("--iterations", "3", "--log", str(log))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        whole = log.read_text().splitlines()
        # Killed while the third iteration was written: the cut line goes, and the
        # iteration is played again with the same signs, opening and values.
        log.write_text("\n".join(whole[:3]) + "\n" + whole[3][:40])
        again = self.run_spsa("--iterations", "3", "--log", str(log))
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("dropped a cut last line", again.stderr)
        self.assertIn("Resumed 2 iterations", again.stdout)
        self.assertEqual(log.read_text().splitlines(), whole)

    def test_parameters_must_be_spin_options_the_engine_has(self):
        log = self.dir / "tune.jsonl"
        proc = self.run_spsa("--iterations", "2", "--log", str(log), params=("--param", "gamma"))
        self.expect_usage_error(proc, "the engine has no option 'gamma'; the engine's spin options are Hash, alpha, beta")
        proc = self.run_spsa("--iterations", "2", "--log", str(log), params=("--params", "alpha,Verbose"))
        self.expect_usage_error(proc, "option 'Verbose' is of type check, not spin")
        proc = self.run_spsa("--iterations", "2", "--log", str(log), params=("--param", "alpha", "--param", "ALPHA"))
        self.expect_usage_error(proc, "parameter 'ALPHA' is given twice")
        proc = self.run_spsa("--iterations", "2", "--log", str(log), "--c-end", "beta=1", params=("--param", "alpha"))
        self.expect_usage_error(proc, "--c-end names 'beta', which is not tuned")
        proc = self.run_spsa("--iterations", "2", "--log", str(log), params=())
        self.expect_usage_error(proc, "name the parameters to tune")
        # A run that fails to start leaves no log behind to block the corrected command.
        self.assertFalse(log.exists())

    def test_bad_command_lines(self):
        proc = self.run_spsa("--iterations", "2")
        self.expect_usage_error(proc, "the following arguments are required: --log")
        log = str(self.dir / "tune.jsonl")
        for args, text in [
            (["--iterations", "0", "--log", log], "--iterations must be positive"),
            (["--iterations", "2", "--log", log, "--c-end", "alpha"], "is not NAME=VALUE"),
            (["--iterations", "2", "--log", log, "--r-end", "-1"], "--r-end must be a positive number"),
            (["--iterations", "2", "--log", log, "--tc", "fast"], "bad time control"),
        ]:
            self.expect_usage_error(self.run_spsa(*args), text)
        # While one run holds the log, another is refused.
        import fcntl
        with open(log, "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.expect_usage_error(self.run_spsa("--iterations", "2", "--log", log), "in use by another tune")
        (self.dir / "not-a-log").write_text("not json\nnot json either\n")
        self.expect_usage_error(self.run_spsa("--iterations", "2", "--log", str(self.dir / "not-a-log")),
                                "has no valid header")


if __name__ == "__main__":
    unittest.main()
