#!/usr/bin/env python3
"""How full each engine's hash table is during real games: two engines play games at a time
control from book openings (colours alternating), each with the options given (Hash=16 by
default), and the `hashfull` (per mille), depth and time of each move's last search are kept.
Medians are printed by stretches of ten moves, for each engine; `--json FILE` keeps every move.

    python3 scripts/table_use.py --engine target/release/ferrum \
        --engine /usr/games/ethereal-chess --tc 20+0.2 --games 2

The clocks are `clock.py`'s, as in matches (wall time of each search; `--tc` takes the same
`[moves/]base[+inc]`); a side whose clock runs out loses, and the game is then ended. Games
end at mate, stalemate, the fifty-move rule, threefold repetition, insufficient material or
move 200.
"""
import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import chess
import chess.engine

from clock import Clock, parse_tc
from match import DEFAULT_BOOK, UsageError, load_book, opening_fen


def openings(path, count, seed):
    """`count` openings of the book drawn at random (seeded), as boards."""
    try:
        book = load_book(path)
    except UsageError as e:
        raise SystemExit(f"table_use.py: {e}")
    rng = random.Random(seed)
    picked = []
    for _ in range(count):
        number, line = rng.choice(book)
        try:
            picked.append(chess.Board(opening_fen(line)))
        except ValueError as e:
            raise SystemExit(f"table_use.py: book line {number} is not an opening: {e}")
    return picked


def play(engines, names, board, tc, moves, game):
    """Plays one game from `board`; engines[0] has White. Appends a row per move to `moves`."""
    clocks = [Clock(tc), Clock(tc)]
    while not board.is_game_over(claim_draw=True) and board.fullmove_number <= 200:
        side = 0 if board.turn == chess.WHITE else 1
        limit = chess.engine.Limit(white_clock=clocks[0].remaining, black_clock=clocks[1].remaining,
                                   white_inc=tc.inc, black_inc=tc.inc,
                                   remaining_moves=clocks[side].movestogo())
        start = time.monotonic()
        # A new `game` key makes python-chess send ucinewgame before the game's first search.
        result = engines[side].play(board, limit, game=game, info=chess.engine.INFO_BASIC)
        used = time.monotonic() - start
        if clocks[side].spend(used, tolerance=0.0):
            return f"{names[side]} lost on time"
        info = result.info
        moves.append({"engine": names[side], "move": board.fullmove_number,
                      "hashfull": info.get("hashfull"), "depth": info.get("depth"),
                      "time": round(used, 3)})
        if result.move is None:
            return f"{names[side]} gave no move"
        board.push(result.move)
    return board.result(claim_draw=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--engine", action="append", required=True, metavar="PATH",
                   help="an engine (give two)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a UCI option for both engines (default: Hash=16)")
    p.add_argument("--tc", default="20+0.2", help="[moves/]seconds[+increment] (default: %(default)s)")
    p.add_argument("--games", type=int, default=2, help="games (default: %(default)s)")
    p.add_argument("--book", default=str(DEFAULT_BOOK), help="EPD openings")
    p.add_argument("--seed", type=int, default=1, help="opening choice (default: %(default)s)")
    p.add_argument("--json", metavar="FILE", help="write every move's row here")
    args = p.parse_args()
    if len(args.engine) != 2:
        p.error("give --engine twice")
    options = {"Hash": 16}
    for o in args.option:
        name, sep, value = o.partition("=")
        if not sep:
            p.error(f"--option {o!r}: expected NAME=VALUE")
        options[name] = value
    try:
        tc = parse_tc(args.tc)
    except ValueError as e:
        p.error(str(e))
    names = [Path(e).name for e in args.engine]
    if names[0] == names[1]:
        names = [names[0] + "-1", names[1] + "-2"]
    boards = openings(args.book, args.games, args.seed)
    engines = []
    try:
        for path in args.engine:
            e = chess.engine.SimpleEngine.popen_uci(path)
            e.configure({k: v for k, v in options.items() if k in e.options})
            engines.append(e)
        moves = []
        for g, board in enumerate(boards):
            order = [0, 1] if g % 2 == 0 else [1, 0]
            outcome = play([engines[i] for i in order], [names[i] for i in order],
                           board, tc, moves, g)
            print(f"game {g + 1}: {names[order[0]]} (White) vs {names[order[1]]}: {outcome}",
                  file=sys.stderr)
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError) as e:
        raise SystemExit(f"table_use.py: engine failed: {e}")
    finally:
        for e in engines:
            try:
                e.quit()
            except Exception:
                pass
    print("| engine | moves | searches | median hashfull (per mille) | median depth | median time (s) |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for name in names:
        mine = [m for m in moves if m["engine"] == name]
        for lo in range(1, 201, 10):
            part = [m for m in mine if lo <= m["move"] < lo + 10]
            if not part:
                continue
            full = [m["hashfull"] for m in part if m["hashfull"] is not None]
            depth = [m["depth"] for m in part if m["depth"] is not None]
            print(f"| {name} | {lo}-{lo + 9} | {len(part)} | "
                  f"{statistics.median(full) if full else '-'} | "
                  f"{statistics.median(depth) if depth else '-'} | "
                  f"{statistics.median(m['time'] for m in part):.3f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(moves, indent=1) + "\n")


if __name__ == "__main__":
    main()
