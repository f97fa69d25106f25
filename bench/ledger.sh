#!/usr/bin/env bash
# Ledger benchmark: redemptions per second (signature and chain verification + ledger writes) and finishes
# per second (a ledger write each), on SQLite and on PostgreSQL, against a release build of `depot serve`.
#
#   bash bench/ledger.sh        # 4000 transactions; 1, 16 and 64 connections; both engines
#   LEDGER_BENCH_N=2000 LEDGER_BENCH_C="4 32" LEDGER_BENCH_ENGINES=sqlite bash bench/ledger.sh
#   LEDGER_BENCH_BASE=/path/to/older/depot bash bench/ledger.sh   # A/B: that build and this one, alternating
#
# - Builds `swift build -c release --product depot` (SKIP_BUILD=1 uses the existing binary; DEPOT_BIN=path runs
#   that depot binary, any build, and builds nothing: bench/smoke.sh runs the debug one).
# - Pre-generates N distinct signed transactions of one non-consumable with `depot dev sign-transaction`
#   (the development root under a temporary data directory), before anything is measured.
# - Per engine and connection count: starts `depot serve` on a free port over that data directory and a fresh
#   ledger (a new SQLite file; for PostgreSQL a new database on DEPOT_TEST_POSTGRES_URL, started with
#   .ci/postgres.sh when unset, dropped afterwards), then runs bench/ledger-load.py: every transaction
#   redeemed once, then every one finished once with the digests the redemption answered, over C keep-alive
#   connections. Every redeem and finish must be answered 200: anything else stops the run with a message
#   and a nonzero exit.
# - LEDGER_BENCH_BASE=path: an A/B in one run. Each engine and connection count is measured with that binary and with
#   this one, on a fresh ledger each, the order alternating; the table names each row's build (`base` or `this`).
#   Only such a comparison holds across days on a shared machine, whose speed moves by a factor of two.
# - Prints one JSON line per phase and a Markdown table for BENCHMARKS.md. The load client runs on the same
#   machine and takes CPU from the server; the server's own CPU seconds per phase are shown beside the rate.
# - Writes the report (bench/results/ledger-STAMP.md, or BENCH_RESULTS_DIR), its figures as CSV and, with gnuplot
#   on the PATH (LEDGER_PLOT=0 skips it), a picture beside them: per phase, requests per second and server CPU
#   ms per request against connections, one line per engine (or build).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
count="${LEDGER_BENCH_N:-4000}"
concurrencies="${LEDGER_BENCH_C:-1 16 64}"
engines="${LEDGER_BENCH_ENGINES:-sqlite postgres}"
plot="${LEDGER_PLOT:-1}"
results_dir="${BENCH_RESULTS_DIR:-$root/bench/results}"
[[ "$plot" == 0 ]] || command -v gnuplot >/dev/null ||
    { echo "ledger.sh: gnuplot is not installed (apt-get install gnuplot-nox), or set LEDGER_PLOT=0" >&2; exit 1; }

if [[ -n "${DEPOT_BIN:-}" ]]; then
    bin="$(realpath "$DEPOT_BIN")"
    [[ -x "$bin" && -f "$bin" ]] || { echo "ledger.sh: DEPOT_BIN=$DEPOT_BIN is not an executable file" >&2; exit 1; }
    echo "ledger.sh: depot: $bin (DEPOT_BIN; nothing is built)" >&2
else
    if [[ -z "${SKIP_BUILD:-}" ]]; then
        swift build -c release --product depot >&2
    fi
    bin="$(swift build -c release --show-bin-path)/depot"
    [[ -x "$bin" ]] || { echo "ledger.sh: $bin is missing: run swift build -c release --product depot" >&2; exit 1; }
fi

