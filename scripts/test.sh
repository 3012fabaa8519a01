#!/usr/bin/env bash
# The whole test suite: the Rust tests (unit, UCI sessions against the built binary, perft,
# search properties, the protocol fuzzer) and the Python tests of the match scripts, which
# need python-chess and pytest (`pip install chess pytest`): without them they are skipped
# with a message, unless FERRUM_REQUIRE_PYTHON_TESTS=1 (CI) makes that an error.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test
if [ -d scripts/tests ]; then
  if python3 -c "import chess, pytest" 2>/dev/null; then
    python3 -m pytest -q scripts/tests
  elif [ "${FERRUM_REQUIRE_PYTHON_TESTS:-0}" = 1 ]; then
    echo "scripts/test.sh: python-chess and pytest are required here (pip install chess pytest)" >&2
    exit 1
  else
    echo "scripts/test.sh: SKIPPED the Python tests of scripts/: python-chess or pytest is missing (pip install chess pytest)" >&2
  fi
fi
