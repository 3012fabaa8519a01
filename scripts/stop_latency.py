#!/usr/bin/env python3
"""Measures how long Ferrum takes to answer `stop` with `bestmove` during `go infinite`.

For each run: `position`, `go infinite`, wait until the engine reports depth >= 4 (so the
search is busy), send `stop`, and time until the `bestmove` line arrives. Prints the median and
the worst case. Usage: scripts/stop_latency.py [--runs N] [--engine PATH]
"""
import argparse
import statistics
import time
from pathlib import Path

from uciproc import Engine

ROOT = Path(__file__).resolve().parent.parent
FENS = [
    "startpos",
    "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "fen r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--engine", default=str(ROOT / "target/release/ferrum"))
    args = ap.parse_args()
    e = Engine(args.engine)
    latencies = []
    for i in range(args.runs):
        e.send(f"position {FENS[i % len(FENS)]}")
        e.send("go infinite")
        e.until("info depth 4 ")
        start = time.perf_counter()
        e.send("stop")
        e.until("bestmove")
        latencies.append((time.perf_counter() - start) * 1000)
    e.quit()
    print(f"stop -> bestmove over {len(latencies)} runs: median {statistics.median(latencies):.2f} ms, "
          f"max {max(latencies):.2f} ms")


if __name__ == "__main__":
    main()
