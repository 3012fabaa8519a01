#!/usr/bin/env bash
# Mutation testing (cargo-mutants) over the modules where a silent error costs most.
#
#   scripts/mutants.sh [MODULE...]      e.g. scripts/mutants.sh datagen score
#   scripts/mutants.sh --list           the modules, their files and their test targets
#
# Each module runs in two passes, one job at a time (one core):
#   1. every mutant against the library's unit tests (`cargo test --lib`, about 10 s each);
#   2. `--iterate`: only the mutants pass 1 missed, against the unit tests and the module's
#      end-to-end tests (they start the binary, so they are slower).
# Results go to $OUT/<module>/mutants.out (caught.txt, missed.txt, timeout.txt,
# unviable.txt); a summary line per module is printed at the end. Needs cargo-mutants
# (`cargo install cargo-mutants --locked`). Not part of CI: a module takes minutes to hours.
#
# RESUME=1 continues modules a stopped run left unfinished instead of starting them again:
# a finished module is only summed up, a finished pass 1 goes on to pass 2, and a pass cut
# short is run again with `--iterate`, which skips the mutants it already caught or found
# unviable. (Do not change the source between the runs: mutants are matched by line.)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
OUT="${OUT:-$repo/../ferrum-data/mutants}"
# Seconds a mutant's tests may take (pass 2 runs the slower end-to-end tests).
TIMEOUT="${TIMEOUT:-120}"
TIMEOUT2="${TIMEOUT2:-300}"

