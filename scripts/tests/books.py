"""Opening books the tests of the match scripts write."""

from pathlib import Path

import chess


def opening_book(path: Path) -> None:
    """Eight openings: the start after each of eight first moves (so a game's opening tells
    where in the schedule it came from)."""
    fens = []
    for move in ["e2e4", "d2d4", "c2c4", "g1f3", "b2b3", "g2g3", "f2f4", "b1c3"]:
        board = chess.Board()
        board.push_uci(move)
        fens.append(board.fen())
    path.write_text("\n".join(fens) + "\n")
