"""The soak script's plumbing with scripted engines: both legs run, failures are
counted per side, and only the Ferrum sides' failures decide the exit status."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent
SOAK = SCRIPTS / "soak.py"
FAKE = Path(__file__).resolve().parent / "fake_engine.py"
OPENINGS = "rn1qk2r/pb1pbppp/1p2pn2/8/Q1P5/5NP1/PP2PPBP/RNB2RK1 w kq - 2 9\n"


class Soak(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.book = self.dir / "book.epd"
        self.book.write_text(OPENINGS)

    def tearDown(self):
        self.tmp.cleanup()

    def soak(self, ferrum_mode: str, peer_mode: str) -> tuple:
        out = self.dir / "out"
        proc = subprocess.run(
            [sys.executable, str(SOAK), "--engine", f"{sys.executable} {FAKE} {ferrum_mode}",
             "--peer", f"{sys.executable} {FAKE} {peer_mode}", "--peer-name", "peer", "--games", "4", "--tc", "5+0.05",
             "--book", str(self.book), "--out", str(out)],
            capture_output=True, text=True, timeout=60)
        return proc, json.loads((out / "soak.json").read_text())

    def test_a_clean_run_plays_both_legs_and_passes(self):
        proc, data = self.soak("ponder", "first")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual([leg["leg"] for leg in data["legs"]], ["self", "peer"])
        self.assertEqual([leg["games"] for leg in data["legs"]], [2, 2])
        self.assertEqual(data["legs"][0]["ponder"], {"Ferrum-ponder": True, "Ferrum": False})
        self.assertIn("Ferrum failures in all: 0", proc.stdout)

    def test_ferrum_failures_are_counted_per_side_and_fail_the_run(self):
        proc, data = self.soak("illegal", "first")
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        # Self leg: White moves first and forfeits in each game; peer leg: Ferrum forfeits each game.
        self.assertEqual(data["ferrum_failures"], 4)
        peer = data["legs"][1]["failures"]
        self.assertEqual(peer["Ferrum-ponder"]["illegal"], 2)
        self.assertEqual(sum(peer["peer"].values()), 0)
        self.assertIn("Ferrum-ponder    time 0, illegal 2", proc.stdout)

    def test_peer_failures_are_reported_but_do_not_fail_the_run(self):
        proc, data = self.soak("first", "illegal")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(data["legs"][1]["failures"]["peer"]["illegal"], 2)

    def test_settings_are_legs_of_their_own_against_the_peer(self):
        out = self.dir / "settings"
        proc = subprocess.run(
            [sys.executable, str(SOAK), "--engine", f"{sys.executable} {FAKE} first",
             "--peer", f"{sys.executable} {FAKE} first", "--peer-name", "peer", "--games", "2",
             "--settings", "sd1,ponder", "--book", str(self.book), "--out", str(out)],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        data = json.loads((out / "soak.json").read_text())
        self.assertEqual([leg["leg"] for leg in data["legs"]], ["sd1", "ponder"])
        self.assertEqual([leg["tc"] for leg in data["legs"]], ["1+0", "1+0.01"])
        self.assertEqual([leg["games"] for leg in data["legs"]], [2, 2])
        self.assertEqual(data["legs"][1]["ponder"], {"Ferrum-ponder": True, "peer": False})

    def test_an_unknown_setting_is_refused(self):
        proc = subprocess.run([sys.executable, str(SOAK), "--settings", "sd1,warp9", "--out", str(self.dir / "x")],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("warp9", proc.stderr)


if __name__ == "__main__":
    unittest.main()
