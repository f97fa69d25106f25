#!/usr/bin/env bash
# tus upload throughput and memory: Depot receiving a 256 MiB file with one tus PATCH, against nginx
# receiving the same bytes into a file (client_body_in_file_only on, answered 204), same machine, same run.
#
#   bash bench/tus-upload.sh
#
# Per round (BENCH_ROUNDS, the server going first alternating), each server gets one upload of the same
# 256 MiB of random bytes from curl over loopback (`curl -X PATCH -T FILE`, streamed from disk):
#   - Depot: POST /v1/publisher/uploads (Upload-Length), then PATCH .../{id} with Upload-Offset: 0 and
#     Content-Type: application/offset+octet-stream; the answer must be 204 with Upload-Offset = the size,
#     and the stored file's sha256 must match.
#   - nginx: PATCH /upload into a location with client_body_in_file_only on that proxies the request (body
#     file kept, body not forwarded) to a location answering 204; the kept file's sha256 must match.
# Figures: MB/s (bytes / curl's time_total), the server's CPU seconds (utime+stime from /proc), and for
# Depot its resident memory: VmRSS before, VmHWM (peak, reset through /proc/PID/clear_refs before each
# upload) during, VmRSS after.
#
# Environment: BENCH_ROUNDS=3, BENCH_SIZE_MIB=256, BENCH_SKIP_BUILD=1 (use the binary as is), BENCH_DEPOT=PATH (another
# binary, e.g. .build/debug/depot, with BENCH_SKIP_BUILD=1), DEPOT_BIN=PATH (that binary, any build; nothing is
# built), BENCH_RESULTS_DIR=bench/results.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${BENCH_ROUNDS:-3}
SIZE_MIB=${BENCH_SIZE_MIB:-256}
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
NGINX=${NGINX:-/usr/sbin/nginx}
DEPOT=${BENCH_DEPOT:-$ROOT/.build/release/depot}
TOKEN= # a publisher key, made once depot runs
CLK_TCK=$(getconf CLK_TCK)

# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
for tool in "$NGINX" curl sha256sum ss awk openssl; do command -v "$tool" >/dev/null || die "$tool is not installed"; done

TMP=$(mktemp -d /tmp/depot-tus-bench.XXXXXX)
PIDS=()
cleanup() {
    stop_processes "${PIDS[@]}"
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

build_depot_release "$ROOT"

cpu_ticks() { # utime+stime of a process and its children threads
    awk '{print $14 + $15}' "/proc/$1/stat"
}
status_kib() { awk -v key="$2:" '$1 == key {print $2}' "/proc/$1/status"; }

# The payload: deterministic random bytes (AES-128-CTR keystream), not compressible.
PAYLOAD=$TMP/payload.bin
head -c $((SIZE_MIB * 1024 * 1024)) /dev/zero | openssl enc -aes-128-ctr -nosalt -K 00112233445566778899aabbccddeeff \
    -iv 0 >"$PAYLOAD" 2>/dev/null
SIZE=$(stat -c %s "$PAYLOAD")
EXPECTED=$(sha256sum "$PAYLOAD" | cut -d' ' -f1)
log "payload: $SIZE bytes, sha256 $EXPECTED"

# Depot with the sample configuration and packs, state in the temp dir.
DEPOT_PORT=$(pick_port 18480)
"$DEPOT" serve --config "$ROOT/Config" --content-dir "$ROOT/content" --data-dir "$TMP/data" --host 127.0.0.1 \
    --port "$DEPOT_PORT" >"$TMP/depot.out" 2>"$TMP/depot.log" &
DEPOT_PID=$!
PIDS+=("$DEPOT_PID")
for _ in $(seq 1 600); do
    curl -fs "http://127.0.0.1:$DEPOT_PORT/healthz" >/dev/null 2>&1 && break
    kill -0 "$DEPOT_PID" 2>/dev/null || die "depot stopped: $(tail -5 "$TMP/depot.log")"
    sleep 0.1
done
curl -fs "http://127.0.0.1:$DEPOT_PORT/healthz" >/dev/null || die "depot did not start"
TOKEN=$("$DEPOT" keys create --publisher bench --config "$ROOT/Config" --data-dir "$TMP/data" | tail -1)

# nginx: the body into a kept file, then a 204 from a second server block.
NGINX_PORT=$(pick_port $((DEPOT_PORT + 1)))
NGINX_BACK=$(pick_port $((NGINX_PORT + 1)))
mkdir -p "$TMP/nginx/body" "$TMP/nginx/logs"
cat >"$TMP/nginx/nginx.conf" <<CONF
worker_processes 2;
daemon off;
user root;
error_log $TMP/nginx/logs/error.log warn;
pid $TMP/nginx/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $TMP/nginx/body 1;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location /upload {
            client_body_in_file_only on;
            client_body_buffer_size 128k;
            client_max_body_size 0;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header X-Body-File \$request_body_file;
            proxy_pass http://127.0.0.1:$NGINX_BACK/done;
        }
    }
    server {
        listen 127.0.0.1:$NGINX_BACK;
        location /done { return 204; }
    }
}
CONF
"$NGINX" -c "$TMP/nginx/nginx.conf" -p "$TMP/nginx" >"$TMP/nginx/out.log" 2>&1 &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
for _ in $(seq 1 100); do
    ss -Hltn "sport = :$NGINX_PORT" | grep -q . && break
    sleep 0.1
