#!/usr/bin/env python3
"""Soak test: many fast games with Ferrum on Threads=2 and pondering, counting every
time loss, illegal move (and illegal ponder move), crash and stall of each side.

Two legs through scripts/match.py, half the games each: Ferrum (Threads=2, ponder
on) against Ferrum (Threads=2, no pondering), then against a Debian engine. No
adjudication: every game is played out by the rules.

Example (the full soak, about an hour on two cores):
  python3 scripts/soak.py --games 1000 --tc 1+0.01 --out soak-out

With --settings, each named setting is a leg of its own against the peer instead
(Ferrum on Threads 1 unless the setting says otherwise), --games games each:
  python3 scripts/soak.py --settings all --games 200 --out soak-settings

Exit status: 0 if Ferrum had no failure in any leg, 1 if it had any (or a leg was
aborted), 2 on a bad command line.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
KINDS = ("time", "illegal", "crash", "stall")

# What people set, each played against the peer: time control, Ferrum's options, pondering
# and Chess960.
SETTINGS: dict[str, dict] = {
    "sd1": {"tc": "1+0"},
    "sd3": {"tc": "3+0"},
    "inc": {"tc": "2+0.05"},
    "mtg": {"tc": "40/20"},
    "threads2": {"tc": "1+0.01", "options": {"Threads": "2"}},
    "multipv3": {"tc": "1+0.01", "options": {"MultiPV": "3"}},
    "chess960": {"tc": "1+0.01", "chess960": True},
    "ponder": {"tc": "1+0.01", "ponder": True},
    "limit": {"tc": "1+0.01", "options": {"UCI_LimitStrength": "true", "UCI_Elo": "1500"}},
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="Soak: fast games with Threads=2 and pondering; failures per side.")
    p.add_argument("--games", type=int, default=1000, help="games in all, split between the two legs (default: %(default)s)")
    p.add_argument("--tc", default="1+0.01", help="time control (default: %(default)s)")
    p.add_argument("--engine", default=str(REPO / "target" / "release" / "ferrum"),
                   help="Ferrum command (default: %(default)s)")
    p.add_argument("--peer", default="/usr/games/glaurung", help="the Debian engine's command (default: %(default)s)")
    p.add_argument("--peer-name", help="the peer's name in reports (default: its command's file name)")
    p.add_argument("--peer-option", action="append", metavar="NAME=VALUE",
                   help="a UCI option for the peer, repeatable (default: Threads=1, so only Ferrum's side "
                        "searches with two threads)")
    p.add_argument("--threads", type=int, default=2, help="Ferrum's Threads on both of its sides (default: %(default)s)")
    p.add_argument("--ferrum-option", action="append", default=[], metavar="NAME=VALUE",
                   help="another UCI option for both Ferrum sides, e.g. \"Move Overhead=100\" (repeatable)")
    p.add_argument("--hash", type=int, default=16, help="Hash of every engine, MB (default: %(default)s)")
    p.add_argument("--concurrency", type=int, default=1, help="games at once per leg (default: %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="opening order seed (default: %(default)s)")
    p.add_argument("--book", help="opening book (default: match.py's)")
    p.add_argument("--tolerance-ms", default="100", help="grace past the clock (default: %(default)s)")
    p.add_argument("--out", default="soak-out", help="directory for PGN, JSON and logs (default: %(default)s)")
    p.add_argument("--legs", default="self,peer", help="which legs to play (default: %(default)s)")
    p.add_argument("--settings", metavar="LIST",
                   help="instead of the legs, play each of these settings against the peer, --games each: "
                        f"'all' or a comma list of {', '.join(SETTINGS)}")
    return p


def engine_args(cmd: str, name: str, options: dict[str, str], ponder: bool) -> list[str]:
    spec = [f"cmd={cmd}", f"name={name}"] + [f"option.{k}={v}" for k, v in options.items()]
    if ponder:
        spec.append("ponder=on")
    return ["--engine", *spec]


def run_leg(args: argparse.Namespace, leg: str, games: int, out: Path) -> dict:
    """Plays one leg with match.py; its JSON summary, with the command and log path added."""
    ferrum = {"Threads": str(args.threads), "Hash": str(args.hash)}
    for item in args.ferrum_option:
        name, _, value = item.partition("=")
        ferrum[name] = value
    first = engine_args(args.engine, "Ferrum-ponder", ferrum, True)
    if leg == "self":
        second = engine_args(args.engine, "Ferrum", ferrum, False)
    else:
        second = peer_args(args)
    return play(args, leg, first, second, args.tc, False, games, out)


def peer_args(args: argparse.Namespace) -> list[str]:
    peer_options = {"Hash": str(args.hash)}
    for item in args.peer_option or ["Threads=1"]:
        name, _, value = item.partition("=")
        peer_options[name] = value
    peer_name = args.peer_name or Path(shlex.split(args.peer)[0]).name
    return engine_args(args.peer, peer_name, peer_options, False)


def run_setting(args: argparse.Namespace, name: str, games: int, out: Path) -> dict:
    """Plays one setting of SETTINGS: Ferrum so set against the peer."""
    setting = SETTINGS[name]
    ferrum = {"Threads": "1", "Hash": str(args.hash)}
    for item in args.ferrum_option:
        key, _, value = item.partition("=")
        ferrum[key] = value
    ferrum.update(setting.get("options", {}))
    first = engine_args(args.engine, f"Ferrum-{name}", ferrum, setting.get("ponder", False))
    data = play(args, name, first, peer_args(args), setting["tc"], setting.get("chess960", False), games, out)
    data["tc"] = setting["tc"]
    return data


def play(args: argparse.Namespace, leg: str, first: list[str], second: list[str], tc: str, chess960: bool,
         games: int, out: Path) -> dict:
    js, pgn, log = out / f"{leg}.json", out / f"{leg}.pgn", out / f"{leg}.log"
    cmd = [sys.executable, str(SCRIPTS / "match.py"), *first, *second, "--tc", tc, "--games", str(games),
           "--concurrency", str(args.concurrency), "--seed", str(args.seed), "--tolerance-ms", args.tolerance_ms,
           "--pgn", str(pgn), "--json", str(js), "--event", f"Ferrum soak ({leg})", "--report-every", "50"]
    if args.book and not chess960:
        cmd += ["--book", args.book]
    if chess960:
        cmd.append("--chess960")
    print(f"== leg {leg}: {games} games: {shlex.join(cmd)}", flush=True)
    with open(log, "w", encoding="utf-8") as f:
        proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, text=True)
    if proc.returncode == 2 or not js.exists():
        raise SystemExit(f"soak.py: leg {leg} did not run (see {log}):\n" + log.read_text()[-2000:])
    data = json.loads(js.read_text())
    data["leg"], data["log"] = leg, str(log)
    return data


def leg_lines(data: dict) -> list[str]:
    """The leg's report: result from the pondering side's view, then failures per side."""
    names = list(data["failures"])
    lines = [f"leg {data['leg']}: {names[0]} vs {names[1]}, {data['games']} games "
             f"(+{data['wins']} ={data['draws']} -{data['losses']}), status {data['status']}"]
    for name in names:
        counts = data["failures"][name]
        ponder = data.get("bad_ponder_moves", {}).get(name, 0)
        lines.append(f"  {name:<16} " + ", ".join(f"{k} {counts.get(k, 0)}" for k in KINDS)
                     + f", illegal ponder moves {ponder}")
    return lines


def ferrum_failures(data: dict) -> int:
    """Failures of the Ferrum sides of a leg (the peer's are reported, not judged)."""
    total = 0
    for name, counts in data["failures"].items():
        if name.startswith("Ferrum"):
            total += sum(counts.get(k, 0) for k in KINDS) + data.get("bad_ponder_moves", {}).get(name, 0)
    return total


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = Path(args.out)
    if args.settings:
        names = list(SETTINGS) if args.settings == "all" else [n for n in args.settings.split(",") if n]
        unknown = [n for n in names if n not in SETTINGS]
        if not names or unknown:
            print(f"soak.py: error: unknown settings {unknown or args.settings!r}; known: {', '.join(SETTINGS)}",
                  file=sys.stderr)
            return 2
        if args.games < 2 or args.concurrency < 1:
            print("soak.py: error: need at least two games per setting and concurrency >= 1", file=sys.stderr)
            return 2
        out.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        results = [run_setting(args, name, args.games // 2 * 2, out) for name in names]
    else:
        legs = [leg for leg in args.legs.split(",") if leg]
        if not legs or any(leg not in ("self", "peer") for leg in legs):
            print(f"soak.py: error: --legs takes self and/or peer, got {args.legs!r}", file=sys.stderr)
            return 2
        if args.games < 2 * len(legs) or args.threads < 1 or args.concurrency < 1:
            print("soak.py: error: need at least two games per leg, Threads and concurrency >= 1", file=sys.stderr)
            return 2
        out.mkdir(parents=True, exist_ok=True)
        # Whole game pairs per leg, so every opening is played with both colours.
        per_leg = max(2, args.games // len(legs) // 2 * 2)
        started = time.monotonic()
        results = [run_leg(args, leg, per_leg, out) for leg in legs]
    print()
    for data in results:
        for line in leg_lines(data):
            print(line)
    failures = sum(ferrum_failures(d) for d in results)
    aborted = [d["leg"] for d in results if d["status"] == "aborted"]
    print(f"Ferrum failures in all: {failures}" + (f"; aborted legs: {', '.join(aborted)}" if aborted else "")
          + f"; {time.monotonic() - started:.0f} s; files in {out}/")
    with open(out / "soak.json", "w", encoding="utf-8") as f:
        json.dump({"legs": results, "ferrum_failures": failures, "tc": args.tc}, f, indent=1)
    return 1 if failures or aborted else 0


if __name__ == "__main__":
    sys.exit(main())
