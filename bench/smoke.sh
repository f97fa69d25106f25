#!/usr/bin/env bash
# A smoke run of every benchmark script: each runs in turn with tiny settings (a second per measured run, a few
# MiB per bundle, tens of requests) against an already-built depot binary, and the smoke fails if any of them
# fails. It proves the scripts still run and still check what they check; their figures mean nothing (a debug
# build, a loaded machine, runs of a second). CI runs it after the tests (.ci/run).
#
#   bash bench/smoke.sh                          # after `swift build --build-tests` (or `swift test`)
#   DEPOT_BIN=.build/release/depot bash bench/smoke.sh
#   SMOKE_SCRIPTS="ledger tls" bash bench/smoke.sh
#
# Environment:
#   DEPOT_BIN=.build/debug/depot   the depot binary every script runs (nothing is built)
#   SMOKE_SCRIPTS                  the scripts to run (names without .sh; default: all of them)
#   SMOKE_TIMEOUT=240              seconds one script may take before it is stopped (and fails)
#   DEPOT_TEST_POSTGRES_URL        when set, bench/ledger.sh and bench/evidence-flood.sh run on PostgreSQL too
#                                  (otherwise SQLite only)
#
# Nothing is written to the repository: reports go to a temporary directory (BENCH_RESULTS_DIR), removed at
# the end, and the smoke fails if bench/results/ or BENCHMARKS.md changed while it ran.
# bench/bundling.sh runs Depot's side through `depot dev stage` (building bench/bundler costs a swift-crypto
# build); it checks bench/bundler's Package.swift against the imports of the sources it compiles instead.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
ALL="byte-path byte-matrix edge tls instructions-per-response ledger-instructions ledger soak tus-upload publish-staging bundling evidence-flood signature-check"
SCRIPTS=${SMOKE_SCRIPTS:-$ALL}
TIMEOUT=${SMOKE_TIMEOUT:-240}

say() { printf '[smoke %s] %s\n' "$(date +%T)" "$*"; }

DEPOT_BIN=${DEPOT_BIN:-$ROOT/.build/debug/depot}
if [[ ! -x $DEPOT_BIN || ! -f $DEPOT_BIN ]]; then
    say "FAIL: no depot binary at $DEPOT_BIN: build one (swift build --build-tests) or set DEPOT_BIN"
    exit 1
fi
DEPOT_BIN=$(realpath "$DEPOT_BIN")
export DEPOT_BIN

OUT=$(mktemp -d /tmp/depot-bench-smoke.XXXXXX)
chmod 755 "$OUT"
trap 'rm -rf "$OUT"' EXIT
export BENCH_RESULTS_DIR=$OUT/results

# What the repository's result files look like now, to compare with afterwards.
results_state() {
    {
        find "$ROOT/bench/results" -type f -printf '%P %s %T@\n' 2>/dev/null | sort
        stat -c '%s %Y' "$ROOT/BENCHMARKS.md" 2>/dev/null
    } | sha256sum
}
STATE_BEFORE=$(results_state)

ENGINES=sqlite
[[ -n ${DEPOT_TEST_POSTGRES_URL:-} ]] && ENGINES="sqlite postgres"
MIB=$((1 << 20))

# The settings of each script's smoke run.
settings_of() {
    case $1 in
        byte-path) echo BENCH_DURATION=1 BENCH_WARMUP=1 BENCH_ROUNDS=1 BENCH_LARGE_BYTES=$((4 * MIB)) BENCH_QUIET_WAIT=0 \
            BENCH_RETRIES=0 BENCH_TIME_LIMIT=$((TIMEOUT - 10)) ;;
        byte-matrix) echo "MATRIX_CASES=16k range" "MATRIX_CONNS=1 4" MATRIX_DURATION=1 MATRIX_WARMUP=1 MATRIX_SYSCALLS=1 MATRIX_SYSCALL_SECONDS=1 ;;
        edge) echo BENCH_DURATION=1 BENCH_WARMUP=1 BENCH_MEDIUM_BYTES=$((2 * MIB)) BENCH_TIME_LIMIT=$((TIMEOUT - 10)) ;;
        tls) echo BENCH_DURATION=1 BENCH_WARMUP=1 BENCH_LARGE_BYTES=$((4 * MIB)) ;;
        instructions-per-response) echo IPR_COUNT=20 IPR_WARMUP=5 IPR_LARGE_BYTES=$MIB ;;
        ledger-instructions) echo LI_COUNT=4 LI_WARMUP=2 "LI_BASE=$DEPOT_BIN" ;;
        ledger) echo LEDGER_BENCH_N=50 "LEDGER_BENCH_C=1 4" "LEDGER_BENCH_ENGINES=$ENGINES" "LEDGER_BENCH_BASE=$DEPOT_BIN" ;;
        soak) echo SOAK_SECONDS=2 SOAK_WORKERS=2 SOAK_TRANSACTIONS=4 READERS=20 READ_SECONDS=1 BIG_MIB=2 ;;
        tus-upload) echo BENCH_ROUNDS=2 BENCH_SIZE_MIB=4 ;;
        publish-staging) echo BENCH_ROUNDS=1 BENCH_PACK_DIVISOR=100 ;;
        bundling) echo RUNS=2 DIVIDE=40 QUIET_WAIT=0 "WORK=$OUT/bundling" ;;
        signature-check) echo SC_SECONDS=1 SC_ROUNDS=1 SC_CG_FEW=1 SC_CG_MANY=3 ;;
        evidence-flood) echo EVIDENCE_REQUESTS=100 EVIDENCE_BEFORE=1 EVIDENCE_AFTER=1 EVIDENCE_SAMPLERS=4 EVIDENCE_DRAIN_LIMIT=60 \
            "EVIDENCE_ENGINES=$ENGINES" ;;
        *) return 1 ;;
    esac
}

STARTED=$(date +%s)
FAILED=()
SUMMARY=()
for script in $SCRIPTS; do
    if ! settings=$(settings_of "$script"); then
        say "FAIL: unknown script $script (known: $ALL)"
        FAILED+=("$script")
        continue
    fi
    # One setting per line (a space before NAME= starts the next), so values with spaces stay whole.
    mapfile -t environment < <(sed 's/ \([A-Z_]*=\)/\n\1/g' <<<"$settings")
    say "$script: ${environment[*]}"
    log=$OUT/$script.log
    began=$(date +%s)
    status=0
    env "${environment[@]}" timeout -k 15 "$TIMEOUT" bash "bench/$script.sh" >"$log" 2>&1 </dev/null || status=$?
    seconds=$(($(date +%s) - began))
    if ((status == 0)); then
        say "$script: ok in ${seconds}s"
        SUMMARY+=("ok    ${seconds}s  $script")
    else
        ((status == 124)) && say "$script: stopped after ${TIMEOUT}s"
        say "$script: FAILED (exit $status) after ${seconds}s; the end of its output:"
        tail -n 40 "$log" | sed 's/^/    /'
        SUMMARY+=("FAIL  ${seconds}s  $script (exit $status)")
        FAILED+=("$script")
    fi
done

if [[ $(results_state) != "$STATE_BEFORE" ]]; then
    say "FAIL: bench/results/ or BENCHMARKS.md changed during the smoke (a script wrote its report into the repository)"
    FAILED+=("results")
fi

echo
say "summary ($(($(date +%s) - STARTED))s in all; figures of a smoke run mean nothing):"
printf '    %s\n' "${SUMMARY[@]}"
if ((${#FAILED[@]})); then
    say "FAILED: ${FAILED[*]}"
    exit 1
fi
say "every benchmark script ran"
