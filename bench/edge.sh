#!/usr/bin/env bash
# The edge benchmark: cache hits through the nginx edge of deploy/nginx/depot-edge.conf.template, against
# Depot answering directly and against nginx serving the bundle file itself, in one run on one machine.
# See BENCHMARKS.md ("Edge").
#
#   bash bench/edge.sh
#
# Scenarios (wrk, two threads, 64 connections, each server in turn, warm-up first):
#   (a) whole ~16 KiB bundle: req/s, MB/s, p99
#   (b) 64 KiB ranges at random 64 KiB-aligned offsets of a 16 MiB bundle: req/s, MB/s, p99
# The edge's cache is filled before it is measured, so every measured answer is a cache hit; each still
# passes the edge's auth_request, answered from the edge's grant-check cache (edge.grantCheckCacheSeconds,
# 10 s: the origin sees one check per grant every 10 s).
#
# Environment knobs: BENCH_DURATION=10 (seconds per measured run), BENCH_WARMUP=2, BENCH_SEED=20260301,
# BENCH_TIME_LIMIT=300 (hard limit after the build), BENCH_RESULTS_DIR=bench/results, BENCH_SKIP_BUILD=1,
# DEPOT=path/to/depot (with BENCH_SKIP_BUILD=1: another build of depot), DEPOT_BIN=path/to/depot (that binary,
# any build; nothing is built), BENCH_MEDIUM_BYTES=16777216 (payload of the ranges' bundle; at least 128 KiB).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-2}
SEED=${BENCH_SEED:-20260301}
TIME_LIMIT=${BENCH_TIME_LIMIT:-300}
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
NGINX=${NGINX:-/usr/sbin/nginx}
WRK=${WRK:-/usr/bin/wrk}
DEPOT=${DEPOT:-$ROOT/.build/release/depot}
LUA=$ROOT/bench/wrk-bench.lua
SMALL_FILE_BYTES=15851             # a bundle of about 16 KiB, as in bench/byte-path.sh
MEDIUM_FILE_BYTES=${BENCH_MEDIUM_BYTES:-$((16 << 20))} # 16 MiB: sixteen 1 MiB slices at the edge
RANGE_BYTES=65536
SECRET=bench-edge-secret-$(date +%s)-0123456789abcdef

# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
for tool in "$NGINX" "$WRK" curl openssl envsubst sha256sum ss python3; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
done

TMP=""
PIDS=()
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    stop_processes "${PIDS[@]}"
    wait 2>/dev/null || true
    if [[ -n $TMP && -d $TMP ]]; then rm -rf "$TMP"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

build_depot_release "$ROOT"

start_watchdog "$TIME_LIMIT"

TMP=$(mktemp -d /tmp/depot-edgebench.XXXXXX)
chmod 755 "$TMP"
make_pack "$TMP/content/small-1.0" bench.small "$SMALL_FILE_BYTES" 101112131415161718191a1b1c1d1e1f
make_pack "$TMP/content/medium-1.0" bench.medium "$MEDIUM_FILE_BYTES" 202122232425262728292a2b2c2d2e2f
cp -R "$ROOT/Config" "$TMP/config"
cat >"$TMP/config/products.json" <<'EOF'
{"products": [
  {"id": "bench.small", "type": "nonConsumable", "title": "Edge bench: 16 KiB"},
  {"id": "bench.medium", "type": "nonConsumable", "title": "Edge bench: ranges"}
]}
EOF
python3 - "$TMP/config/depot.json" "$SECRET" <<'EOF'
import json, sys
path, secret = sys.argv[1], sys.argv[2]
config = json.load(open(path))
config.setdefault("edge", {})["fillSecrets"] = [secret]
json.dump(config, open(path, "w"), indent=2)
EOF

DEPOT_PORT=$(pick_port "$(random_base_port)")
EDGE_PORT=$(pick_port $((DEPOT_PORT + 1)))
NGINX_PORT=$(pick_port $((EDGE_PORT + 1)))

