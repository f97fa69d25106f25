#!/usr/bin/env bash
# Instructions per response on the byte path, Depot against nginx, counted by callgrind: unlike a rate on
# a shared machine, these counts repeat from run to run, so they judge a change to the byte path.
#
#   bash bench/instructions-per-response.sh
#
# Each server runs under `valgrind --tool=callgrind` with instrumentation off; a keep-alive client
# (bench/keepalive-client.py, one connection, the next request once the previous answer arrived) first
# warms it up, then instrumentation goes on, the counters are zeroed, COUNT requests are answered and the
# counters dumped. Two scenarios, as in bench/byte-path.sh: (b) 64 KiB ranges at random 64 KiB-aligned
# offsets of a large bundle, (c) a whole bundle of about 16 KiB. Each prints, per response:
#   Ir        instructions executed in user space (all threads of the process; the kernel is not counted)
#   syscalls  system calls made (callgrind's sysCount), and the same without clock reads (clock_gettime,
#             gettimeofday): valgrind turns those into system calls, a normal run reads the clock in the vDSO
# nginx runs as bench/byte-path.sh configures it (sendfile, tcp_nopush, open_file_cache), with one process
# (`master_process off`): the one worker that answers.
#
# Environment knobs:
#   IPR_COUNT=2000          requests measured per scenario
#   IPR_WARMUP=200          requests answered before measuring (grant cache, file cache, code paths warm)
#   IPR_LARGE_BYTES=8388608 size of the large pack's payload (ranges are taken from its bundle)
#   IPR_SKIP_BUILD=1        use .build/release/depot as it is
#   IPR_SERVERS="depot nginx"
#   DEPOT=path              another depot binary (default .build/release/depot; with IPR_SKIP_BUILD=1)
#   DEPOT_BIN=path          that depot binary, any build; nothing is built
#   IPR_DUMPS=dir           keep the callgrind dumps there (callgrind_annotate DIR/depot-b.out shows where they go)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COUNT=${IPR_COUNT:-2000}
WARMUP=${IPR_WARMUP:-200}
LARGE_BYTES=${IPR_LARGE_BYTES:-8388608}
SMALL_BYTES=15851 # as bench/byte-path.sh: a bundle of about 16 KiB
RANGE_BYTES=65536
SEED=20260301
SERVERS=${IPR_SERVERS:-depot nginx}
NGINX=${NGINX:-/usr/sbin/nginx}
DEPOT=${DEPOT:-$ROOT/.build/release/depot}
CLIENT=$ROOT/bench/keepalive-client.py

# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

for tool in valgrind callgrind_control objcopy cc python3 openssl "$NGINX" curl ss; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
done

BENCH_SKIP_BUILD=${IPR_SKIP_BUILD:-${BENCH_SKIP_BUILD:-0}} build_depot_release "$ROOT"

start_scratch depot-ipr

make_pack "$TMP/content/large-1.0" bench.large "$LARGE_BYTES" 000102030405060708090a0b0c0d0e0f
make_pack "$TMP/content/small-1.0" bench.small "$SMALL_BYTES" 101112131415161718191a1b1c1d1e1f
cp -R "$ROOT/Config" "$TMP/config"
cat >"$TMP/config/products.json" <<'EOF'
{
  "products": [
    { "id": "bench.large", "type": "nonConsumable", "title": "Instructions bench: large" },
    { "id": "bench.small", "type": "nonConsumable", "title": "Instructions bench: 16 KiB" }
  ]
}
EOF

PORT=$(pick_port "$(random_base_port)")
callgrind_ready_copy "$DEPOT" "$TMP/depot"
serve_depot() { # log-file [valgrind args...]: starts depot (under the given command), waits until it listens
    local out=$1
    shift
    DEPOT_LOG_LEVEL=info "$@" "$TMP/depot" serve --config "$TMP/config" --data-dir "$TMP/data" --content-dir "$TMP/content" \
        --host 127.0.0.1 --port "$PORT" >/dev/null 2>"$out" &
    DEPOT_PID=$!
    PIDS+=("$DEPOT_PID")
    local i
    for ((i = 0; i < 3000; i++)); do
        kill -0 "$DEPOT_PID" 2>/dev/null || die "depot exited during start: $(tail -n 20 "$out")"
        grep -q 'listening' "$out" && return 0
        sleep 0.1
    done
    die "depot did not start listening"
}

# A first start without valgrind imports the packs (builds the bundles); the measured one finds them built.
log "importing the packs"
serve_depot "$TMP/import.log"
LARGE_DIGEST=$(logged_digest "$TMP/import.log" bench.large)
SMALL_DIGEST=$(logged_digest "$TMP/import.log" bench.small)
[[ -n $LARGE_DIGEST && -n $SMALL_DIGEST ]] || die "depot did not log both bundles"
LARGE_SIZE=$(stat -c %s "$TMP/data/bundles/${LARGE_DIGEST:0:2}/$LARGE_DIGEST.zip")
SMALL_SIZE=$(stat -c %s "$TMP/data/bundles/${SMALL_DIGEST:0:2}/$SMALL_DIGEST.zip")
LARGE_GRANT=$(dev_grant "$LARGE_DIGEST")
SMALL_GRANT=$(dev_grant "$SMALL_DIGEST")
stop_processes "$DEPOT_PID"
log "bundles: large $LARGE_SIZE bytes, small $SMALL_SIZE bytes"

