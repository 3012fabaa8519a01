#!/usr/bin/env bash
# Run a two-engine match with fastchess or cutechess-cli when one is on PATH,
# else with match.py. Takes match.py's arguments and maps this subset:
#   --engine cmd=PATH [name=N] [dir=D] [args="..."] [option.X=V ...]   (twice)
#   --tc TC | --nodes N | --depth D   --book FILE (EPD)   --games N
#   --concurrency C   --seed S   --pgn FILE   --sprt ELO0 ELO1 ALPHA BETA
#   --resign-score CP --resign-moves K [--resign-twosided]
#   --draw-score CP --draw-moves K --draw-after-move M   --tolerance-ms MS   --event NAME
# Options only match.py has (--json, --journal, --report-every, --move-timeout, --debug)
# make the script use match.py. Honest differences with the external tools:
#   - an odd --games is rounded up to whole pairs (-rounds ceil(N/2) -repeat);
#   - fastchess's SPRT is asked for model=logistic (its default is normalized Elo);
#     cutechess-cli uses its own SPRT model, so its LLR is not comparable;
#   - draw adjudication's move number is counted by each tool its own way;
#   - the tools warn or fail on options an engine lacks; match.py skips them.
# Environment: MATCH_RUNNER=auto|fastchess|cutechess|python (default auto),
#              MATCH_DRY_RUN=1 prints the command instead of running it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
all_args=("$@")

die() { echo "match.sh: error: $*" >&2; exit 2; }

e1=() e2=() engines=0
tc="" nodes="" depth="" book="$repo/data/books/8moves_v3.epd" games=2 concurrency=1
seed="" pgn="" event="" sprt=() tolerance=100
resign_score="" resign_moves="" resign_twosided="" draw_score="" draw_moves="" draw_after=""
python_only=""

need() { [[ $# -ge 2 && -n "$2" && "$2" != --* ]] || die "$1 needs a value"; }

while (($#)); do
    case "$1" in
        --engine)
            engines=$((engines + 1)); shift
            while (($#)) && [[ "$1" != --* ]]; do
                case $engines in
                    1) e1+=("$1") ;;
                    2) e2+=("$1") ;;
                    *) die "need exactly two --engine" ;;
                esac
                shift
            done ;;
        --tc) need "$@"; tc="$2"; shift 2 ;;
        --nodes) need "$@"; nodes="$2"; shift 2 ;;
        --depth) need "$@"; depth="$2"; shift 2 ;;
        --book) need "$@"; book="$2"; shift 2 ;;
        --games) need "$@"; games="$2"; shift 2 ;;
        --concurrency) need "$@"; concurrency="$2"; shift 2 ;;
        --seed) need "$@"; seed="$2"; shift 2 ;;
        --pgn) need "$@"; pgn="$2"; shift 2 ;;
        --event) need "$@"; event="$2"; shift 2 ;;
        --tolerance-ms) need "$@"; tolerance="$2"; shift 2 ;;
        --sprt)
            [[ $# -ge 5 ]] || die "--sprt needs ELO0 ELO1 ALPHA BETA"
            sprt=("$2" "$3" "$4" "$5"); shift 5 ;;
        --resign-score) need "$@"; resign_score="$2"; shift 2 ;;
        --resign-moves) need "$@"; resign_moves="$2"; shift 2 ;;
        --resign-twosided) resign_twosided=1; shift ;;
        --draw-score) need "$@"; draw_score="$2"; shift 2 ;;
        --draw-moves) need "$@"; draw_moves="$2"; shift 2 ;;
        --draw-after-move) need "$@"; draw_after="$2"; shift 2 ;;
        --json|--journal|--report-every|--move-timeout) need "$@"; python_only="$1"; shift 2 ;;
        --debug) python_only="$1"; shift ;;
        -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1'" ;;
    esac
done

run_python() {
    local cmd=(python3 "$here/match.py" "${all_args[@]}")
    if [[ -n "${MATCH_DRY_RUN:-}" ]]; then printf '%q ' "${cmd[@]}"; echo; exit 0; fi
    exec "${cmd[@]}"
}

runner="${MATCH_RUNNER:-auto}"
if [[ "$runner" == auto ]]; then
    if [[ -n "$python_only" ]]; then runner=python
    elif command -v fastchess >/dev/null; then runner=fastchess
    elif command -v cutechess-cli >/dev/null; then runner=cutechess
    else runner=python
    fi
