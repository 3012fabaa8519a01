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
        # Only when on, so journals of standard chess written before it still match.
        **({"chess960": True} if getattr(settings, "chess960", False) else {}),
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


class JsonLinesLog:
    """A file of JSON lines, a header first, locked while open (a second run cannot write
    into it at the same time). Opening reads the header (None for a new file) and the
    records after it; a last line cut by a stop is dropped, as `warning` says. The header is
    written with the first record, so a run that fails to start leaves nothing behind.

    Subclasses name what they log (`noun`, `owner`, `record_noun`, `key`: the header's entry
    holding the identity, and `Error`) and say what a valid header and record are
    (`check_header`, `check_record`: ValueError, KeyError, TypeError or AttributeError for a
    line that is not one)."""

    noun = "log"
    owner = "run"
    record_noun = "record"
    key = "run"
    version = 1
    Error: type[Exception] = Exception
    # Whether a file of nothing but a cut header (a stop while the first record was written)
    # is emptied with a warning rather than refused.
    drop_cut_header = False

    def __init__(self, path: str):
        self.path = path
        self.header: Optional[dict] = None
        self.records: list[dict] = []
        self.warning: Optional[str] = None
        self.ident: Optional[dict] = None
        try:
            self.file = open(path, "a+b")
        except OSError as err:
            raise self.Error(f"cannot open {self.noun} {path!r}: {err.strerror or err}") from None
        try:
            try:
                fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise self.Error(f"{self.noun} {path!r} is in use by another {self.owner}") from None
            self._load()
        except self.Error:
            self.close()
            raise

    @property
    def seed(self) -> Optional[int]:
        return None if self.header is None else self.header[self.key]["seed"]

    def check_header(self, header: dict) -> None:
        int(header[self.key]["seed"])

    def check_record(self, record: dict) -> None:
        raise NotImplementedError

    def new_header(self) -> dict:
        return {"version": self.version, self.key: self.ident}

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
            self.check_header(header)
        except (ValueError, KeyError, TypeError):
            if self.drop_cut_header and len(lines) == 1 and not data.endswith(b"\n"):
                self.warning = f"dropped a cut header ({len(data)} bytes) of {self.path}"
                self.file.truncate(0)
                return
            raise self.Error(f"{self.noun} {self.path!r} has no valid header") from None
        if header.get("version") != self.version:
            raise self.Error(f"{self.noun} {self.path!r} is version {header.get('version')!r}, not {self.version}")
        self.header = header
        for i, line in enumerate(lines[1:], start=1):
            try:
                record = json.loads(line)
                self.check_record(record)
            except (ValueError, KeyError, TypeError, AttributeError):
                # Only the last line may be cut (a stop while it was written); drop it.
                if i == len(lines) - 1:
                    self.warning = f"dropped a cut last line ({len(line)} bytes) of {self.path}"
                    self.file.truncate(starts[i])
                    return
                raise self.Error(f"{self.path}:{i + 1}: not {self.record_noun}") from None
            self.records.append(record)
        # A whole last line whose newline was cut: give it one, so records stay apart.
        if not data.endswith(b"\n"):
            self._write(b"\n")

    def check_identity(self, ident: dict, differences) -> None:
        """Holds the file to the run of identity `ident`; `differences(old, new)` names the
        keys that differ."""
        if self.header is not None:
            changed = differences(self.header.get(self.key, {}), ident)
            if changed:
                raise self.Error(f"{self.noun} {self.path!r} is of another {self.owner}: "
                                 f"{', '.join(changed)} differ (start a new {self.noun}, "
                                 f"or run the {self.owner} it was written for)")
        self.ident = ident

    def append(self, record: dict) -> None:
        """Writes `record` (after the header, if this is the first)."""
        text = ""
        if self.header is None:
            self.header = self.new_header()
            text = json.dumps(self.header) + "\n"
        text += json.dumps(record) + "\n"
        self._write(text.encode())
        self.records.append(record)

    def close(self) -> None:
        self.file.close()

    def _write(self, data: bytes) -> None:
        try:
            self.file.write(data)
            self.file.flush()
        except OSError as err:
            raise self.Error(f"cannot write {self.noun} {self.path!r}: {err.strerror or err}") from None


class Journal(JsonLinesLog):
    """The journal of a match at `path`: `games_done` holds the recorded games, each a dict
    with number, pair, score1, forfeit_by and failure; `check` holds it to the match about
    to run."""

    noun = "journal"
    owner = "match"
    record_noun = "a game record"
    key = "match"
    version = VERSION
    Error = JournalError

    def __init__(self, path: str):
        self._numbers: set[int] = set()
        super().__init__(path)

    @property
    def games_done(self) -> list[dict]:
        return self.records

    def check_record(self, game: dict) -> None:
        number = int(game["number"])
        if game["score1"] not in (0.0, 0.5, 1.0) or number in self._numbers:
            raise ValueError
        self._numbers.add(number)

    def check(self, ident: dict, games: int) -> None:
        """Holds the journal to the match of identity `ident` and at most `games` games;
        JournalError names what differs."""
        self.check_identity(ident, differences)
        most = max((g["number"] for g in self.records), default=0)
        if most > games:
            raise JournalError(f"journal {self.path!r} holds game {most}, more than --games {games}")

    def record(self, number: int, pair: int, score1: float, forfeit_by: Optional[str],
               failure: Optional[str]) -> None:
        self.append({"number": number, "pair": pair, "score1": score1,
                     "forfeit_by": forfeit_by, "failure": failure})
