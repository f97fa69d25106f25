#!/usr/bin/env bash
# What TLS costs on the byte path: Depot over plain TCP against Depot with `server.tls`, and nginx likewise
# (sendfile on plain TCP; buffers through OpenSSL behind TLS), over the SAME bundle files, same run.
#
#   bash bench/tls.sh
#
# Scenarios, as bench/byte-path.sh numbers them (wrk, two threads, each server alone in turn, a warm-up first):
#   (a) whole 256 MiB bundle, -c4: MB/s and the server's CPU seconds per GiB served
#   (c) whole ~16 KiB bundle, -c64: req/s, p99 (connections are kept alive: one handshake per connection)
# The certificate is a throwaway P-256 one made with openssl; wrk and curl negotiate TLS 1.3.
#
# Environment knobs:
#   BENCH_DURATION=10       seconds per measured run
#   BENCH_WARMUP=3          seconds of warm-up before each measured run
#   BENCH_SERVERS="depot depot-tls nginx nginx-tls"
#   BENCH_SKIP_BUILD=1      use the release binary as it is
#   DEPOT=path              another depot binary (with BENCH_SKIP_BUILD=1; default .build/release/depot)
#   DEPOT_BIN=path          that depot binary, any build; nothing is built
#   BENCH_LARGE_BYTES=268435456  payload of the large bundle (256 MiB; bench/smoke.sh uses a few MiB)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
SERVERS=${BENCH_SERVERS:-depot depot-tls nginx nginx-tls}
NGINX=${NGINX:-/usr/sbin/nginx}
WRK=${WRK:-/usr/bin/wrk}
DEPOT=${DEPOT:-$ROOT/.build/release/depot}
LUA=$ROOT/bench/wrk-bench.lua
LARGE_FILE_BYTES=${BENCH_LARGE_BYTES:-$((256 * 1024 * 1024))}
SMALL_FILE_BYTES=15851 # as bench/byte-path.sh: a bundle of about 16 KiB
CLK_TCK=$(getconf CLK_TCK)

# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

for tool in "$NGINX" "$WRK" curl openssl python3 ss awk; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
done
build_depot_release "$ROOT"

start_scratch depot-tls

log "generating packs"
make_pack "$TMP/content/large-1.0" bench.large "$LARGE_FILE_BYTES" 000102030405060708090a0b0c0d0e0f
make_pack "$TMP/content/small-1.0" bench.small "$SMALL_FILE_BYTES" 101112131415161718191a1b1c1d1e1f

# A throwaway certificate for 127.0.0.1, and two configurations: plain, and with server.tls.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$TMP/key.pem" -out "$TMP/chain.pem" 2>/dev/null ||
    die "openssl could not make a certificate"
cp -R "$ROOT/Config" "$TMP/config"
cat >"$TMP/config/products.json" <<'EOF'
{
  "products": [
    { "id": "bench.large", "type": "nonConsumable", "title": "TLS bench: large" },
    { "id": "bench.small", "type": "nonConsumable", "title": "TLS bench: 16 KiB" }
  ]
}
EOF
cp -R "$TMP/config" "$TMP/config-tls"
python3 - "$TMP/config-tls/depot.json" "$TMP" <<'EOF'
import json, sys
path, tmp = sys.argv[1], sys.argv[2]
config = json.load(open(path))
config.setdefault("server", {})["tls"] = {"certificateChainPath": tmp + "/chain.pem", "privateKeyPath": tmp + "/key.pem"}
json.dump(config, open(path, "w"), indent=2)
EOF

BASE_PORT=$(random_base_port)
PORT_DEPOT=$(pick_port "$BASE_PORT")
PORT_DEPOT_TLS=$(pick_port $((PORT_DEPOT + 1)))
PORT_NGINX=$(pick_port $((PORT_DEPOT_TLS + 1)))
PORT_NGINX_TLS=$(pick_port $((PORT_NGINX + 1)))