fi
case "$runner" in
    python) run_python ;;
    fastchess|cutechess) ;;
    *) die "MATCH_RUNNER must be auto, fastchess, cutechess or python" ;;
esac
[[ -z "$python_only" ]] || die "$python_only is only supported by match.py (MATCH_RUNNER=python)"

# The checks match.py would make, so the external tools get sane input too.
[[ $engines -eq 2 ]] || die "need exactly two --engine, got $engines"
[[ -n "$tc$nodes$depth" ]] || die "give a limit: --tc, --nodes or --depth"
[[ -r "$book" ]] || die "cannot read book '$book'"
[[ "$games" =~ ^[1-9][0-9]*$ ]] || die "--games must be a positive integer"
[[ "$concurrency" =~ ^[1-9][0-9]*$ ]] || die "--concurrency must be a positive integer"
[[ -n "$seed" ]] || seed=$(( (RANDOM << 15) | RANDOM ))
rounds=$(( (games + 1) / 2 ))

# Engine settings: both tools take cmd=/name=/dir=/option.X=; a cmd with
# arguments is split into the executable and args= (fastchess) or arg= (cutechess).
map_engine() {
    local token key value words
    mapped=()
    for token in "$@"; do
        key="${token%%=*}"; value="${token#*=}"
        [[ "$token" == *=* ]] || die "engine setting '$token' is not key=value"
        case "$key" in
            cmd|args)
                read -r -a words <<< "$value"
                ((${#words[@]})) || die "empty $key="
                if [[ "$key" == cmd ]]; then mapped+=("cmd=${words[0]}"); words=("${words[@]:1}"); fi
                if ((${#words[@]})); then
                    if [[ "$runner" == fastchess ]]; then mapped+=("args=${words[*]}")
                    else for w in "${words[@]}"; do mapped+=("arg=$w"); done
                    fi
                fi ;;
            name|dir|option.*) mapped+=("$token") ;;
            *) die "unknown engine setting '$key' in '$token'" ;;
        esac
    done
}

each=(proto=uci "timemargin=$tolerance")
[[ -n "$tc" ]] && each+=("tc=$tc")
[[ -z "$tc" && "$runner" == cutechess ]] && each+=(tc=inf)
[[ -n "$nodes" ]] && each+=("nodes=$nodes")
if [[ -n "$depth" ]]; then
    if [[ "$runner" == fastchess ]]; then each+=("plies=$depth"); else each+=("depth=$depth"); fi
fi

tool=fastchess; [[ "$runner" == cutechess ]] && tool=cutechess-cli
cmd=("$tool")
map_engine "${e1[@]}"; cmd+=(-engine "${mapped[@]}")
map_engine "${e2[@]}"; cmd+=(-engine "${mapped[@]}")
cmd+=(-each "${each[@]}"
      -openings "file=$book" format=epd order=random -srand "$seed"
      -rounds "$rounds" -games 2 -repeat -concurrency "$concurrency" -recover)
[[ -n "$event" ]] && cmd+=(-event "$event")
if [[ -n "$pgn" ]]; then
    if [[ "$runner" == fastchess ]]; then cmd+=(-pgnout "file=$pgn"); else cmd+=(-pgnout "$pgn"); fi
fi
if ((${#sprt[@]})); then
    cmd+=(-sprt "elo0=${sprt[0]}" "elo1=${sprt[1]}" "alpha=${sprt[2]}" "beta=${sprt[3]}")
    [[ "$runner" == fastchess ]] && cmd+=(model=logistic)
fi
if [[ -n "$resign_moves" ]]; then
    cmd+=(-resign "movecount=$resign_moves" "score=${resign_score:-0}")
    [[ -n "$resign_twosided" ]] && cmd+=(twosided=true)
fi
if [[ -n "$draw_moves" ]]; then
    cmd+=(-draw "movenumber=${draw_after:-0}" "movecount=$draw_moves" "score=${draw_score:-0}")
fi

echo "match.sh: $tool, seed $seed" >&2
if [[ -n "${MATCH_DRY_RUN:-}" ]]; then printf '%q ' "${cmd[@]}"; echo; exit 0; fi
exec "${cmd[@]}"
