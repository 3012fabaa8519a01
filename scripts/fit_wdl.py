#!/usr/bin/env python3
"""Fit the win/draw/loss model that `UCI_ShowWDL` shows (src/uci/wdl.rs) to Ferrum's own
games: packed training records (README, "Net training data") with the search score from the
side to move and the game's result.

The model, for a score s (centipawns, side to move) and the material m on the board (pawn 1,
knight and bishop 3, rook 5, queen 9, both sides; clamped to the fitted range):
    win  = 1 / (1 + exp((a(m) - s) / b(m)))
    loss = 1 / (1 + exp((a(m) + s) / b(m)))
    draw = 1 - win - loss
with log a and log b cubic polynomials in m / 58 (a falls from several hundred centipawns in
drawish endgames to about 60 at full material: its logarithm is smooth where a cubic of a itself
is not, and both stay positive). The fit first finds, by maximum likelihood, a and b for each
material count with enough positions, and the cubics through their logarithms by least
squares weighted by the positions each count has; then, from there, the eight coefficients
that maximise the likelihood of all positions at once. Pure Python (no numpy); scores are
grouped in 10-centipawn bins, which keeps the fit to minutes.

    scripts/fit_wdl.py DATA.bin [DATA.bin ...] [--max-records N]

prints the constants for src/uci/wdl.rs, the fit per material count and a calibration table.
A file still being written is read up to its last whole record; --max-records N takes its
first N usable records, so a fit on a growing file can be made again.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

RECORD = 32
FLAG_BLACK = 1
FLAG_NO_SCORE = 1 << 6
# Material per role nibble (1 pawn .. 6 king, +8 for Black): pawn 1, minor 3, rook 5, queen 9.
ROLE_WEIGHT = [0, 1, 3, 3, 5, 9, 0, 0]
# The weight of both nibbles of a byte, so a record's material is a sum of 16 table lookups
# (unused nibbles are 0).
BYTE_WEIGHT = [ROLE_WEIGHT[b & 7] + ROLE_WEIGHT[(b >> 4) & 7] for b in range(256)]
# Material is given to the polynomials as m / NORM (full material is 78).
NORM = 58
SCORE_BIN = 10
SCORE_LIMIT = 2000
# A material count is fitted on its own only with at least this many positions; the model is
# clamped to the range of such counts (below it the few positions, a pawn or a minor piece on
# the board, are modelled as the smallest count fitted).
MIN_POSITIONS = 10000
# The calibration table's material groups and score bins.
CALIBRATION_GROUPS = [(0, 3), (4, 8), (9, 16), (17, 30), (31, 50), (51, 78)]
CALIBRATION_BIN = 200


def read_counts(paths: list[Path], max_records: int | None):
    """Counts of (win, draw, loss) for the side to move by (material, score bin)."""
    counts: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    total = 0
    for path in paths:
        data = path.read_bytes()
        whole = len(data) - len(data) % RECORD
        for at in range(0, whole, RECORD):
            if max_records is not None and total >= max_records:
                return counts, total
            flags = data[at + 27]
            if flags & FLAG_NO_SCORE:
                continue
            result_white = data[at + 26]
            if result_white > 2:
                continue
            material = sum(BYTE_WEIGHT[b] for b in data[at + 8:at + 24])
            score = int.from_bytes(data[at + 24:at + 26], "little", signed=True)
            # 0 loss, 1 draw, 2 win for White, turned to the side to move; index 0 is a win.
            result = result_white if not flags & FLAG_BLACK else 2 - result_white
            score = max(-SCORE_LIMIT, min(SCORE_LIMIT, score))
            counts[(material, round(score / SCORE_BIN))][2 - result] += 1
            total += 1
    return counts, total


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def model(s: float, a: float, b: float) -> tuple[float, float, float]:
    w = sigmoid((s - a) / b)
    l = sigmoid((-s - a) / b)
    return w, max(1.0 - w - l, 1e-12), l


def log_likelihood(cells, a: float, b: float) -> float:
    if b <= 1.0 or a < 0.0:
        return -math.inf
    total = 0.0
    for s, (nw, nd, nl) in cells:
        w, d, l = model(s, a, b)
        total += nw * math.log(max(w, 1e-300)) + nd * math.log(d) + nl * math.log(max(l, 1e-300))
    return total


def nelder_mead(f, start: list[float], step: list[float], iterations: int = 300) -> list[float]:
    """Maximises f from start (a plain Nelder-Mead simplex; f is smooth and 2-D here)."""
    n = len(start)
    simplex = [list(start)]
    for i in range(n):
        p = list(start)
        p[i] += step[i]
        simplex.append(p)
    values = [f(p) for p in simplex]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=lambda i: -values[i])
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        centre = [sum(p[i] for p in simplex[:-1]) / n for i in range(n)]
        worst = simplex[-1]
        reflect = [c + (c - w) for c, w in zip(centre, worst)]
        fr = f(reflect)
        if fr > values[0]:
            expand = [c + 2 * (c - w) for c, w in zip(centre, worst)]
            fe = f(expand)
            simplex[-1], values[-1] = (expand, fe) if fe > fr else (reflect, fr)
        elif fr > values[-2]:
            simplex[-1], values[-1] = reflect, fr
        else:
            contract = [c + 0.5 * (w - c) for c, w in zip(centre, worst)]
            fc = f(contract)
            if fc > values[-1]:
                simplex[-1], values[-1] = contract, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (x - b) for b, x in zip(best, p)]
                                    for p in simplex[1:]]
                values = [values[0]] + [f(p) for p in simplex[1:]]
        if max(abs(x - y) for p in simplex[1:] for x, y in zip(p, simplex[0])) < 1e-3:
            break
    return simplex[max(range(n + 1), key=lambda i: values[i])]


def solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the 4x4 normal equations)."""
    n = len(rhs)
    m = [row[:] + [r] for row, r in zip(matrix, rhs)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                factor = m[r][col] / m[col][col]
                m[r] = [x - factor * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def cubic_fit(xs: list[float], ys: list[float], weights: list[float]) -> list[float]:
    """Coefficients [c3, c2, c1, c0] of the weighted least-squares cubic through (xs, ys)."""
    powers = [[x ** k for k in (3, 2, 1, 0)] for x in xs]
    normal = [[sum(w * p[i] * p[j] for p, w in zip(powers, weights)) for j in range(4)]
              for i in range(4)]
    rhs = [sum(w * p[i] * y for p, y, w in zip(powers, ys, weights)) for i in range(4)]
    return solve(normal, rhs)


def cubic(c: list[float], x: float) -> float:
    return ((c[0] * x + c[1]) * x + c[2]) * x + c[3]


def parameters(coef_a, coef_b, low: int, high: int, material: int) -> tuple[float, float]:
    """a and b at `material`, clamped to the fitted range, as the engine computes them."""
    x = max(low, min(high, material)) / NORM
    # Capped so that a wild simplex point cannot overflow.
    return math.exp(min(20.0, cubic(coef_a, x))), math.exp(min(20.0, cubic(coef_b, x)))


def total_log_likelihood(by_material, low: int, high: int, coef_a, coef_b) -> float:
    """The log-likelihood of every position under the model."""
    total = 0.0
    for material, cells in by_material.items():
        a, b = parameters(coef_a, coef_b, low, high, material)
        total += log_likelihood(cells, a, b)
    return total


def global_fit(by_material, low: int, high: int, start_a, start_b):
    """The eight coefficients of largest likelihood over all positions, from the start given."""
    def f(p: list[float]) -> float:
        return total_log_likelihood(by_material, low, high, p[:4], p[4:])

    best = list(start_a) + list(start_b)
    # Restarts with a fresh simplex get Nelder-Mead out of a collapsed one.
    for _ in range(4):
        step = [max(0.05, abs(c) * 0.05) for c in best]
        best = nelder_mead(f, best, step, iterations=1500)
    return best[:4], best[4:]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="+", type=Path, help="packed records (ferrum datagen)")
    parser.add_argument("--max-records", type=int, default=None, help="read at most N records")
    args = parser.parse_args(argv)
    try:
        counts, total = read_counts(args.data, args.max_records)
    except OSError as err:
        print(f"fit_wdl.py: {err}", file=sys.stderr)
        return 2
    by_material: dict[int, list] = defaultdict(list)
    for (material, score_bin), wdl in counts.items():
        by_material[material].append((score_bin * SCORE_BIN, wdl))
    fitted = []
    for material in sorted(by_material):
        cells = by_material[material]
        n = sum(sum(wdl) for _, wdl in cells)
        if n < MIN_POSITIONS:
            continue
        a, b = nelder_mead(lambda p: log_likelihood(cells, p[0], p[1]), [100.0, 100.0],
                           [30.0, 30.0])
        fitted.append((material, n, a, b))
    if len(fitted) < 4:
        print(f"fit_wdl.py: too few material counts with {MIN_POSITIONS} positions "
              f"({len(fitted)}; {total} records read)", file=sys.stderr)
        return 2
    xs = [m / NORM for m, _, _, _ in fitted]
    weights = [float(n) for _, n, _, _ in fitted]
    start_a = cubic_fit(xs, [math.log(a) for _, _, a, _ in fitted], weights)
    start_b = cubic_fit(xs, [math.log(b) for _, _, _, b in fitted], weights)
    low, high = fitted[0][0], fitted[-1][0]
    coef_a, coef_b = global_fit(by_material, low, high, start_a, start_b)

    print(f"# {total} positions; material {low} to {high} fitted "
          f"({len(fitted)} counts with at least {MIN_POSITIONS} positions)")
    print("# material positions   a(per count)  b(per count)   a(cubic)  b(cubic)")
    for m, n, a, b in fitted:
        x = m / NORM
        print(f"# {m:8d} {n:9d} {a:13.1f} {b:13.1f} {math.exp(cubic(coef_a, x)):10.1f} "
              f"{math.exp(cubic(coef_b, x)):9.1f}")
    n_all = sum(sum(wdl) for cells in by_material.values() for _, wdl in cells)
    for name, (ca, cb) in [("least squares", (start_a, start_b)), ("final", (coef_a, coef_b))]:
        ll = total_log_likelihood(by_material, low, high, ca, cb)
        print(f"# mean log-likelihood per position, {name}: {ll / n_all:.4f}")
    print(f"# (a uniform 1/3 each: {math.log(1 / 3):.4f})")
    print("# calibration by material and score: positions, observed W D L % | predicted")
    for first, last in CALIBRATION_GROUPS:
        print(f"# material {first} to {last}")
        for lo in range(-800, 800, CALIBRATION_BIN):
            seen = [0, 0, 0]
            predicted = [0.0, 0.0, 0.0]
            for material, cells in by_material.items():
                if not first <= material <= last:
                    continue
                a, b = parameters(coef_a, coef_b, low, high, material)
                for score, wdl in cells:
                    if lo <= score < lo + CALIBRATION_BIN:
                        n = sum(wdl)
                        for i, p in enumerate(model(score, a, b)):
                            seen[i] += wdl[i]
                            predicted[i] += n * p
            n = max(1, sum(seen))
            print(f"#   {lo:5d}..{lo + CALIBRATION_BIN:<5d} {sum(seen):8d}  "
                  + " ".join(f"{100 * v / n:5.1f}" for v in seen) + "  |  "
                  + " ".join(f"{100 * v / n:5.1f}" for v in predicted))
    print()
    print("// The model's constants (scripts/fit_wdl.py on the data named in wdl.rs):")
    print(f"const MATERIAL_MIN: i32 = {low};")
    print(f"const MATERIAL_MAX: i32 = {high};")
    print("const LOG_A: [f64; 4] = [" + ", ".join(f"{c:.6f}" for c in coef_a) + "];")
    print("const LOG_B: [f64; 4] = [" + ", ".join(f"{c:.6f}" for c in coef_b) + "];")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
