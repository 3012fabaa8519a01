"""Match-level behaviour without real engines: result bookkeeping, and whole
matches of match.py against the scripted fake_engine.py (illegal moves, time
losses, crashes, SPRT stop, PGN/JSON output, bad command lines)."""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SCRIPTS))

import chess.pgn  # noqa: E402

from books import opening_book  # noqa: E402
from tally import Sprt, Tally  # noqa: E402

MATCH = SCRIPTS / "match.py"
FAKE = Path(__file__).resolve().parent / "fake_engine.py"
OPENINGS = [
    "rn2kb1r/pp3ppp/2p1pn2/3p3b/8/1P1P1NPP/PBPqPPB1/RN2K2R w KQkq - 0 9",
    "rn1qk2r/pb1pbppp/1p2pn2/8/Q1P5/5NP1/PP2PPBP/RNB2RK1 w kq - 2 9",
]


def fake(mode: str, name: str, *options: str) -> list:
    return ["--engine", f"cmd={sys.executable} {FAKE} {mode}", f"name={name}", *options]


class Bookkeeping(unittest.TestCase):
    def test_pairs_fill_pentanomial_buckets_in_any_order(self):
        tally = Tally("a", "b")
        # Pairs 0 and 1 interleaved as concurrent games finish.
        self.assertFalse(tally.add(0, 1.0))
        self.assertFalse(tally.add(1, 0.5))
        self.assertTrue(tally.add(0, 0.0))   # W + L -> DD/WL bucket
        self.assertTrue(tally.add(1, 1.0))   # D + W -> WD bucket
        self.assertFalse(tally.add(2, 0.0))  # half a pair counts in W/D/L only
        self.assertEqual(tally.penta, [0, 0, 1, 1, 0])
        self.assertEqual((tally.wins, tally.draws, tally.losses), (2, 1, 2))

    def test_forfeits_are_counted_per_engine_and_kind(self):
        tally = Tally("a", "b")
        tally.add(0, 1.0, "b", "time")
        tally.add(0, 1.0, "b", "illegal")
        tally.add(1, 0.0, "a", "crash")
        failures = tally.summary()["failures"]
        self.assertEqual(failures["b"], {"time": 1, "illegal": 1, "crash": 0, "stall": 0})
        self.assertEqual(failures["a"]["crash"], 1)
        self.assertIn("Forfeits by b: time 1, illegal 1, crash 0, stall 0", tally.report())

    def test_sprt_decides_once_a_bound_is_crossed(self):
        tally = Tally("a", "b", Sprt(0, 5, 0.05, 0.05))
        pair = 0
        while tally.decision() is None:
            tally.add(pair, 1.0)
            tally.add(pair, 0.5)
            pair += 1
        self.assertEqual(tally.decision(), "H1")
        self.assertGreaterEqual(tally.llr(), 2.944)

    def test_sprt_waits_for_enough_pairs_even_past_a_bound(self):
        # One won pair has no variance: its LLR is past the bound but means nothing yet.
        tally = Tally("a", "b", Sprt(0, 10, 0.05, 0.05))
        tally.add(0, 1.0)
        tally.add(0, 1.0)
        self.assertGreater(tally.llr(), 2.944)
        self.assertIsNone(tally.decision())
        for pair in range(1, 10):
            tally.add(pair, 1.0)
            tally.add(pair, 1.0)
        self.assertEqual(tally.decision(), "H1")

    def test_bad_score_is_rejected(self):
        with self.assertRaises(ValueError):
            Tally("a", "b").add(0, 0.25)


