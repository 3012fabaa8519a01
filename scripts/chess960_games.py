#!/usr/bin/env python3
"""Plays Ferrum against itself from random Chess960 start positions through python-chess,
which checks every move; any illegal move or engine error stops the run with an error.

Usage: scripts/chess960_games.py [--games N] [--nodes N] [--engine PATH] [--seed S]
"""
import argparse
import random
import sys
from pathlib import Path

import chess
import chess.engine

ROOT = Path(__file__).resolve().parent.parent


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=24)
    ap.add_argument("--nodes", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=960)
    ap.add_argument("--engine", default=str(ROOT / "target/release/ferrum"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    results = {"1-0": 0, "0-1": 0, "1/2-1/2": 0, "*": 0}
    castles = 0
    with chess.engine.SimpleEngine.popen_uci(args.engine) as engine:
        for g in range(args.games):
            board = chess.Board.from_chess960_pos(rng.randrange(960))
            start = board.fen()
            while not board.is_game_over(claim_draw=True) and board.ply() < 300:
                # python-chess sets UCI_Chess960 and raises on an illegal or missing move.
                result = engine.play(board, chess.engine.Limit(nodes=args.nodes), game=g)
                if result.move is None or result.move not in board.legal_moves:
                    sys.exit(f"game {g + 1}: no legal move from {board.fen()}")
                castles += board.is_castling(result.move)
                board.push(result.move)
            res = board.result(claim_draw=True)
            results[res] += 1
            print(f"game {g + 1}: {start} -> {res} in {board.ply()} plies")
    print(f"{args.games} Chess960 games, no illegal move; results {results}; castling moves played: {castles}")


if __name__ == "__main__":
    main()
