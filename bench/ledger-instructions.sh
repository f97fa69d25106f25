#!/usr/bin/env bash
# Instructions per redemption and per finish on the SQLite ledger, counted by callgrind: unlike bench/ledger.sh's
# rates and CPU seconds, which move with a shared machine's load, these counts repeat from run to run, so they
# judge a change to the redemption path on any day.
#
#   bash bench/ledger-instructions.sh
#   LI_BASE=/path/to/older/depot bash bench/ledger-instructions.sh    # that build and this one, one after the other
#
# Each build runs `depot serve` under `valgrind --tool=callgrind` with instrumentation off, over a fresh SQLite
# ledger. bench/ledger-load.py (one keep-alive connection) first redeems and finishes LI_WARMUP transactions;
# then instrumentation goes on, the counters are zeroed, LI_COUNT new transactions are redeemed, the counters are
# dumped (and zeroed), the same transactions are finished, and the counters are dumped again. Each dump's total,
# divided by LI_COUNT, is the figure: every thread of the server (event loops, the ledger's threads, the periodic
# work), user space only. The periodic work is slowed to its longest intervals so that a slow machine, which makes
# the measured window longer, adds little to the counts.
#
# Environment:
#   LI_COUNT=200        transactions measured       LI_WARMUP=50   transactions redeemed and finished before
#   LI_BASE=path        a second depot binary, measured first, in the same way
#   DEPOT_BIN=path      the depot binary measured (any build; nothing is built); else the release build (built
#                       unless BENCH_SKIP_BUILD=1)
#   LI_DUMPS=dir        keep the callgrind dumps there (callgrind_annotate DIR/this-redeem.out shows where they go)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
COUNT=${LI_COUNT:-200}
WARMUP=${LI_WARMUP:-50}
[[ $COUNT =~ ^[1-9][0-9]*$ && $WARMUP =~ ^[0-9]+$ ]] || die "LI_COUNT must be a positive number and LI_WARMUP a number"

for tool in valgrind callgrind_control objcopy cc python3 curl; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
done

build_depot_release "$ROOT"
BUILDS=(this)
declare -A BINARY=([this]=$DEPOT)
if [[ -n ${LI_BASE:-} ]]; then
    BINARY[base]=$(realpath "$LI_BASE" 2>/dev/null) || die "LI_BASE=$LI_BASE does not exist"
    [[ -f ${BINARY[base]} && -x ${BINARY[base]} ]] || die "LI_BASE=$LI_BASE is not an executable file"
    BUILDS=(base this)
fi

start_scratch depot-ledger-instructions
ledger_bench_setup "$TMP" '"catalog": {"pollIntervalMilliseconds": 60000, "versionJobStaleSeconds": 86400, "collectIntervalSeconds": 86400},'
total=$((WARMUP + COUNT))
log "signing $total transactions"
sign_bench_transactions "$DEPOT" "$TMP" 1 "$WARMUP" "$TMP/warmup.txt"
sign_bench_transactions "$DEPOT" "$TMP" $((WARMUP + 1)) "$total" "$TMP/measured.txt"

VALGRIND=(valgrind --tool=callgrind --instr-atstart=no)

# A number with thousands separators.
thousands() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }

# The total Ir of a callgrind dump.
dump_total() { awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 } /^totals:/ { print $(col["Ir"] + 1) }' "$1"; }

declare -A RESULT
for build in "${BUILDS[@]}"; do
    callgrind_ready_copy "${BINARY[$build]}" "$TMP/depot-$build"
    rm -rf "$TMP/data-$build" && cp -R "$TMP/data" "$TMP/data-$build"
    port=$(pick_port "$(random_base_port)")
    log "$build: depot under callgrind on port $port (a start takes a while)"
    DEPOT_LOG_LEVEL=warning DEPOT_DATABASE_URL="sqlite:$TMP/ledger-$build.sqlite" LD_PRELOAD="$CALLGRIND_SHIM" \
        "${VALGRIND[@]}" --callgrind-out-file="$TMP/cg-$build.%p" \
        "$TMP/depot-$build" serve --config "$TMP/Config" --data-dir "$TMP/data-$build" --content-dir "$TMP/content" \
        --host 127.0.0.1 --port "$port" >"$TMP/serve-$build.out" 2>"$TMP/serve-$build.log" &
    pid=$!
    PIDS+=("$pid")
    for ((i = 0; i < 6000; i++)); do
        curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
        kill -0 "$pid" 2>/dev/null || die "$build: depot exited during start: $(tail -n 20 "$TMP/serve-$build.log")"
        sleep 0.1
    done
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || die "$build: depot did not answer within 10 minutes"

    if ((WARMUP > 0)); then
        log "$build: warm-up, $WARMUP redemptions and finishes"
        python3 "$ROOT/bench/ledger-load.py" --port "$port" --transactions "$TMP/warmup.txt" --concurrency 1 >/dev/null ||
            die "$build: the warm-up failed"
    fi
    callgrind_control --instr=on "$pid" >/dev/null 2>&1
    callgrind_control --zero "$pid" >/dev/null 2>&1
    log "$build: $COUNT redemptions, then $COUNT finishes, counted"
    python3 "$ROOT/bench/ledger-load.py" --port "$port" --transactions "$TMP/measured.txt" --concurrency 1 \
        --between-phases "callgrind_control --dump=redeem $pid >/dev/null 2>&1 && callgrind_control --zero $pid >/dev/null 2>&1" \
        >"$TMP/load-$build.txt" || die "$build: the measured requests failed: $(cat "$TMP/load-$build.txt")"
    callgrind_control --dump=finish "$pid" >/dev/null 2>&1
    stop_processes "$pid"
    # Dumps are numbered in order: the redemptions' first, the finishes' second.
    mapfile -t dumps < <(for dump in "$TMP/cg-$build.$pid".*; do echo "${dump##*.} $dump"; done | sort -n | cut -d' ' -f2-)
    ((${#dumps[@]} >= 2)) || die "$build: callgrind wrote ${#dumps[@]} dumps (expected the redemptions' and the finishes')"
    redeem=$(dump_total "${dumps[0]}")
    finish=$(dump_total "${dumps[1]}")
    [[ -n $redeem && -n $finish ]] || die "$build: no totals in the callgrind dumps"
    RESULT[$build]="$((redeem / COUNT)) $((finish / COUNT))"
    if [[ -n ${LI_DUMPS:-} ]]; then
        mkdir -p "$LI_DUMPS"
        cp "${dumps[0]}" "$LI_DUMPS/$build-redeem.out"
        cp "${dumps[1]}" "$LI_DUMPS/$build-finish.out"
    fi
done

echo
echo "Instructions (user space, all threads, callgrind) per request on a fresh SQLite ledger, one keep-alive connection,"
echo "$COUNT new transactions after $WARMUP warm-up; $(depot_provenance "$DEPOT" "$ROOT")"
echo
echo "| build | binary | Ir / redemption | Ir / finish |"
echo "|---|---|---:|---:|"
for build in "${BUILDS[@]}"; do
    read -r redeem finish <<<"${RESULT[$build]}"
    printf '| %s | %s | %s | %s |\n' "$build" "$(binary_identity "${BINARY[$build]}")" "$(thousands "$redeem")" \
        "$(thousands "$finish")"
done
