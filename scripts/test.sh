#!/usr/bin/env bash
# The whole test suite: the Rust tests (unit, UCI sessions against the built binary, perft,
# search properties) and the Python tests of the match statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test
if [ -d scripts/tests ]; then
  python3 -m pytest -q scripts/tests
fi