log "starting depot on 127.0.0.1:$DEPOT_PORT"
start_depot_serve "$DEPOT_PORT" 120
SMALL_DIGEST=$(logged_digest "$TMP/depot.log" bench.small)
MEDIUM_DIGEST=$(logged_digest "$TMP/depot.log" bench.medium)
[[ -n $SMALL_DIGEST && -n $MEDIUM_DIGEST ]] || die "depot did not log both bundles"
SMALL_FILE=$TMP/data/bundles/${SMALL_DIGEST:0:2}/$SMALL_DIGEST.zip
MEDIUM_FILE=$TMP/data/bundles/${MEDIUM_DIGEST:0:2}/$MEDIUM_DIGEST.zip
SMALL_SIZE=$(stat -c %s "$SMALL_FILE")
MEDIUM_SIZE=$(stat -c %s "$MEDIUM_FILE")
SMALL_GRANT=$(dev_grant "$SMALL_DIGEST")
MEDIUM_GRANT=$(dev_grant "$MEDIUM_DIGEST")
log "bundles: small $SMALL_SIZE bytes, medium $MEDIUM_SIZE bytes"

# The edge, exactly as deploy/nginx/README.md runs it.
mkdir -p "$TMP/edge"
EDGE_PORT=127.0.0.1:$EDGE_PORT DEPOT_ORIGIN=127.0.0.1:$DEPOT_PORT CACHE_DIR=$TMP/edge EDGE_SECRET=$SECRET \
    envsubst '${EDGE_PORT} ${DEPOT_ORIGIN} ${CACHE_DIR} ${EDGE_SECRET}' \
    <"$ROOT/deploy/nginx/depot-edge.conf.template" >"$TMP/edge.conf"
EDGE_PORT=${EDGE_PORT##*:}
"$NGINX" -c "$TMP/edge.conf" -g 'daemon off;' 2>"$TMP/edge.stderr" &
PIDS+=($!)
EDGE_PID=$!

# nginx serving the bundle files itself (the byte-path benchmark's configuration, 2 workers).
mkdir -p "$TMP/direct/tmp"
cat >"$TMP/direct/nginx.conf" <<EOF
$(nginx_user_line)
daemon off;
worker_processes 2;
pid $TMP/direct/nginx.pid;
error_log $TMP/direct/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 100000;
    open_file_cache max=64 inactive=600s;
    open_file_cache_valid 600s;
    types { }
    default_type application/zip;
$(nginx_temp_paths "$TMP/direct/tmp")
    server {
        listen 127.0.0.1:$NGINX_PORT reuseport;
        location ~ "^/v1/bundles/([0-9a-f]{2})([0-9a-f]{62})\$" { alias $TMP/data/bundles/\$1/\$1\$2.zip; }
    }
}
EOF
"$NGINX" -p "$TMP/direct/" -c "$TMP/direct/nginx.conf" -e "$TMP/direct/error.log" &
PIDS+=($!)
for port in "$EDGE_PORT" "$NGINX_PORT"; do
    for ((i = 0; i < 100; i++)); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && break
        sleep 0.1
    done
done

base_of() { case $1 in edge) echo "http://127.0.0.1:$EDGE_PORT" ;; depot) echo "http://127.0.0.1:$DEPOT_PORT" ;; nginx) echo "http://127.0.0.1:$NGINX_PORT" ;; esac; }

# Fill the edge, then check every server answers the right bytes (and the edge from its cache).
for server in edge depot nginx; do
    base=$(base_of "$server")
    for pair in "$SMALL_DIGEST:$SMALL_GRANT:$SMALL_SIZE" "$MEDIUM_DIGEST:$MEDIUM_GRANT:$MEDIUM_SIZE"; do
        IFS=: read -r digest grant size <<<"$pair"
        for attempt in 1 2; do
            out=$(curl -sS -D "$TMP/h" -o "$TMP/body" -w '%{http_code} %{size_download}' -H "Authorization: Bearer $grant" "$base/v1/bundles/$digest")
            [[ $out == "200 $size" ]] || die "$server answered '$out' for $digest"
            [[ $(sha256sum <"$TMP/body" | cut -c1-64) == "$digest" ]] || die "$server: bytes differ"
        done
        if [[ $server == edge ]]; then
            grep -qi '^x-cache-status: HIT' "$TMP/h" || die "the edge did not answer $digest from its cache: $(cat "$TMP/h")"
        fi
    done