# One scenario on a server running under callgrind: warm up, zero, COUNT requests, dump, read the totals.
# Prints "Ir-per-response syscalls-per-response".
measure() { # pid dump-prefix name path grant status body [range args]
    local pid=$1 prefix=$2 name=$3
    shift 3
    python3 "$CLIENT" "$PORT" "$1" "$2" "$WARMUP" "${@:3}" >/dev/null || die "warm-up failed"
    callgrind_control --instr=on "$pid" >/dev/null 2>&1
    callgrind_control --zero "$pid" >/dev/null 2>&1
    python3 "$CLIENT" "$PORT" "$1" "$2" "$COUNT" "${@:3}" >/dev/null || die "measured requests failed"
    callgrind_control --dump "$pid" >/dev/null 2>&1
    callgrind_control --instr=off "$pid" >/dev/null 2>&1
    local dump
    dump=$(ls -t "$prefix".* | head -n1)
    if [[ -n ${IPR_DUMPS:-} ]]; then mkdir -p "$IPR_DUMPS" && cp "$dump" "$IPR_DUMPS/$name.out"; fi
    # Clock reads are system calls under valgrind only (it hides the vDSO); in a normal run they never enter the
    # kernel. They are counted apart.
    local clock
    clock=$(callgrind_annotate --show=sysCount --sort=sysCount "$dump" 2>/dev/null |
        awk '/clock_gettime|gettimeofday/ { gsub(",", "", $1); sum += $1 } END { print sum + 0 }')
    awk -v n="$COUNT" -v clock="$clock" '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
        /^totals:/ { sys = $(col["sysCount"] + 1); printf "%.0f %.2f %.2f\n", $(col["Ir"] + 1) / n, sys / n, (sys - clock) / n }' "$dump"
}

VALGRIND=(valgrind --tool=callgrind --instr-atstart=no --collect-systime=yes)

declare -A RESULT
for server in $SERVERS; do
    case $server in
        depot)
            log "depot under callgrind (a start takes a while)"
            serve_depot "$TMP/depot.log" env LD_PRELOAD="$CALLGRIND_SHIM" "${VALGRIND[@]}" \
                --callgrind-out-file="$TMP/cg-depot.%p"
            pid=$DEPOT_PID
            large_path=/v1/bundles/$LARGE_DIGEST
            small_path=/v1/bundles/$SMALL_DIGEST
            ;;
        nginx)
            mkdir -p "$TMP/nginx/tmp"
            cat >"$TMP/nginx/nginx.conf" <<EOF
$(nginx_user_line)
daemon off;
master_process off;
worker_processes 1;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log warn;
events { worker_connections 64; }
http {
$(nginx_bundle_settings)
$(nginx_temp_paths "$TMP/nginx/tmp")
    server {
        listen 127.0.0.1:$PORT;
        location ~ "^/v1/bundles/([0-9a-f]{2})([0-9a-f]{62})\$" {
            alias $TMP/data/bundles/\$1/\$1\$2.zip;
        }
    }
}
EOF
            log "nginx under callgrind"
            "${VALGRIND[@]}" --callgrind-out-file="$TMP/cg-nginx.%p" "$NGINX" -p "$TMP/nginx/" -c "$TMP/nginx/nginx.conf" \
                -e "$TMP/nginx/error.log" >"$TMP/nginx/valgrind.log" 2>&1 &
            pid=$!
            PIDS+=("$pid")
            for ((i = 0; i < 600; i++)); do
                curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break
                kill -0 "$pid" 2>/dev/null || die "nginx exited: $(cat "$TMP/nginx/valgrind.log")"
                sleep 0.1
            done
            large_path=/v1/bundles/$LARGE_DIGEST
            small_path=/v1/bundles/$SMALL_DIGEST
            ;;
        *) die "unknown server $server" ;;
    esac
    log "$server: $COUNT 64 KiB ranges"
    RESULT[$server,b]=$(measure "$pid" "$TMP/cg-$server.$pid" "$server-b" "$large_path" "$LARGE_GRANT" 206 "$RANGE_BYTES" \
        "$RANGE_BYTES" "$LARGE_SIZE" "$SEED")
    log "$server: $COUNT whole 16 KiB bundles"
    RESULT[$server,c]=$(measure "$pid" "$TMP/cg-$server.$pid" "$server-c" "$small_path" "$SMALL_GRANT" 200 "$SMALL_SIZE")
    stop_processes "$pid"
done

echo
echo "Instructions (user space, callgrind) and system calls per response, $COUNT responses each after $WARMUP warm-up,"
echo "one keep-alive connection; $(depot_provenance "$DEPOT" "$ROOT")"
echo
echo "| scenario | server | Ir / response | syscalls / response | without clock reads |"
echo "|---|---|---:|---:|---:|"
for scenario in b c; do
    title=$([[ $scenario == b ]] && echo "(b) 64 KiB range" || echo "(c) 16 KiB bundle")
    for server in $SERVERS; do
        read -r ir sys kernel <<<"${RESULT[$server,$scenario]}"
        printf '| %s | %s | %s | %s | %s |\n' "$title" "$server" "$(printf "%'d" "$ir")" "$sys" "$kernel"
    done
done
