"""fit_wdl.py: records are read as the engine writes them (material from the piece nibbles,
the result turned to the side to move, a record cut short at the end ignored), and on games
drawn from a known model the fit finds that model again."""

import io
import math
import random
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SCRIPTS))

import fit_wdl  # noqa: E402

# Nibbles: 1 pawn, 4 rook, 5 queen; +8 for Black.
PAWN, ROOK, QUEEN = 1, 4, 5


def record(pieces: list[int], score: int, white_result: int, black_to_move: bool) -> bytes:
    """A 32-byte record with these piece nibbles (occupancy and the rest are not read)."""
    nibbles = bytearray(16)
    for i, p in enumerate(pieces):
        nibbles[i // 2] |= p << (4 * (i % 2))
    flags = 1 if black_to_move else 0
    return (bytes(8) + bytes(nibbles) + score.to_bytes(2, "little", signed=True)
            + bytes([white_result, flags, 64, 0]) + (1).to_bytes(2, "little"))


def pieces_for(material: int) -> list[int]:
    """Queens, then a rook, then pawns, summing to `material`, Black's nibbles for half."""
    out = []
    while material >= 9:
        out.append(QUEEN + 8 * (len(out) % 2))
        material -= 9
    if material >= 5:
        out.append(ROOK)
        material -= 5
    out += [PAWN + 8] * material
    return out


class Reading(unittest.TestCase):
    def test_material_result_and_side_to_move_are_read_as_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "d.bin"
            data = (record(pieces_for(78), 35, 2, False)    # White to move, White won
                    + record(pieces_for(13), -120, 2, True)  # Black to move, White won
                    + record(pieces_for(13), 0, 1, True))
            path.write_bytes(data + b"\x01\x02\x03")  # a record cut short
            counts, total = fit_wdl.read_counts([path], None)
        self.assertEqual(total, 3)
        self.assertEqual(counts[(78, 4)], [1, 0, 0])    # 35 cp in the 40 bin: a win
        self.assertEqual(counts[(13, -12)], [0, 0, 1])  # the side to move lost
        self.assertEqual(counts[(13, 0)], [0, 1, 0])


class Fit(unittest.TestCase):
    def test_games_drawn_from_a_known_model_give_that_model_back(self):
        # log a falls from 6 to 4.2 over the material range, b is 100 throughout.
        true_log_a = [0.0, 0.0, -1.5, 6.1]
        true_log_b = [0.0, 0.0, 0.0, math.log(100.0)]
        rng = random.Random(7)
        materials = [5, 20, 35, 50, 65, 78]
        data = bytearray()
        for m in materials:
            a, b = fit_wdl.parameters(true_log_a, true_log_b, 0, 99, m)
            for _ in range(2500):
                score = rng.randint(-700, 700)
                w, d, _ = fit_wdl.model(score, a, b)
                u = rng.random()
                result = 2 if u < w else 1 if u < w + d else 0
                data += record(pieces_for(m), score, result, False)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "d.bin"
            path.write_bytes(bytes(data))
            old = fit_wdl.MIN_POSITIONS
            fit_wdl.MIN_POSITIONS = 1000
            try:
                out = io.StringIO()
                with redirect_stdout(out):
                    self.assertEqual(fit_wdl.main([str(path)]), 0)
            finally:
                fit_wdl.MIN_POSITIONS = old
        text = out.getvalue()
        consts = {}
        for line in text.splitlines():
            if line.startswith("const "):
                name, value = line[len("const "):].rstrip(";").split(" = ")
                consts[name.split(":")[0]] = value
        self.assertEqual(consts["MATERIAL_MIN"], "5")
        self.assertEqual(consts["MATERIAL_MAX"], "78")
        log_a = [float(v) for v in consts["LOG_A"].strip("[]").split(", ")]
        log_b = [float(v) for v in consts["LOG_B"].strip("[]").split(", ")]
        for m in materials:
            a, b = fit_wdl.parameters(log_a, log_b, 5, 78, m)
            ta, tb = fit_wdl.parameters(true_log_a, true_log_b, 0, 99, m)
            self.assertLess(abs(a - ta) / ta, 0.2, f"a at {m}: {a:.1f} against {ta:.1f}\n{text}")
            self.assertLess(abs(b - tb) / tb, 0.2, f"b at {m}: {b:.1f} against {tb:.1f}\n{text}")


if __name__ == "__main__":
    unittest.main()
