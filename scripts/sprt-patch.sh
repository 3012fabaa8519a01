#!/usr/bin/env bash
# SPRT of a change kept as a patch (experiments/README.md): dev is COMMIT with PATCH applied
# (default experiments/NAME.patch, read from COMMIT), base is COMMIT as it is. Everything else
# (fixed build places, the journal scripts/journals/NAME.jsonl, REUSE, BUILD_ONLY, SAME_BENCH,
# TC, CONCURRENCY) is scripts/sprt-param.sh's.
#
#   scripts/sprt-patch.sh NAME COMMIT SEED [PATCH] [PARAM=VALUE ...]
#   e.g. scripts/sprt-patch.sh qsearch_tt 2bc0d7a 2616
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: $0 NAME COMMIT SEED [PATCH] [PARAM=VALUE ...]" >&2; exit 2; }
name=$1 commit=$2 seed=$3
shift 3
patch="experiments/$name.patch"
if [[ $# -ge 1 && "$1" == *.patch ]]; then
    patch=$1
    shift
fi
exec "$(dirname "${BASH_SOURCE[0]}")/sprt-param.sh" "$name" "$commit" "$seed" "$patch" "$@"
