#!/usr/bin/env bash
# SPRT of a search change against COMMIT: dev is COMMIT with the changes given, base is
# COMMIT as it is. A change is a patch (a file ending in .patch: experiments/NAME.patch, read
# from COMMIT when it has that file, else from the path given; applied with `git apply`) or
# a parameter's new default (PARAM=VALUE, in src/search/params.rs); patches go first.
#
#   scripts/sprt-param.sh NAME COMMIT SEED CHANGE [CHANGE ...]
#   e.g. scripts/sprt-param.sh qsearch_tt 4ce58df 2513 experiments/qsearch_tt.patch
#        scripts/sprt-param.sh rfp90 4ce58df 2514 rfp_margin=90
#   (scripts/sprt-patch.sh NAME COMMIT SEED is the first, for experiments/NAME.patch)
#
# Both are built from clean checkouts in fixed places (../ferrum-data/sprt/build/NAME/{base,dev}),
# so the same commit and values build the same bytes on any machine with this toolchain: the
# journal (results/journals/NAME.jsonl, kept in the repository because nothing outside it
# outlives a machine) then resumes the match after the binaries are rebuilt by the same
# command. The base's bench must be the commit's and the dev's must differ, else it stops.
# SPRT [0, 5] at 4+0.04 (TC, ELO0, ELO1 override), 8moves_v3, Hash 16, concurrency 1
# (CONCURRENCY overrides). Each NAME builds in its own place, so two SPRTs can run at once.
# BUILD_ONLY=1 builds, checks and prints the binaries' SHA-256 without playing. REUSE=1 keeps a
# checkout that is already the commit with the same changes (a stamp beside it records them
# and the checkout's diff; cargo then rebuilds only what changed, usually nothing) instead of
# making it afresh. SAME_BENCH=1
# lets a change that leaves fixed-depth searches alone (time management) through the bench
# check; such a change is tested at TC=10+0.1. ADJ (any non-empty value) adjudicates with the
# net screens' settings (docs/nets.md): resigned when both engines score the game beyond
# 1000 cp for 5 moves each, drawn when both stay within 8 cp for 10 moves once each engine has
# played 40 moves out of the book: shorter games, so more of them an hour. A journal started
# without it resumes only without it, and one started with it only with it. CORE=N pins the
# whole run (builds, referee, engines) to that core with taskset, e.g. CORE=1 beside datagen
# on core 0.
set -euo pipefail

