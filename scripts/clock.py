"""Time controls: parsing the cutechess-style `[moves/]base[+inc]` string and
the wall clock of one side during a game (what remains, what to send in `go`,
and whether a move overstepped it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class TimeControl:
    """`moves` == 0 means the whole game (plus increments) is played on `base`."""
    moves: int
    base: float  # seconds
    inc: float   # seconds added after each move

    def pgn(self) -> str:
        """PGN TimeControl tag value, in seconds as the PGN standard wants."""
        def num(x: float) -> str:
            return f"{x:g}"
        text = num(self.base)
        if self.moves:
            text = f"{self.moves}/{text}"
        if self.inc:
            text += f"+{num(self.inc)}"
        return text


def _seconds(text: str, whole: str) -> float:
    """'10', '0.5' or 'm:ss' -> seconds; a ValueError names the whole tc string."""
    try:
        if ":" in text:
            minutes, secs = text.split(":", 1)
            value = int(minutes) * 60 + float(secs)
        else:
            value = float(text)
    except ValueError:
        raise ValueError(f"bad time control {whole!r}: {text!r} is not a number of seconds") from None
    if value != value or value < 0 or value == float("inf"):
        raise ValueError(f"bad time control {whole!r}: {text!r} must be a finite non-negative number")
    return value


def parse_tc(text: str) -> TimeControl:
    """'10+0.1' -> (0, 10, 0.1); '40/60' -> (40, 60, 0); '40/1:00+0.5' -> (40, 60, 0.5)."""
    whole = text
    text = text.strip()
    moves = 0
    if "/" in text:
        moves_text, text = text.split("/", 1)
        try:
            moves = int(moves_text)
        except ValueError:
            raise ValueError(f"bad time control {whole!r}: {moves_text!r} is not a move count") from None
        if moves <= 0:
            raise ValueError(f"bad time control {whole!r}: the move count must be positive")
    base_text, _, inc_text = text.partition("+")
    base = _seconds(base_text, whole)
    inc = _seconds(inc_text, whole) if inc_text else 0.0
    if base <= 0 and inc <= 0:
        raise ValueError(f"bad time control {whole!r}: no time at all")
    return TimeControl(moves, base, inc)


class Clock:
    """One side's clock; times are seconds and measured by the match, not the engine."""

    def __init__(self, tc: TimeControl):
        self.tc = tc
        self.remaining = tc.base
        self.moves_made = 0

    def movestogo(self) -> Optional[int]:
        """Moves left in the current period, or None for sudden death."""
        if not self.tc.moves:
            return None
        return self.tc.moves - self.moves_made % self.tc.moves

    def budget(self, tolerance: float) -> float:
        """How long the engine may think on this move before it has lost on time."""
        return max(0.0, self.remaining + tolerance)

    def spend(self, elapsed: float, tolerance: float) -> bool:
        """Charge a move; True if it overstepped the clock by more than `tolerance`.

        The increment is added after the move (Fischer), and a new period's base
        time arrives when the last move of a `moves/` period is made.
        """
        self.remaining -= elapsed
        if self.remaining < -tolerance:
            return True
        self.moves_made += 1
        self.remaining += self.tc.inc
        if self.tc.moves and self.moves_made % self.tc.moves == 0:
            self.remaining += self.tc.base
        return False


def parse_limit(tc: Optional[str], nodes: Optional[int], depth: Optional[int]) -> Optional[TimeControl]:
    """The time control of a match's or a tune's `--tc` (None without one), once a limit of
    some kind is given; ValueError naming the problem otherwise."""
    control = parse_tc(tc) if tc else None
    if control is None and nodes is None and depth is None:
        raise ValueError("give a limit: --tc, --nodes or --depth")
    return control


def describe_limit(tc: Optional[str], nodes: Optional[int], depth: Optional[int]) -> str:
    """The limits as a run's first line names them, e.g. `tc 4+0.04` or `nodes 2000`."""
    return " ".join(filter(None, [f"tc {tc}" if tc else "", f"nodes {nodes}" if nodes else "",
                                  f"depth {depth}" if depth else ""]))
