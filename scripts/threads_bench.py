#!/usr/bin/env python3
"""Lazy SMP figures: nodes per second and time to depth with 1 and 2 threads.

For each position, `go depth D` with a fresh table (ucinewgame) is timed with Threads=1 and
Threads=2, alternately. Prints per-position times and nps, then the medians and ratios.
Usage: scripts/threads_bench.py [--depth D] [--engine PATH] [--threads N]
"""
import argparse
import statistics
import time
from pathlib import Path

from uciproc import Engine

ROOT = Path(__file__).resolve().parent.parent
FENS = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 4 11",
    "r2q1rk1/1p1bbppp/p1nppn2/8/3NPP2/1BN1B3/PPP3PP/R2Q1RK1 w - - 5 12",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "6k1/3b3r/1p1p4/p1n2p2/1PPNpP1q/P3Q1p1/1R1RB1P1/5K2 b - - 0 1",
    "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
]


class Bench(Engine):
    def search(self, threads, fen, depth):
        self.send(f"setoption name Threads value {threads}")
        self.fresh_position(fen)
        start = time.perf_counter()
        self.send(f"go depth {depth}")
        lines = self.until("bestmove")
        elapsed = time.perf_counter() - start
        # A found mate can end the search before `depth`: the last report counts then.
        info = [l for l in lines if l.startswith("info depth ")][-1].split()
        nodes = int(info[info.index("nodes") + 1])
        return elapsed, nodes / elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=13)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--engine", default=str(ROOT / "target/release/ferrum"))
    args = ap.parse_args()
    e = Bench(args.engine)
    t1, t2, n1, n2 = [], [], [], []
    for fen in FENS:
        a, na = e.search(1, fen, args.depth)
        b, nb = e.search(args.threads, fen, args.depth)
        t1.append(a); t2.append(b); n1.append(na); n2.append(nb)
        print(f"{fen[:40]:<40}  1T {a:6.2f} s {na / 1e6:5.2f} Mnps   {args.threads}T {b:6.2f} s {nb / 1e6:5.2f} Mnps")
    e.quit()
    print(f"median time to depth {args.depth}: 1T {statistics.median(t1):.2f} s, {args.threads}T "
          f"{statistics.median(t2):.2f} s (ratio of medians {statistics.median(t1) / statistics.median(t2):.2f}); "
          f"median nps 1T {statistics.median(n1) / 1e6:.2f} M, {args.threads}T {statistics.median(n2) / 1e6:.2f} M "
          f"(x{statistics.median(n2) / statistics.median(n1):.2f})")


if __name__ == "__main__":
    main()
