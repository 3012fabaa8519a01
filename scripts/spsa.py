#!/usr/bin/env python3
"""Tune a UCI engine's spin options by SPSA (simultaneous perturbation stochastic
approximation) through game pairs, as OpenBench does.

Both sides of every game are the same engine (for Ferrum: the tuning build,
`cargo build --release --features tune`, whose search constants are spin options).
Iteration k perturbs every tuned value at once by +-c_k (a random sign per value),
plays game pairs between theta+ and theta- (each pair: one book opening played with
both colours), and moves theta along the signs in proportion to the score difference:
theta_i += a_k * (points of plus - points of minus) * delta_i / c_k.

Gains: alpha 0.602, gamma 0.101, A = 0.1 N (N = --iterations); per value
c = c_end N^gamma and a = a_end (A + N)^alpha with a_end = r_end c_end^2, so that
c_k = c / k^gamma and a_k = a / (A + k)^alpha reach c_end and a_end at k = N.

The log (--log, JSON lines) holds a header naming the tune and one line per finished
iteration; started again with the same log, the tune goes on after its last iteration.
Game play is referee.py's, engine processes engines.py's.

Example:
  scripts/spsa.py --engine cmd=target/release/ferrum option.Hash=16 \\
      --params rfp_margin,futility_margin --iterations 2000 --tc 4+0.04 --log run1.jsonl

Exit status: 0 finished, 1 aborted (an engine could not be restarted, the log could not
be written), 2 bad command line, engine option or input file, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import math
import random
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import chess
import chess.engine

import adjudicate
from clock import describe_limit, parse_limit
from engines import MANAGED, READY_TIMEOUT, EnginePlayer, EngineSpec, EngineStartError, parse_engine_spec
from journal import JsonLinesLog, file_digest, program_digest
from match import DEFAULT_BOOK, UsageError, load_book, opening_fen
from referee import GameSettings, play_game

# Standard SPSA exponents (Spall) and the stability constant as a share of the iterations.
ALPHA = 0.602
GAMMA = 0.101
A_SHARE = 0.1
R_END = 0.002

LOG_VERSION = 1


@dataclass(frozen=True)
class Param:
    """One tuned spin option: where it starts, its range and its final gains."""
    name: str
    start: int
    low: int
    high: int
    c_end: float
    r_end: float

    @property
    def a_end(self) -> float:
        return self.r_end * self.c_end ** 2


def default_c_end(low: int, high: int) -> float:
    """A twentieth of the range, at least 1 (an integer step)."""
    return max(1.0, (high - low) / 20)


@dataclass(frozen=True)
class Schedule:
    """The gains of a run of `iterations`: c and a per parameter, and A."""
    iterations: int
    big_a: float
    c: tuple[float, ...]
    a: tuple[float, ...]


def make_schedule(params: Sequence[Param], iterations: int) -> Schedule:
    """c = c_end N^gamma and a = a_end (A + N)^alpha, so the gains end at c_end and a_end."""
    big_a = A_SHARE * iterations
    c = tuple(p.c_end * iterations ** GAMMA for p in params)
    a = tuple(p.a_end * (big_a + iterations) ** ALPHA for p in params)
    return Schedule(iterations, big_a, c, a)


def gains(schedule: Schedule, k: int) -> tuple[list[float], list[float]]:
    """(c_k, a_k) per parameter at iteration k (1-based)."""
    c_k = [c / k ** GAMMA for c in schedule.c]
    a_k = [a / (schedule.big_a + k) ** ALPHA for a in schedule.a]
    return c_k, a_k


def iteration_rng(seed: int, k: int) -> random.Random:
    """The generator of iteration k's random choices: the same for the same (seed, k)."""
    return random.Random(f"spsa {seed} {k}")


def draw_delta(rng: random.Random, n: int) -> list[int]:
    """A random direction: +1 or -1 per parameter."""
    return [rng.choice((-1, 1)) for _ in range(n)]


def sent_value(x: float, p: Param) -> int:
    """What the engine is sent for the value x: rounded, within the option's range."""
    return min(p.high, max(p.low, round(x)))


def perturb(theta: Sequence[float], c_k: Sequence[float], delta: Sequence[int],
            params: Sequence[Param]) -> tuple[list[int], list[int]]:
    """The values of the plus and the minus side: theta +- c_k delta, as sent."""
    plus = [sent_value(t + c * d, p) for t, c, d, p in zip(theta, c_k, delta, params)]
    minus = [sent_value(t - c * d, p) for t, c, d, p in zip(theta, c_k, delta, params)]
    return plus, minus


