#!/usr/bin/env python3
"""A scripted UCI engine for testing the match tooling without a real engine.

Usage: fake_engine.py MODE, where MODE decides what `go` does:
  first    play the first legal move (in UCI string order) at once
  illegal  answer with a king move of three ranks, never legal
  sleep    wait 1 s before answering, far past the short test clocks
  crash    exit without answering
  none     answer `bestmove (none)` although legal moves exist
  ponder   play the first move and name a ponder move: the reply `first` would
           play after an even number of plies, another one after an odd number
           (so a pondering match sees hits and misses); `go ponder` is answered
           only after `ponderhit` or `stop`
  spin     advertise the spin options alpha (0 to 100, default 50) and beta (-20 to 20,
           default 0) and the check option Verbose, and play the first legal move,
           except that with alpha below 20 (set by `setoption`) it answers an illegal
           move: a tune of alpha has a direction to find
Every line read is appended to the file named by $FAKE_ENGINE_LOG, if set; "{pid}" in
that name becomes the process id, so each process of a match can have its own file.
"""

import os
import sys
import time

import chess


def illegal_move(board: chess.Board) -> str:
    """A king move of three ranks: never legal, and unlike a sideways move it
    cannot be read as king-takes-rook castling."""
    king = board.king(board.turn)
    file, rank = chess.square_file(king), chess.square_rank(king)
    target = chess.square(file, rank + 3 if rank < 4 else rank - 3)
    return chess.Move(king, target).uci()


def first(board: chess.Board) -> str:
    return sorted(m.uci() for m in board.legal_moves)[0]


def answer(board: chess.Board, mode: str) -> str:
    """The `bestmove` line for `board` in `ponder` mode."""
    move = first(board)
    after = board.copy()
    after.push_uci(move)
    replies = sorted(m.uci() for m in after.legal_moves)
    if not replies:
        return f"bestmove {move}"
    reply = replies[0] if len(board.move_stack) % 2 == 0 or len(replies) == 1 else replies[1]
    return f"bestmove {move} ponder {reply}"


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "first"
    log = os.environ.get("FAKE_ENGINE_LOG", "").replace("{pid}", str(os.getpid()))
    board = chess.Board()
    pondering = False
    spins = {"alpha": 50, "beta": 0}
    for line in sys.stdin:
        if log:
            with open(log, "a") as f:
                f.write(line)
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            print("id name Fake " + mode)
            print("id author test")
            print("option name Hash type spin default 1 min 1 max 64")
            if mode == "spin":
                print("option name alpha type spin default 50 min 0 max 100")
                print("option name beta type spin default 0 min -20 max 20")
                print("option name Verbose type check default false")
            print("uciok")
        elif command == "setoption" and mode == "spin" and len(words) == 5 and words[2] in spins:
            spins[words[2]] = int(words[4])
        elif command == "isready":
            print("readyok")
        elif command == "position":
            if words[1] == "startpos":
                board = chess.Board()
                rest = words[2:]
            else:
                board = chess.Board(" ".join(words[2:8]))
                rest = words[8:]
            if rest and rest[0] == "moves":
                for move in rest[1:]:
                    board.push_uci(move)
        elif command == "go" and mode == "ponder":
            if "ponder" in words:
                pondering = True
                continue
            print("info depth 1 score cp 0 nodes 1")
            print(answer(board, mode))
        elif command in ("ponderhit", "stop") and pondering:
            # Answered for the position pondered on; after `stop` the GUI discards it.
            pondering = False
            print("info depth 1 score cp 0 nodes 1")
            print(answer(board, mode))
        elif command == "go":
            if mode == "crash":
                sys.exit(3)
            if mode == "sleep":
                time.sleep(1.0)
            if mode == "illegal" or (mode == "spin" and spins["alpha"] < 20):
                move = illegal_move(board)
            elif mode == "none":
                move = "(none)"
            else:
                move = first(board)
            print("info depth 1 score cp 0 nodes 1 pv " + (move if mode == "first" else ""))
            print("bestmove " + move)
        elif command == "quit":
            break
        sys.stdout.flush()


if __name__ == "__main__":
    main()
