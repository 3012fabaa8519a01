"""Result bookkeeping for a two-engine match, always from engine 1's view:
W/D/L, pentanomial counts of finished game pairs, forfeits per engine, the
SPRT state, and the text/JSON reports built from them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional

import stats
from engines import FAILURE_KINDS


# Finished game pairs an SPRT needs before it may stop.
MIN_SPRT_PAIRS = 10


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float
    beta: float

    def bounds(self) -> tuple[float, float]:
        return stats.sprt_bounds(self.alpha, self.beta)


class Tally:
    def __init__(self, name1: str, name2: str, sprt: Optional[Sprt] = None):
        self.names = (name1, name2)
        self.sprt = sprt
        self.wins = self.draws = self.losses = 0
        self.penta = [0, 0, 0, 0, 0]  # [LL, LD, DD/WL, WD, WW]
        self._open_pairs: dict[int, list[float]] = {}
        self.failures = {name1: Counter(), name2: Counter()}

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        return sum(self.penta)

    def add(self, pair: int, score1: float, forfeit_by: Optional[str] = None, kind: Optional[str] = None) -> bool:
        """Record one game (score1 = engine 1's points); True if it completed a pair."""
        if score1 not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game score must be 0, 0.5 or 1, got {score1}")
        if score1 == 1.0:
            self.wins += 1
        elif score1 == 0.5:
            self.draws += 1
        else:
            self.losses += 1
        if forfeit_by is not None:
            self.failures[forfeit_by][kind] += 1
        scores = self._open_pairs.setdefault(pair, [])
        scores.append(score1)
        if len(scores) == 2:
            del self._open_pairs[pair]
            # Pair points 0, 0.5, 1, 1.5, 2 map to buckets 0..4.
            self.penta[int(round(2 * sum(scores)))] += 1
            return True
        return False

    def llr(self) -> Optional[float]:
        if self.sprt is None:
            return None
        if self.pairs == 0:
            return stats.llr_trinomial(self.wins, self.draws, self.losses, self.sprt.elo0, self.sprt.elo1)
        return stats.llr_pentanomial(self.penta, self.sprt.elo0, self.sprt.elo1)

    def decision(self) -> Optional[str]:
        # With a handful of pairs the sample variance is near zero and the LLR meaningless
        # (one won pair alone crosses the H1 bound), so no decision before MIN_SPRT_PAIRS.
        if self.sprt is None or self.pairs < MIN_SPRT_PAIRS:
            return None
        return stats.sprt_decision(self.llr(), *self.sprt.bounds())

    def summary(self) -> dict:
        """Everything a report needs, as plain data (also written as JSON)."""
        tri = stats.trinomial_stats(self.wins, self.draws, self.losses)
        penta = stats.pentanomial_stats(self.penta)
        data = {
            "engines": list(self.names), "games": self.games, "wins": self.wins,
            "draws": self.draws, "losses": self.losses,
            "points": self.wins + 0.5 * self.draws, "score": tri["score"],
            "elo": tri["elo"], "elo_error": tri["error"], "los": tri["los"],
            "pentanomial": list(self.penta), "pairs": self.pairs,
            "penta_elo": penta["elo"], "penta_elo_error": penta["error"], "penta_los": penta["los"],
            "failures": {n: {k: c[k] for k in FAILURE_KINDS} for n, c in self.failures.items()},
        }
        if self.sprt is not None:
            lower, upper = self.sprt.bounds()
            data["sprt"] = {"elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha,
                            "beta": self.sprt.beta, "llr": self.llr(), "lower": lower, "upper": upper,
                            "decision": self.decision()}
        return data

    def short_line(self) -> str:
        """One line for progress reports."""
        s = self.summary()
        line = (f"Score of {self.names[0]} vs {self.names[1]}: {s['wins']} - {s['losses']} - {s['draws']} "
                f"[{s['score']:.3f}] {s['games']}")
        if self.pairs:
            line += f"  Elo {stats.format_elo(s['penta_elo'], s['penta_elo_error'])} (penta)"
        else:
            line += f"  Elo {stats.format_elo(s['elo'], s['elo_error'])} (games)"
        if self.sprt is not None:
            line += f"  LLR {s['sprt']['llr']:.2f} ({s['sprt']['lower']:.2f}, {s['sprt']['upper']:.2f})"
        return line

    def report(self) -> list[str]:
        """The final block, fastchess-like."""
        s = self.summary()
        lines = [
            f"Results of {self.names[0]} vs {self.names[1]}:",
            f"Games: {s['games']}, Wins: {s['wins']}, Losses: {s['losses']}, Draws: {s['draws']}, "
            f"Points: {s['points']:g} ({100 * s['score']:.2f} %)",
            f"Elo (pentanomial, {s['pairs']} pairs): {stats.format_elo(s['penta_elo'], s['penta_elo_error'])}, "
            f"LOS: {100 * s['penta_los']:.2f} %",
            f"Elo (trinomial, {s['games']} games): {stats.format_elo(s['elo'], s['elo_error'])}, "
            f"LOS: {100 * s['los']:.2f} %",
            f"Ptnml(0-2) [LL, LD, DD/WL, WD, WW]: {s['pentanomial']}",
        ]
        if self.sprt is not None:
            sp = s["sprt"]
            verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision"}[sp["decision"]]
            lines.append(f"SPRT [{sp['elo0']:g}, {sp['elo1']:g}] alpha={sp['alpha']:g} beta={sp['beta']:g} "
                         f"(logistic Elo): LLR {sp['llr']:.2f} ({sp['lower']:.2f}, {sp['upper']:.2f}) - {verdict}")
        for name, counts in s["failures"].items():
            lines.append(f"Forfeits by {name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        return lines