def update(theta: Sequence[float], a_k: Sequence[float], c_k: Sequence[float], delta: Sequence[int],
           result: float, params: Sequence[Param]) -> list[float]:
    """theta_i + a_k result delta_i / c_k, within [min, max]; `result` is plus's points
    minus minus's points over the iteration's games."""
    return [min(float(p.high), max(float(p.low), t + a * result * d / c))
            for t, a, c, d, p in zip(theta, a_k, c_k, delta, params)]


# ---------------------------------------------------------------------------
# The log


class LogError(Exception):
    """The log cannot be used for this tune: reported in one line."""


def differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    """What differs between two identities, as dotted keys (engine.options, params.x.c_end)."""
    found = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        name = prefix + key
        if isinstance(a, dict) and isinstance(b, dict):
            found += differences(a, b, name + ".")
        elif key == "params" and isinstance(a, list) and isinstance(b, list):
            names_a = [p.get("name") for p in a if isinstance(p, dict)]
            names_b = [p["name"] for p in b]
            if names_a != names_b or len(names_a) != len(a):
                found.append(f"the parameters ({', '.join(map(str, names_a))} in the log)")
            else:
                for pa, pb in zip(a, b):
                    found += differences(pa, pb, f"{name}.{pb['name']}.")
        elif a != b:
            found.append(name)
    return found


class SpsaLog(JsonLinesLog):
    """The log at `path` (its directory made if need be): the header, then one record per
    finished iteration (`records`). `check` holds it to the tune about to run; a log this
    run made and never wrote to is removed on closing."""

    noun = "log"
    owner = "tune"
    record_noun = "an iteration record"
    key = "tune"
    version = LOG_VERSION
    Error = LogError
    drop_cut_header = True

    def __init__(self, path: str):
        self.iterations = 0
        self.names: list[str] = []
        self.created = not Path(path).exists()
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise LogError(f"cannot open log {path!r}: {err.strerror or err}") from None
        super().__init__(path)

    def check_header(self, header: dict) -> None:
        super().check_header(header)
        self.names = [p["name"] for p in header["tune"]["params"]]

    def check_record(self, record: dict) -> None:
        theta = record["theta"]
        if (int(record["k"]) != len(self.records) + 1 or list(theta) != self.names
                or not all(isinstance(v, (int, float)) for v in theta.values())):
            raise ValueError

    def new_header(self) -> dict:
        return {**super().new_header(), "iterations": self.iterations}

    def check(self, ident: dict, iterations: int) -> None:
        """Holds the log to the tune of identity `ident` run for `iterations`; LogError
        names what differs."""
        self.check_identity(ident, differences)
        if len(self.records) > iterations:
            raise LogError(f"log {self.path!r} holds iteration {len(self.records)}, "
                           f"more than --iterations {iterations}")
        self.iterations = iterations

    def record(self, entry: dict) -> None:
        self.append(entry)

    def close(self) -> None:
        """Unlock; a log this run made and never wrote to is removed."""
        if self.created and self.header is None and self.file.tell() == 0:
            Path(self.path).unlink(missing_ok=True)
        super().close()