done
nginx_pids() { echo "$NGINX_PID" $(cat "/proc/$NGINX_PID/task/$NGINX_PID/children" 2>/dev/null); }
nginx_ticks() {
    local total=0 pid
    for pid in $(nginx_pids); do total=$((total + $(cpu_ticks "$pid"))); done
    echo "$total"
}

RESULTS=()
run_depot() {
    local location url id before after rss_before hwm rss_after timing status offset
    location=$(curl -fsS -o /dev/null -D - -X POST -H "Tus-Resumable: 1.0.0" -H "Authorization: Bearer $TOKEN" \
        -H "Upload-Length: $SIZE" "http://127.0.0.1:$DEPOT_PORT/v1/publisher/uploads" | tr -d '\r' |
        awk 'tolower($1) == "location:" {print $2}')
    [[ -n "$location" ]] || die "depot did not create an upload"
    id=${location##*/}
    url=$(location_url "http://127.0.0.1:$DEPOT_PORT" "$location")
    rss_before=$(status_kib "$DEPOT_PID" VmRSS)
    echo 5 >"/proc/$DEPOT_PID/clear_refs" # resets VmHWM to the current RSS
    before=$(cpu_ticks "$DEPOT_PID")
    timing=$(curl -sS -o /dev/null -D "$TMP/depot.head" -w '%{http_code} %{time_total}' -X PATCH -T "$PAYLOAD" \
        -H "Tus-Resumable: 1.0.0" -H "Authorization: Bearer $TOKEN" -H "Upload-Offset: 0" \
        -H "Content-Type: application/offset+octet-stream" -H "Expect:" "$url")
    after=$(cpu_ticks "$DEPOT_PID")
    hwm=$(status_kib "$DEPOT_PID" VmHWM)
    rss_after=$(status_kib "$DEPOT_PID" VmRSS)
    status=${timing%% *}
    offset=$(tr -d '\r' <"$TMP/depot.head" | awk 'tolower($1) == "upload-offset:" {print $2}')
    [[ "$status" == 204 && "$offset" == "$SIZE" ]] || die "depot answered $status with Upload-Offset $offset"
    [[ $(sha256sum "$TMP/data/uploads/$id" | cut -d' ' -f1) == "$EXPECTED" ]] || die "depot stored other bytes"
    curl -fsS -o /dev/null -X DELETE -H "Tus-Resumable: 1.0.0" -H "Authorization: Bearer $TOKEN" \
        "$url"
    RESULTS+=("depot ${timing#* } $((after - before)) $rss_before $hwm $rss_after")
}
run_nginx() {
    local before after timing status kept
    rm -rf "$TMP/nginx/body"/*
    before=$(nginx_ticks)
    timing=$(curl -sS -o /dev/null -w '%{http_code} %{time_total}' -X PATCH -T "$PAYLOAD" \
        -H "Content-Type: application/offset+octet-stream" -H "Expect:" "http://127.0.0.1:$NGINX_PORT/upload")
    after=$(nginx_ticks)
    status=${timing%% *}
    [[ "$status" == 204 ]] || die "nginx answered $status"
    kept=$(find "$TMP/nginx/body" -type f | head -1)
    [[ -n "$kept" && $(sha256sum "$kept" | cut -d' ' -f1) == "$EXPECTED" ]] || die "nginx kept other bytes"
    rm -f "$kept"
    RESULTS+=("nginx ${timing#* } $((after - before)) - - -")
}

for round in $(seq 1 "$ROUNDS"); do
    sync
    if ((round % 2)); then
        run_depot
        run_nginx
    else
        run_nginx
        run_depot
    fi
    log "round $round: ${RESULTS[-2]} | ${RESULTS[-1]}"
done

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/tus-upload-$(date -u +%Y%m%dT%H%M%SZ).md
{
    echo "# tus upload: Depot vs nginx, $SIZE bytes, $ROUNDS rounds ($(date -u +%FT%TZ), $(git -C "$ROOT" rev-parse --short HEAD))"
    echo
    echo "| server | round | seconds | MB/s | server CPU s | RSS before (MiB) | peak RSS during (MiB) | RSS after (MiB) |"
    echo "|---|---|---|---|---|---|---|---|"
    index=0
    for line in "${RESULTS[@]}"; do
        read -r server seconds ticks before hwm after <<<"$line"
        round=$((index / 2 + 1))
        mbps=$(awk -v b="$SIZE" -v s="$seconds" 'BEGIN {printf "%.0f", b / s / 1e6}')
        cpu=$(awk -v t="$ticks" -v h="$CLK_TCK" 'BEGIN {printf "%.2f", t / h}')
        mib() { [[ "$1" == - ]] && echo - || awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
        echo "| $server | $round | $seconds | $mbps | $cpu | $(mib "$before") | $(mib "$hwm") | $(mib "$after") |"
        index=$((index + 1))
    done
} >"$REPORT"
cat "$REPORT"
log "report: $REPORT"
