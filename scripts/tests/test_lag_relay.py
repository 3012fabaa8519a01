"""The lag relay (scripts/lag_relay.py) and the match's `lag=MS` engine setting:
`go` and `bestmove` are each held back by the delay, other lines are not, and a
match charges the delay to the engine's clock as a lagging GUI would."""

import json
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SCRIPTS))

from engines import parse_engine_spec  # noqa: E402

RELAY = SCRIPTS / "lag_relay.py"
MATCH = SCRIPTS / "match.py"
FAKE = Path(__file__).resolve().parent / "fake_engine.py"
OPENING = "rn2kb1r/pp3ppp/2p1pn2/3p3b/8/1P1P1NPP/PBPqPPB1/RN2K2R w KQkq - 0 9"


class Relay(unittest.TestCase):
    def start(self, delay_ms: int) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, str(RELAY), "--delay", str(delay_ms), "--", sys.executable, str(FAKE), "first"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.addCleanup(proc.kill)
        return proc

    def ask(self, proc: subprocess.Popen, line: str, answer: str) -> float:
        """Seconds from sending `line` to reading a line that starts with `answer`."""
        started = time.monotonic()
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        while True:
            got = proc.stdout.readline()
            self.assertNotEqual(got, "", f"the relay closed before {answer!r}")
            if got.startswith(answer):
                return time.monotonic() - started

    def test_go_and_bestmove_are_each_delayed_and_other_lines_are_not(self):
        proc = self.start(300)
        # Warm up (the fake engine imports python-chess) with an undelayed exchange.
        self.ask(proc, "uci", "uciok")
        self.assertLess(self.ask(proc, "isready", "readyok"), 0.25)
        proc.stdin.write("position startpos\n")
        took = self.ask(proc, "go wtime 1000 btime 1000", "bestmove")
        self.assertGreaterEqual(took, 0.6)
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        self.assertEqual(proc.wait(timeout=10), 0)

    def test_a_relay_without_an_engine_command_is_refused(self):
        proc = subprocess.run([sys.executable, str(RELAY), "--delay", "5"], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no engine command", proc.stderr)


class MatchLag(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)
        self.book = self.dir / "book.epd"
        self.book.write_text(OPENING + "\n")

    def play(self, lag_ms: int) -> dict:
        js = self.dir / f"lag{lag_ms}.json"
        proc = subprocess.run(
            [sys.executable, str(MATCH),
             "--engine", f"cmd={sys.executable} {FAKE} first", "name=lagged", f"lag={lag_ms}",
             "--engine", f"cmd={sys.executable} {FAKE} first", "name=direct",
             "--tc", "1+0", "--tolerance-ms", "0", "--book", str(self.book), "--games", "2",
             "--seed", "1", "--json", str(js)],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return json.loads(js.read_text())

    def test_the_lag_is_charged_to_the_lagged_engines_clock(self):
        # 400 ms each way is 800 ms a move: the second move of a 1 s game flags.
        data = self.play(400)
        self.assertEqual(data["failures"]["lagged"]["time"], 2, data)
        self.assertEqual(data["failures"]["direct"]["time"], 0, data)

    def test_lag_must_be_a_number_of_milliseconds(self):
        for bad in ("lag=abc", "lag=-1"):
            with self.assertRaises(ValueError):
                parse_engine_spec([f"cmd={FAKE}", bad])
        spec = parse_engine_spec([f"cmd={FAKE} first", "lag=40"])
        self.assertEqual(spec.cmd[1:5], [str(RELAY), "--delay", "40", "--"])
        self.assertEqual(spec.cmd[5:], [str(FAKE), "first"])


if __name__ == "__main__":
    unittest.main()
