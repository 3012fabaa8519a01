#!/usr/bin/env bash
# SPRT of the working tree ("dev") against a git ref ("base"), e.g.
#   scripts/sprt-vs-main.sh main
# Builds <ref> in a temporary `git worktree` and the working tree with
# `cargo build --release`, copies the binaries to /tmp/ferrum-sprt/{base,dev},
# and runs scripts/match.sh (fastchess or cutechess-cli if installed, else
# match.py) with dev as engine 1, so positive Elo means dev is stronger.
#
# Standard settings (environment overrides in brackets):
#   book 8moves_v3.epd, random order   [BOOK]
#   time control 8+0.08                [TC]
#   H0: 0 Elo, H1: 5 Elo (logistic)    [ELO0, ELO1]
#   alpha = beta = 0.05                [ALPHA, BETA]
#   at most 20000 games                [GAMES]   (the SPRT normally stops earlier)
#   concurrency 1, Hash 16 MB          [CONCURRENCY]
#   journal ../ferrum-data/sprt/journal-<dev>-<base>.jsonl, named by the two binaries'
#   SHA-256 [JOURNAL]: run the same SPRT again (SKIP_BUILD=1, or builds of the same
#   commits) and it goes on from the games the journal holds. The journal is match.py's:
#   with it the match runs on match.py even where fastchess or cutechess-cli is installed;
#   JOURNAL=none (or MATCH_RUNNER=fastchess|cutechess) runs without one. The same binaries
#   at another time control, bounds or book need a JOURNAL of their own.
# Other knobs: SKIP_BUILD=1 reuses the binaries already in /tmp/ferrum-sprt;
#   BASE_TARGET_DIR (default /tmp/ferrum-sprt/target-base) keeps the base
#   build's cache between runs. The games go to /tmp/ferrum-sprt/sprt.pgn.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
out=/tmp/ferrum-sprt

TC="${TC:-8+0.08}"
ELO0="${ELO0:-0}"
ELO1="${ELO1:-5}"
ALPHA="${ALPHA:-0.05}"
BETA="${BETA:-0.05}"
GAMES="${GAMES:-20000}"
CONCURRENCY="${CONCURRENCY:-1}"
BOOK="${BOOK:-$repo/data/books/8moves_v3.epd}"
BASE_TARGET_DIR="${BASE_TARGET_DIR:-$out/target-base}"

die() { echo "sprt-vs-main.sh: error: $*" >&2; exit 2; }

[[ $# -eq 1 ]] || die "usage: $0 <git ref>   (e.g. main, HEAD~1, a commit id)"
ref="$1"
[[ -r "$BOOK" ]] || die "cannot read book '$BOOK'"
mkdir -p "$out"

if [[ -z "${SKIP_BUILD:-}" ]]; then
    commit="$(git -C "$repo" rev-parse --verify --quiet "$ref^{commit}")" || die "'$ref' is not a commit in $repo"
    work="$(mktemp -d /tmp/ferrum-sprt-base.XXXXXX)"
    # The worktree is removed however the script ends, so `git worktree list` stays clean.
    cleanup() { git -C "$repo" worktree remove --force "$work/src" 2>/dev/null || true; rm -rf "$work"; }
    trap cleanup EXIT

    echo "== building base: $ref ($commit)"
    git -C "$repo" worktree add --detach --quiet "$work/src" "$commit"
    (cd "$work/src" && CARGO_TARGET_DIR="$BASE_TARGET_DIR" cargo build --release)
    install -m 755 "$BASE_TARGET_DIR/release/ferrum" "$out/base"
    cleanup; trap - EXIT

    echo "== building dev: working tree of $repo"
    dev_target="${CARGO_TARGET_DIR:-$repo/target}"
    (cd "$repo" && cargo build --release)
    install -m 755 "$dev_target/release/ferrum" "$out/dev"
fi
[[ -x "$out/base" && -x "$out/dev" ]] || die "missing $out/base or $out/dev (build them or unset SKIP_BUILD)"

digest() { sha256sum "$1" | cut -c1-12; }
journal=()
case "${MATCH_RUNNER:-auto}" in fastchess | cutechess) JOURNAL=none ;; esac
if [[ "${JOURNAL:-}" != none ]]; then
    mkdir -p "$repo/../ferrum-data/sprt"
    JOURNAL="${JOURNAL:-$repo/../ferrum-data/sprt/journal-$(digest "$out/dev")-$(digest "$out/base").jsonl}"
    journal=(--journal "$JOURNAL")
    echo "== journal $JOURNAL"
fi
echo "== SPRT dev vs base: tc $TC, [$ELO0, $ELO1], alpha $ALPHA, beta $BETA, up to $GAMES games"
"$here/match.sh" \
    --engine "cmd=$out/dev" name=dev option.Hash=16 \
    --engine "cmd=$out/base" name=base option.Hash=16 \
    --tc "$TC" --book "$BOOK" --games "$GAMES" --concurrency "$CONCURRENCY" \
    --sprt "$ELO0" "$ELO1" "$ALPHA" "$BETA" --pgn "$out/sprt.pgn" "${journal[@]}"