# module | files (globs, separated by spaces) | end-to-end test targets for pass 2 |
# optional: the unit tests pass 1 runs (name filters; then built by the `mutants-quick`
# profile, as so few tests run that the build is most of a mutant's time; pass 2 runs them all)
MODULES="
datagen|src/learn/datagen.rs src/learn/adjudication.rs|datagen_labels
packed|src/learn/packed.rs|nnue
score|src/search/score.rs|search_properties uci_session
tt|src/search/tt.rs|search_properties uci_state
time|src/search/time.rs|uci_session
position|src/basics/position.rs|perft_suites search_properties
parse|src/uci/parse.rs|uci_session uci_state protocol_fuzz
options|src/uci/options.rs|uci_session uci_state
syzygy|src/search/syzygy.rs|syzygy
strength|src/play/strength.rs|strength
accumulator|src/eval/accumulator.rs|nnue
connect4|src/connect4/*.rs|connect4|connect4 negamax tree
tactical|src/basics/tactical.rs|perft_suites search_properties
correction|src/search/correction.rs|switched_on
"

die() { echo "mutants.sh: error: $*" >&2; exit 2; }

if [[ "${1:-}" == "--list" ]]; then
    echo "$MODULES" | sed '/^$/d' | column -t -s '|'
    exit 0
fi
command -v cargo-mutants >/dev/null || die "cargo-mutants is not installed: cargo install cargo-mutants --locked"

wanted=("$@")
if [[ ${#wanted[@]} -eq 0 ]]; then
    mapfile -t wanted < <(echo "$MODULES" | sed '/^$/d' | cut -d'|' -f1)
fi

# cargo-mutants exits 2 when a mutant was missed and 3 when one timed out: results. Anything
# else (a usage error, a failing baseline, an internal error) means the module was not tested.
run_mutants() {
    local rc=0
    cargo mutants "$@" || rc=$?
    case $rc in
        0 | 2 | 3) ;;
        *) die "cargo-mutants exited $rc for $name (see $out/mutants.out/debug.log)" ;;
    esac
}

summary=()
for name in "${wanted[@]}"; do
    line="$(echo "$MODULES" | grep "^$name|" || true)"
    [[ -n "$line" ]] || die "unknown module '$name' (see --list)"
    files="$(echo "$line" | cut -d'|' -f2)"
    tests="$(echo "$line" | cut -d'|' -f3)"
    filters="$(echo "$line" | cut -d'|' -f4)"
    out="$OUT/$name"
    mkdir -p "$out"
    file_args=()
    for f in $files; do file_args+=(--file "$f"); done
    common=("${file_args[@]}" --jobs 1 --output "$out")
    # Pass 1: all unit tests, or only the module's own (and a quicker build) where it names them.
    profile=mutants unit=(--lib)
    if [[ -n "$filters" ]]; then
        read -r -a names <<< "$filters"
        profile=mutants-quick unit=(--lib -- "${names[@]}")
    fi
    pass1=("${common[@]}" --profile "$profile" --timeout "$TIMEOUT")
    listing="$(cargo mutants --list "${file_args[@]}")" || die "cannot list the mutants of $name"
    total="$(printf '%s\n' "$listing" | sed '/^$/d' | wc -l)"
    resuming=0
    if [[ "${RESUME:-0}" == 1 && -f "$out/mutants.out/outcomes.json" ]]; then
        resuming=1
    else
        rm -f "$out/pass1.done" "$out/module.done" "$out/unviable-pass1.txt"
    fi
    # The unviable mutants so far: an --iterate pass lists only those it found itself.
    keep_unviable() {
        cat "$out/unviable-pass1.txt" "$out/mutants.out/unviable.txt" 2>/dev/null \
            | sed '/^$/d' | sort -u > "$out/unviable.tmp" || true
        mv "$out/unviable.tmp" "$out/unviable-pass1.txt"
    }
    if [[ -f "$out/module.done" ]]; then
        echo "== $name: finished before, summed up again"
    else
        # A pass 2 cut short has listed only some of what it missed: run it again whole.
        pass2_cut=0
        [[ -f "$out/pass1.done" ]] && pass2_cut=1
        if [[ ! -f "$out/pass1.done" ]]; then
            if [[ $resuming == 1 ]]; then
                keep_unviable
                echo "== $name: pass 1 resumed ($files, $total mutants, unit tests ${filters:-all})"
                run_mutants "${pass1[@]}" --iterate -- "${unit[@]}"
            else
                echo "== $name: pass 1 ($files, $total mutants, unit tests ${filters:-all})"
                run_mutants "${pass1[@]}" -- "${unit[@]}"
            fi
            keep_unviable
            # Pass 1's timeouts hang the longer tests of pass 2 as well: keep them aside.
            cp "$out/mutants.out/timeout.txt" "$out/timeout-pass1.txt" 2>/dev/null \
                || : > "$out/timeout-pass1.txt"
            touch "$out/pass1.done"
        fi
        if [[ $pass2_cut == 1 || -s "$out/mutants.out/missed.txt" ]]; then
            targets=(--lib)
            for t in $tests; do targets+=(--test "$t"); done
            # Leave out pass 1's timeouts: each name as a whole, its regex characters escaped.
            skip=()
            while IFS= read -r m; do
                if [[ -n "$m" ]]; then
                    skip+=(--exclude-re "^$(printf '%s' "$m" | sed 's/[][\\.*^$+?(){}|]/\\&/g')\$")
                fi
            done < <(cat "$out/timeout-pass1.txt" 2>/dev/null || true)
            echo "== $name: pass 2 (the missed ones, unit tests and ${tests// /, }; $(( ${#skip[@]} / 2 )) pass-1 timeouts left out)"
            run_mutants "${common[@]}" --profile mutants --timeout "$TIMEOUT2" --iterate "${skip[@]}" -- "${targets[@]}"
        fi
        touch "$out/module.done"
    fi
    # The last pass's missed and timed-out mutants are the ones left; the rest were caught
    # in one pass or the other, or are unviable (they do not build).
    count() { if [[ -f "$1" ]]; then sed '/^$/d' "$1" | wc -l; else echo 0; fi; }
    missed="$(count "$out/mutants.out/missed.txt")"
    timeouts="$(cat "$out/mutants.out/timeout.txt" "$out/timeout-pass1.txt" 2>/dev/null | sed '/^$/d' | sort -u | wc -l)"
    unviable="$(count "$out/unviable-pass1.txt")"
    caught=$((total - missed - timeouts - unviable))
    summary+=("$name: $total mutants, $caught caught, $missed missed, $timeouts timeouts, $unviable unviable")
done

echo
printf '%s\n' "${summary[@]}"
