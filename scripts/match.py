#!/usr/bin/env python3
"""Play a match between two UCI engines (python-chess only, no GUI needed).

Owns the command line, the opening schedule (each opening played twice with
colours swapped: a game pair), running games concurrently, progress and final
reports, PGN output and stopping an SPRT at a bound. Game play is in
referee.py, engine processes in engines.py, statistics in stats.py
(logistic Elo; pentanomial GSPRT with the normal approximation).

Example:
  scripts/match.py --engine cmd=/usr/games/glaurung option.Threads=1 \
      --engine cmd=/usr/games/toga2 option.Hash=16 ponder=on --tc 2+0.05 --games 6 --pgn out.pgn

Exit status: 0 finished (or SPRT decided), 1 aborted (an engine could not be
restarted), 2 bad command line or input file, 130 interrupted (Ctrl-C), 143
stopped by SIGTERM. Stopped either way, it still prints the final report and
writes --json; the journal keeps every finished game.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import random
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import chess

import adjudicate
from clock import describe_limit, parse_limit
from engines import EnginePlayer, EngineSpec, EngineStartError, parse_engine_spec
from journal import Journal, JournalError, identity
from referee import GameSettings, play_game
from tally import Sprt, Tally

# <repo>/scripts/match.py -> <repo>/data/books/8moves_v3.epd (shipped: data/SOURCES.md)
DEFAULT_BOOK = Path(__file__).resolve().parent.parent / "data" / "books" / "8moves_v3.epd"


class UsageError(Exception):
    """Bad command line or input file: reported in one line, exit status 2."""


@dataclass(frozen=True)
class ScheduledGame:
    number: int       # 1-based, in schedule order
    pair: int         # 0-based game-pair index
    opening: int      # 0-based line index into the book's openings
    fen: str
    first_is_white: bool


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Play a match between two UCI engines with a real wall clock per side.",
        epilog="Engine settings: cmd=PATH (split like a shell), name=NAME, dir=WORKDIR, args=\"...\", "
               "ponder=on (think on the opponent's time: go ponder, then ponderhit or stop), "
               "lag=MS (a lagging GUI: each 'go' and each 'bestmove' delayed MS ms by "
               "scripts/lag_relay.py, on this engine's clock), "
               "option.NAME=VALUE (options the engine does not advertise are skipped with a warning).")
    p.add_argument("--engine", nargs="+", action="append", metavar="KEY=VALUE", required=True,
                   help="one engine: cmd=PATH [name=NAME] [option.Hash=16 ...]; give it twice")
    p.add_argument("--tc", help="time control [moves/]seconds[+increment], e.g. 10+0.1 or 40/10+0.1")
    p.add_argument("--nodes", type=int, help="node limit per move")
    p.add_argument("--depth", type=int, help="depth limit per move")
    p.add_argument("--book", default=str(DEFAULT_BOOK), help="EPD/FEN file, one opening per line (default: %(default)s)")
    p.add_argument("--chess960", action="store_true",
                   help="play Chess960 (UCI_Chess960 set by python-chess; king-takes-rook castling); "
                        "without --book, from the 960 start positions")
    p.add_argument("--games", type=int, default=2, help="number of games (default: %(default)s)")
    p.add_argument("--concurrency", type=int, default=1, help="games played at once (default: %(default)s)")
    p.add_argument("--seed", type=int, help="seed for the opening order (default: random, printed)")
    p.add_argument("--pgn", help="append finished games to this PGN file")
    p.add_argument("--json", help="write the final summary to this JSON file")
    p.add_argument("--journal", metavar="FILE",
                   help="record every finished game here; started again with the same journal, the "
                        "match plays only the games it lacks (same engines, binaries, limits, book and "
                        "SPRT; the seed comes from the journal)")
    p.add_argument("--event", default="Ferrum match", help="PGN Event tag")
    p.add_argument("--sprt", nargs=4, type=float, metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
                   help="sequential test in logistic Elo; stops when a bound is crossed")
    adjudicate.add_arguments(p)
    p.add_argument("--tolerance-ms", type=float, default=100.0, help="grace past the clock (default: %(default)s)")
    p.add_argument("--move-timeout", type=float, default=60.0,
                   help="seconds per move before a forfeit when there is no clock (default: %(default)s)")
    p.add_argument("--report-every", type=int, default=1, metavar="PAIRS",
                   help="print a score line every PAIRS finished pairs (default: %(default)s)")
    p.add_argument("--debug", action="store_true", help="log the UCI traffic")
    return p


def opening_fen(line: str, chess960: bool = False) -> str:
    """A book line as a FEN: a full FEN, or EPD (4 fields plus operations)."""
    try:
        board = chess.Board(line, chess960=chess960)
    except ValueError:
        board, _ = chess.Board.from_epd(line, chess960=chess960)
    if not board.is_valid():
        raise ValueError(f"illegal position ({board.status()!r})")
    if board.is_game_over(claim_draw=True):
        raise ValueError("the game is already over in this position")
    return board.fen()


def load_book(path: str) -> list[tuple[int, str]]:
    """(line number, text) of every opening line; comments (#) and blanks skipped."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [(i + 1, line.strip()) for i, line in enumerate(f)]
    except OSError as err:
        raise UsageError(f"cannot read book {path!r}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise UsageError(f"book {path!r} is not UTF-8 text") from None
    lines = [(n, t) for n, t in lines if t and not t.startswith("#")]
    if not lines:
        raise UsageError(f"book {path!r} has no openings")
    return lines


def chess960_book() -> list[tuple[int, str]]:
    """The 960 start positions of Chess960, numbered 1 to 960 (position 0 to 959)."""
    return [(n + 1, chess.Board.from_chess960_pos(n).fen()) for n in range(960)]


def build_schedule(book: list[tuple[int, str]], games: int, seed: int, path: str,
                   chess960: bool = False) -> list[ScheduledGame]:
    """Seeded random opening per pair; game 1 of a pair has engine 1 as White."""
    order = list(range(len(book)))
    random.Random(seed).shuffle(order)
    schedule = []
    fens: dict[int, str] = {}
    for number in range(1, games + 1):
        pair = (number - 1) // 2
        index = order[pair % len(order)]
        if index not in fens:
            line_no, text = book[index]
            try:
                fens[index] = opening_fen(text, chess960)
            except ValueError as err:
                raise UsageError(f"{path}:{line_no}: bad opening {text!r}: {err}") from None
        schedule.append(ScheduledGame(number, pair, index, fens[index], number % 2 == 1))
    return schedule


def parse_settings(args: argparse.Namespace) -> tuple[list[EngineSpec], GameSettings, Optional[Sprt]]:
    """Validate everything that does not need an engine; UsageError on the first problem."""
    if len(args.engine) != 2:
        raise UsageError(f"need exactly two --engine, got {len(args.engine)}")
    try:
        specs = [parse_engine_spec(tokens) for tokens in args.engine]
    except ValueError as err:
        raise UsageError(str(err)) from None
    if specs[0].name == specs[1].name:
        specs[1].name += "-2"
        print(f"note: both engines are named {specs[0].name!r}; the second one is now {specs[1].name!r}")
    try:
        tc = parse_limit(args.tc, args.nodes, args.depth)
    except ValueError as err:
        raise UsageError(str(err)) from None
    for name in ("nodes", "depth", "games", "concurrency", "report_every"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be positive, got {value}")
    try:
        rules = adjudicate.rules_from_args(args)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if not (args.tolerance_ms >= 0 and math.isfinite(args.tolerance_ms)):
        raise UsageError("--tolerance-ms must be a non-negative number")
    if not (args.move_timeout > 0 and math.isfinite(args.move_timeout)):
        raise UsageError("--move-timeout must be a positive number")
    sprt = None
    if args.sprt:
        elo0, elo1, alpha, beta = args.sprt
        if not (0 < alpha < 1 and 0 < beta < 1):
            raise UsageError(f"SPRT alpha and beta must lie in (0, 1), got {alpha:g} and {beta:g}")
        if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
            raise UsageError(f"SPRT needs elo0 < elo1, got {elo0:g} and {elo1:g}")
        sprt = Sprt(elo0, elo1, alpha, beta)
    settings = GameSettings(tc, args.nodes, args.depth, args.tolerance_ms / 1000.0, args.move_timeout, rules, args.event,
                            args.chess960)
    return specs, settings, sprt


class Match:
    """Runs the schedule with `concurrency` workers, each owning one process per engine."""

    def __init__(self, specs: list[EngineSpec], settings: GameSettings, schedule: list[ScheduledGame],
                 tally: Tally, concurrency: int, pgn_path: Optional[str], report_every: int,
                 journal: Optional[Journal] = None):
        self.journal = journal
        self.specs = specs
        self.settings = settings
        self.schedule = list(schedule)
        self.tally = tally
        self.pgn_path = pgn_path
        self.report_every = report_every
        self.workers = [[EnginePlayer(s) for s in specs] for _ in range(min(concurrency, len(schedule)))]
        self.status = "finished"
        self.error = ""

    async def start_first(self) -> None:
        """Start one worker's engines up front so bad commands or options fail fast."""
        for player in self.workers[0]:
            await player.start()

    async def run(self) -> None:
        tasks = [asyncio.ensure_future(self._worker(players)) for players in self.workers]
        self._tasks = tasks
        try:
            await asyncio.gather(*tasks)
        except asyncio.CancelledError:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.status = "interrupted"
            raise
        finally:
            await asyncio.gather(*(p.close() for players in self.workers for p in players), return_exceptions=True)

    def bad_ponder_moves(self) -> dict[str, int]:
        """Illegal ponder moves named by each engine, over all workers."""
        counts = {spec.name: 0 for spec in self.specs}
        for players in self.workers:
            for player in players:
                counts[player.spec.name] += player.bad_ponder_moves
        return counts

    def _stop_others(self) -> None:
        current = asyncio.current_task()
        self.schedule.clear()
        for t in self._tasks:
            if t is not current:
                t.cancel()

    async def _worker(self, players: list[EnginePlayer]) -> None:
        try:
            while self.schedule:
                game = self.schedule.pop(0)
                for player in players:
                    if not player.alive:
                        await player.start()
                await self._play(game, players)
        except EngineStartError as err:
            if self.status == "finished":
                self.status, self.error = "aborted", str(err)
            self._stop_others()
        except asyncio.CancelledError:
            pass  # another worker ended the match (SPRT decision or abort)

    async def _play(self, game: ScheduledGame, players: list[EnginePlayer]) -> None:
        first, second = players
        white, black = (first, second) if game.first_is_white else (second, first)
        record = await play_game(white, black, game.fen, self.settings, f"{game.pair + 1}.{2 - game.number % 2}", object())
        result = record.ending.result
        score_white = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
        score1 = score_white if game.first_is_white else 1.0 - score_white
        forfeit_by = None
        if record.failure is not None:
            forfeit_by = (white if record.failed_color == chess.WHITE else black).spec.name
        print(f"Game {game.number} ({white.spec.name} vs {black.spec.name}, opening {game.opening + 1}): "
              f"{result} {{{record.ending.reason}}}" + (f" [{record.detail}]" if record.detail else ""), flush=True)
        if self.pgn_path:
            with open(self.pgn_path, "a", encoding="utf-8") as f:
                print(record.pgn, file=f, end="\n\n")
        if self.journal is not None:
            try:
                self.journal.record(game.number, game.pair, score1, forfeit_by, record.failure)
            except JournalError as err:
                self.status, self.error = "aborted", str(err)
                self._stop_others()
                raise asyncio.CancelledError from None
        if self.tally.add(game.pair, score1, forfeit_by, record.failure):
            if self.tally.pairs % self.report_every == 0:
                print(self.tally.short_line(), flush=True)
            decision = self.tally.decision()
            if decision is not None:
                self.status = f"sprt {decision}"
                self._stop_others()


async def main_async(args: argparse.Namespace, specs, settings, sprt, schedule, seed,
                     journal: Optional[Journal] = None) -> int:
    tally = Tally(specs[0].name, specs[1].name, sprt)
    if journal is not None and journal.games_done:
        # The games the journal holds count as played; the schedule keeps the rest.
        done = set()
        for game in sorted(journal.games_done, key=lambda g: g["number"]):
            tally.add(game["pair"], game["score1"], game.get("forfeit_by"), game.get("failure"))
            done.add(game["number"])
        schedule = [g for g in schedule if g.number not in done]
        print(f"Resumed {len(done)} games from {args.journal}, {len(schedule)} to play", flush=True)
        print(tally.short_line(), flush=True)
        if tally.decision() is not None:
            schedule = []
    match = Match(specs, settings, schedule, tally, args.concurrency, args.pgn, args.report_every, journal)
    if not schedule:
        decision = tally.decision()
        match.status = f"sprt {decision}" if decision else "finished"
        for line in tally.report():
            print(line)
        print(f"Status: {match.status}, nothing left to play, seed {seed}", flush=True)
        write_summary(args, tally, match, settings, seed)
        return 0
    try:
        await match.start_first()
    except EngineStartError as err:
        await asyncio.gather(*(p.close() for p in match.workers[0]), return_exceptions=True)
        print(f"match.py: error: {err}", file=sys.stderr)
        return 2
    started = time.monotonic()
    # SIGTERM (kill, a batch system's stop) ends the match as Ctrl-C does: the games in
    # progress are abandoned, the finished ones reported.
    loop = asyncio.get_running_loop()
    main_task = asyncio.current_task()
    terminated = []
    if main_task is not None:
        def on_sigterm() -> None:
            terminated.append(True)
            main_task.cancel()
        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    try:
        await match.run()
    except asyncio.CancelledError:
        if not terminated:
            raise
    finally:
        print()
        for line in tally.report():
            print(line)
        ponder_errors = match.bad_ponder_moves()
        if any(s.ponder for s in specs):
            print("Illegal ponder moves: " + ", ".join(f"{n} {c}" for n, c in ponder_errors.items()))
        print(f"Status: {match.status}" + (f" ({match.error})" if match.error else "")
              + f", {time.monotonic() - started:.1f} s, seed {seed}", flush=True)
        write_summary(args, tally, match, settings, seed)
    if terminated:
        return 143
    return 1 if match.status == "aborted" else 0


def write_summary(args: argparse.Namespace, tally: Tally, match: Match, settings, seed: int) -> None:
    """The final summary as JSON, when --json asks for it."""
    if not args.json:
        return
    data = tally.summary()
    data.update(status=match.status, error=match.error, seed=seed,
                time_control=settings.pgn_time_control(), bad_ponder_moves=match.bad_ponder_moves(),
                ponder={s.name: s.ponder for s in match.specs})
    try:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, default=str)
    except OSError as err:
        print(f"match.py: cannot write {args.json!r}: {err.strerror or err}", file=sys.stderr)


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING)
    # python-chess logs every unexpected line and engine stderr as a warning;
    # engines are chatty, so only --debug shows that traffic.
    logging.getLogger("chess.engine").setLevel(logging.DEBUG if args.debug else logging.CRITICAL)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2 ** 31)
    journal = None
    try:
        if args.journal:
            try:
                journal = Journal(args.journal)
            except JournalError as err:
                raise UsageError(str(err)) from None
            if journal.warning:
                print(f"match.py: warning: {journal.warning}", file=sys.stderr)
            if journal.seed is not None:
                if args.seed is not None and args.seed != journal.seed:
                    raise UsageError(f"--seed {args.seed} differs from the journal's seed {journal.seed}")
                seed = journal.seed
        specs, settings, sprt = parse_settings(args)
        if args.chess960 and args.book == str(DEFAULT_BOOK):
            # Chess960 without a book of its own: the 960 start positions.
            args.book = "chess960"
            book = chess960_book()
        else:
            book = load_book(args.book)
        schedule = build_schedule(book, args.games, seed, args.book, args.chess960)
        if journal is not None:
            try:
                journal.check(identity(specs, settings, args.book, seed, sprt), args.games)
            except JournalError as err:
                raise UsageError(str(err)) from None
        if args.pgn:
            try:
                open(args.pgn, "a", encoding="utf-8").close()
            except OSError as err:
                raise UsageError(f"cannot write PGN {args.pgn!r}: {err.strerror or err}") from None
    except UsageError as err:
        if journal is not None:
            journal.close()
        print(f"match.py: error: {err}", file=sys.stderr)
        return 2
    limit = describe_limit(args.tc, args.nodes, args.depth)
    print(f"Match {specs[0].name} vs {specs[1].name}: {args.games} games, {limit}, book {args.book} "
          f"({len(book)} openings), seed {seed}, concurrency {args.concurrency}", flush=True)
    try:
        return asyncio.run(main_async(args, specs, settings, sprt, schedule, seed, journal))
    except KeyboardInterrupt:
        return 130
    finally:
        if journal is not None:
            journal.close()


if __name__ == "__main__":
    sys.exit(main())