class FakeEngineMatches(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.book = self.dir / "book.epd"
        self.book.write_text("\n".join(OPENINGS) + "\n")

    def tearDown(self):
        self.tmp.cleanup()

    def run_match(self, *args: str, timeout: float = 20.0, env=None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(MATCH), *args], capture_output=True, text=True, timeout=timeout,
                              env=env)

    def play(self, opponent: str, *extra: str) -> tuple:
        pgn, js = self.dir / "out.pgn", self.dir / "out.json"
        started = time.monotonic()
        proc = self.run_match(*fake("first", "good"), *fake(opponent, "bad"), "--book", str(self.book),
                              "--games", "2", "--seed", "7", "--pgn", str(pgn), "--json", str(js), *extra)
        elapsed = time.monotonic() - started
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return proc, json.loads(js.read_text()), pgn, elapsed

    def test_illegal_move_loses_and_is_counted(self):
        proc, data, pgn, _ = self.play("illegal", "--tc", "5+0.05")
        self.assertEqual((data["wins"], data["losses"]), (2, 0))
        self.assertEqual(data["failures"]["bad"]["illegal"], 2)
        self.assertEqual(data["pentanomial"], [0, 0, 0, 0, 1])
        with open(pgn) as f:
            games = [chess.pgn.read_game(f), chess.pgn.read_game(f)]
        for game in games:
            self.assertEqual(game.headers["Termination"], "rules infraction")
            self.assertIn(game.headers["FEN"], OPENINGS)
            self.assertEqual(game.headers["SetUp"], "1")
            self.assertEqual(game.headers["TimeControl"], "5+0.05")
        # Both games of the pair start from the same opening with colours swapped.
        self.assertEqual(games[0].headers["FEN"], games[1].headers["FEN"])
        self.assertEqual(games[0].headers["White"], games[1].headers["Black"])

    def test_none_as_bestmove_is_illegal(self):
        _, data, _, _ = self.play("none", "--tc", "5+0.05")
        self.assertEqual(data["failures"]["bad"]["illegal"], 2)

    def test_sleeping_past_the_clock_loses_on_time_without_waiting(self):
        _, data, pgn, _ = self.play("sleep", "--tc", "0.3+0", "--tolerance-ms", "50")
        self.assertEqual(data["failures"]["bad"]["time"], 2)
        self.assertEqual(data["wins"], 2)
        with open(pgn) as f:
            games = [chess.pgn.read_game(f), chess.pgn.read_game(f)]
        for game in games:
            self.assertEqual(game.headers["Termination"], "time forfeit")
            # The engine sleeps 1 s per move; the match gave up when its 0.3 s + 50 ms were
            # spent (its first move: the whole clock), not when the late answer came
            # ("took 1.0.. s").
            last = game.end().comment if game.end() is not game else game.comment
            self.assertRegex(last, r"(White|Black) loses on time \(no bestmove within 0\.350 s\)$")

    def test_pondering_gets_ponderhit_or_stop_and_is_timed_from_ponderhit(self):
        log = self.dir / "engine.log"
        pgn, js = self.dir / "p.pgn", self.dir / "p.json"
        env = dict(os.environ, FAKE_ENGINE_LOG=str(log))
        # An option given as text, as on the command line, must not look changed before each move.
        proc = self.run_match(*fake("ponder", "p", "ponder=on", "option.Hash=2"), *fake("first", "f"),
                              "--book", str(self.book), "--tc", "5+0.05", "--games", "2", "--seed", "7",
                              "--pgn", str(pgn), "--json", str(js), env=env)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        data = json.loads(js.read_text())
        self.assertEqual(data["failures"]["p"], {"time": 0, "illegal": 0, "crash": 0, "stall": 0})
        self.assertEqual(data["bad_ponder_moves"], {"p": 0, "f": 0})
        self.assertEqual(data["ponder"], {"p": True, "f": False})
        sent = log.read_text().splitlines()
        # The fake predicts the reply of `first` after an even number of plies only: the
        # match must answer hits with ponderhit and misses with stop and a new go.
        self.assertGreater(sum(line.startswith("go ponder") for line in sent), 4)
        self.assertGreater(sent.count("ponderhit"), 2)
        self.assertGreater(sent.count("stop"), 2)
        # The answer to a stopped ponder search is not taken for the next move's: every
        # move's time runs from its go or ponderhit, so none is negative.
        times = re.findall(r"(-?\d+\.\d{3})s", pgn.read_text())
        self.assertGreater(len(times), 20)
        self.assertTrue(all(float(t) >= 0 for t in times), times)

    def test_crash_loses_and_is_counted(self):
        _, data, pgn, _ = self.play("crash", "--tc", "5+0.05")
        self.assertEqual(data["failures"]["bad"]["crash"], 2)
        self.assertIn("disconnects", pgn.read_text())

    def test_moves_carry_score_and_time_comments(self):
        _, data, pgn, _ = self.play("first", "--nodes", "1")
        self.assertEqual(data["games"], 2)
        with open(pgn) as f:
            game = chess.pgn.read_game(f)
        self.assertRegex(game.next().comment, r"^\+0\.00/1 \d+\.\d{3}s")
        self.assertEqual(game.headers["TimeControl"], "-")

    def test_sprt_stops_at_the_bound(self):
        pgn, js = self.dir / "s.pgn", self.dir / "s.json"
        proc = self.run_match(*fake("first", "good"), *fake("illegal", "bad"), "--book", str(self.book),
                              "--tc", "5+0.05", "--games", "400", "--sprt", "0", "5", "0.05", "0.05",
                              "--json", str(js), "--pgn", str(pgn), "--report-every", "10")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        data = json.loads(js.read_text())
        self.assertEqual(data["sprt"]["decision"], "H1")
        self.assertEqual(data["status"], "sprt H1")
        self.assertLess(data["games"], 400)
        self.assertGreaterEqual(data["sprt"]["llr"], data["sprt"]["upper"])

    def test_a_journal_resumes_a_match_where_it_stopped(self):
        journal, pgn, js = self.dir / "m.journal", self.dir / "resumed.pgn", self.dir / "r.json"
        # Eight openings, so each pair's opening tells where in the schedule a game came from.
        book = self.dir / "eight.epd"
        opening_book(book)

        def run(games: str, *extra: str, journal_path=journal, out=pgn) -> subprocess.CompletedProcess:
            return self.run_match(*fake("first", "good"), *fake("illegal", "bad"), "--book", str(book),
                                  "--nodes", "1", "--games", games, "--pgn", str(out),
                                  "--journal", str(journal_path), "--json", str(js), *extra)

        def openings(path: Path) -> list:
            with open(path) as f:
                games = iter(lambda: chess.pgn.read_game(f), None)
                return [(g.headers["Round"], g.headers["FEN"], g.headers["White"]) for g in games]

        first = run("5", "--seed", "11")
        self.assertEqual(first.returncode, 0, first.stderr)
        lines = journal.read_text().splitlines()
        self.assertEqual(len(lines), 6)  # header and 5 games
        # Stopped while writing a sixth game: the cut line is dropped with a warning. Game 5
        # left its pair half played; the resumed match plays its other half.
        journal.write_text("\n".join(lines) + '\n{"number": 6, "pa')
        self.assertGreater(len(journal.read_text()), 0)
        again = run("8")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("dropped a cut last line", again.stderr)
        self.assertIn("Resumed 5 games", again.stdout)
        self.assertIn("seed 11", again.stdout)
        data = json.loads(js.read_text())
        self.assertEqual((data["games"], data["wins"], data["pairs"]), (8, 8, 4))
        self.assertEqual(data["failures"]["bad"]["illegal"], 8)
        self.assertEqual(len(journal.read_text().splitlines()), 9)
        # Games 6-8 got the openings an unbroken match of 8 with seed 11 gives them, which
        # are not those of games 1-5.
        whole = self.dir / "whole.pgn"
        unbroken = run("8", "--seed", "11", journal_path=self.dir / "other.journal", out=whole)
        self.assertEqual(unbroken.returncode, 0, unbroken.stderr)
        self.assertEqual(openings(pgn), openings(whole))
        self.assertEqual(len({fen for _, fen, _ in openings(whole)}), 4)
        # A finished match has nothing left to play, and still writes its summary.
        js.unlink()
        done = run("8")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("nothing left to play", done.stdout)
        self.assertEqual(json.loads(js.read_text())["games"], 8)
        self.assertEqual(len(openings(pgn)), 8)
        # Fewer games than the journal holds is another match.
        fewer = run("6")
        self.assertEqual(fewer.returncode, 2)
        self.assertIn("more than --games 6", fewer.stderr)

    def test_sigterm_stops_the_match_with_its_report_summary_and_journal(self):
        journal, js = self.dir / "m.journal", self.dir / "out.json"
        proc = subprocess.Popen([sys.executable, str(MATCH), *fake("first", "good"), *fake("illegal", "bad"),
                                 "--book", str(self.book), "--nodes", "1", "--games", "100000",
                                 "--journal", str(journal), "--json", str(js)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen = []
        assert proc.stdout is not None
        for line in proc.stdout:
            seen.append(line)
            if line.startswith("Game 3 "):
                break
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=20)
        out = "".join(seen) + rest
        self.assertEqual(proc.returncode, 143, out + err)
        self.assertNotIn("Traceback", err)
        self.assertIn("Status: interrupted", out)
        played = sum(1 for line in out.splitlines() if line.startswith("Game "))
        self.assertGreaterEqual(played, 3)
        self.assertLess(played, 100000)
        data = json.loads(js.read_text())
        self.assertEqual((data["status"], data["games"], data["wins"]), ("interrupted", played, played))
        self.assertEqual(len(journal.read_text().splitlines()), played + 1)

    def test_a_journal_refuses_another_match_and_a_second_writer(self):
        journal = self.dir / "m.journal"
        common = ["--book", str(self.book), "--nodes", "1", "--games", "2", "--journal", str(journal)]
        # An engine that cannot start leaves no journal to block the corrected command.
        proc = self.run_match("--engine", "cmd=/nonexistent/engine", *fake("first", "b"), *common)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(journal.read_text() if journal.exists() else "", "")
        proc = self.run_match(*fake("first", "a"), *fake("first", "b"), *common, "--seed", "3")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for args, text in [
            ([*fake("first", "a", "option.Hash=2"), *fake("first", "b"), *common], "engine1.options differ"),
            ([*fake("random", "a"), *fake("first", "b"), *common], "engine1.cmd differ"),
            ([*fake("first", "a"), *fake("first", "b"), *common, "--seed", "4"], "differs from the journal's seed 3"),
            ([*fake("first", "a"), *fake("first", "b"), *common, "--sprt", "0", "5", "0.05", "0.05"], "sprt differ"),
        ]:
            proc = self.run_match(*args)
            self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
            self.assertIn(text, proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)
        # The same book path with other openings is another match too.
        self.book.write_text(OPENINGS[0] + "\n")
        proc = self.run_match(*fake("first", "a"), *fake("first", "b"), *common)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("book_sha256 differ", proc.stderr)
        # While one run holds the journal, another is refused.
        import fcntl
        with open(journal, "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            proc = self.run_match(*fake("first", "a"), *fake("first", "b"), *common)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("in use by another match", proc.stderr)
        journal.write_text("not json\n")
        proc = self.run_match(*fake("first", "a"), *fake("first", "b"), *common)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no valid header", proc.stderr)

    def test_unknown_option_is_skipped_with_a_warning(self):
        proc = self.run_match(*fake("first", "a", "option.Threads=1", "option.Hash=2"), *fake("first", "b"),
                              "--book", str(self.book), "--nodes", "1", "--games", "2")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("option 'Threads' is not advertised", proc.stderr)
        self.assertNotIn("'Hash'", proc.stderr)


class BadInput(unittest.TestCase):
    # A book of their own, so that errors met after the book is read (engines, options) do
    # not depend on the workspace's default book beside the checkout.
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.book = Path(self.tmp.name) / "book.epd"
        self.book.write_text("\n".join(OPENINGS) + "\n")

    def tearDown(self):
        self.tmp.cleanup()

    def expect_usage_error(self, args: list, text: str) -> None:
        proc = subprocess.run([sys.executable, str(MATCH), *args], capture_output=True, text=True, timeout=20)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn(text, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)

    def engines(self, *options: str) -> list:
        return fake("first", "a", *options) + fake("first", "b") + ["--book", str(self.book)]

    def test_missing_book(self):
        self.expect_usage_error(self.engines() + ["--tc", "1+0", "--book", "/nonexistent/book.epd"], "cannot read book")

    def test_bad_opening_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".epd", delete=False) as f:
            f.write("not a fen at all\n")
        try:
            self.expect_usage_error(self.engines() + ["--tc", "1+0", "--book", f.name], ":1: bad opening")
        finally:
            Path(f.name).unlink()

    def test_bad_time_control(self):
        self.expect_usage_error(self.engines() + ["--tc", "fast"], "bad time control")

    def test_no_limit(self):
        self.expect_usage_error(self.engines(), "give a limit")

    def test_bad_engine_token(self):
        self.expect_usage_error(["--engine", "path=/bin/true", "--engine", "cmd=x", "--tc", "1"], "unknown engine setting")

    def test_bad_option_value(self):
        self.expect_usage_error(self.engines("option.Hash=lots") + ["--nodes", "1"], "cannot set options")

    def test_option_out_of_range(self):
        self.expect_usage_error(self.engines("option.Hash=4096") + ["--nodes", "1"], "cannot set options")

    def test_missing_engine_binary(self):
        self.expect_usage_error(["--engine", "cmd=/nonexistent/engine", "--engine", f"cmd={FAKE}", "--nodes", "1",
                                 "--book", str(self.book)], "cannot start")

    def test_bad_sprt(self):
        self.expect_usage_error(self.engines() + ["--nodes", "1", "--sprt", "5", "0", "0.05", "0.05"], "elo0 < elo1")


if __name__ == "__main__":
    unittest.main()
