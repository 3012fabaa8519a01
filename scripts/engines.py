"""Engine processes for a match: parsing `--engine cmd=... name=... option.X=V
ponder=on` specs, starting a UCI engine through python-chess's async API with the
options it advertises, and asking it for one move while the match (not the
engine) times the wait from `go` (or `ponderhit`) to `bestmove` and classifies
every failure.

With `ponder=on` the engine thinks on the opponent's time as a GUI lets it:
after its `bestmove X ponder Y` it gets `go ponder` on the position after Y;
if the opponent plays Y, `ponderhit` starts its clock, otherwise `stop` (whose
answer is discarded) and a new `go`.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from typing import Optional

import chess
import chess.engine

# Seconds an engine may take to start and answer `uci` (and `isready` before the
# first `go` of a game); cutechess forfeits after the same 15 s.
START_TIMEOUT = 15.0
READY_TIMEOUT = 15.0

# Options python-chess sets itself per command; setting them by hand is refused.
MANAGED = {name.lower() for name in chess.engine.MANAGED_OPTIONS}

# Failure kinds, counted per engine by the match.
TIME, ILLEGAL, CRASH, STALL = "time", "illegal", "crash", "stall"
FAILURE_KINDS = (TIME, ILLEGAL, CRASH, STALL)


class EngineStartError(Exception):
    """The engine could not be started or configured; the message says why."""


@dataclass
class EngineSpec:
    name: str
    cmd: list[str]
    dir: Optional[str] = None
    options: dict[str, str] = field(default_factory=dict)
    ponder: bool = False


def parse_engine_spec(tokens: list[str]) -> EngineSpec:
    """['cmd=/usr/games/x', 'name=X', 'option.Hash=16'] -> EngineSpec.

    `cmd` is split like a shell would, so `cmd="gnuchess --uci"` passes an argument;
    `args="..."` appends more. Raises ValueError naming the bad token.
    """
    cmd: list[str] = []
    extra: list[str] = []
    name = None
    workdir = None
    ponder = False
    lag_ms: Optional[float] = None
    options: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep:
            raise ValueError(f"engine setting {token!r} is not key=value")
        if key in ("cmd", "args"):
            try:
                words = shlex.split(value)
            except ValueError as err:  # unbalanced quotes
                raise ValueError(f"cannot split {token!r}: {err}") from None
            if key == "cmd":
                cmd = words
            else:
                extra = words
        elif key == "name":
            name = value
        elif key == "dir":
            workdir = value
        elif key == "ponder":
            if value.lower() not in ("on", "off", "true", "false", "1", "0"):
                raise ValueError(f"ponder must be on or off, got {token!r}")
            ponder = value.lower() in ("on", "true", "1")
        elif key == "lag":
            try:
                lag_ms = float(value)
            except ValueError:
                raise ValueError(f"lag must be milliseconds, got {token!r}") from None
            if not lag_ms >= 0:
                raise ValueError(f"lag must be at least 0, got {token!r}")
        elif key.startswith("option.") and len(key) > len("option."):
            options[key[len("option."):]] = value
        else:
            raise ValueError(f"unknown engine setting {key!r} in {token!r} "
                             "(expected cmd=, name=, dir=, args=, ponder=, lag= or option.NAME=)")
    if not cmd:
        raise ValueError(f"engine settings {' '.join(tokens)!r} have no cmd=PATH")
    if not name:
        name = os.path.basename(cmd[0])
    full = cmd + extra
    if lag_ms:
        # A lagging GUI: `go` and `bestmove` each delayed by lag_ms (scripts/lag_relay.py).
        relay = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lag_relay.py")
        full = [sys.executable, relay, "--delay", f"{lag_ms:g}", "--"] + full
    return EngineSpec(name=name, cmd=full, dir=workdir, options=options, ponder=ponder)


@dataclass
class Thought:
    """One move request: the move, the engine's last info, and how long it took."""
    move: Optional[chess.Move]
    elapsed: float
    info: dict
    failure: Optional[str] = None  # one of FAILURE_KINDS
    detail: str = ""


