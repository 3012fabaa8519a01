#!/usr/bin/env python3
"""Where the depth goes: two engines on the same positions at equal time and to equal depth.

Positions are taken from the games of a PGN (every game, at the plies given, skipping ones
in check or with the game over). For each position each engine, after `ucinewgame` with the
options given, searches `go movetime MS` (the depth, selective depth, nodes, nps and
hashfull of its last `info` line, and how many times the first move of the PV changed over
the iterations) and `go depth D` for each D asked (the nodes it took). Medians are printed;
`--json FILE` keeps every row.

    python3 scripts/depth_compare.py --pgn results/clock/lag40-30s.pgn \
        --engine target/release/ferrum --engine /usr/games/ethereal-chess \
        --movetime 1000 --depths 8,10,12 --plies 20,40,60 --games 20
"""
import argparse
import json
import statistics
import sys

import chess
import chess.pgn

from uciproc import Engine


def positions(pgn_path, plies, games):
    out = []
    with open(pgn_path) as f:
        while len(out) < games * len(plies):
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            fens = {}
            for ply, move in enumerate(game.mainline_moves(), 1):
                board.push(move)
                if ply in plies and not board.is_check() and not board.is_game_over():
                    fens[ply] = board.fen()
            out.extend(fens[p] for p in plies if p in fens)
    return out


def field(tokens, name):
    if name in tokens:
        i = tokens.index(name)
        if i + 1 < len(tokens):
            return tokens[i + 1]
    return None


def search(engine, fen, go):
    engine.fresh_position(fen)
    engine.send(go)
    lines = engine.until("bestmove")
    last = {}
    changes = 0
    first = None
    for line in lines:
        t = line.split()
        if not t or t[0] != "info" or "depth" not in t or "pv" not in t:
            continue
        if field(t, "multipv") not in (None, "1") or "lowerbound" in t or "upperbound" in t:
            continue
        move = t[t.index("pv") + 1]
        if first is not None and move != first:
            changes += 1
        first = move
        for k in ("depth", "seldepth", "nodes", "nps", "hashfull", "time"):
            v = field(t, k)
            if v is not None:
                last[k] = int(v)
    last["pv_changes"] = changes
    last["bestmove"] = lines[-1].split()[1]
    return last


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgn", required=True)
    ap.add_argument("--engine", action="append", required=True, help="engine path (twice)")
    ap.add_argument("--option", action="append", default=["Hash=16", "Threads=1"], help="NAME=VALUE for both")
    ap.add_argument("--movetime", type=int, default=1000)
    ap.add_argument("--depths", default="8,10,12")
    ap.add_argument("--plies", default="20,40,60")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--json")
    a = ap.parse_args()
    plies = [int(p) for p in a.plies.split(",")]
    depths = [int(d) for d in a.depths.split(",") if d]
    fens = positions(a.pgn, plies, a.games)
    if not fens:
        sys.exit(f"no positions in {a.pgn}")
    print(f"{len(fens)} positions from {a.pgn}", file=sys.stderr)
    rows = {}
    for path in a.engine:
        e = Engine(path)
        for opt in a.option:
            name, _, value = opt.partition("=")
            e.send(f"setoption name {name} value {value}")
        rows[path] = []
        for i, fen in enumerate(fens):
            row = {"fen": fen, "timed": search(e, fen, f"go movetime {a.movetime}")}
            for d in depths:
                row[f"depth{d}"] = search(e, fen, f"go depth {d}").get("nodes")
            rows[path].append(row)
            print(f"{path} {i + 1}/{len(fens)}", file=sys.stderr, end="\r")
        e.quit()
        print(file=sys.stderr)
    names = {p: p.rsplit("/", 1)[-1] for p in a.engine}
    print(f"medians over {len(fens)} positions, movetime {a.movetime} ms, options {' '.join(a.option)}")
    print("| engine | depth | seldepth | nodes | nps | hashfull | PV first-move changes | "
          + " | ".join(f"nodes to depth {d}" for d in depths) + " |")
    print("| --- " * (7 + len(depths)) + "|")
    for p in a.engine:
        rs = rows[p]

        def med(get):
            vals = [v for v in (get(r) for r in rs) if v is not None]
            return int(statistics.median(vals)) if vals else "-"
        cells = [med(lambda r, k=k: r["timed"].get(k)) for k in
                 ("depth", "seldepth", "nodes", "nps", "hashfull", "pv_changes")]
        cells += [med(lambda r, d=d: r.get(f"depth{d}")) for d in depths]
        print(f"| {names[p]} | " + " | ".join(f"{c:,}" if isinstance(c, int) else c for c in cells) + " |")
    same = sum(1 for x, y in zip(rows[a.engine[0]], rows[a.engine[-1]])
               if x["timed"]["bestmove"] == y["timed"]["bestmove"])
    print(f"same best move at {a.movetime} ms: {same} of {len(fens)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