work="$(mktemp -d /tmp/depot-ledger-bench.XXXXXX)"
server_pid=""
pg_admin_url=""
pg_database=""
cleanup() {
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    if [[ -n "$pg_database" ]]; then psql -q "$pg_admin_url" -c "DROP DATABASE IF EXISTS $pg_database WITH (FORCE)" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# Configuration: one non-consumable with a small pack, development trust, a grant key.
ledger_bench_setup "$work"
common=(--config "$work/Config" --data-dir "$work/data")

echo "ledger.sh: signing $count transactions" >&2
signing_started=$(date +%s%N)
sign_bench_transactions "$bin" "$work" 1 "$count" "$work/transactions.txt"
echo "ledger.sh: $count transactions signed in $(( ($(date +%s%N) - signing_started) / 1000000 )) ms" >&2

builds=(this)
if [[ -n "${LEDGER_BENCH_BASE:-}" ]]; then
    base_bin="$(realpath "$LEDGER_BENCH_BASE")"
    [[ -x "$base_bin" && -f "$base_bin" ]] || { echo "ledger.sh: LEDGER_BENCH_BASE=$LEDGER_BENCH_BASE is not an executable file" >&2; exit 1; }
    builds=(base this)
fi
binary_of() { if [[ "$1" == base ]]; then echo "$base_bin"; else echo "$bin"; fi; }

results=()
run=0
cell=0
for engine in $engines; do
  for concurrency in $concurrencies; do
   cell=$((cell + 1))
   order=("${builds[@]}")
   if (( ${#builds[@]} == 2 && cell % 2 == 0 )); then order=(this base); fi
   for build in "${order[@]}"; do
    run=$((run + 1))
    label="$engine"
    (( ${#builds[@]} == 2 )) && label="$engine[$build]"
    case "$engine" in
    sqlite)
        ledger_url="sqlite:$work/ledger-$run.sqlite"
        ;;
    postgres)
        if [[ -z "${DEPOT_TEST_POSTGRES_URL:-}" ]]; then eval "$(bash .ci/postgres.sh | tail -1)"; fi
        pg_admin_url="$DEPOT_TEST_POSTGRES_URL"
        pg_database="depot_bench_$$_$run"
        psql -q "$pg_admin_url" -c "CREATE DATABASE $pg_database" >/dev/null
        ledger_url="${pg_admin_url%/*}/$pg_database"
        ;;
    *) echo "ledger.sh: unknown engine $engine" >&2; exit 1 ;;
    esac
    port="$(pick_port "$(random_base_port)")"
    DEPOT_LOG_LEVEL=warning DEPOT_DATABASE_URL="$ledger_url" \
        "$(binary_of "$build")" serve "${common[@]}" --content-dir "$work/content" --port "$port" 2>"$work/serve-$run.log" &
    server_pid=$!
    for _ in $(seq 1 300); do
        curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$work/serve-$run.log" >&2; exit 1; }
    echo "ledger.sh: $label: $count redemptions then $count finishes over $concurrency connections" >&2
    output="$(python3 bench/ledger-load.py --port "$port" --transactions "$work/transactions.txt" \
        --concurrency "$concurrency" --server-pid "$server_pid")" || {
        echo "$output"
        echo "ledger.sh: FAIL: $label, $concurrency connections: not every request was answered 200 (above); the server's log:" >&2
        tail -n 40 "$work/serve-$run.log" >&2
        exit 1
    }
    echo "$output" | sed "s/^/$label /"
    while read -r line; do results+=("$label $line"); done <<<"$output"
    kill -TERM "$server_pid"
    wait "$server_pid" || true
    server_pid=""
    if [[ "$engine" == postgres ]]; then
        psql -q "$pg_admin_url" -c "DROP DATABASE IF EXISTS $pg_database WITH (FORCE)" >/dev/null
        pg_database=""
    fi
   done
  done
done

stamp=$(date -u +%Y-%m-%d-%H%M%S)
mkdir -p "$results_dir"
report="$results_dir/ledger-$stamp.md"
csv="$results_dir/ledger-$stamp.csv"
{
    echo "# Ledger benchmark, $stamp UTC"
    echo
    echo "$(depot_provenance "$bin" "$root")${LEDGER_BENCH_BASE:+; base: $(binary_identity "$base_bin")};"
    echo "$count distinct transactions redeemed, then finished, per row; connections: $concurrencies; engines: $engines."
    echo "The load client runs on the same machine. CPU: the server's user + system time in the phase."
    echo
    printf '%s\n' "${results[@]}" | python3 bench/ledger-load.py --table --csv "$csv"
} >"$report"
if [[ "$plot" != 0 ]]; then
    png="$results_dir/ledger-$stamp.png"
    python3 bench/ledger-load.py --plot "$csv" "$png" "Ledger benchmark, $stamp UTC, $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown): $count transactions per row" |
        gnuplot || { echo "ledger.sh: gnuplot failed" >&2; exit 1; }
    printf '\n![requests per second and CPU per request against connections](%s)\n' "$(basename "$png")" >>"$report"
fi
echo
cat "$report"
echo "ledger.sh: report: $report" >&2
