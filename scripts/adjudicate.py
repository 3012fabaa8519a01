"""How a game ends without a forfeit: the rules of chess (mate, stalemate,
dead position, 50 moves, threefold repetition; claimable draws are taken at
once) and the optional score-based resign and draw adjudications.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Optional, Sequence

import chess
import chess.engine

# Centipawn value given to mate scores so they always pass resign thresholds.
MATE_CP = 100_000


@dataclass(frozen=True)
class Ending:
    result: str       # "1-0", "0-1" or "1/2-1/2"
    termination: str  # PGN Termination tag: "normal", "adjudication", "time forfeit", ...
    reason: str       # human-readable, e.g. "White mates"


def rules_ending(board: chess.Board) -> Optional[Ending]:
    """The rules-based result of the position, or None if play goes on.

    A repetition counts only positions reached in this game (the opening FEN
    has no history), as every tournament manager does.
    """
    if board.is_checkmate():
        winner = "White" if board.turn == chess.BLACK else "Black"
        return Ending("1-0" if winner == "White" else "0-1", "normal", f"{winner} mates")
    if board.is_stalemate():
        return Ending("1/2-1/2", "normal", "Draw by stalemate")
    if board.is_insufficient_material():
        return Ending("1/2-1/2", "normal", "Draw by insufficient mating material")
    # is_fifty_moves is false when the 100th half-move gave mate (handled above).
    if board.is_fifty_moves():
        return Ending("1/2-1/2", "normal", "Draw by fifty moves rule")
    if board.is_repetition(3):
        return Ending("1/2-1/2", "normal", "Draw by 3-fold repetition")
    return None


@dataclass(frozen=True)
class AdjudicationRules:
    """Zero counts disable a rule. Scores are centipawns from the mover's view."""
    resign_score: int = 0
    resign_moves: int = 0
    resign_twosided: bool = False
    draw_score: int = 0
    draw_moves: int = 0
    draw_after_move: int = 0  # full moves played by the engines, book moves excluded

    def check(self, white_scores: Sequence[Optional[int]], black_scores: Sequence[Optional[int]]) -> Optional[Ending]:
        """Adjudicate from each side's reported scores, latest last (None = no score).

        Resign: the side whose last `resign_moves` scores are all <= -resign_score
        loses (two-sided: the opponent's last scores must also be >= +resign_score).
        Draw: after `draw_after_move` engine moves each, both sides' last
        `draw_moves` scores lie within +-draw_score.
        """
        if self.resign_moves > 0:
            for loser, mine, theirs in (("White", white_scores, black_scores), ("Black", black_scores, white_scores)):
                if _last_all(mine, self.resign_moves, lambda s: s <= -self.resign_score) and (
                        not self.resign_twosided or _last_all(theirs, self.resign_moves, lambda s: s >= self.resign_score)):
                    result = "0-1" if loser == "White" else "1-0"
                    return Ending(result, "adjudication", f"{loser} resigns (score adjudication)")
        if self.draw_moves > 0:
            played = min(len(white_scores), len(black_scores))
            if played >= self.draw_after_move and all(
                    _last_all(scores, self.draw_moves, lambda s: abs(s) <= self.draw_score)
                    for scores in (white_scores, black_scores)):
                return Ending("1/2-1/2", "adjudication", "Draw by adjudication")
        return None


def _last_all(scores: Sequence[Optional[int]], count: int, ok) -> bool:
    tail = scores[-count:]
    return len(tail) == count and all(s is not None and ok(s) for s in tail)


def score_cp(score: Optional[chess.engine.PovScore]) -> Optional[int]:
    """Centipawns from the mover's view, mates as +-MATE_CP minus distance."""
    if score is None:
        return None
    return score.relative.score(mate_score=MATE_CP)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The adjudication options of the scripts that play games (match.py, spsa.py)."""
    parser.add_argument("--resign-score", type=int, default=0, metavar="CP")
    parser.add_argument("--resign-moves", type=int, default=0, metavar="K",
                        help="resign after K consecutive own scores <= -CP (0: never)")
    parser.add_argument("--resign-twosided", action="store_true", help="also require the opponent's scores >= +CP")
    parser.add_argument("--draw-score", type=int, default=0, metavar="CP")
    parser.add_argument("--draw-moves", type=int, default=0, metavar="K",
                        help="draw after K consecutive moves of both sides within +-CP (0: never)")
    parser.add_argument("--draw-after-move", type=int, default=0, metavar="M",
                        help="draw adjudication only after M engine moves per side")


def rules_from_args(args: argparse.Namespace) -> AdjudicationRules:
    """The rules `add_arguments` asked for; ValueError names a negative setting."""
    for name in ("resign_score", "resign_moves", "draw_score", "draw_moves", "draw_after_move"):
        if getattr(args, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')} must not be negative")
    return AdjudicationRules(args.resign_score, args.resign_moves, args.resign_twosided,
                             args.draw_score, args.draw_moves, args.draw_after_move)
