#!/usr/bin/env bash
# Load and memory over minutes: the purchase loop (redeem, download, finish) under load with Depot's resident
# memory sampled throughout, then a thousand slow readers of one 1 GiB bundle, Depot against nginx (sendfile)
# on the same file. See BENCHMARKS.md "Load and memory".
#
#   bash bench/soak.sh
#
# Environment knobs:
#   SOAK_SECONDS=300       length of the purchase loop
#   SOAK_WORKERS=8         concurrent purchase loops (keep-alive connections)
#   SOAK_TRANSACTIONS=64   distinct signed transactions the loops take in turn (redeemed again and again)
#   READERS=1000           concurrent slow readers of the large bundle
#   READ_SECONDS=60        how long each reader reads (32 KiB/s each)
#   BIG_MIB=1024           size of the large bundle's payload
#   BENCH_SKIP_BUILD=1     use .build/release/depot as it is
#   DEPOT_BIN=path         that depot binary, any build; nothing is built
#   BENCH_RESULTS_DIR=bench/results
# The run fails (after writing its report) when an answer of the purchase loop was not 2xx, the loop completed
# nothing, or a slow reader was not answered 200 or failed.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/lib.sh"
SOAK_SECONDS=${SOAK_SECONDS:-300}
SOAK_WORKERS=${SOAK_WORKERS:-8}
SOAK_TRANSACTIONS=${SOAK_TRANSACTIONS:-64}
READERS=${READERS:-1000}
READ_SECONDS=${READ_SECONDS:-60}
BIG_MIB=${BIG_MIB:-1024}
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
NGINX=${NGINX:-/usr/sbin/nginx}
DEPOT=$ROOT/.build/release/depot
for tool in python3 openssl curl "$NGINX"; do command -v "$tool" >/dev/null || die "$tool is not installed"; done
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