done
RANGE_SLOT=$((MEDIUM_SIZE / RANGE_BYTES - 1))
((RANGE_SLOT > 100)) && RANGE_SLOT=100
RANGE_OFFSET=$((RANGE_SLOT * RANGE_BYTES))
out=$(curl -sS -D "$TMP/h" -o "$TMP/body" -w '%{http_code} %{size_download}' -H "Authorization: Bearer $MEDIUM_GRANT" \
    -H "Range: bytes=$RANGE_OFFSET-$((RANGE_OFFSET + RANGE_BYTES - 1))" "$(base_of edge)/v1/bundles/$MEDIUM_DIGEST")
[[ $out == "206 $RANGE_BYTES" ]] || die "edge range answered '$out'"
cmp -s "$TMP/body" <(tail -c +$((RANGE_OFFSET + 1)) "$MEDIUM_FILE" | head -c "$RANGE_BYTES") || die "edge range bytes differ"
out=$(curl -sS -o /dev/null -w '%{http_code}' "$(base_of edge)/v1/bundles/$SMALL_DIGEST?grant=forged")
[[ $out == 403 ]] || die "the edge answered $out to a forged grant"
log "checked: every server answers both bundles (sha256), the edge from its cache, ranges right, forged grants refused"

run_wrk() { # server scenario seconds
    local base digest grant
    base=$(base_of "$1")
    if [[ $2 == small ]]; then digest=$SMALL_DIGEST grant=$SMALL_GRANT; else digest=$MEDIUM_DIGEST grant=$MEDIUM_GRANT; fi
    local range=0
    [[ $2 == range ]] && range=$RANGE_BYTES
    BENCH_RANGE_SIZE=$range BENCH_RANGE_FILE_SIZE=$MEDIUM_SIZE BENCH_SEED=$SEED \
        "$WRK" -t2 -c64 -d"${3}s" --latency -s "$LUA" -H "Authorization: Bearer $grant" "$base/v1/bundles/$digest" |
        grep '^BENCH '
}
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; }

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/edge-$(date -u +%Y%m%dT%H%M%SZ).md
{
    echo "| scenario | server | requests/s | MB/s | p99 ms | errors |"
    echo "|---|---|---:|---:|---:|---:|"
} >"$REPORT"
for scenario in small range; do
    for server in edge depot nginx; do
        run_wrk "$server" "$scenario" "$WARMUP" >/dev/null
        hits_before=$(grep -c 'cache=HIT' "$TMP/edge/access.log" || true)
        lines_before=$(wc -l <"$TMP/edge/access.log")
        line=$(run_wrk "$server" "$scenario" "$DURATION")
        requests=$(field requests "$line")
        bytes=$(field bytes "$line")
        us=$(field duration_us "$line")
        p99=$(field p99_us "$line")
        errors=$(($(field status_errors "$line") + $(field read_errors "$line") + $(field timeouts "$line")))
        # A wrong answer (not 2xx) or no answer at all makes every figure meaningless: the run stops.
        (($(field status_errors "$line") == 0 && requests > 0)) ||
            die "$server, $scenario: $requests answers, $(field status_errors "$line") of them not 2xx"
        rps=$(awk -v r="$requests" -v d="$us" 'BEGIN { printf "%.0f", r / (d / 1e6) }')
        mbs=$(awk -v b="$bytes" -v d="$us" 'BEGIN { printf "%.1f", b / (d / 1e6) / 1e6 }')
        p99ms=$(awk -v p="$p99" 'BEGIN { printf "%.2f", p / 1000 }')
        label=$([[ $scenario == small ]] && echo "16 KiB bundle" || echo "64 KiB range")
        name=$(case $server in edge) echo "nginx edge (cache hit)" ;; depot) echo "Depot direct" ;; nginx) echo "nginx, file itself" ;; esac)
        echo "| $label | $name | $rps | $mbs | $p99ms | $errors |" >>"$REPORT"
        if [[ $server == edge ]]; then
            hits=$(($(grep -c 'cache=HIT' "$TMP/edge/access.log" || true) - hits_before))
            lines=$(($(wc -l <"$TMP/edge/access.log") - lines_before))
            log "edge $scenario: $hits of $lines answers logged in the measured run were cache hits"
        fi
        log "$scenario $server: $rps req/s, $mbs MB/s, p99 $p99ms ms, $errors errors"
    done
done
log "report: $REPORT"
cat "$REPORT"
