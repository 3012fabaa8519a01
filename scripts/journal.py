"""A match journal: one JSON line per finished game after a header that says what match it
is, so a match stopped at any point (an SPRT that outlives a session) goes on where it was.

The header holds the match's identity: each engine's command, options and the SHA-256 of its
program file, the limits, the book, the seed, the SPRT and the adjudication rules. A match
resumed from a journal must have the same identity (the number of games may grow); the seed
comes from the journal, so the remaining games get the openings they would have had.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Optional

VERSION = 1


class JournalError(Exception):
    """The journal cannot be used for this match: reported in one line."""


def file_digest(path: str) -> Optional[str]:
    """SHA-256 of a file's bytes, or None if it cannot be read."""
    try:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except OSError:
        return None


def program_digest(cmd: list[str], workdir: Optional[str] = None) -> Optional[str]:
    """SHA-256 of the engine's program file: the first word of its command, found as the
    engine will be started (relative to its working directory, else on PATH). For an engine
    run by an interpreter (`python3 engine.py`) this is the interpreter's."""
    if not cmd:
        return None
    path = cmd[0]
    if "/" in path:
        if workdir and not os.path.isabs(path):
            path = os.path.join(workdir, path)
    else:
        path = shutil.which(path) or path
    return file_digest(path)


def identity(specs, settings, book: str, seed: int, sprt) -> dict:
    """What must not change between the runs of one match."""
    rules = settings.rules
    return {
        "engines": [
            {"name": s.name, "cmd": s.cmd, "dir": s.dir, "options": dict(sorted(s.options.items())),
             "ponder": s.ponder, "sha256": program_digest(s.cmd, s.dir)}
            for s in specs
        ],
        "tc": settings.pgn_time_control(), "nodes": settings.nodes, "depth": settings.depth,
        "book": str(Path(book).resolve()), "book_sha256": file_digest(book), "seed": seed,
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


class Journal:
    """The journal at `path`, locked while the match runs (a second run of the same match
    cannot write into it at the same time). Opening reads what it holds: `seed`, the header's
    seed (None for a new journal), and `games_done`, each a dict with number, pair, score1,
    forfeit_by and failure; a line cut by a stop is dropped, as `warning` says. `check` then
    holds it to the match about to run. Nothing is written before the first game ends, so a
    run that fails to start leaves no journal behind."""

    def __init__(self, path: str):
        self.path = path
        self.header: Optional[dict] = None
        self.ident: Optional[dict] = None
        self.games_done: list[dict] = []
        self.warning: Optional[str] = None
        try:
            self.file = open(path, "a+b")
        except OSError as err:
            raise JournalError(f"cannot open journal {path!r}: {err.strerror or err}") from None
        try:
            try:
                fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise JournalError(f"journal {path!r} is in use by another match") from None
            self._load()
        except JournalError:
            self.file.close()
            raise

    @property
    def seed(self) -> Optional[int]:
        return None if self.header is None else self.header["match"]["seed"]

    def _load(self) -> None:
        self.file.seek(0)
        data = self.file.read()
        lines = data.split(b"\n")
        # Offsets of each line's start, to cut the file at a broken last line.
        starts, at = [], 0
        for line in lines:
            starts.append(at)
            at += len(line) + 1
        if lines[-1] == b"":
            lines.pop()
        if not lines:
            return
        try:
            header = json.loads(lines[0])
            int(header["match"]["seed"])
        except (ValueError, KeyError, TypeError):
            raise JournalError(f"journal {self.path!r} has no valid header") from None
        if header.get("version") != VERSION:
            raise JournalError(f"journal {self.path!r} is version {header.get('version')!r}, not {VERSION}")
        self.header = header
        seen = set()
        for i, line in enumerate(lines[1:], start=1):
            try:
                game = json.loads(line)
                number = int(game["number"])
                if game["score1"] not in (0.0, 0.5, 1.0) or number in seen:
                    raise ValueError
            except (ValueError, KeyError, TypeError):
                # Only the last line may be cut (a stop while it was written); drop it.
                if i == len(lines) - 1:
                    self.warning = f"dropped a cut last line ({len(line)} bytes) of {self.path}"
                    self.file.truncate(starts[i])
                    return
                raise JournalError(f"{self.path}:{i + 1}: not a game record") from None
            seen.add(number)
            self.games_done.append(game)
        # A whole last line whose newline was cut: give it one, so records stay apart.
        if not data.endswith(b"\n"):
            self._write(b"\n")

    def check(self, ident: dict, games: int) -> None:
        """Holds the journal to the match of identity `ident` and at most `games` games;
        JournalError names what differs."""
        if self.header is not None:
            changed = differences(self.header.get("match", {}), ident)
            if changed:
                raise JournalError(f"journal {self.path!r} is of another match: {', '.join(changed)} differ"
                                   " (start a new journal, or run the match it was written for)")
        most = max((g["number"] for g in self.games_done), default=0)
        if most > games:
            raise JournalError(f"journal {self.path!r} holds game {most}, more than --games {games}")
        self.ident = ident

    def record(self, number: int, pair: int, score1: float, forfeit_by: Optional[str],
               failure: Optional[str]) -> None:
        text = ""
        if self.header is None:
            self.header = {"version": VERSION, "match": self.ident}
            text = json.dumps(self.header) + "\n"
        text += json.dumps({"number": number, "pair": pair, "score1": score1,
                            "forfeit_by": forfeit_by, "failure": failure}) + "\n"
        self._write(text.encode())

    def close(self) -> None:
        self.file.close()

    def _write(self, data: bytes) -> None:
        try:
            self.file.write(data)
            self.file.flush()
        except OSError as err:
            raise JournalError(f"cannot write journal {self.path!r}: {err.strerror or err}") from None
