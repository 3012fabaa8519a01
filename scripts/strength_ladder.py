#!/usr/bin/env python3
"""Calibrate UCI_Elo: play Ferrum at several UCI_Elo settings against reference opponents
(Stockfish 15.1 with its own UCI_LimitStrength/UCI_Elo, or full-strength peers with a
rating given on the command line) through match.py, and print a table of setting,
opponent, games, score and Elo with its 95% error (from game pairs), with the Elo the result implies for the
setting (the opponent's rating plus the measured difference).

Example:
  scripts/strength_ladder.py --ferrum target/release/ferrum --tc 5+0.05 --games 60 \\
      --row 1400:sf:1400 --row 1800:sf:1800 --row 2200:sf:2200

A row is SETTING:sf:ELO (Stockfish limited to ELO) or SETTING:cmd=PATH:RATING (a
full-strength engine taken to be RATING on the same scale).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
STOCKFISH = "/usr/games/stockfish"


def opponent_args(spec: str) -> tuple[list[str], float, str]:
    """Match arguments, rating and label for an opponent spec."""
    kind, _, value = spec.partition(":")
    if kind == "sf":
        elo = int(value)
        return ([f"cmd={STOCKFISH}", f"name=SF{elo}", "option.UCI_LimitStrength=true",
                 f"option.UCI_Elo={elo}", "option.Threads=1", "option.Hash=16"],
                float(elo), f"Stockfish 15.1 at UCI_Elo {elo}")
    if kind.startswith("cmd="):
        path, _, rating = spec[4:].rpartition(":")
        name = Path(path).name
        return ([f"cmd={path}", f"name={name}", "option.Hash=16", "option.OwnBook=false"],
                float(rating), f"{name} (taken as {rating})")
    raise SystemExit(f"bad opponent '{spec}'")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ferrum", default=str(SCRIPTS.parent / "target" / "release" / "ferrum"))
    p.add_argument("--tc", default="5+0.05")
    p.add_argument("--games", type=int, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--row", action="append", required=True,
                   help="SETTING:sf:ELO or SETTING:cmd=PATH:RATING")
    p.add_argument("--json", help="append each row's result to this JSON-lines file")
    args = p.parse_args()

    print("| setting | opponent | tc | games | W-L-D | score | Elo diff | implied Elo | Ferrum forfeits |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for k, row in enumerate(args.row):
        setting, _, spec = row.partition(":")
        opp, rating, label = opponent_args(spec)
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            cmd = [sys.executable, str(SCRIPTS / "match.py"),
                   "--engine", f"cmd={args.ferrum}", f"name=Ferrum{setting}",
                   "option.UCI_LimitStrength=true", f"option.UCI_Elo={setting}", "option.Hash=16",
                   "--engine", *opp, "--tc", args.tc, "--games", str(args.games),
                   "--seed", str(args.seed + k), "--concurrency", str(args.concurrency),
                   "--json", out.name, "--report-every", "1000"]
            done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
            if done.returncode not in (0,):
                print(f"row {row}: match.py exited {done.returncode}", file=sys.stderr)
                continue
            summary = json.loads(Path(out.name).read_text())
        w, l, d = summary["wins"], summary["losses"], summary["draws"]
        games = w + l + d
        elo, err = summary["penta_elo"], summary["penta_elo_error"]
        forfeits = sum(summary["failures"][f"Ferrum{setting}"].values())
        score = (w + d / 2) / max(games, 1)
        print(f"| {setting} | {label} | {args.tc} | {games} | {w}-{l}-{d} | {100 * score:.1f}% "
              f"| {elo:+.0f} ± {err:.0f} | {rating + elo:.0f} | {forfeits} |", flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps({"setting": setting, "opponent": label, "tc": args.tc,
                                    **summary}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
