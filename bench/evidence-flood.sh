#!/usr/bin/env bash
# Evidence-flood benchmark: one buyer floods the served-bytes evidence (many multipart requests of disjoint 1-byte
# ranges of its bundle, on one connection) while another buyer redeems; the other buyer's redeem latency before and
# during the flood, on SQLite and on PostgreSQL, against a release build of `depot serve`.
#
#   bash bench/evidence-flood.sh                    # 2,000 requests of 16 ranges; both engines
#   EVIDENCE_REQUESTS=500 EVIDENCE_ENGINES=sqlite bash bench/evidence-flood.sh
#
# Environment:
#   EVIDENCE_REQUESTS=2000   flood requests, each one multipart answer
#   EVIDENCE_RANGES=16       disjoint 1-byte ranges per request (no two requests' ranges touch either)
#   EVIDENCE_BEFORE=5        seconds the other buyer's redeems are sampled before the flood
#   EVIDENCE_AFTER=5         the least seconds sampled from the flood's start (sampling goes on until the evidence
#                            writer has caught up, at most EVIDENCE_DRAIN_LIMIT=300 s)
#   EVIDENCE_SAMPLERS=40     distinct transactions the other buyer redeems in turn
#   EVIDENCE_ENGINES         engines (default: sqlite postgres; PostgreSQL on DEPOT_TEST_POSTGRES_URL, started
#                            with .ci/postgres.sh when unset)
#   DEPOT_BIN=path           that depot binary, any build, nothing built (bench/smoke.sh runs the debug one);
#                            BENCH_SKIP_BUILD=1 runs the existing release build
#
# Prints one JSON line per engine and a Markdown table (redeem p50/p99 before and during, the p99 ratio, how long the
# writer took to catch up, and the served-bytes counters of /metrics: events dropped from the full queue, which
# would be other buyers' evidence, and the flooder's ranges left out over its share and past the ledger's bound).
# Fails when a redeem is not answered 200, a flood request not 206, or an event was dropped from the queue.
# Writes the report to bench/results/evidence-flood-STAMP.md (or BENCH_RESULTS_DIR).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
REQUESTS=${EVIDENCE_REQUESTS:-2000}
RANGES=${EVIDENCE_RANGES:-16}
BEFORE=${EVIDENCE_BEFORE:-5}
AFTER=${EVIDENCE_AFTER:-5}
DRAIN_LIMIT=${EVIDENCE_DRAIN_LIMIT:-300}
SAMPLERS=${EVIDENCE_SAMPLERS:-40}
ENGINES=${EVIDENCE_ENGINES:-sqlite postgres}
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
TOKEN=evidence-flood-metrics

build_depot_release "$ROOT"
start_scratch depot-evidence-flood
PG_ADMIN=""
PG_DATABASE=""
drop_database() {
    if [[ -n $PG_DATABASE ]]; then
        psql -q "$PG_ADMIN" -c "DROP DATABASE IF EXISTS $PG_DATABASE WITH (FORCE)" >/dev/null 2>&1 || true
        PG_DATABASE=""
    fi
}
trap 'drop_database; scratch_cleanup' EXIT

token_digest=$(printf '%s' "$TOKEN" | sha256sum | cut -d' ' -f1)
ledger_bench_setup "$TMP" "\"metrics\": {\"tokenSHA256\": [\"$token_digest\"]},"
log "signing $((SAMPLERS + 1)) transactions"
sign_bench_transactions "$DEPOT" "$TMP" 1 $((SAMPLERS + 1)) "$TMP/transactions.txt"

RESULTS=()
run=0
for engine in $ENGINES; do
    run=$((run + 1))
    case $engine in
        sqlite) ledger_url="sqlite:$TMP/ledger-$run.sqlite" ;;
        postgres)
            if [[ -z ${DEPOT_TEST_POSTGRES_URL:-} ]]; then eval "$(bash .ci/postgres.sh | tail -1)"; fi
            PG_ADMIN=$DEPOT_TEST_POSTGRES_URL
            PG_DATABASE="depot_flood_$$_$run"
            psql -q "$PG_ADMIN" -c "CREATE DATABASE $PG_DATABASE" >/dev/null
            ledger_url="${PG_ADMIN%/*}/$PG_DATABASE"
            ;;
        *) die "unknown engine $engine" ;;
    esac
    port=$(pick_port "$(random_base_port)")
    DEPOT_LOG_LEVEL=warning DEPOT_DATABASE_URL="$ledger_url" "$DEPOT" serve --config "$TMP/Config" \
        --data-dir "$TMP/data" --content-dir "$TMP/content" --host 127.0.0.1 --port "$port" 2>"$TMP/serve-$run.log" &
    server=$!
    PIDS+=("$server")
    for _ in $(seq 1 300); do
        curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$TMP/serve-$run.log" >&2; die "$engine: depot did not start"; }
    log "$engine: $REQUESTS requests of $RANGES disjoint ranges beside another buyer's redeems"
    output=$(python3 bench/evidence-flood.py --port "$port" --transactions "$TMP/transactions.txt" \
        --metrics-token "$TOKEN" --requests "$REQUESTS" --ranges "$RANGES" --before "$BEFORE" --after "$AFTER" \
        --drain-limit "$DRAIN_LIMIT") || {
        echo "$output"
        tail -n 40 "$TMP/serve-$run.log" >&2
        die "$engine: the flood or the redeems were not answered as expected (above)"
    }
    echo "$engine $output"
    RESULTS+=("$engine $output")
    stop_processes "$server"
    drop_database
    dropped=$(python3 -c 'import json, sys; print(int(json.loads(sys.argv[1])["events_dropped"]))' "$output")
    ((dropped == 0)) || die "$engine: $dropped served-bytes events dropped from the full queue (other buyers' evidence)"
done

stamp=$(date -u +%Y-%m-%d-%H%M%S)
mkdir -p "$RESULTS_DIR"
report=$RESULTS_DIR/evidence-flood-$stamp.md
{
    echo "# Evidence-flood benchmark, $stamp UTC"
    echo
    echo "$(depot_provenance "$DEPOT" "$ROOT");"
    echo "$REQUESTS requests of $RANGES disjoint 1-byte ranges on one connection; another buyer redeems (and downloads)"
    echo "$SAMPLERS transactions in turn, one at a time, sampled ${BEFORE} s before the flood and from its start until the"
    echo "evidence writer caught up (at least ${AFTER} s)."
    echo
    echo "| engine | flood sent (s) | writer caught up (s) | redeem p50 / p99 before (ms) | during (ms) | p99 ratio | events dropped | ranges left out: share / bound |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${RESULTS[@]}" | python3 -c '
import json, sys
for line in sys.stdin:
    engine, _, data = line.partition(" ")
    r = json.loads(data)
    caught = r["writer_caught_up_seconds"]
    b, d = r["before"], r["during"]
    cells = [engine, r["flood_seconds"], "not yet" if caught is None else caught,
             "%s / %s (%s)" % (b["p50_ms"], b["p99_ms"], b["n"]), "%s / %s (%s)" % (d["p50_ms"], d["p99_ms"], d["n"]),
             r["p99_ratio"], int(r["events_dropped"]),
             "%d / %d" % (r["ranges_unrecorded_share"], r["ranges_unrecorded_bound"])]
    print("| " + " | ".join(str(c) for c in cells) + " |")
'
} >"$report"
echo
cat "$report"
log "report: $report"