PIDS=()
TMP=""
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    ((${#PIDS[@]})) && stop_processes "${PIDS[@]}"
    [[ -n $TMP && -d $TMP ]] && rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

build_depot_release "$ROOT"

TMP=$(mktemp -d /tmp/depot-soak.XXXXXX)
chmod 755 "$TMP"
log "work directory $TMP"
log "generating packs (64 KiB and $BIG_MIB MiB)"
make_pack "$TMP/content/level-1.0" bench.level 65536 000102030405060708090a0b0c0d0e0f
make_pack "$TMP/content/big-1.0" bench.big $((BIG_MIB << 20)) 101112131415161718191a1b1c1d1e1f
cp -R "$ROOT/Config" "$TMP/config"
cat >"$TMP/config/products.json" <<'JSON'
{"products": [
  {"id": "bench.level", "type": "nonConsumable", "title": "Soak: 64 KiB"},
  {"id": "bench.big", "type": "nonConsumable", "title": "Soak: large"}
]}
JSON
# One address (the load generator's) opens every connection of the slow-reader phase.
python3 - "$TMP/config/depot.json" "$READERS" <<'PY'
import hashlib, json, sys
path, readers = sys.argv[1], int(sys.argv[2])
config = json.load(open(path))
config.setdefault("server", {})["maxConnectionsPerAddress"] = readers + 64
# A scrape-only token, for the heap figures sampled during the purchase loop.
config["metrics"] = {"tokenSHA256": [hashlib.sha256(b"soak-metrics").hexdigest()]}
json.dump(config, open(path, "w"), indent=2)
PY

DEPOT_PORT=$(pick_port "$(random_base_port)")
NGINX_PORT=$(pick_port $((DEPOT_PORT + 1)))
log "starting depot on 127.0.0.1:$DEPOT_PORT (bundles the packs first)"
DEPOT_LOG_LEVEL=${DEPOT_LOG_LEVEL:-info} "$DEPOT" serve --config "$TMP/config" --data-dir "$TMP/data" --content-dir "$TMP/content" \
    --host 127.0.0.1 --port "$DEPOT_PORT" >"$TMP/depot.out" 2>"$TMP/depot.log" &
DEPOT_PID=$!
PIDS+=("$DEPOT_PID")
for ((i = 0; i < 3000; i++)); do
    kill -0 "$DEPOT_PID" 2>/dev/null || { tail -20 "$TMP/depot.log" >&2; die "depot exited during start"; }
    grep -q 'listening' "$TMP/depot.log" && break
    sleep 0.1
done
grep -q 'listening' "$TMP/depot.log" || die "depot did not start listening within 300 s"
BIG_DIGEST=$(grep " bundle" "$TMP/depot.log" | grep "content=bench.big " | grep -o 'digest=[0-9a-f]\{64\}' | head -n1 | cut -d= -f2)
[[ -n $BIG_DIGEST ]] || die "depot did not log the large bundle"
BIG_FILE=$TMP/data/bundles/${BIG_DIGEST:0:2}/$BIG_DIGEST.zip
[[ -f $BIG_FILE ]] || die "large bundle not at $BIG_FILE"

log "signing $SOAK_TRANSACTIONS transactions"
for ((i = 1; i <= SOAK_TRANSACTIONS; i++)); do
    "$DEPOT" dev sign-transaction --config "$TMP/config" --data-dir "$TMP/data" --product bench.level \
        --transaction-id "$((700000000 + i))" --environment Sandbox 2>/dev/null | tail -n1
done >"$TMP/transactions.jws"

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# The resident memory of the given processes together, every second, into a file ("seconds rss_kib").
sample() { # out pids...
    local out=$1 started
    shift
    started=$(date +%s)
    while true; do
        local total=0 pid
        for pid in "$@"; do total=$((total + $(rss_kib "$pid"))); done
        echo "$(($(date +%s) - started)) $total" >>"$out"
        sleep 1
    done
}

# Depot's resident memory by kind (anonymous, file-backed, shared, in KiB, from /proc/PID/status) and its thread
# count, every 10 s, into a file ("seconds anon file shmem threads"): what grows when the resident size grows.
sample_kinds() { # out pid
    local out=$1 pid=$2 started
    started=$(date +%s)
    while true; do
        awk -v t="$(($(date +%s) - started))" '/^RssAnon/ {a = $2} /^RssFile/ {f = $2} /^RssShmem/ {s = $2}
            /^Threads/ {n = $2} END {if (a != "") printf "%d %d %d %d %d\n", t, a, f, s, n}' "/proc/$pid/status" \
            >>"$out" 2>/dev/null || true
        sleep 10
    done
}

# The C allocator's bytes in use and kept free, and SQLite's share of them (from /metrics), every 10 s, into a file
# ("seconds in_use free sqlite").
sample_heap() { # out
    local out=$1 started
    started=$(date +%s)
    while true; do
        curl -s -H "Authorization: Bearer soak-metrics" "http://127.0.0.1:$DEPOT_PORT/metrics" \
            | awk -v t="$(($(date +%s) - started))" '/^depot_heap_bytes\{state="in_use"\}/ {u = $2}
                /^depot_heap_bytes\{state="free"\}/ {f = $2} /^depot_sqlite_memory_bytes\{state="in_use"\}/ {q = $2}
                END {if (u != "") printf "%d %d %d %d\n", t, u, f, q}' >>"$out"
        sleep 10
    done
}

# 1. The purchase loop.
log "purchase loop: $SOAK_WORKERS loops for $SOAK_SECONDS s"
sample "$TMP/soak-rss" "$DEPOT_PID" &
SAMPLER=$!
PIDS+=("$SAMPLER")
: >"$TMP/soak-heap"
sample_heap "$TMP/soak-heap" &
HEAP_SAMPLER=$!
PIDS+=("$HEAP_SAMPLER")
: >"$TMP/soak-kinds"
sample_kinds "$TMP/soak-kinds" "$DEPOT_PID" &
KINDS_SAMPLER=$!
PIDS+=("$KINDS_SAMPLER")
START_RSS=$(rss_kib "$DEPOT_PID")
python3 "$ROOT/bench/soak-load.py" "$DEPOT_PORT" "$SOAK_SECONDS" "$SOAK_WORKERS" "$TMP/transactions.jws" >"$TMP/soak.json"
kill "$SAMPLER" "$HEAP_SAMPLER" "$KINDS_SAMPLER" 2>/dev/null || true
END_RSS=$(rss_kib "$DEPOT_PID")
# The served-bytes evidence: answers dropped because its queue was full, and the backlog its writer last found.
SERVED_EVIDENCE=$(curl -s -H "Authorization: Bearer soak-metrics" "http://127.0.0.1:$DEPOT_PORT/metrics" \
    | awk '/^depot_served_events_dropped_total / {d = $2} /^depot_served_backlog / {b = $2}
        END {if (d != "") printf "%d answers dropped, %d waiting at the writer'"'"'s last take", d, b}' ||
    echo "not read (/metrics did not answer)")
read -r SOAK_REPORT < <(python3 - "$TMP/soak-rss" "$TMP/soak.json" "$SOAK_SECONDS" "$TMP/soak-heap" "$TMP/soak-kinds" <<'PY'
import json, sys
samples = [tuple(map(int, line.split())) for line in open(sys.argv[1]) if line.strip()]
kinds = [tuple(map(int, line.split())) for line in open(sys.argv[5]) if len(line.split()) == 5]
heap = [tuple(map(int, line.split())) for line in open(sys.argv[4]) if len(line.split()) == 4]
result = json.load(open(sys.argv[2]))
seconds = float(sys.argv[3])
def median(values): values = sorted(values); return values[len(values) // 2] if values else 0
first = [rss for t, rss in samples if seconds * 0.1 <= t < seconds * 0.3]
last = [rss for t, rss in samples if t >= seconds * 0.8]
heap_first = [h for h in heap if seconds * 0.1 <= h[0] < seconds * 0.3]
heap_last = [h for h in heap if h[0] >= seconds * 0.8]
def heap_mib(rows, column): return median([row[column] for row in rows]) / 1048576
# The resident size at 2 minutes (median of 110-130 s, when the loop lasts that long) and at the loop's end (median
# of its last 20 s): the figures a "memory stays flat" claim compares.
two_minutes = median([rss for t, rss in samples if 110 <= t <= 130]) if seconds >= 130 else 0
ending = median([rss for t, rss in samples if t >= seconds - 20])
# The kinds sampled nearest 2 minutes and last: anonymous, file-backed and shared KiB, and threads.
def kinds_near(when): return list(min(kinds, key=lambda row: abs(row[0] - when))[1:]) if kinds else []
ok = sum(v for k, v in result["counts"].items() if int(k.split()[1]) < 300)
bad = sum(v for k, v in result["counts"].items() if int(k.split()[1]) >= 300)
print(json.dumps({"ok": ok, "bad": bad, "counts": result["counts"], "problems": result["problems"],
                  "bytes": result["bytes"], "early_mib": median(first) / 1024, "late_mib": median(last) / 1024,
                  "peak_mib": max(rss for _, rss in samples) / 1024,
                  "two_minutes_mib": two_minutes / 1024, "ending_mib": ending / 1024,
                  "kinds": [kinds_near(120), kinds_near(seconds)],
                  "heap": [heap_mib(heap_first, 1), heap_mib(heap_last, 1), heap_mib(heap_first, 2), heap_mib(heap_last, 2),
                           heap_mib(heap_first, 3), heap_mib(heap_last, 3)]}))
PY
)

# 2. Slow readers of the large bundle: Depot, then nginx on the same file.
GRANT=$("$DEPOT" dev grant --config "$TMP/config" --data-dir "$TMP/data" --digest "$BIG_DIGEST" --ttl 7200 2>/dev/null | tail -n1)
readers_peak() { # label port path pids...
    local label=$1 port=$2 path=$3
    shift 3
    : >"$TMP/readers-rss-$label"
    sample "$TMP/readers-rss-$label" "$@" &
    local sampler=$!
    python3 "$ROOT/bench/slow-readers.py" "$port" "$path" "$READERS" "$READ_SECONDS" >"$TMP/readers-$label.json"
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    awk 'BEGIN {m = 0} {if ($2 > m) m = $2} END {printf "%.1f", m / 1024}' "$TMP/readers-rss-$label"
}
log "slow readers: $READERS connections reading the $BIG_MIB MiB bundle for $READ_SECONDS s from depot"
DEPOT_BEFORE=$(rss_kib "$DEPOT_PID")
DEPOT_READERS_PEAK=$(readers_peak depot "$DEPOT_PORT" "/v1/bundles/$BIG_DIGEST?grant=$GRANT" "$DEPOT_PID")
DEPOT_AFTER=$(rss_kib "$DEPOT_PID")

mkdir -p "$TMP/nginx/tmp"
cat >"$TMP/nginx/nginx.conf" <<CONF
$(nginx_user_line)
daemon off;
worker_processes 2;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log warn;
events { worker_connections 8192; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65s;
    default_type application/zip;
$(nginx_temp_paths "$TMP/nginx/tmp")
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location = /big.zip { alias $BIG_FILE; }
    }
}
CONF
"$NGINX" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/error.log" &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
for ((i = 0; i < 100; i++)); do curl -s -o /dev/null "http://127.0.0.1:$NGINX_PORT/big.zip" -r 0-0 && break; sleep 0.1; done
NGINX_PIDS=("$NGINX_PID" $(cat "/proc/$NGINX_PID/task/$NGINX_PID/children"))
log "slow readers: the same from nginx (master and ${#NGINX_PIDS[@]} processes in all)"
NGINX_BEFORE=0
for pid in "${NGINX_PIDS[@]}"; do NGINX_BEFORE=$((NGINX_BEFORE + $(rss_kib "$pid"))); done
NGINX_READERS_PEAK=$(readers_peak nginx "$NGINX_PORT" /big.zip "${NGINX_PIDS[@]}")

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/soak-$(date +%Y-%m-%d-%H%M%S).md
python3 - "$SOAK_REPORT" "$TMP/readers-depot.json" "$TMP/readers-nginx.json" >"$REPORT" <<PY
import json, sys
soak = json.loads(sys.argv[1])
depot, nginx = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
print("# bench/soak.sh, $(date -u +%Y-%m-%dT%H:%MZ)")
print()
print("$(depot_provenance "$DEPOT" "$ROOT")")
print()
print("## Purchase loop: $SOAK_WORKERS loops for $SOAK_SECONDS s over $SOAK_TRANSACTIONS transactions")
print()
print(f"answers: {soak['ok']} 2xx, {soak['bad']} others; by step and status: {soak['counts']}")
print(f"bytes downloaded: {soak['bytes']}")
print("served-bytes evidence at the loop's end: $SERVED_EVIDENCE")
if soak["problems"]: print(f"unexpected answers (first 20): {soak['problems']}")
print()
print("| Depot RSS | MiB |")
print("|---|---:|")
print(f"| at start | {$START_RSS / 1024:.1f} |")
print(f"| median, 10-30% of the run | {soak['early_mib']:.1f} |")
print(f"| median, last 20% of the run | {soak['late_mib']:.1f} |")
print(f"| peak | {soak['peak_mib']:.1f} |")
print(f"| at the end | {$END_RSS / 1024:.1f} |")
if soak["two_minutes_mib"]:
    print(f"| median at 2 minutes (110-130 s) | {soak['two_minutes_mib']:.1f} |")
    print(f"| median over the loop's last 20 s | {soak['ending_mib']:.1f} |")
    growth = 100 * (soak["ending_mib"] / soak["two_minutes_mib"] - 1)
    print()
    print(f"From 2 minutes to the end of the loop the resident size changed by {growth:+.1f}%.")
    early_kinds, late_kinds = soak["kinds"]
    if early_kinds and late_kinds:
        print()
        print("| Depot's resident memory by kind (/proc/PID/status) | near 2 minutes | near the end |")
        print("|---|---:|---:|")
        for i, name in enumerate(["anonymous (MiB)", "file-backed (MiB)", "shared (MiB)"]):
            print(f"| {name} | {early_kinds[i] / 1024:.1f} | {late_kinds[i] / 1024:.1f} |")
        print(f"| threads | {early_kinds[3]} | {late_kinds[3]} |")
print()
print("| C allocator (from /metrics) | 10-30% of the run (MiB) | last 20% (MiB) |")
print("|---|---:|---:|")
print(f"| in use | {soak['heap'][0]:.1f} | {soak['heap'][1]:.1f} |")
print(f"| kept free | {soak['heap'][2]:.1f} | {soak['heap'][3]:.1f} |")
print(f"| of those in use, SQLite's (page caches, statements) | {soak['heap'][4]:.1f} | {soak['heap'][5]:.1f} |")
print()
print("## $READERS slow readers (32 KiB/s each) of one $BIG_MIB MiB bundle for $READ_SECONDS s")
print()
print("| server | answered 200 | bytes read | failures | RSS before (MiB) | peak RSS (MiB) |")
print("|---|---:|---:|---:|---:|---:|")
print(f"| Depot | {depot['answered200']} of {depot['opened']} | {depot['bytes']} | {len(depot['failures'])} | {$DEPOT_BEFORE / 1024:.1f} | $DEPOT_READERS_PEAK |")
print(f"| nginx (master + 2 workers) | {nginx['answered200']} of {nginx['opened']} | {nginx['bytes']} | {len(nginx['failures'])} | {$NGINX_BEFORE / 1024:.1f} | $NGINX_READERS_PEAK |")
for name, result in (("Depot", depot), ("nginx", nginx)):
    if result["failures"]: print(f"\n{name} failures (first 20): {result['failures'][:20]}")
print()
print("Depot RSS after the readers left: $((DEPOT_AFTER / 1024)) MiB")
PY
cat "$REPORT"
log "report: $REPORT"
python3 - "$SOAK_REPORT" "$TMP/readers-depot.json" "$TMP/readers-nginx.json" <<'PY' || die "the run went wrong (see the report): its figures mean nothing"
import json, sys
soak = json.loads(sys.argv[1])
wrong = []
if soak["bad"] or not soak["ok"]:
    wrong.append(f"purchase loop: {soak['ok']} answers 2xx, {soak['bad']} others")
for name, path in (("Depot", sys.argv[2]), ("nginx", sys.argv[3])):
    readers = json.load(open(path))
    if readers["failures"] or readers["answered200"] != readers["opened"] or not readers["opened"]:
        wrong.append(f"{name} slow readers: {readers['answered200']} of {readers['opened']} answered 200, "
                     f"{len(readers['failures'])} failures")
for line in wrong:
    print(f"soak.sh: {line}", file=sys.stderr)
sys.exit(1 if wrong else 0)
PY
