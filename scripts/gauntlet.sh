#!/usr/bin/env bash
# Gauntlet: Ferrum against the Debian engines found on this machine, one
# match.py match per opponent, then one table of the results from Ferrum's view.
#   scripts/gauntlet.sh                      # defaults below
#   GAMES=40 TC=5+0.05 PEERS="toga2 glaurung" scripts/gauntlet.sh
#   GAMES=200 CONCURRENCY=2 JOURNALS=results/journals/gauntlet-X ADJ="--resign-score 1000 ..." \
#       PEERS="ethereal-chess toga2 glaurung" scripts/gauntlet.sh   # resumable, adjudicated
#   PEERS="ethereal-chess fairy-stockfish stockfish-nonnue" scripts/gauntlet.sh   # the next ones up
# Every engine gets Threads=1, Hash=16 and OwnBook=false; match.py sets only the
# options an engine advertises and warns about the rest. Two peers carry settings of
# their own: fairy-stockfish plays with Contempt 0, and stockfish-nonnue is Stockfish
# with `Use NNUE` false (its hand-written evaluation).
# Environment (defaults): FERRUM (target/release/ferrum), PEERS ("ethereal-chess
# stockfish toga2 glaurung gnuchess"), GAMES per opponent (20), TC (10+0.1),
# CONCURRENCY (1), BOOK (8moves_v3.epd), SEED (1: every opponent sees the same
# openings), OUT (scripts/out/gauntlet: PGN and JSON per opponent), ADJ (extra
# match.py arguments, e.g. the adjudication flags; none), JOURNALS (a directory:
# each match keeps a journal there, <peer>.jsonl, and the same command resumes it
# after an interruption; none: every run starts afresh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"

FERRUM="${FERRUM:-$repo/target/release/ferrum}"
PEERS="${PEERS:-ethereal-chess stockfish toga2 glaurung gnuchess}"
GAMES="${GAMES:-20}"
TC="${TC:-10+0.1}"
CONCURRENCY="${CONCURRENCY:-1}"
BOOK="${BOOK:-$repo/data/books/8moves_v3.epd}"
SEED="${SEED:-1}"
OUT="${OUT:-$repo/scripts/out/gauntlet}"
ADJ="${ADJ:-}"
JOURNALS="${JOURNALS:-}"

die() { echo "gauntlet.sh: error: $*" >&2; exit 2; }

[[ -x "$FERRUM" ]] || die "no Ferrum binary at '$FERRUM' (cargo build --release, or set FERRUM)"
[[ -r "$BOOK" ]] || die "cannot read book '$BOOK'"
mkdir -p "$OUT"
[[ -z "$JOURNALS" ]] || mkdir -p "$JOURNALS"
# shellcheck disable=SC2206 # ADJ is a list of flags, split on spaces on purpose
extra=($ADJ)

# The UCI command of a peer, or nothing if it is not installed: a peer's name is its
# binary's, but for stockfish-nonnue (Stockfish, with the options below). gnuchess
# speaks UCI only when asked to.
peer_cmd() {
    local bin="$1" args="" path
    case "$1" in
        gnuchess) args=" --uci" ;;
        stockfish-nonnue) bin=stockfish ;;
    esac
    path="$(command -v "/usr/games/$bin" || command -v "$bin" || true)"
    [[ -n "$path" ]] || return 0
    echo "$path$args"
}

# The options a peer plays with besides the common ones, one per line.
peer_options() {
    case "$1" in
        fairy-stockfish) echo "option.Contempt=0" ;;
        stockfish-nonnue) echo "option.Use NNUE=false" ;;
    esac
}

common=(option.Threads=1 option.Hash=16 option.OwnBook=false)
played=()
for peer in $PEERS; do
    cmd="$(peer_cmd "$peer")"
    if [[ -z "$cmd" ]]; then
        echo "== $peer: not installed, skipped"
        continue
    fi
    mapfile -t own < <(peer_options "$peer")
    echo "== ferrum vs $peer: $GAMES games at $TC"
    rm -f "$OUT/$peer.json"
    if [[ -n "$JOURNALS" ]]; then
        # A resumed match appends to its PGN; the journal holds the results.
        extra_journal=(--journal "$JOURNALS/$peer.jsonl")
    else
        rm -f "$OUT/$peer.pgn"
        extra_journal=()
    fi
    status=0
    python3 "$here/match.py" \
        --engine "cmd=$FERRUM" name=ferrum "${common[@]}" \
        --engine "cmd=$cmd" "name=$peer" "${common[@]}" ${own[@]+"${own[@]}"} \
        --tc "$TC" --games "$GAMES" --concurrency "$CONCURRENCY" --book "$BOOK" --seed "$SEED" \
        --pgn "$OUT/$peer.pgn" --json "$OUT/$peer.json" --report-every 5 \
        ${extra[@]+"${extra[@]}"} ${extra_journal[@]+"${extra_journal[@]}"} || status=$?
    # A broken opponent should not cost the other matches; its row says so.
    [[ $status -eq 0 ]] || echo "== $peer: match.py exited with status $status"
    played+=("$peer")
done

((${#played[@]})) || die "no opponent could be played (PEERS=\"$PEERS\")"

echo
python3 - "$OUT" "${played[@]}" <<'EOF'
import json, math, sys
out, peers = sys.argv[1], sys.argv[2:]

def elo(value, error):
    if not math.isfinite(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f} +/- " + (f"{error:.1f}" if math.isfinite(error) else "inf")

print(f"{'opponent':<16}{'games':>6}  {'W/D/L':<11}{'score':>8}  {'Elo (Ferrum)':<20}forfeits (Ferrum/opp)")
for peer in peers:
    try:
        with open(f"{out}/{peer}.json") as f:
            s = json.load(f)
    except (OSError, ValueError):
        print(f"{peer:<16}  no result")
        continue
    pairs = s["pairs"] > 0
    e = elo(s["penta_elo"], s["penta_elo_error"]) if pairs else elo(s["elo"], s["elo_error"])
    fails = [sum(s["failures"][n].values()) for n in s["engines"]]
    wdl = f"{s['wins']}/{s['draws']}/{s['losses']}"
    print(f"{peer:<16}{s['games']:>6}  {wdl:<11}{100 * s['score']:>7.1f}%  {e:<20}{fails[0]}/{fails[1]}"
          + ("" if s["status"] == "finished" else f"  ({s['status']})"))
EOF
