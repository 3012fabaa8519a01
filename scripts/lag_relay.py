#!/usr/bin/env python3
"""Lag relay: runs a UCI engine behind a pipe that delays `go` on its way in and
`bestmove` on its way out by the same number of milliseconds, as a lagging GUI,
network or busy machine does. The engine's own clock never sees the delay; the
GUI's does. Every other line passes at once, and the order of lines in each
direction is kept (a `stop` sent right after a delayed `go` waits behind it).

  python3 scripts/lag_relay.py --delay 40 -- target/release/ferrum
  python3 scripts/match.py --engine cmd=target/release/ferrum name=F lag=40 ...

Exit status: the engine's, or 2 when the command line is bad or the engine
cannot be started.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Run a UCI engine behind a relay that delays 'go' and 'bestmove'.")
    p.add_argument("--delay", type=float, required=True, metavar="MS",
                   help="milliseconds added to each 'go' (GUI to engine) and each 'bestmove' "
                        "(engine to GUI)")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="the engine's command and its arguments, after '--'")
    return p


def delayed(line: bytes, word: bytes) -> bool:
    """Is this line the command `word` (the first word of the line)?"""
    first = line.split(None, 1)
    return bool(first) and first[0] == word


def pump(source, sink, word: bytes, delay_s: float, close_sink: bool) -> None:
    """Copies lines from source to sink, sleeping `delay_s` before each `word` line."""
    try:
        for line in iter(source.readline, b""):
            if delay_s > 0 and delayed(line, word):
                time.sleep(delay_s)
            sink.write(line)
            sink.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass
    finally:
        if close_sink:
            try:
                sink.close()
            except (BrokenPipeError, OSError):
                pass


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = args.command
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print("lag_relay.py: error: no engine command (give it after '--')", file=sys.stderr)
        return 2
    if args.delay < 0:
        print("lag_relay.py: error: --delay must be at least 0", file=sys.stderr)
        return 2
    try:
        engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as err:
        print(f"lag_relay.py: error: cannot start {command[0]!r}: {err}", file=sys.stderr)
        return 2
    delay_s = args.delay / 1000.0
    inward = threading.Thread(
        target=pump, args=(sys.stdin.buffer, engine.stdin, b"go", delay_s, True), daemon=True)
    inward.start()
    # The engine's output is relayed on this thread; it ends when the engine closes stdout.
    pump(engine.stdout, sys.stdout.buffer, b"bestmove", delay_s, False)
    return engine.wait()


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    # The thread reading stdin may still be blocked in a read: leave without waiting for it.
    os._exit(status)
