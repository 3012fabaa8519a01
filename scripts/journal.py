"""A match journal: one JSON line per finished game after a header that says what match it
is, so a match stopped at any point (an SPRT that outlives a session) goes on where it was.

The header holds the match's identity: each engine's command, options and the SHA-256 of its
program file, the limits, the book, the seed, the SPRT and the adjudication rules. A match
resumed from a journal must have the same identity (the number of games may grow); the seed
comes from the journal, so the remaining games get the openings they would have had.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Optional

VERSION = 1


class JournalError(Exception):
    """The journal cannot be used for this match: reported in one line."""


def program_digest(cmd: list[str]) -> Optional[str]:
    """SHA-256 of the engine's program file (the first word of its command, looked up on
    PATH like a shell would), or None if it cannot be read."""
    if not cmd:
        return None
    path = shutil.which(cmd[0]) or cmd[0]
    try:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except OSError:
        return None


def identity(specs, settings, book: str, seed: int, sprt) -> dict:
    """What must not change between the runs of one match."""
    rules = settings.rules
    return {
        "engines": [
            {"name": s.name, "cmd": s.cmd, "dir": s.dir, "options": dict(sorted(s.options.items())),
             "ponder": s.ponder, "sha256": program_digest(s.cmd)}
            for s in specs
        ],
        "tc": settings.pgn_time_control(), "nodes": settings.nodes, "depth": settings.depth,
        "book": str(Path(book).resolve()), "seed": seed,
        "sprt": None if sprt is None else [sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta],
        "adjudication": [rules.resign_score, rules.resign_moves, rules.resign_twosided,
                         rules.draw_score, rules.draw_moves, rules.draw_after_move],
    }


def differences(old: dict, new: dict) -> list[str]:
    """The keys (engine fields as engine1.cmd and the like) whose values differ."""
    keys = []
    for key in sorted(set(old) | set(new)):
        if key == "engines" and isinstance(old.get(key), list) and len(old[key]) == len(new.get(key, [])):
            for i, (a, b) in enumerate(zip(old[key], new[key])):
                keys += [f"engine{i + 1}.{k}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        elif old.get(key) != new.get(key):
            keys.append(key)
    return keys


def read_seed(path: str) -> Optional[int]:
    """The seed in an existing journal's header; None when there is no journal yet."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise JournalError(f"cannot read journal {path!r}: {err.strerror or err}") from None
    if not first.strip():
        return None
    try:
        return int(json.loads(first)["match"]["seed"])
    except (ValueError, KeyError, TypeError):
        raise JournalError(f"journal {path!r} has no valid header") from None


class Journal:
    """Opens (or starts) the journal at `path` for a match of identity `ident`: `games` are
    the games it already holds, each a dict with number, pair, score1, forfeit_by and
    failure; `warning` says what was skipped (a line cut by a stop)."""

    def __init__(self, path: str, ident: dict):
        self.path = path
        self.games: list[dict] = []
        self.warning: Optional[str] = None
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
        except FileNotFoundError:
            lines = []
        except OSError as err:
            raise JournalError(f"cannot read journal {path!r}: {err.strerror or err}") from None
        if lines and lines[-1] == "":
            lines.pop()
        if not lines:
            self._append({"version": VERSION, "match": ident}, new=True)
            return
        try:
            header = json.loads(lines[0])
        except ValueError:
            raise JournalError(f"journal {path!r} has no valid header") from None
        if header.get("version") != VERSION:
            raise JournalError(f"journal {path!r} is version {header.get('version')!r}, not {VERSION}")
        changed = differences(header.get("match", {}), ident)
        if changed:
            raise JournalError(f"journal {path!r} is of another match: {', '.join(changed)} differ"
                               " (start a new journal, or run the match it was written for)")
        seen = set()
        for i, line in enumerate(lines[1:], start=2):
            try:
                game = json.loads(line)
                key = int(game["number"])
                if game["score1"] not in (0.0, 0.5, 1.0) or key in seen:
                    raise ValueError
            except (ValueError, KeyError, TypeError):
                # Only the last line may be cut (a stop while it was written); drop it.
                if i == len(lines):
                    self.warning = f"skipped a cut last line ({len(line)} bytes) of {path}"
                    self._rewrite(lines[:-1])
                    break
                raise JournalError(f"{path}:{i}: not a game record") from None
            seen.add(key)
            self.games.append(game)

    def record(self, number: int, pair: int, score1: float, forfeit_by: Optional[str],
               failure: Optional[str]) -> None:
        self._append({"number": number, "pair": pair, "score1": score1,
                      "forfeit_by": forfeit_by, "failure": failure})

    def _append(self, obj: dict, new: bool = False) -> None:
        try:
            with open(self.path, "w" if new else "a", encoding="utf-8") as f:
                f.write(json.dumps(obj) + "\n")
        except OSError as err:
            raise JournalError(f"cannot write journal {self.path!r}: {err.strerror or err}") from None

    def _rewrite(self, lines: list[str]) -> None:
        try:
            with open(self.path, "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in lines))
        except OSError as err:
            raise JournalError(f"cannot write journal {self.path!r}: {err.strerror or err}") from None