_warned: set[tuple[str, str]] = set()


def _warn_once(engine: str, option: str, why: str) -> None:
    if (engine, option) not in _warned:
        _warned.add((engine, option))
        print(f"warning: {engine}: option {option!r} {why}; not set", file=sys.stderr, flush=True)


class EnginePlayer:
    """One engine process, restartable: a failed move kills it and the next game
    starts a fresh one, so a confused engine cannot poison later games."""

    def __init__(self, spec: EngineSpec):
        self.spec = spec
        self.transport: Optional[asyncio.SubprocessTransport] = None
        self.protocol: Optional[chess.engine.UciProtocol] = None
        self._go_at: Optional[float] = None
        self._go_event: Optional[asyncio.Event] = None
        self._bestmove_at: Optional[float] = None
        self._bestmove_line = ""
        # `bestmove ... ponder Y` lines whose Y was not legal after the move (not a
        # forfeit: a GUI just does not ponder on it).
        self.bad_ponder_moves = 0

    @property
    def alive(self) -> bool:
        return self.protocol is not None and not self.protocol.returncode.done()

    async def start(self) -> None:
        """Launch, handshake and set the advertised options; EngineStartError otherwise."""
        name = self.spec.name
        try:
            # Own process group: a Ctrl-C in the terminal reaches only the match,
            # which then stops the engines itself instead of scoring their deaths.
            self.transport, self.protocol = await asyncio.wait_for(
                chess.engine.popen_uci(self.spec.cmd, cwd=self.spec.dir, setpgrp=True), START_TIMEOUT)
        except asyncio.TimeoutError:
            raise EngineStartError(f"{name}: no 'uciok' within {START_TIMEOUT:g} s from {self.spec.cmd}") from None
        except (OSError, chess.engine.EngineError) as err:
            raise EngineStartError(f"{name}: cannot start {self.spec.cmd}: {err}") from None
        options = {}
        for option, value in self.spec.options.items():
            if option.lower() in MANAGED:
                _warn_once(name, option, "is managed by the match itself")
            elif option not in self.protocol.options:
                _warn_once(name, option, "is not advertised by the engine")
            else:
                options[option] = value
        try:
            # Values as the engine's option parses them: python-chess compares its record
            # of the options with them before each move, and a text "2" against the number
            # 2 reads as a changed option, which rules out every ponderhit.
            options = {option: self.protocol.options[option].parse(value) for option, value in options.items()}
            await asyncio.wait_for(self.protocol.configure(options), START_TIMEOUT)
        except (chess.engine.EngineError, asyncio.TimeoutError) as err:
            await self.kill()
            raise EngineStartError(f"{name}: cannot set options {options}: {err or 'timeout'}") from None
        self._install_timing_hooks()

    def _install_timing_hooks(self) -> None:
        """Timestamp the line that starts the engine's clock (`go`, or `ponderhit`
        after pondering; never `go ponder`) and the `bestmove` line we read, so the
        clock charges exactly the engine's thinking and not our bookkeeping."""
        protocol = self.protocol
        send_line = protocol.send_line
        line_received = protocol.line_received

        def timed_send(line: str) -> None:
            words = line.split()
            starts_clock = (words[:1] == ["go"] and "ponder" not in words) or words == ["ponderhit"]
            if starts_clock and self._go_at is None:
                self._go_at = time.monotonic()
                if self._go_event is not None:
                    self._go_event.set()
            send_line(line)

        def timed_receive(line: str) -> None:
            # The answer to a `stop`ped ponder search comes before this move's clock starts.
            if line.startswith("bestmove") and self._go_at is not None and self._bestmove_at is None:
                self._bestmove_at = time.monotonic()
                self._bestmove_line = line.strip()
            line_received(line)

        protocol.send_line = timed_send  # type: ignore[method-assign]
        protocol.line_received = timed_receive  # type: ignore[method-assign]

    async def think(self, board: chess.Board, limit: chess.engine.Limit, game_key: object, budget: float) -> Thought:
        """Ask for a move; `budget` is the seconds allowed from `go` to `bestmove`."""
        if not self.alive:
            return Thought(None, 0.0, {}, CRASH, "engine is not running")
        self._go_at = self._bestmove_at = None
        self._bestmove_line = ""
        self._go_event = asyncio.Event()
        started = time.monotonic()
        task = asyncio.ensure_future(self.protocol.play(
            board, limit, game=game_key, info=chess.engine.INFO_BASIC | chess.engine.INFO_SCORE,
            ponder=self.spec.ponder))
        go_sent = asyncio.ensure_future(self._go_event.wait())
        try:
            # First the (new game) isready handshake, which is not on the clock...
            await asyncio.wait({task, go_sent}, timeout=READY_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
            if not task.done() and self._go_at is None:
                task.cancel()
                await self.kill()
                waited = "'readyok' or the answer to 'stop'" if self.spec.ponder else "'readyok'"
                return Thought(None, time.monotonic() - started, {}, STALL, f"no {waited} within {READY_TIMEOUT:g} s")
            # ...then the move itself, which is.
            if not task.done():
                left = budget - (time.monotonic() - self._go_at)
                await asyncio.wait({task}, timeout=max(0.0, left))
            if not task.done():
                task.cancel()
                await self.kill()
                return Thought(None, time.monotonic() - self._go_at, {}, TIME, f"no bestmove within {budget:.3f} s")
        except asyncio.CancelledError:
            task.cancel()
            await self.kill()
            raise
        finally:
            go_sent.cancel()
        return await self._classify(board, task, started)

    async def _classify(self, board: chess.Board, task: asyncio.Future, started: float) -> Thought:
        end = self._bestmove_at if self._bestmove_at is not None else time.monotonic()
        elapsed = end - (self._go_at if self._go_at is not None else started)
        exc = task.exception()
        if isinstance(exc, chess.engine.EngineTerminatedError):
            await self.kill()
            return Thought(None, elapsed, {}, CRASH, str(exc))
        if exc is not None:
            # python-chess rejects an illegal bestmove with a plain EngineError;
            # anything else (e.g. garbage in place of the move) is a protocol crash.
            await self.kill()
            if self._bestmove_line:
                return Thought(None, elapsed, {}, ILLEGAL, f"{self._bestmove_line!r}: {exc}")
            return Thought(None, elapsed, {}, CRASH, f"protocol error: {exc}")
        result = task.result()
        if not result.move or result.move not in board.legal_moves:
            await self.kill()
            return Thought(None, elapsed, result.info, ILLEGAL, f"{self._bestmove_line or 'bestmove'!r} is not a legal move")
        self._check_ponder_move(board, result.move)
        return Thought(result.move, elapsed, result.info)

    def _check_ponder_move(self, board: chess.Board, move: chess.Move) -> None:
        """Counts a named ponder move that is not legal after `move`."""
        words = self._bestmove_line.split()
        if len(words) < 4 or words[2] != "ponder":
            return
        after = board.copy(stack=False)
        after.push(move)
        try:
            legal = chess.Move.from_uci(words[3]) in after.legal_moves
        except ValueError:
            legal = False
        if not legal:
            self.bad_ponder_moves += 1
            print(f"warning: {self.spec.name}: illegal ponder move in {self._bestmove_line!r} "
                  f"after {board.fen()}", file=sys.stderr, flush=True)

    async def kill(self) -> None:
        """Stop the process now; used after failures, when it may not listen."""
        if self.transport is not None:
            try:
                self.transport.kill()
            except (ProcessLookupError, OSError):
                pass
            # Let asyncio's child watcher reap the process before closing the
            # transport; closing first races it and asyncio warns about the pid.
            if self.protocol is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(self.protocol.returncode), 5.0)
                except (asyncio.TimeoutError, Exception):
                    pass
            self.transport.close()
        self.transport = None
        self.protocol = None

    async def close(self) -> None:
        """Polite `quit`, then make sure the process is gone."""
        if self.alive:
            try:
                await asyncio.wait_for(self.protocol.quit(), 2.0)
            except (asyncio.TimeoutError, chess.engine.EngineError):
                pass
        await self.kill()
