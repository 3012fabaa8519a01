#!/usr/bin/env bash
# The EPD suites with the settings the README quotes: WAC (revised) and Bratko-Kopec at 100 ms
# and 1000 ms a position, one thread, 16 MB, a fresh table per position.
# Usage: scripts/suites.sh [ferrum binary]   (results also go to scripts/out/*.txt and .json)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
ferrum="${1:-$repo/target/release/ferrum}"
data="$repo/data"
out="$repo/scripts/out"
[[ -x "$ferrum" ]] || { echo "suites.sh: no binary at $ferrum (cargo build --release)" >&2; exit 2; }
mkdir -p "$out"
for ms in 100 1000; do
  for suite in wac bk; do
    "$ferrum" epd "$data/$suite.epd" --movetime "$ms" --hash 16 --threads 1 \
      --json "$out/${suite}${ms}.json" > "$out/${suite}${ms}.txt"
    tail -n 1 "$out/${suite}${ms}.txt" | sed "s/\$/ at $ms ms/"
  done
done