die() { echo "sprt-param.sh: error: $*" >&2; exit 2; }
if [[ -n "${CORE:-}" && -z "${SPRT_PINNED:-}" ]]; then
  command -v taskset >/dev/null || die "CORE=$CORE needs taskset"
  [[ "$CORE" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "bad CORE '$CORE' (a core number, or several joined by commas)"
  SPRT_PINNED=1 exec taskset -c "$CORE" "$0" "$@"
fi
[[ $# -ge 4 ]] || die "usage: $0 NAME COMMIT SEED CHANGE [CHANGE ...] (CHANGE: a .patch file or PARAM=VALUE)"
name=$1 commit=$2 seed=$3
[[ "$name" =~ ^[A-Za-z0-9_-]+$ ]] || die "bad name '$name'"
shift 3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
data="$(cd "$repo/.." && pwd)/ferrum-data/sprt"
build="$data/build/$name"
TC="${TC:-4+0.04}" ELO0="${ELO0:-0}" ELO1="${ELO1:-5}"
# The book shipped in data/books; BOOK overrides it (a journal holds the path it was started with).
book="${BOOK:-$repo/data/books/8moves_v3.epd}"
[[ -r "$book" ]] || die "cannot read the book $book"
full="$(git -C "$repo" rev-parse --verify --quiet "$commit^{commit}")" || die "'$commit' is not a commit"
mkdir -p "$build" "$repo/results/journals"

# The changes, patches first: each patch copied to $build/patches (from the commit when it
# holds the path, else from the file), each setting checked.
patches=() settings=()
mkdir -p "$build/patches"
for change in "$@"; do
    if [[ "$change" == *.patch ]]; then
        copy="$build/patches/${#patches[@]}.patch"
        if git -C "$repo" cat-file -e "$full:$change" 2>/dev/null; then
            git -C "$repo" show "$full:$change" > "$copy"
        elif [[ -r "$change" ]]; then
            cp "$change" "$copy"
        else
            die "no patch '$change' in $commit nor on disk"
        fi
        patches+=("$copy")
    else
        [[ "$change" =~ ^[a-z0-9_]+=-?[0-9]+$ ]] || die "bad change '$change' (a .patch file or PARAM=VALUE)"
        settings+=("$change")
    fi
done

# settle FILE [PARAM=VALUE ...]: sets the parameters' defaults in a copy of params.rs.
settle() {
    local file=$1 kv p v
    shift
    for kv in "$@"; do
        p=${kv%%=*} v=${kv#*=}
        grep -q "^    $p = -\?[0-9]*," "$file" || die "no parameter '$p'"
        sed -i "s/^    $p = -\?[0-9]*,/    $p = $v,/" "$file"
    done
}

# stamp WHO: what the checkout of WHO is made of (the commit, the settings and the patches'
# contents; none for the base), as one hash.
stamp() {
    {
        echo "$full"
        if [[ "$1" == dev ]]; then
            printf '%s\n' "${settings[@]}"
            cat "${patches[@]}" /dev/null
        fi
    } | sha256sum | cut -d' ' -f1
}

# tree_hash DIR: the checkout's changes against its commit, as one hash.
tree_hash() { git -C "$1" diff HEAD --binary | sha256sum | cut -d' ' -f1; }

# same_checkout WHO: the checkout is the commit with WHO's changes, untouched since.
same_checkout() {
    local dir="$build/$1"
    [[ -d "$dir" && -r "$dir.stamp" ]] || return 1
    [[ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" == "$full" ]] || return 1
    [[ "$(cat "$dir.stamp")" == "$(stamp "$1") $(tree_hash "$dir")" ]]
}

# build WHO: a clean checkout of the commit at $build/WHO, changed (the dev only), built
# (with REUSE=1, the checkout already there when it is the same).
build() {
    local who=$1
    local dir="$build/$who"
    if [[ -n "${REUSE:-}" ]] && same_checkout "$who"; then
        echo "== reusing $dir"
    else
        git -C "$repo" worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
        git -C "$repo" worktree prune
        git -C "$repo" worktree add --detach --quiet "$dir" "$full"
        if [[ "$who" == dev ]]; then
            local patch
            for patch in "${patches[@]}"; do
                git -C "$dir" apply "$patch" || die "$patch does not apply to $commit"
            done
            settle "$dir/src/search/params.rs" "${settings[@]}"
        fi
        echo "$(stamp "$who") $(tree_hash "$dir")" > "$dir.stamp"
        # Another build's target seeds this one: the dependencies are then compiled already
        # (their fingerprints do not depend on where the checkout is; ferrum's do, so it is
        # built afresh). `cp -a` keeps the files' times: cargo calls a dependency stale when
        # its output is newer than what was built on it, which a plain copy can make so.
        local seed
        for seed in "$data"/build/*/*/target; do
            if [[ -d "$seed/release/deps" && "$seed" != "$dir/target" ]]; then
                cp -a "$seed" "$dir/target"
                break
            fi
        done
    fi
    (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo build --release --quiet)
}

bench_of() { "$1" bench 2>/dev/null | tail -1 | cut -d' ' -f1; }

echo "== building base ($full) and dev ($*)"
build base
build dev
base="$build/base/target/release/ferrum" dev="$build/dev/target/release/ferrum"
# A commit whose message names no bench (docs only) is checked against nothing: `|| true`, as
# grep's failure would otherwise end the script here without a word (set -e, pipefail).
want="$(git -C "$repo" log -1 --format=%B "$full" | { grep -o 'Bench: [0-9]*' || true; } | tail -1 | cut -d' ' -f2)"
bb="$(bench_of "$base")" db="$(bench_of "$dev")"
echo "== bench: base $bb (commit says ${want:-nothing}), dev $db"
[[ -z "$want" || "$bb" == "$want" ]] || die "the base's bench $bb is not the commit's $want"
# A time-management change (SAME_BENCH=1) searches a fixed depth as the base does.
[[ "$db" != "$bb" || -n "${SAME_BENCH:-}" ]] || die "the dev build searches as the base does: does the change change the search? (SAME_BENCH=1 for time management)"
sha256sum "$base" "$dev"
# BUILD_ONLY=1: stop here (to check that a rebuild gives the bytes a journal names).
[[ -z "${BUILD_ONLY:-}" ]] || exit 0

adjudication=()
if [[ -n "${ADJ:-}" ]]; then
    adjudication=(--resign-score 1000 --resign-moves 5 --resign-twosided
        --draw-score 8 --draw-moves 10 --draw-after-move 40)
fi

cd "$repo"
exec python3 scripts/match.py "${adjudication[@]}" \
    --engine "cmd=$dev" name=dev option.Hash=16 \
    --engine "cmd=$base" name=base option.Hash=16 \
    --tc "$TC" --book "$book" --games 20000 --concurrency "${CONCURRENCY:-1}" \
    --sprt "$ELO0" "$ELO1" 0.05 0.05 --seed "$seed" \
    --pgn "$data/$name.pgn" --journal "results/journals/$name.jsonl"