start_depot() { # config-dir port log -> DEPOT_STARTED_PID
    DEPOT_LOG_LEVEL=info "$DEPOT" serve --config "$1" --data-dir "$TMP/data" --content-dir "$TMP/content" \
        --host 127.0.0.1 --port "$2" >/dev/null 2>"$3" &
    DEPOT_STARTED_PID=$!
    PIDS+=("$DEPOT_STARTED_PID")
    local i
    for ((i = 0; i < 1200; i++)); do
        kill -0 "$DEPOT_STARTED_PID" 2>/dev/null || die "depot exited during start: $(tail -n 20 "$3")"
        grep -q 'listening' "$3" && return 0
        sleep 0.1
    done
    die "depot did not start listening"
}
# The plain server imports the packs first; the TLS one, started after it on the same data, finds them built.
log "starting depot (imports the packs) and depot with TLS"
start_depot "$TMP/config" "$PORT_DEPOT" "$TMP/depot.log"
PID_DEPOT=$DEPOT_STARTED_PID
start_depot "$TMP/config-tls" "$PORT_DEPOT_TLS" "$TMP/depot-tls.log"
PID_DEPOT_TLS=$DEPOT_STARTED_PID
grep -q "address=https://" "$TMP/depot-tls.log" || die "depot with server.tls does not say https: $(grep listening "$TMP/depot-tls.log")"

LARGE_DIGEST=$(logged_digest "$TMP/depot.log" bench.large)
SMALL_DIGEST=$(logged_digest "$TMP/depot.log" bench.small)
[[ -n $LARGE_DIGEST && -n $SMALL_DIGEST ]] || die "depot did not log both bundles"
LARGE_FILE=$TMP/data/bundles/${LARGE_DIGEST:0:2}/$LARGE_DIGEST.zip
SMALL_FILE=$TMP/data/bundles/${SMALL_DIGEST:0:2}/$SMALL_DIGEST.zip
LARGE_SIZE=$(stat -c %s "$LARGE_FILE")
SMALL_SIZE=$(stat -c %s "$SMALL_FILE")
LARGE_GRANT=$(dev_grant "$LARGE_DIGEST")
SMALL_GRANT=$(dev_grant "$SMALL_DIGEST")
[[ -n $LARGE_GRANT && -n $SMALL_GRANT ]] || die "depot dev grant printed nothing"
cat "$LARGE_FILE" "$SMALL_FILE" >/dev/null

# nginx, two workers as in bench/byte-path.sh, over the same files; the TLS one with the same certificate.
start_nginx() { # name port listen-extra server-extra -> NGINX_STARTED_PID
    local dir=$TMP/$1
    mkdir -p "$dir/tmp"
    cat >"$dir/nginx.conf" <<EOF
$(nginx_user_line)
daemon off;
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
$(nginx_bundle_settings)
$(nginx_temp_paths "$dir/tmp")
    server {
        listen 127.0.0.1:$2 reuseport $3;
        $4
        location ~ "^/v1/bundles/([0-9a-f]{2})([0-9a-f]{62})\$" {
            alias $TMP/data/bundles/\$1/\$1\$2.zip;
        }
    }
}
EOF
    "$NGINX" -p "$dir/" -c "$dir/nginx.conf" -e "$dir/error.log" &
    NGINX_STARTED_PID=$!
    PIDS+=("$NGINX_STARTED_PID")
    local i
    for ((i = 0; i < 100; i++)); do
        kill -0 "$NGINX_STARTED_PID" 2>/dev/null || die "nginx $1 exited during start: $(cat "$dir/error.log")"
        ss -Hltn "sport = :$2" | grep -q . && return 0
        sleep 0.1
    done
    die "nginx $1 did not start listening on $2"
}
log "starting nginx and nginx with TLS"
start_nginx nginx "$PORT_NGINX" "" ""
PID_NGINX=$NGINX_STARTED_PID
start_nginx nginx-tls "$PORT_NGINX_TLS" ssl \
    "ssl_certificate $TMP/chain.pem; ssl_certificate_key $TMP/key.pem; ssl_protocols TLSv1.2 TLSv1.3;"
PID_NGINX_TLS=$NGINX_STARTED_PID

url_of() { # server digest
    case $1 in
        depot) echo "http://127.0.0.1:$PORT_DEPOT/v1/bundles/$2" ;;
        depot-tls) echo "https://127.0.0.1:$PORT_DEPOT_TLS/v1/bundles/$2" ;;
        nginx) echo "http://127.0.0.1:$PORT_NGINX/v1/bundles/$2" ;;
        nginx-tls) echo "https://127.0.0.1:$PORT_NGINX_TLS/v1/bundles/$2" ;;
    esac
}
pids_of() { # server -> the pids whose CPU is the server's
    local master
    case $1 in
        depot) echo "$PID_DEPOT" ;;
        depot-tls) echo "$PID_DEPOT_TLS" ;;
        nginx | nginx-tls)
            master=$([[ $1 == nginx ]] && echo "$PID_NGINX" || echo "$PID_NGINX_TLS")
            echo "$master" $(cat "/proc/$master/task/"*/children 2>/dev/null)
            ;;
    esac
}

