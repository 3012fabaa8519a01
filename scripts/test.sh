#!/usr/bin/env bash
# The whole test suite: the Rust tests (unit, UCI sessions against the built binary, perft,
# search properties, the protocol fuzzer, the Syzygy agreement with python-chess) and the
# Python tests of the match scripts, after checking the imports' house order
# (scripts/check_imports.py) and that the waiting changes' patches apply. python-chess is
# required (the Syzygy test's oracle); pytest too under FERRUM_REQUIRE_PYTHON_TESTS=1 (CI),
# else the Python tests are skipped with a message when it is missing. Both:
# `python3 -m pip install chess pytest`.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -c "import chess.syzygy" 2>/dev/null; then
  echo "scripts/test.sh: python-chess is required (the Syzygy agreement test compares with it): python3 -m pip install chess pytest" >&2
  exit 1
fi
# Imports run down the house (DESIGN.md): no folder imports one above it, no circles.
python3 scripts/check_imports.py
# Every waiting search change's patch (experiments/README.md) must still apply.
for patch in experiments/*.patch; do
  [ -e "$patch" ] || continue
  if ! git apply --check "$patch"; then
    echo "scripts/test.sh: $patch no longer applies: mend it in the change that broke it" >&2
    exit 1
  fi
done
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