# ---------------------------------------------------------------------------
# The command line


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Tune spin options of a UCI engine by SPSA: every game pair sets the engine "
                    "against itself with the tuned values moved up and down at random.",
        epilog="Engine settings: cmd=PATH (split like a shell), name=NAME, dir=WORKDIR, args=\"...\", "
               "option.NAME=VALUE (set on both sides; for a tuned option, its start value instead of "
               "the engine's default). Gains: alpha 0.602, gamma 0.101, A = 0.1 * iterations, "
               "a_end = r_end * c_end^2 (OpenBench's convention). The result is printed as "
               "option.NAME=VALUE tokens for match.py and as lines for src/search/params.rs; "
               "prove it with an SPRT before it becomes the default. Exit status: 0 finished, "
               "1 aborted, 2 bad input, 130 interrupted (the log keeps every finished iteration).")
    p.add_argument("--engine", nargs="+", metavar="KEY=VALUE", required=True,
                   help="the engine, both sides of every game: cmd=PATH [option.Hash=16 ...]")
    p.add_argument("--param", action="append", default=[], metavar="NAME",
                   help="a spin option to tune (repeatable)")
    p.add_argument("--params", action="append", default=[], metavar="NAME,NAME",
                   help="spin options to tune, separated by commas")
    p.add_argument("--c-end", action="append", default=[], metavar="NAME=VALUE",
                   help="the perturbation at the last iteration for one parameter "
                        "(default: a twentieth of its range, at least 1)")
    p.add_argument("--r-end", type=float, default=R_END,
                   help="the final learning rate, a_end = r_end * c_end^2 (default: %(default)s)")
    p.add_argument("--iterations", type=int, required=True, metavar="N",
                   help="length of the schedule; a resumed tune may be given more")
    p.add_argument("--pairs", type=int, default=1, help="game pairs per iteration (default: %(default)s)")
    p.add_argument("--tc", help="time control [moves/]seconds[+increment], e.g. 4+0.04")
    p.add_argument("--nodes", type=int, help="node limit per move")
    p.add_argument("--depth", type=int, help="depth limit per move")
    p.add_argument("--book", default=str(DEFAULT_BOOK),
                   help="EPD/FEN file, one opening per line (default: %(default)s)")
    p.add_argument("--concurrency", type=int, default=1,
                   help="game pairs played at once, each by its own two engine processes; the pairs "
                        "of one iteration are shared out, so more than --pairs is idle (default: %(default)s)")
    p.add_argument("--seed", type=int, help="seed of the signs and openings (default: random, or the log's)")
    p.add_argument("--log", required=True, metavar="FILE",
                   help="JSON lines: a header, then one line per iteration; started again with the "
                        "same log (and the same engine, parameters, limits, book and seed), the "
                        "tune goes on after the last iteration it holds")
    adjudicate.add_arguments(p)
    p.add_argument("--tolerance-ms", type=float, default=100.0, help="grace past the clock (default: %(default)s)")
    p.add_argument("--move-timeout", type=float, default=60.0,
                   help="seconds per move before a forfeit when there is no clock (default: %(default)s)")
    p.add_argument("--debug", action="store_true", help="log the UCI traffic")
    return p


@dataclass
class Config:
    """What the command line asks for, checked as far as it can be without the engine."""
    spec: EngineSpec
    settings: GameSettings
    names: list[str]
    c_ends: dict[str, float]
    r_end: float


def parse_names(args: argparse.Namespace) -> list[str]:
    """The --param and --params names in order; UsageError for none, an empty one or a repeat."""
    names = list(args.param)
    for group in args.params:
        names += [name.strip() for name in group.split(",")]
    if not names:
        raise UsageError("name the parameters to tune: --param NAME or --params NAME,NAME")
    seen = set()
    for name in names:
        if not name:
            raise UsageError("an empty parameter name in --params")
        if name.lower() in seen:
            raise UsageError(f"parameter {name!r} is given twice")
        seen.add(name.lower())
    return names


def parse_c_ends(tokens: list[str]) -> dict[str, float]:
    """--c-end NAME=VALUE settings by lower-case name."""
    c_ends = {}
    for token in tokens:
        name, sep, text = token.partition("=")
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not sep or not name or not (value > 0 and math.isfinite(value)):
            raise UsageError(f"--c-end {token!r} is not NAME=VALUE with a positive VALUE")
        c_ends[name.lower()] = value
    return c_ends


