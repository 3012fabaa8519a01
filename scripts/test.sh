#!/usr/bin/env bash
# The whole test suite: the Rust tests (unit, UCI sessions against the built binary, perft,
# search properties, the protocol fuzzer, the Syzygy agreement with python-chess) and the
# Python tests of the match scripts. python-chess is required (the Syzygy test's oracle);
# pytest too under FERRUM_REQUIRE_PYTHON_TESTS=1 (CI), else the Python tests are skipped with
# a message when it is missing. Both: `python3 -m pip install chess pytest`.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -c "import chess.syzygy" 2>/dev/null; then
  echo "scripts/test.sh: python-chess is required (the Syzygy agreement test compares with it): python3 -m pip install chess pytest" >&2
  exit 1
fi
cargo test
if [ -d scripts/tests ]; then
  if python3 -c "import pytest" 2>/dev/null; then
    python3 -m pytest -q scripts/tests
  elif [ "${FERRUM_REQUIRE_PYTHON_TESTS:-0}" = 1 ]; then
    echo "scripts/test.sh: pytest is required here (python3 -m pip install chess pytest)" >&2
    exit 1
  else
    echo "scripts/test.sh: SKIPPED the Python tests of scripts/: pytest is missing (python3 -m pip install pytest)" >&2
  fi
fi
