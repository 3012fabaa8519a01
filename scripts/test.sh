#!/usr/bin/env bash
# The whole test suite: the Rust tests (unit, UCI sessions against the built binary, perft,
# search properties, the protocol fuzzer, the Syzygy agreement with python-chess) and the
# Python tests of the match scripts, after checking the imports' house order
# (scripts/check_imports.py) and that the waiting changes' patches apply. python-chess is required (the Syzygy test's oracle);
# pytest too under FERRUM_REQUIRE_PYTHON_TESTS=1 (CI), else the Python tests are skipped with
# a message when it is missing.
#
# The Python used, first that fits: FERRUM_PYTHON (as given); python3 when it has both;
# the repository's own virtual environment .venv when it has both; else both are installed
# into .venv (made with `python3 -m venv`: this works where the system's Python refuses
# `pip install`, as Debian's and Ubuntu's do), or failing that with `pip install --user`;
# else whichever has python-chess, and what to install is printed. The Rust Syzygy test
# runs that Python too (FERRUM_PYTHON is exported for it).
set -euo pipefail
cd "$(dirname "$0")/.."

has() { "$1" -c "import $2" >/dev/null 2>&1; }
venv_python() {
  if [ -x .venv/bin/python ]; then echo "$PWD/.venv/bin/python"
  elif [ -x .venv/Scripts/python.exe ]; then echo "$PWD/.venv/Scripts/python.exe"
  else return 1; fi
}

python="${FERRUM_PYTHON:-}"
if [ -z "$python" ]; then
  if has python3 "chess.syzygy, pytest"; then
    python=python3
  elif venv="$(venv_python)" && has "$venv" "chess.syzygy, pytest"; then
    python=$venv
  else
    echo "scripts/test.sh: python-chess or pytest is missing: installing them into .venv" >&2
    if ! venv="$(venv_python)"; then
      # A venv without pip (Debian without python3-venv) is of no use: not kept.
      python3 -m venv .venv >/dev/null 2>&1 || true
      venv="$(venv_python)" && has "$venv" "pip, sys; assert sys.prefix != sys.base_prefix" \
        || { rm -rf .venv; venv=""; }
    fi
    if [ -n "$venv" ] && "$venv" -m pip install --quiet --disable-pip-version-check chess pytest \
        && has "$venv" "chess.syzygy, pytest"; then
      python=$venv
    else
      echo "scripts/test.sh: no .venv (python3 -m venv failed or pip could not install there): trying pip install --user" >&2
      python3 -m pip install --quiet --disable-pip-version-check --user chess pytest >/dev/null 2>&1 || true
      if has python3 "chess.syzygy, pytest"; then
        python=python3
      elif [ -n "$venv" ] && has "$venv" chess.syzygy; then
        python=$venv
      elif has python3 chess.syzygy; then
        python=python3
      fi
    fi
  fi
fi
if [ -z "$python" ] || ! has "$python" chess.syzygy; then
  cat >&2 <<'EOF'
scripts/test.sh: python-chess is required (the Syzygy agreement test compares with it), with
pytest for the Python tests: no Python here has it, and it could not be installed. Either
  - let this script make .venv: on Debian or Ubuntu, `sudo apt install python3-venv`, then run
    `bash scripts/test.sh` again (it needs access to PyPI once);
  - or install both for python3 yourself (`python3 -m pip install chess pytest`), or point
    FERRUM_PYTHON at a Python that has them.
EOF
  exit 1
fi
export FERRUM_PYTHON="$python"
echo "scripts/test.sh: Python: $python ($("$python" -c 'import chess, sys; print(sys.version.split()[0], "python-chess", chess.__version__)'))" >&2

# Imports run down the house (DESIGN.md): no folder imports one above it, no circles.
"$python" scripts/check_imports.py
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
  if has "$python" pytest; then
    "$python" -m pytest -q scripts/tests
  elif [ "${FERRUM_REQUIRE_PYTHON_TESTS:-0}" = 1 ]; then
    echo "scripts/test.sh: pytest is required here ($python -m pip install pytest)" >&2
    exit 1
  else
    echo "scripts/test.sh: SKIPPED the Python tests of scripts/: pytest is missing ($python -m pip install pytest)" >&2
  fi
fi