def parse_config(args: argparse.Namespace) -> Config:
    """Validate everything that does not need the engine; UsageError on the first problem."""
    try:
        spec = parse_engine_spec(args.engine)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if spec.ponder:
        raise UsageError("ponder=on is not for a tune: both sides would ponder on one core each")
    try:
        tc = parse_limit(args.tc, args.nodes, args.depth)
    except ValueError as err:
        raise UsageError(str(err)) from None
    for name in ("nodes", "depth", "iterations", "pairs", "concurrency"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise UsageError(f"--{name} must be positive, got {value}")
    if not (args.r_end > 0 and math.isfinite(args.r_end)):
        raise UsageError(f"--r-end must be a positive number, got {args.r_end:g}")
    if not (args.tolerance_ms >= 0 and math.isfinite(args.tolerance_ms)):
        raise UsageError("--tolerance-ms must be a non-negative number")
    if not (args.move_timeout > 0 and math.isfinite(args.move_timeout)):
        raise UsageError("--move-timeout must be a positive number")
    try:
        rules = adjudicate.rules_from_args(args)
    except ValueError as err:
        raise UsageError(str(err)) from None
    settings = GameSettings(tc, args.nodes, args.depth, args.tolerance_ms / 1000.0, args.move_timeout,
                            rules, "Ferrum SPSA")
    return Config(spec, settings, parse_names(args), parse_c_ends(args.c_end), args.r_end)


def resolve_params(config: Config, options: dict) -> list[Param]:
    """The tuned parameters as the engine advertises them (`options`: python-chess's
    Option records by name, any case); UsageError names an unknown or unsuitable one."""
    spins = [o.name for o in options.values() if o.type == "spin" and o.name.lower() not in MANAGED]
    listing = f"the engine's spin options are {', '.join(spins)}" if spins else "the engine has no spin options"
    given = {name.lower(): value for name, value in config.spec.options.items()}
    params = []
    for name in config.names:
        option = options.get(name)
        if option is None:
            raise UsageError(f"the engine has no option {name!r}; {listing}")
        if option.type != "spin":
            raise UsageError(f"option {option.name!r} is of type {option.type}, not spin; {listing}")
        if option.name.lower() in MANAGED:
            raise UsageError(f"option {option.name!r} is set by the games themselves; {listing}")
        if option.min is None or option.max is None or option.min >= option.max:
            raise UsageError(f"option {option.name!r} has no range to tune (min {option.min}, max {option.max})")
        start = option.default
        if option.name.lower() in given:
            try:
                start = option.parse(given[option.name.lower()])
            except chess.engine.EngineError as err:
                raise UsageError(f"option.{option.name}: {err}") from None
        c_end = config.c_ends.pop(option.name.lower(), None)
        params.append(Param(option.name, int(start), int(option.min), int(option.max),
                            c_end if c_end is not None else default_c_end(option.min, option.max),
                            config.r_end))
    if config.c_ends:
        name = next(iter(config.c_ends))
        raise UsageError(f"--c-end names {name!r}, which is not tuned (tuned: "
                         f"{', '.join(p.name for p in params)})")
    return params


def identity(spec: EngineSpec, settings: GameSettings, params: Sequence[Param], book: str, seed: int,
             pairs: int) -> dict:
    """What must not change between the runs of one tune (the iterations may grow)."""
    rules = settings.rules
    return {
        "engine": {"cmd": spec.cmd, "dir": spec.dir, "options": dict(sorted(spec.options.items())),
                   "sha256": program_digest(spec.cmd, spec.dir)},
        "params": [{"name": p.name, "start": p.start, "min": p.low, "max": p.high, "c_end": p.c_end,
                    "r_end": p.r_end} for p in params],
        "alpha": ALPHA, "gamma": GAMMA, "a_share": A_SHARE,
        "tc": settings.pgn_time_control(), "nodes": settings.nodes, "depth": settings.depth,
        "book": str(Path(book).resolve()), "book_sha256": file_digest(book), "seed": seed, "pairs": pairs,
        "adjudication": [rules.resign_score, rules.resign_moves, rules.resign_twosided,
                         rules.draw_score, rules.draw_moves, rules.draw_after_move],
    }


# ---------------------------------------------------------------------------
# Playing the iterations


class Tuner:
    """Plays the iterations in order, the pairs of each shared out over the workers; each
    worker owns a plus and a minus process of the engine, kept running between pairs."""

    def __init__(self, spec: EngineSpec, settings: GameSettings, book: list[tuple[int, str]], book_path: str,
                 seed: int, pairs: int, concurrency: int):
        self.settings = settings
        self.book = book
        self.book_path = book_path
        self.seed = seed
        self.pairs = pairs
        plus = dataclasses.replace(spec, name=f"{spec.name}-plus")
        minus = dataclasses.replace(spec, name=f"{spec.name}-minus")
        self.workers = [[EnginePlayer(plus), EnginePlayer(minus)] for _ in range(min(concurrency, pairs))]
        self.fens: dict[int, str] = {}

    async def start_first(self) -> dict:
        """Start one worker's engines now, so a bad command or option fails at once; the
        options the engine advertises."""
        for player in self.workers[0]:
            await player.start()
        return self.workers[0][0].protocol.options

    async def close(self) -> None:
        await asyncio.gather(*(p.close() for players in self.workers for p in players), return_exceptions=True)

    def fen(self, index: int) -> str:
        if index not in self.fens:
            line_no, text = self.book[index]
            try:
                self.fens[index] = opening_fen(text)
            except ValueError as err:
                raise UsageError(f"{self.book_path}:{line_no}: bad opening {text!r}: {err}") from None
        return self.fens[index]

    async def iteration(self, k: int, theta: list[float], params: Sequence[Param], schedule: Schedule) -> dict:
        """Play iteration k from `theta`; its log record, with theta after the update."""
        rng = iteration_rng(self.seed, k)
        delta = draw_delta(rng, len(params))
        if self.pairs <= len(self.book):
            openings = rng.sample(range(len(self.book)), self.pairs)
        else:
            openings = [rng.randrange(len(self.book)) for _ in range(self.pairs)]
        fens = [self.fen(i) for i in openings]
        c_k, a_k = gains(schedule, k)
        plus, minus = perturb(theta, c_k, delta, params)
        names = [p.name for p in params]
        sides = (dict(zip(names, plus)), dict(zip(names, minus)))
        points: list[Optional[list[float]]] = [None] * self.pairs
        forfeits: list[dict] = []
        pending = list(range(self.pairs))

        async def work(players: list[EnginePlayer]) -> None:
            while pending:
                pair = pending.pop(0)
                points[pair] = await self._pair(players, sides, fens[pair], f"{k}.{pair + 1}", pair, forfeits)

        tasks = [asyncio.ensure_future(work(players)) for players in self.workers]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        games = [score for pair in points for score in pair]
        result = sum(2 * score - 1 for score in games)
        theta = update(theta, a_k, c_k, delta, result, params)
        record = {"k": k, "delta": dict(zip(names, delta)), "plus": sides[0], "minus": sides[1],
                  "openings": [i + 1 for i in openings], "points": games, "result": result}
        if forfeits:
            record["forfeits"] = sorted(forfeits, key=lambda f: (f["pair"], f["game"]))
        record.update(c_k=dict(zip(names, c_k)), a_k=dict(zip(names, a_k)), theta=dict(zip(names, theta)))
        return record

    async def _pair(self, players: list[EnginePlayer], sides: tuple[dict, dict], fen: str, label: str,
                    pair: int, forfeits: list[dict]) -> list[float]:
        """Plus's points in the two games of one opening, plus White first. Before each game
        a process lost to a forfeit is started again, and both processes are given their
        side's values (python-chess sends only those that changed)."""
        plus, minus = players
        scores = []
        for game, (white, black) in enumerate(((plus, minus), (minus, plus)), start=1):
            for player, values in zip(players, sides):
                if not player.alive:
                    await player.start()
                await self._configure(player, values)
            record = await play_game(white, black, fen, self.settings, f"{label}.{game}", object())
            score_white = {"1-0": 1.0, "0-1": 0.0}.get(record.ending.result, 0.5)
            scores.append(score_white if white is plus else 1.0 - score_white)
            if record.failure is not None:
                loser = white if record.failed_color == chess.WHITE else black
                forfeits.append({"pair": pair + 1, "game": game, "by": "plus" if loser is plus else "minus",
                                 "kind": record.failure, "detail": record.detail})
        return scores

    @staticmethod
    async def _configure(player: EnginePlayer, values: dict) -> None:
        """Set the values on the running process (python-chess sends only what changed)."""
        try:
            await asyncio.wait_for(player.protocol.configure(values), READY_TIMEOUT)
        except (chess.engine.EngineError, asyncio.TimeoutError) as err:
            await player.kill()
            raise EngineStartError(f"{player.spec.name}: cannot set {values}: {err or 'timeout'}") from None


# ---------------------------------------------------------------------------
# Reports


def rounded(params: Sequence[Param], theta: Sequence[float]) -> str:
    """'rfp_margin=81 futility_margin=109': theta as the engine would be sent it."""
    return " ".join(f"{p.name}={sent_value(t, p)}" for p, t in zip(params, theta))


def progress_line(record: dict, iterations: int, params: Sequence[Param]) -> str:
    """'12/2000: result +1 (2 games), rfp_margin=81 futility_margin=109'."""
    games = len(record["points"])
    note = f", {len(record['forfeits'])} forfeited" if record.get("forfeits") else ""
    theta = list(record["theta"].values())
    return f"{record['k']}/{iterations}: result {record['result']:+g} ({games} games{note}), {rounded(params, theta)}"


def final_report(params: Sequence[Param], theta: Sequence[float], done: int) -> list[str]:
    """The values after `done` iterations, for match.py's --engine and for params.rs."""
    lines = [f"Tuned values after {done} iterations (start -> now):"]
    lines += [f"  {p.name}: {p.start} -> {t:.2f}" for p, t in zip(params, theta)]
    lines.append("For match.py --engine:")
    lines.append("  " + " ".join(f"option.{p.name}={sent_value(t, p)}" for p, t in zip(params, theta)))
    lines.append("For src/search/params.rs:")
    lines += [f"    {p.name} = {sent_value(t, p)}, {p.low}..={p.high};" for p, t in zip(params, theta)]
    return lines


# ---------------------------------------------------------------------------
# Running


async def tune(args: argparse.Namespace, config: Config, book: list[tuple[int, str]], seed: int,
               log: SpsaLog) -> int:
    """Start the engine, check the parameters and the log, play the iterations left and
    print the result; the exit status."""
    tuner = Tuner(config.spec, config.settings, book, args.book, seed, args.pairs, args.concurrency)
    try:
        try:
            options = await tuner.start_first()
            params = resolve_params(config, options)
            log.check(identity(config.spec, config.settings, params, args.book, seed, args.pairs), args.iterations)
        except (EngineStartError, UsageError, LogError) as err:
            print(f"spsa.py: error: {err}", file=sys.stderr)
            return 2
        schedule = make_schedule(params, args.iterations)
        theta = [float(p.start) for p in params]
        if log.records:
            theta = [float(v) for v in log.records[-1]["theta"].values()]
            left = args.iterations - len(log.records)
            print(f"Resumed {len(log.records)} iterations from {args.log}, {left} to play: "
                  f"{rounded(params, theta)}", flush=True)
            if log.header.get("iterations") != args.iterations and left:
                print(f"note: the log was started for {log.header.get('iterations')} iterations; the gains "
                      f"from here follow a schedule of {args.iterations}", flush=True)
        if args.concurrency > args.pairs:
            print(f"note: --concurrency {args.concurrency} is more than --pairs {args.pairs}; "
                  f"{args.pairs} worker(s) play", flush=True)
        for k in range(len(log.records) + 1, args.iterations + 1):
            try:
                record = await tuner.iteration(k, theta, params, schedule)
                log.record(record)
            except UsageError as err:
                print(f"spsa.py: error: {err}", file=sys.stderr)
                return 2
            except (EngineStartError, LogError) as err:
                print(f"spsa.py: aborted at iteration {k}: {err}", file=sys.stderr)
                return 1
            theta = list(record["theta"].values())
            print(progress_line(record, args.iterations, params), flush=True)
        for line in final_report(params, theta, len(log.records)):
            print(line)
        return 0
    except asyncio.CancelledError:
        print(f"\nInterrupted; the log keeps {len(log.records)} finished iterations", flush=True)
        return 130
    finally:
        await tuner.close()


async def main_async(args: argparse.Namespace, config: Config, book: list[tuple[int, str]], seed: int,
                     log: SpsaLog) -> int:
    """The tune, with SIGTERM stopping it as Ctrl-C does."""
    task = asyncio.ensure_future(tune(args, config, book, seed, log))
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await task
    except asyncio.CancelledError:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        return 130
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING)
    logging.getLogger("chess.engine").setLevel(logging.DEBUG if args.debug else logging.CRITICAL)
    log = None
    try:
        config = parse_config(args)
        book = load_book(args.book)
        try:
            log = SpsaLog(args.log)
        except LogError as err:
            raise UsageError(str(err)) from None
        if log.warning:
            print(f"spsa.py: warning: {log.warning}", file=sys.stderr)
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2 ** 31)
        if log.seed is not None:
            if args.seed is not None and args.seed != log.seed:
                raise UsageError(f"--seed {args.seed} differs from the log's seed {log.seed}")
            seed = log.seed
    except UsageError as err:
        if log is not None:
            log.close()
        print(f"spsa.py: error: {err}", file=sys.stderr)
        return 2
    limit = describe_limit(args.tc, args.nodes, args.depth)
    print(f"SPSA of {', '.join(config.names)}: {args.iterations} iterations of {args.pairs} pair(s), {limit}, "
          f"book {args.book} ({len(book)} openings), seed {seed}, concurrency {args.concurrency}", flush=True)
    try:
        return asyncio.run(main_async(args, config, book, seed, log))
    except KeyboardInterrupt:
        return 130
    finally:
        log.close()


if __name__ == "__main__":
    sys.exit(main())
