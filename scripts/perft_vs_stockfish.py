#!/usr/bin/env python3
"""Times `ferrum perft` against Stockfish's `go perft` on the same positions.

Runs are interleaved (A B C A B C ...) so that load on the shared machine hits every engine
alike; the table gives the median wall time of each and its ratio to Stockfish.
Usage: scripts/perft_vs_stockfish.py [--runs N] [--ferrum PATH] [--stockfish PATH]
"""
import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 119060324),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 193690690),
]


def find_stockfish(given):
    for cand in [given, shutil.which("stockfish"), "/usr/games/stockfish"]:
        if cand and Path(cand).exists():
            return cand
    sys.exit("stockfish not found: apt-get install stockfish (binary in /usr/games)")


def timed(cmd, stdin_text=None):
    """Wall time of one run and the node count it printed."""
    start = time.perf_counter()
    out = subprocess.run(cmd, input=stdin_text, capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    nodes = [int(l.split()[-1]) for l in out.splitlines() if l.startswith("Nodes searched")]
    return elapsed, nodes[-1] if nodes else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ferrum", default=str(ROOT / "target/release/ferrum"))
    ap.add_argument("--stockfish", default=None)
    args = ap.parse_args()
    sf = find_stockfish(args.stockfish)
    if not Path(args.ferrum).exists():
        sys.exit(f"{args.ferrum} not found: cargo build --release")

    print(f"{'position':<10} {'depth':>5} {'engine':<40} {'median s':>9} {'vs SF':>7}")
    for name, fen, depth, expected in POSITIONS:
        variants = {
            "stockfish 15.1 go perft": (
                [sf],
                f"position fen {fen}\ngo perft {depth}\nquit\n",
            ),
            "ferrum (default: hash 64 MB, all cores)": (
                [args.ferrum, "perft", str(depth), "--fen", fen],
                None,
            ),
            "ferrum --threads 1 --hash 0": (
                [args.ferrum, "perft", str(depth), "--fen", fen, "--threads", "1", "--hash", "0"],
                None,
            ),
            "ferrum --threads 1 --hash 64": (
                [args.ferrum, "perft", str(depth), "--fen", fen, "--threads", "1", "--hash", "64"],
                None,
            ),
        }
        times = {k: [] for k in variants}
        for _ in range(args.runs):
            for label, (cmd, stdin_text) in variants.items():
                t, nodes = timed(cmd, stdin_text)
                if nodes != expected:
                    sys.exit(f"{label} on {name}: {nodes} nodes, expected {expected}")
                times[label].append(t)
        base = statistics.median(times["stockfish 15.1 go perft"])
        for label, ts in times.items():
            m = statistics.median(ts)
            print(f"{name:<10} {depth:>5} {label:<40} {m:>9.3f} {m / base:>7.2f}")


if __name__ == "__main__":
    main()