# Every server answers both bundles whole and right before anything is measured; the TLS ones say how.
for server in $SERVERS; do
    for pair in "$LARGE_DIGEST:$LARGE_GRANT:$LARGE_SIZE" "$SMALL_DIGEST:$SMALL_GRANT:$SMALL_SIZE"; do
        IFS=: read -r digest grant size <<<"$pair"
        out=$(curl -sS -k -o "$TMP/check.bin" -w '%{http_code} %{size_download}' -H "Authorization: Bearer $grant" \
            "$(url_of "$server" "$digest")")
        [[ $out == "200 $size" ]] || die "$server answered '$out', expected '200 $size'"
        [[ $(sha256sum <"$TMP/check.bin" | cut -c1-64) == "$digest" ]] || die "$server: bundle bytes differ"
    done
    if [[ $server == *-tls ]]; then
        how=$(curl -sS -k -v -o /dev/null -H "Authorization: Bearer $SMALL_GRANT" "$(url_of "$server" "$SMALL_DIGEST")" 2>&1 |
            grep -o 'SSL connection using .*' | head -n1)
        log "$server: $how"
    fi
done
rm -f "$TMP/check.bin"

cpu_ticks() { # pids... -> utime+stime, clock ticks
    local total=0 pid fields
    for pid in "$@"; do
        read -r -a fields < <(sed 's/^.*) //' "/proc/$pid/stat")
        total=$((total + fields[11] + fields[12]))
    done
    echo "$total"
}
run_wrk() { # scenario server seconds out
    local digest grant conns timeout=2s
    case $1 in
        a) digest=$LARGE_DIGEST grant=$LARGE_GRANT conns=4 timeout=30s ;;
        c) digest=$SMALL_DIGEST grant=$SMALL_GRANT conns=64 ;;
    esac
    timeout -k 5 $(($3 + 30)) "$WRK" -t2 -c"$conns" -d"$3s" --timeout "$timeout" --latency -s "$LUA" \
        -H "Authorization: Bearer $grant" "$(url_of "$2" "$digest")" >"$4" 2>&1
}
printf '%-10s %-9s %12s %14s %10s\n' server scenario "MB/s|req/s" "CPU s/GiB" "p99 ms" >"$TMP/report.txt"
for scenario in a c; do
    for server in $SERVERS; do
        log "($scenario) $server: warm-up ${WARMUP}s, then ${DURATION}s"
        run_wrk "$scenario" "$server" "$WARMUP" "$TMP/warmup.txt" || die "wrk warm-up failed: $(cat "$TMP/warmup.txt")"
        # shellcheck disable=SC2046
        before=$(cpu_ticks $(pids_of "$server"))
        run_wrk "$scenario" "$server" "$DURATION" "$TMP/wrk.txt" || die "wrk failed: $(cat "$TMP/wrk.txt")"
        # shellcheck disable=SC2046
        after=$(cpu_ticks $(pids_of "$server"))
        line=$(grep '^BENCH ' "$TMP/wrk.txt") || die "wrk printed no summary: $(cat "$TMP/wrk.txt")"
        eval "$(echo "${line#BENCH }" | tr ' ' '\n' | grep -E '^[a-z0-9_]+=[0-9]+$')"
        # shellcheck disable=SC2154
        ((status_errors == 0 && connect_errors == 0 && requests > 0)) || die "$server: errors in ($scenario): $(cat "$TMP/wrk.txt")"
        awk -v s="$server" -v sc="$scenario" -v r="$requests" -v b="$bytes" -v d="$duration_us" -v p="$p99_us" \
            -v cpu=$((after - before)) -v tck="$CLK_TCK" 'BEGIN {
                rate = (sc == "a") ? b / d : r / (d / 1e6)
                printf "%-10s %-9s %12.0f %14.2f %10.2f\n", s, sc, rate, (cpu / tck) / (b / 1073741824), p / 1000 }' \
            >>"$TMP/report.txt"
    done
done
cat "$TMP/report.txt"
