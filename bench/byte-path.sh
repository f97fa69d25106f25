#!/usr/bin/env bash
# The byte-path benchmark: Depot against nginx (sendfile) over the SAME bundle files, same machine,
# same run. See DESIGN.md "The byte path" and "Targets we hold ourselves to", and BENCHMARKS.md.
#
#   bash bench/byte-path.sh
#
# Scenarios (wrk, two threads, each server in turn, warm-up first, BENCH_ROUNDS rounds with the order of
# the servers alternating between scenarios and rounds):
#   (a) whole 256 MiB bundle, -c4: MB/s and the server's CPU seconds per GiB served
#   (b) 64 KiB ranges at random 64 KiB-aligned offsets of the 256 MiB bundle, -c64: req/s, p99
#   (c) whole ~16 KiB bundle, -c64: req/s, p99
#
# Environment knobs (defaults are the published configuration):
#   BENCH_DURATION=15       seconds per measured run
#   BENCH_WARMUP=3          seconds of warm-up before each measured run (not recorded)
#   BENCH_ROUNDS=2          rounds; each figure pools all rounds, the per-round ratios show the spread
#   BENCH_NGINX_ONE_WORKER=0  1: also measure nginx with worker_processes 1, once (reference column;
#                           adds about a minute)
#   BENCH_SEED=20260301     seed of the range offsets
#   BENCH_RETRIES=4         runs polluted by other processes (>8% of a core) measured again, at most
#                           this many times and only within the time limit
#   BENCH_TIME_LIMIT=345    hard limit in seconds for everything after the build (525 with BENCH_OBJECT_STORE=1)
#   BENCH_QUIET_WAIT=60     seconds to wait, at most, for the machine to be quiet before measuring
#   BENCH_LARGE_BYTES=268435456  payload of the large bundle (256 MiB; bench/smoke.sh uses a few MiB)
#   BENCH_RESULTS_DIR=bench/results
#   BENCH_SKIP_BUILD=1      use .build/release/depot as it is (the report then says whether Sources/ is
#                           newer than the binary)
#   DEPOT_BIN=path          run that depot binary (any build) and build nothing
#   BENCH_OBJECT_STORE=0    1: also measure a second depot serve whose bundles are shared through an S3 bucket
#                           (storage.objectStore, key prefix bench-<random>/, storage.localCacheBytes twice the
#                           bundles' bytes), each fetched from the bucket by one whole GET before the runs, so it
#                           serves them from its local cache: a column "Depot (S3 cache)" and its ratio
#                           depot-s3 / depot beside the others (see "BENCH_OBJECT_STORE=1" below). The bucket comes
#                           from DEPOT_TEST_S3_ENDPOINT, _BUCKET, _REGION (default "default"), _ACCESS_KEY_ID and
#                           _SECRET_ACCESS_KEY (`bash .ci/s3.sh` starts one and prints them on its last line); the
#                           objects under the prefix are deleted at the end (python3 with boto3). Adds about two
#                           minutes
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=$ROOT/bench
DURATION=${BENCH_DURATION:-15}
WARMUP=${BENCH_WARMUP:-3}
ROUNDS=${BENCH_ROUNDS:-2}
NGINX_ONE_WORKER=${BENCH_NGINX_ONE_WORKER:-0}
SEED=${BENCH_SEED:-20260301}
OBJECT_STORE=${BENCH_OBJECT_STORE:-0}
TIME_LIMIT=${BENCH_TIME_LIMIT:-$([[ $OBJECT_STORE == 1 ]] && echo 525 || echo 345)}
RESULTS_DIR=${BENCH_RESULTS_DIR:-$BENCH_DIR/results}
NGINX=${NGINX:-/usr/sbin/nginx}
WRK=${WRK:-/usr/bin/wrk}
DEPOT=$ROOT/.build/release/depot
LUA=$BENCH_DIR/wrk-bench.lua

LARGE_FILE_BYTES=${BENCH_LARGE_BYTES:-$((256 * 1024 * 1024))} # one random file: the bundle is this plus 537 bytes of ZIP records
SMALL_FILE_BYTES=15851                  # one random file: a bundle of about 16 KiB (16,383 bytes with the ZIP writer of 7f4dd98)
RANGE_BYTES=65536
THREADS=2
CLK_TCK=$(getconf CLK_TCK)
((LARGE_FILE_BYTES >= 2 * 65536)) || { echo "BENCH_LARGE_BYTES must be at least 131072" >&2; exit 1; }
LARGE_LABEL="$(awk -v b="$LARGE_FILE_BYTES" 'BEGIN { printf "%g", b / 1048576 }') MiB"

# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

for tool in "$NGINX" "$WRK" curl openssl sha256sum ss awk; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
done

# The bucket of the object-store Depot (BENCH_OBJECT_STORE=1), checked before anything is built or started.
S3_PREFIX=""
if [[ $OBJECT_STORE == 1 ]]; then
    S3_REGION=${DEPOT_TEST_S3_REGION:-default}
    missing=()
    for name in DEPOT_TEST_S3_ENDPOINT DEPOT_TEST_S3_BUCKET DEPOT_TEST_S3_ACCESS_KEY_ID DEPOT_TEST_S3_SECRET_ACCESS_KEY; do
        [[ -n ${!name:-} ]] || missing+=("$name")
    done
    ((${#missing[@]} == 0)) ||
        die "BENCH_OBJECT_STORE=1 needs ${missing[*]}: run \`bash .ci/s3.sh\` and eval its last line (eval \"\$(bash .ci/s3.sh | tail -1)\")"
    command -v python3 >/dev/null && python3 -c 'import boto3' 2>/dev/null ||
        die "BENCH_OBJECT_STORE=1 needs python3 with boto3 (to delete the bench's objects at the end)"
    S3_PREFIX="bench-$(openssl rand -hex 6)/"
elif [[ $OBJECT_STORE != 0 ]]; then
    die "BENCH_OBJECT_STORE must be 0 or 1, not '$OBJECT_STORE'"
fi

# `bench_objects list`: the keys (and sizes) of the objects under S3_PREFIX. `bench_objects delete`: deletes them, and
# the multipart uploads left open there (a run cut short in an upload), one by one (DeleteObjects needs a checksum
# this boto3 and the test gateway may not agree on).
bench_objects() {
    DEPOT_BENCH_PREFIX=$S3_PREFIX DEPOT_BENCH_REGION=$S3_REGION timeout -k 5 120 python3 - "$1" <<'EOF_PY'
import os
import sys
import boto3
from botocore.config import Config

s3 = boto3.client(
    "s3", endpoint_url=os.environ["DEPOT_TEST_S3_ENDPOINT"], region_name=os.environ["DEPOT_BENCH_REGION"],
    aws_access_key_id=os.environ["DEPOT_TEST_S3_ACCESS_KEY_ID"],
    aws_secret_access_key=os.environ["DEPOT_TEST_S3_SECRET_ACCESS_KEY"],
    config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 3}, connect_timeout=10, read_timeout=30))
bucket, prefix = os.environ["DEPOT_TEST_S3_BUCKET"], os.environ["DEPOT_BENCH_PREFIX"]
assert prefix.startswith("bench-") and prefix.endswith("/"), prefix
keys = [item for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        for item in page.get("Contents", [])]
if sys.argv[1] == "list":
    for item in keys:
        print(item["Key"], item["Size"])
    raise SystemExit(0)
for item in keys:
    s3.delete_object(Bucket=bucket, Key=item["Key"])
aborted = 0
for upload in s3.list_multipart_uploads(Bucket=bucket, Prefix=prefix).get("Uploads", []):
    s3.abort_multipart_upload(Bucket=bucket, Key=upload["Key"], UploadId=upload["UploadId"])
    aborted += 1
left = s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("KeyCount", 0)
print(f"deleted {len(keys)} object(s) and aborted {aborted} multipart upload(s) under {bucket}/{prefix}; {left} left")
if left:
    raise SystemExit(1)
EOF_PY
}

# ---------------------------------------------------------------------------------------------------
# Clean-up: every process this script starts is recorded in PIDS and ended by pid; the temp dir goes.
TMP=""
PIDS=()
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    local pid
    for pid in "${PIDS[@]}"; do
        # The watchdog is a subshell sleeping in a child: end the child too (by its pid).
        if [[ -r /proc/$pid/task/$pid/children ]]; then
            local child
            for child in $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do kill -TERM "$child" 2>/dev/null || true; done
        fi
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        local waited=0
        while kill -0 "$pid" 2>/dev/null && ((waited < 50)); do
            sleep 0.1
            waited=$((waited + 1))
        done
        kill -KILL "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    # The object-store Depot's objects go once it has stopped (it writes nothing more there).
    if [[ -n $S3_PREFIX ]]; then
        local said
        if said=$(bench_objects delete 2>&1); then
            log "object store: ${said##*$'\n'}"
        else
            log "WARNING: could not delete the objects under $DEPOT_TEST_S3_BUCKET/$S3_PREFIX: $said"
        fi
    fi
    if [[ -n $TMP && -d $TMP ]]; then rm -rf "$TMP"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ---------------------------------------------------------------------------------------------------
# 1. Build (release) unless the binary is newer than every source, or DEPOT_BIN names the binary to run.
if [[ -n ${DEPOT_BIN:-} ]]; then
    build_depot_release "$ROOT"
elif [[ ${BENCH_SKIP_BUILD:-0} == 1 ]]; then
    [[ -x $DEPOT ]] || die "BENCH_SKIP_BUILD=1 but $DEPOT does not exist"
    log "using the existing release build (BENCH_SKIP_BUILD=1): $DEPOT"
elif [[ ! -x $DEPOT ]] || [[ -n $(find "$ROOT/Sources" "$ROOT/Package.swift" "$ROOT/Package.resolved" -newer "$DEPOT" -print -quit 2>/dev/null) ]]; then
    log "building depot (release); the first build takes several minutes"
    (cd "$ROOT" && swift build -c release --product depot) >&2 || die "release build failed"
    touch "$DEPOT"
else
    log "release build is up to date: $DEPOT"
fi

# From here on the run is bounded.
(
    sleep "$TIME_LIMIT"
    echo "[watchdog] time limit of ${TIME_LIMIT}s reached, stopping" >&2
    kill -TERM $$
) &
PIDS+=($!)
STARTED=$(date +%s)

TMP=$(mktemp -d /tmp/depot-bytepath.XXXXXX)
chmod 755 "$TMP"
log "work directory $TMP"

# ---------------------------------------------------------------------------------------------------
# Bench packs: deterministic incompressible bytes (AES-128-CTR keystream under fixed keys), so the
# bundles store them and every run serves identical bundles.
log "generating packs ($LARGE_FILE_BYTES and $SMALL_FILE_BYTES bytes of keystream)"
make_pack "$TMP/content/large-1.0" bench.large "$LARGE_FILE_BYTES" 000102030405060708090a0b0c0d0e0f
make_pack "$TMP/content/small-1.0" bench.small "$SMALL_FILE_BYTES" 101112131415161718191a1b1c1d1e1f

cp -R "$ROOT/Config" "$TMP/config"
cat >"$TMP/config/products.json" <<'EOF'
{
  "products": [
    { "id": "bench.large", "type": "nonConsumable", "title": "Byte-path bench: large" },
    { "id": "bench.small", "type": "nonConsumable", "title": "Byte-path bench: 16 KiB" }
  ]
}
EOF

BASE_PORT=$(random_base_port)
DEPOT_PORT=$(pick_port "$BASE_PORT")
USED_PORTS+=("$DEPOT_PORT")
NGINX2_PORT=$(pick_port $((DEPOT_PORT + 1)))
USED_PORTS+=("$NGINX2_PORT")
NGINX1_PORT=$(pick_port $((NGINX2_PORT + 1)))
if [[ $OBJECT_STORE == 1 ]]; then
    USED_PORTS+=("$NGINX1_PORT")
    DEPOT_S3_PORT=$(pick_port $((NGINX1_PORT + 1)))
fi

# ---------------------------------------------------------------------------------------------------
# Depot: imports the packs (builds the bundles into $TMP/data/bundles), then listens.
log "starting depot on 127.0.0.1:$DEPOT_PORT (imports the packs first)"
start_depot_serve "$DEPOT_PORT" 120

size_of() { grep " bundle" "$TMP/depot.log" | grep "content=$1 " | grep -o 'size=[0-9]*' | head -n1 | cut -d= -f2; }
LARGE_DIGEST=$(logged_digest "$TMP/depot.log" bench.large)
SMALL_DIGEST=$(logged_digest "$TMP/depot.log" bench.small)
[[ -n $LARGE_DIGEST && -n $SMALL_DIGEST ]] || {
    cat "$TMP/depot.log" >&2
    die "depot did not log both bench bundles"
}
LARGE_FILE=$TMP/data/bundles/${LARGE_DIGEST:0:2}/$LARGE_DIGEST.zip
SMALL_FILE=$TMP/data/bundles/${SMALL_DIGEST:0:2}/$SMALL_DIGEST.zip
[[ -f $LARGE_FILE && -f $SMALL_FILE ]] || die "bundle files not where expected under $TMP/data/bundles"
LARGE_SIZE=$(stat -c %s "$LARGE_FILE")
SMALL_SIZE=$(stat -c %s "$SMALL_FILE")
[[ $LARGE_SIZE == "$(size_of bench.large)" && $SMALL_SIZE == "$(size_of bench.small)" ]] || die "logged sizes differ from the files"
((LARGE_SIZE >= LARGE_FILE_BYTES && LARGE_SIZE < LARGE_FILE_BYTES + 65536)) || die "large bundle is $LARGE_SIZE bytes, expected ~$LARGE_LABEL (stored, not deflated)"
((SMALL_SIZE >= 15360 && SMALL_SIZE <= 17408)) || die "small bundle is $SMALL_SIZE bytes, expected 16 KiB +/- 1 KiB"
log "bundles: large $LARGE_DIGEST ($LARGE_SIZE bytes), small $SMALL_DIGEST ($SMALL_SIZE bytes)"

LARGE_GRANT=$(dev_grant "$LARGE_DIGEST")
SMALL_GRANT=$(dev_grant "$SMALL_DIGEST")
[[ -n $LARGE_GRANT && -n $SMALL_GRANT ]] || die "depot dev grant printed nothing"

# Put both bundles in the page cache once, for every server alike.
cat "$LARGE_FILE" "$SMALL_FILE" >/dev/null

# ---------------------------------------------------------------------------------------------------
# BENCH_OBJECT_STORE=1: a second Depot whose bundles are shared through the bucket. Its own data directory (empty
# at start, so its own SQLite ledger) and the same configuration but for `storage`: the grant keys are the same, so
# the grants above open its bundles too (the bundles are deterministic: same digests). It starts twice:
#   1. over the same content directory: it imports the packs, builds the bundles and writes them to the bucket
#      under S3_PREFIX (an instance keeps the bundles it built, so this start alone would serve its own copies);
#   2. stopped, its bundle files removed, started again over the same data directory (ledger) with an empty content
#      directory: its catalog names the bundles, its disk holds none, so the warm-up GET of each bundle fetches it
#      from the bucket (storage.localCacheBytes, twice the bundles' bytes: nothing is evicted during the run), and
#      from then on it serves its cached copy. The warm-up checks the bytes against Depot's and that the bundles
#      were fetched.
start_depot_s3() { # content-dir log-file
    env -u DEPOT_S3_ACCESS_KEY_ID -u DEPOT_S3_SECRET_ACCESS_KEY DEPOT_LOG_LEVEL=info "$DEPOT" serve --config "$TMP/config-s3" \
        --data-dir "$TMP/data-s3" --content-dir "$1" --host 127.0.0.1 --port "$DEPOT_S3_PORT" >>"$TMP/depot-s3.out" 2>"$2" &
    DEPOT_S3_PID=$!
    PIDS+=("$DEPOT_S3_PID")
    local i
    for ((i = 0; i < 1200; i++)); do
        kill -0 "$DEPOT_S3_PID" 2>/dev/null || { cat "$2" >&2; die "depot (S3 cache) exited during start"; }
        grep -q 'listening' "$2" 2>/dev/null && break
        sleep 0.1
    done
    grep -q 'listening' "$2" || die "depot (S3 cache) did not start listening within 120 s"
    grep -q 'bundles are shared through the object store' "$2" ||
        die "depot (S3 cache) did not log that it shares bundles through the object store"
}
s3_counter() { # metric line prefix -> its value (0 when absent) on the object-store Depot's /metrics
    curl -sS -f -H 'Authorization: Bearer depot-dev-admin' "http://127.0.0.1:$DEPOT_S3_PORT/metrics" |
        awk -v p="$1" 'index($0, p " ") == 1 { v = $2 } END { printf "%d", v + 0 }'
}
if [[ $OBJECT_STORE == 1 ]]; then
    mkdir -p "$TMP/data-s3" "$TMP/content-none"
    cp -R "$TMP/config" "$TMP/config-s3"
    S3_CACHE_BYTES=$((2 * (LARGE_SIZE + SMALL_SIZE)))
    DEPOT_BENCH_PREFIX=$S3_PREFIX DEPOT_BENCH_REGION=$S3_REGION DEPOT_BENCH_CACHE_BYTES=$S3_CACHE_BYTES python3 - "$TMP/config-s3/depot.json" <<'EOF_PY' ||
import json, os, sys

path = sys.argv[1]
with open(path) as f:
    config = json.load(f)
config.setdefault("storage", {})["objectStore"] = {
    "endpoint": os.environ["DEPOT_TEST_S3_ENDPOINT"], "region": os.environ["DEPOT_BENCH_REGION"],
    "bucket": os.environ["DEPOT_TEST_S3_BUCKET"], "prefix": os.environ["DEPOT_BENCH_PREFIX"], "pathStyle": True,
    "accessKeyId": os.environ["DEPOT_TEST_S3_ACCESS_KEY_ID"],
    "secretAccessKey": os.environ["DEPOT_TEST_S3_SECRET_ACCESS_KEY"],
}
config["storage"]["localCacheBytes"] = int(os.environ["DEPOT_BENCH_CACHE_BYTES"])
with open(path, "w") as f:
    json.dump(config, f, indent=2)
    f.write("\n")
EOF_PY
        die "could not write $TMP/config-s3/depot.json"
    log "starting depot (S3 cache) on 127.0.0.1:$DEPOT_S3_PORT to put the bundles in the bucket: $DEPOT_TEST_S3_BUCKET at $DEPOT_TEST_S3_ENDPOINT, prefix $S3_PREFIX, localCacheBytes $S3_CACHE_BYTES"
    start_depot_s3 "$TMP/content" "$TMP/depot-s3-import.log"
    [[ $(logged_digest "$TMP/depot-s3-import.log" bench.large) == "$LARGE_DIGEST" && $(logged_digest "$TMP/depot-s3-import.log" bench.small) == "$SMALL_DIGEST" ]] || {
        cat "$TMP/depot-s3-import.log" >&2
        die "depot (S3 cache) did not build the same bundles as depot"
    }
    bench_objects list >"$TMP/objects.txt" || die "could not list the objects under $DEPOT_TEST_S3_BUCKET/$S3_PREFIX"
    for digest in "$LARGE_DIGEST" "$SMALL_DIGEST"; do
        grep -q "^${S3_PREFIX}bundles/$digest.zip " "$TMP/objects.txt" ||
            die "the bucket holds no ${S3_PREFIX}bundles/$digest.zip: $(cat "$TMP/objects.txt")"
    done
    stop_processes "$DEPOT_S3_PID"
    kept=()
    for pid in "${PIDS[@]}"; do [[ $pid == "$DEPOT_S3_PID" ]] || kept+=("$pid"); done
    PIDS=("${kept[@]}")
    find "$TMP/data-s3/bundles" -name '*.zip' -type f -delete
    log "restarting depot (S3 cache) with no local bundle and no content to import"
    start_depot_s3 "$TMP/content-none" "$TMP/depot-s3.log"
    # Warm-up: one whole GET of each bundle through it (fetched from the bucket); its bytes must be Depot's.
    for bundle in "$LARGE_DIGEST $LARGE_GRANT $LARGE_SIZE" "$SMALL_DIGEST $SMALL_GRANT $SMALL_SIZE"; do
        read -r digest grant size <<<"$bundle"
        [[ ! -e $TMP/data-s3/bundles/${digest:0:2}/$digest.zip ]] || die "depot (S3 cache) holds $digest before the warm-up"
        plain_sum=$(curl -sS -f -H "Authorization: Bearer $grant" "http://127.0.0.1:$DEPOT_PORT/v1/bundles/$digest" | sha256sum | cut -c1-64) ||
            die "depot did not answer $digest"
        out=$(curl -sS -o "$TMP/warm.bin" -w '%{http_code} %{size_download}' -H "Authorization: Bearer $grant" \
            "http://127.0.0.1:$DEPOT_S3_PORT/v1/bundles/$digest")
        [[ $out == "200 $size" ]] || die "depot (S3 cache): warm-up GET of $digest answered '$out', expected '200 $size'"
        s3_sum=$(sha256sum <"$TMP/warm.bin" | cut -c1-64)
        rm -f "$TMP/warm.bin"
        [[ $s3_sum == "$plain_sum" && $plain_sum == "$digest" ]] ||
            die "depot (S3 cache) answered $digest with sha256 $s3_sum, depot with $plain_sum"
        [[ -f $TMP/data-s3/bundles/${digest:0:2}/$digest.zip ]] || die "depot (S3 cache) holds no local copy of $digest after a GET"
    done
    fetched=$(s3_counter 'depot_object_store_calls_total{operation="download",outcome="fetched"}') ||
        die "depot (S3 cache) did not answer /metrics"
    ((fetched == 2)) || die "depot (S3 cache) fetched $fetched bundle(s) from the bucket during the warm-up, expected 2"
    log "warmed depot (S3 cache): both bundles fetched from the bucket, answered whole with Depot's sha256, now on its disk"
fi

# ---------------------------------------------------------------------------------------------------
# nginx over the same files. worker_processes 2 is the comparison (Depot runs one NIO event loop per
# core, i.e. two); worker_processes 1 is measured as a reference row when BENCH_NGINX_ONE_WORKER=1.
write_nginx_conf() { # dir workers port
    local dir=$1
    mkdir -p "$dir/tmp"
    cat >"$dir/nginx.conf" <<EOF
# Generated by bench/byte-path.sh
$(nginx_user_line)
daemon off;
worker_processes $2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events {
    worker_connections 4096;
}
http {
$(nginx_bundle_settings)
$(nginx_temp_paths "$dir/tmp")
    server {
        # reuseport: the kernel spreads connections over the workers, as Depot's acceptor spreads them
        # over its event loops (without it one worker often took every connection of a run).
        listen 127.0.0.1:$3 reuseport;
        # Same URL shape as Depot, same files: <data-dir>/bundles/<first two hex>/<digest>.zip.
        # No grant check (nginx does not know grants); the Authorization header is ignored.
        location ~ "^/v1/bundles/([0-9a-f]{2})([0-9a-f]{62})\$" {
            alias $TMP/data/bundles/\$1/\$1\$2.zip;
        }
    }
}
EOF
}
start_nginx() { # name workers port -> sets NGINX_PID_<name>
    local dir=$TMP/$1
    write_nginx_conf "$dir" "$2" "$3"
    "$NGINX" -t -q -p "$dir/" -c "$dir/nginx.conf" -e "$dir/error.log" || die "nginx config test failed ($dir/nginx.conf)"
    "$NGINX" -p "$dir/" -c "$dir/nginx.conf" -e "$dir/error.log" &
    local pid=$!
    PIDS+=("$pid")
    printf -v "NGINX_PID_$1" '%s' "$pid"
    local i
    for ((i = 0; i < 100; i++)); do
        kill -0 "$pid" 2>/dev/null || die "nginx $1 exited during start: $(cat "$dir/error.log")"
        curl -s -o /dev/null "http://127.0.0.1:$3/" && return 0
        sleep 0.1
    done
    die "nginx $1 did not start listening on $3"
}
log "starting nginx (2 workers) on 127.0.0.1:$NGINX2_PORT"
start_nginx nginx2 2 "$NGINX2_PORT"
SERVERS=(depot nginx2)
if [[ $NGINX_ONE_WORKER == 1 ]]; then
    log "starting nginx (1 worker) on 127.0.0.1:$NGINX1_PORT"
    start_nginx nginx1 1 "$NGINX1_PORT"
    SERVERS+=(nginx1)
fi
[[ $OBJECT_STORE == 1 ]] && SERVERS+=(depot-s3)

port_of() { case $1 in depot) echo "$DEPOT_PORT" ;; nginx2) echo "$NGINX2_PORT" ;; nginx1) echo "$NGINX1_PORT" ;; depot-s3) echo "$DEPOT_S3_PORT" ;; esac; }
label_of() { case $1 in depot) echo "Depot" ;; nginx2) echo "nginx (2 workers)" ;; nginx1) echo "nginx (1 worker)" ;; depot-s3) echo "Depot (S3 cache)" ;; esac; }
server_pids() { # server -> pids whose CPU is the server's
    case $1 in
        depot) echo "$DEPOT_PID" ;;
        depot-s3) echo "$DEPOT_S3_PID" ;;
        nginx2 | nginx1)
            local master
            master=$([[ $1 == nginx2 ]] && echo "$NGINX_PID_nginx2" || echo "$NGINX_PID_nginx1")
            echo "$master" $(cat "/proc/$master/task/"*/children 2>/dev/null)
            ;;
    esac
}

# ---------------------------------------------------------------------------------------------------
# Check every response type on every server once, so a misconfiguration cannot produce a number.
RANGE_CHECK_SLOT=$((LARGE_SIZE / RANGE_BYTES - 1))
((RANGE_CHECK_SLOT > 1234)) && RANGE_CHECK_SLOT=1234
RANGE_CHECK_OFFSET=$((RANGE_CHECK_SLOT * RANGE_BYTES))
head -c $((RANGE_CHECK_OFFSET + RANGE_BYTES)) "$LARGE_FILE" | tail -c "$RANGE_BYTES" >"$TMP/range-expected.bin"
check_server() { # server
    local base="http://127.0.0.1:$(port_of "$1")" out
    out=$(curl -sS -o "$TMP/check.bin" -w '%{http_code} %{size_download}' -H "Authorization: Bearer $LARGE_GRANT" "$base/v1/bundles/$LARGE_DIGEST")
    [[ $out == "200 $LARGE_SIZE" ]] || die "$1: large bundle answered '$out', expected '200 $LARGE_SIZE'"
    [[ $(sha256sum <"$TMP/check.bin" | cut -c1-64) == "$LARGE_DIGEST" ]] || die "$1: large bundle bytes differ"
    out=$(curl -sS -D "$TMP/check.headers" -o "$TMP/check.bin" -w '%{http_code} %{size_download}' \
        -H "Authorization: Bearer $LARGE_GRANT" -H "Range: bytes=$RANGE_CHECK_OFFSET-$((RANGE_CHECK_OFFSET + RANGE_BYTES - 1))" \
        "$base/v1/bundles/$LARGE_DIGEST")
    [[ $out == "206 $RANGE_BYTES" ]] || die "$1: range answered '$out', expected '206 $RANGE_BYTES'"
    grep -qi "^content-range: bytes $RANGE_CHECK_OFFSET-$((RANGE_CHECK_OFFSET + RANGE_BYTES - 1))/$LARGE_SIZE" "$TMP/check.headers" ||
        die "$1: wrong Content-Range: $(grep -i content-range "$TMP/check.headers")"
    cmp -s "$TMP/check.bin" "$TMP/range-expected.bin" || die "$1: range bytes differ"
    out=$(curl -sS -o "$TMP/check.bin" -w '%{http_code} %{size_download}' -H "Authorization: Bearer $SMALL_GRANT" "$base/v1/bundles/$SMALL_DIGEST")
    [[ $out == "200 $SMALL_SIZE" ]] || die "$1: small bundle answered '$out', expected '200 $SMALL_SIZE'"
    [[ $(sha256sum <"$TMP/check.bin" | cut -c1-64) == "$SMALL_DIGEST" ]] || die "$1: small bundle bytes differ"
    if [[ $1 == depot || $1 == depot-s3 ]]; then
        # The grant is really checked (Depot does that work on every request; nginx does not).
        out=$(curl -sS -o /dev/null -w '%{http_code}' "$base/v1/bundles/$SMALL_DIGEST")
        [[ $out == 401 || $out == 403 ]] || die "$1 answered $out without a grant"
        out=$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $LARGE_GRANT" "$base/v1/bundles/$SMALL_DIGEST")
        [[ $out == 401 || $out == 403 ]] || die "$1 answered $out with another bundle's grant"
    fi
    rm -f "$TMP/check.bin"
    log "checked $1: 200 whole (sha256 ok), 206 range (bytes ok), 200 small (sha256 ok)"
}
for server in "${SERVERS[@]}"; do check_server "$server"; done

# ---------------------------------------------------------------------------------------------------
# Measurements.
cpu_ticks() { # pids... -> "utime stime" (clock ticks, summed)
    local u=0 s=0 pid fields
    for pid in "$@"; do
        read -r -a fields < <(sed 's/^.*) //' "/proc/$pid/stat")
        u=$((u + fields[11]))
        s=$((s + fields[12]))
    done
    echo "$u $s"
}
per_process_ticks() { # pids... -> "pid:ticks,..."
    local pid out="" fields
    for pid in "$@"; do
        read -r -a fields < <(sed 's/^.*) //' "/proc/$pid/stat")
        out+="$pid:$((fields[11] + fields[12])),"
    done
    echo "${out%,}"
}

# scenario -> connections, grant, digest, expected body bytes per response, extra env, wrk timeout
scenario_conns() { case $1 in a) echo 4 ;; b | c) echo 64 ;; esac; }
scenario_title() {
    case $1 in
        a) echo "(a) $LARGE_LABEL bundle, -c4" ;;
        b) echo "(b) 64 KiB random ranges, -c64" ;;
        c) echo "(c) 16 KiB bundle, -c64" ;;
    esac
}

RESULTS=$TMP/results.tsv
: >"$RESULTS"
RAW=$TMP/raw.txt
: >"$RAW"
run_wrk() { # scenario server seconds out-file
    local scenario=$1 server=$2 seconds=$3 out=$4
    local url="http://127.0.0.1:$(port_of "$server")/v1/bundles/" grant range_env=()
    case $scenario in
        a) url+=$LARGE_DIGEST grant=$LARGE_GRANT ;;
        b)
            url+=$LARGE_DIGEST grant=$LARGE_GRANT
            range_env=(BENCH_RANGE_SIZE=$RANGE_BYTES BENCH_RANGE_FILE_SIZE=$LARGE_SIZE BENCH_SEED=$SEED)
            ;;
        c) url+=$SMALL_DIGEST grant=$SMALL_GRANT ;;
    esac
    local timeout=2s
    [[ $scenario == a ]] && timeout=30s # one 256 MiB response takes longer than wrk's default 2 s
    env "${range_env[@]}" timeout -k 5 $((seconds + 20)) "$WRK" -t"$THREADS" -c"$(scenario_conns "$scenario")" -d"${seconds}s" \
        --timeout "$timeout" --latency -s "$LUA" -H "Authorization: Bearer $grant" "$url" >"$out" 2>&1
}
machine_ticks() { # -> "user system irq+softirq idle+iowait steal" from the first line of /proc/stat
    local label user nice system idle iowait irq softirq steal rest
    read -r label user nice system idle iowait irq softirq steal rest </proc/stat
    echo "$((user + nice)) $system $((irq + softirq)) $((idle + iowait)) $steal"
}
measure() { # round scenario server
    local round=$1 scenario=$2 server=$3 pids before after wrk_cpu line split_before split_after m_before m_after
    log "round $round, $(scenario_title "$scenario"): $(label_of "$server") (warm-up ${WARMUP}s, then ${DURATION}s)"
    run_wrk "$scenario" "$server" "$WARMUP" "$TMP/warmup.txt" || die "wrk warm-up failed: $(cat "$TMP/warmup.txt")"
    pids=$(server_pids "$server")
    # shellcheck disable=SC2086
    split_before=$(per_process_ticks $pids)
    # shellcheck disable=SC2086
    before=$(cpu_ticks $pids)
    m_before=$(machine_ticks)
    local TIMEFORMAT='%U %S'
    { time run_wrk "$scenario" "$server" "$DURATION" "$TMP/wrk.txt"; } 2>"$TMP/wrk-time.txt" || die "wrk failed: $(cat "$TMP/wrk.txt")"
    m_after=$(machine_ticks)
    # shellcheck disable=SC2086
    after=$(cpu_ticks $pids)
    # shellcheck disable=SC2086
    split_after=$(per_process_ticks $pids)
    wrk_cpu=$(tail -n1 "$TMP/wrk-time.txt")
    {
        echo "=== round $round, $(scenario_title "$scenario"), $(label_of "$server")"
        cat "$TMP/wrk.txt"
        echo
    } >>"$RAW"
    line=$(grep '^BENCH ' "$TMP/wrk.txt") || die "wrk printed no summary: $(cat "$TMP/wrk.txt")"
    local requests bytes duration_us status_errors connect_errors read_errors write_errors timeouts p50_us p99_us max_us
    # shellcheck disable=SC2086
    eval "$(echo "${line#BENCH }" | tr ' ' '\n' | grep -E '^[a-z0-9_]+=[0-9]+$')"
    if grep -q 'Non-2xx or 3xx responses' "$TMP/wrk.txt" || ((status_errors > 0)); then
        die "$(label_of "$server") answered $status_errors non-2xx responses in $(scenario_title "$scenario"): $(cat "$TMP/wrk.txt")"
    fi
    ((connect_errors == 0)) || die "$(label_of "$server"): $connect_errors connect errors"
    ((requests > 0)) || die "$(label_of "$server"): no request completed"
    # Every response must be the size it should be (a 200 for a range, or an error body, would not be):
    # bytes per completed response lies between the body size and body + 1 KiB of headers (plus what the
    # connections still had in flight at the end). For (a) the in-flight share is large, so only the
    # lower bound is checked.
    local body conns
    case $scenario in a) body=$LARGE_SIZE ;; b) body=$RANGE_BYTES ;; c) body=$SMALL_SIZE ;; esac
    conns=$(scenario_conns "$scenario")
    ((bytes >= requests * body)) || die "$(label_of "$server"): $bytes bytes for $requests responses of $body"
    if [[ $scenario != a ]]; then
        ((bytes <= (requests + conns) * (body + 1024))) || die "$(label_of "$server"): $bytes bytes for $requests responses of $body (wrong answers?)"
    fi
    local bu bs au as wu ws mb ma i
    read -r bu bs <<<"$before"
    read -r au as <<<"$after"
    read -r wu ws <<<"$wrk_cpu"
    read -r -a mb <<<"$m_before"
    read -r -a ma <<<"$m_after"
    local machine=""
    for i in 0 1 2 3 4; do machine+="$((ma[i] - mb[i])) "; done
    # round scenario server requests bytes duration_us p50 p99 srv_u srv_s wrk_u wrk_s sock_err split_b split_a
    # m_user m_sys m_irq m_idle m_steal max_us
    # Other processes' CPU during the run: machine user+sys+irq/softirq minus the server's and wrk's (the
    # kernel has no separate irq time accounting here, so softirq work done in a task's context is part of
    # that task's utime+stime, and the machine counts it under softirq).
    local others
    others=$(awk -v m="$machine" -v su=$((au - bu)) -v ss=$((as - bs)) -v wu="$wu" -v ws="$ws" -v tck="$CLK_TCK" \
        'BEGIN { split(m, x, " "); o = (x[1] + x[2] + x[3] - su - ss) / tck - wu - ws; printf "%.2f", (o < 0 ? 0 : o) }')
    if [[ $(awk -v o="$others" -v d="$duration_us" 'BEGIN { print (o > 0.08 * d / 1e6) ? 1 : 0 }') == 1 ]] && can_retry; then
        RETRIES_USED=$((RETRIES_USED + 1))
        log "  other processes used ${others} CPU-s during that run: discarding it and measuring again"
        echo "(discarded: other processes used ${others} CPU-s during this run)" >>"$RAW"
        return 3
    fi
    printf '%s\t' "$round" "$scenario" "$server" "$requests" "$bytes" "$duration_us" "$p50_us" "$p99_us" \
        $((au - bu)) $((as - bs)) "$wu" "$ws" "$((read_errors + write_errors + timeouts))" "$split_before" "$split_after" \
        $machine >>"$RESULTS"
    printf '%s\n' "$max_us" >>"$RESULTS"
    RUNS_LEFT=$((RUNS_LEFT - 1))
}

# A run polluted by other processes (more than 8% of a core) is measured again, at most BENCH_RETRIES
# times in all (default 4) and only while the time limit leaves room for it and every run still to come.
RETRIES=${BENCH_RETRIES:-4}
RETRIES_USED=0
RUN_SECONDS=$((WARMUP + DURATION + 2))
can_retry() {
    ((RETRIES_USED < RETRIES)) || return 1
    (($(date +%s) - STARTED + (RUNS_LEFT + 1) * RUN_SECONDS + 15 < TIME_LIMIT))
}
measure_clean() { # round scenario server
    local rc
    while true; do
        rc=0
        measure "$@" || rc=$?
        ((rc == 3)) || return "$rc"
    done
}
RUNS_LEFT=$((ROUNDS * 6))
[[ $NGINX_ONE_WORKER == 1 ]] && RUNS_LEFT=$((RUNS_LEFT + 3))
[[ $OBJECT_STORE == 1 ]] && RUNS_LEFT=$((RUNS_LEFT + ROUNDS * 3))

# Other work on the machine (a compile, another benchmark) would pollute every figure: wait for up to
# BENCH_QUIET_WAIT seconds (default 60) until the machine is quiet; each run also records the CPU that
# other processes used during it; such runs are measured again (see below) or flagged in the report.
busy_share() { # percent of all cores busy over one second
    local a b
    read -r -a a <<<"$(machine_ticks)"
    sleep 1
    read -r -a b <<<"$(machine_ticks)"
    local busy=$(((b[0] - a[0]) + (b[1] - a[1]) + (b[2] - a[2]))) idle=$((b[3] - a[3]))
    echo $((100 * busy / (busy + idle + 1)))
}
QUIET_WAIT=${BENCH_QUIET_WAIT:-60}
waited=0
while share=$(busy_share) && ((share > 10 && waited < QUIET_WAIT)); do
    ((waited == 0)) && log "the machine is busy (${share}% of all cores); waiting up to ${QUIET_WAIT}s for it to quiet down"
    waited=$((waited + 1))
done
((share > 10)) && log "WARNING: the machine is still ${share}% busy; measuring anyway (see the 'others' column)"

# Rounds: the server that goes first alternates from scenario to scenario and from round to round, so
# neither gets the systematically warmer or cooler slot. nginx with one worker (optional) runs once. The
# object-store Depot (optional) goes first, between, or last in turn, around the same alternation of the other two.
for ((round = 1; round <= ROUNDS; round++)); do
    index=0
    for scenario in a b c; do
        if (((round + index) % 2 == 0)); then order=(nginx2 depot); else order=(depot nginx2); fi
        if [[ $OBJECT_STORE == 1 ]]; then
            case $(((round + index) % 3)) in
                0) order=(depot-s3 "${order[@]}") ;;
                1) order=("${order[0]}" depot-s3 "${order[1]}") ;;
                2) order+=(depot-s3) ;;
            esac
        fi
        for server in "${order[@]}"; do measure_clean "$round" "$scenario" "$server"; done
        if [[ $NGINX_ONE_WORKER == 1 && $round == 1 ]]; then measure_clean "$round" "$scenario" nginx1; fi
        index=$((index + 1))
    done
done

# The object-store Depot's cache and bucket counters after the runs: a fetch or an eviction during them would show
# here (the sample configuration's operator token opens /metrics).
if [[ $OBJECT_STORE == 1 ]]; then
    S3_METRICS=$(curl -sS -f -H 'Authorization: Bearer depot-dev-admin' "http://127.0.0.1:$DEPOT_S3_PORT/metrics" |
        grep -E '^depot_(bundle_cache_|object_store_calls_total)') || S3_METRICS="(no cache counters: /metrics did not answer them)"
    if grep -Eq '^depot_bundle_cache_evictions_total(\{[^}]*\})? [1-9]' <<<"$S3_METRICS"; then
        log "WARNING: depot (S3 cache) evicted bundles during the run: its figures include fetches from the bucket"
    fi
fi

# ---------------------------------------------------------------------------------------------------
# Report.
ELAPSED=$(($(date +%s) - STARTED))
STAMP=$(date -u +%Y-%m-%d-%H%M%S)
mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/byte-path-$STAMP.md

cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
machine_info() {
    echo "- nproc: $(nproc); CPU: $cpu_model; memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
    echo "- kernel: $(uname -srm)"
    echo "- $("$NGINX" -v 2>&1)"
    echo "- wrk: $("$WRK" -v 2>&1 | head -n1 | awk '{print $1, $2}')"
    echo "- $(swift --version 2>/dev/null | head -n1)"
    local newer="no"
    [[ -n $(find "$ROOT/Sources" "$ROOT/Package.swift" -newer "$DEPOT" -print -quit 2>/dev/null) ]] && newer="yes (the binary is older than the tree)"
    echo "- depot: ${DEPOT_BIN:+$DEPOT (DEPOT_BIN), }binary built $(date -u -r "$DEPOT" '+%Y-%m-%d %H:%M:%S UTC'); HEAD at run time $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown); Sources/ changed since the binary was built: $newer"
}

# All arithmetic in awk; see the printf in measure() for the columns of results.tsv.
TABLES=$(awk -F'\t' -v tck="$CLK_TCK" -v large="$LARGE_LABEL" -v one="$NGINX_ONE_WORKER" -v s3="$OBJECT_STORE" -v rounds="$ROUNDS" '
function f(x, d) { return sprintf("%." d "f", x) }
function met(r, t, le) { if (le) return (r <= t) ? "yes" : "**no**"; return (r >= t) ? "yes" : "**no**" }
function secs_of(tk) { return tk / tck }
# per-process CPU seconds during the run: master first, then workers
function split_cpu(b, a,    nb, na, pb, pa, i, j, x, y, out, m) {
    nb = split(b, pb, ","); na = split(a, pa, ",")
    if (na < 2) return "-"
    out = ""
    for (i = 1; i <= na; i++) {
        split(pa[i], y, ":"); m = 0
        for (j = 1; j <= nb; j++) { split(pb[j], x, ":"); if (x[1] == y[1]) m = x[2] }
        out = out (out == "" ? "" : " / ") sprintf("%.2f", (y[2] - m) / tck)
    }
    return out
}
{
    R = $1; S = $2; V = $3; k = S SUBSEP V
    req[k] += $4; byt[k] += $5; dur[k] += $6; cpu[k] += ($9 + $10) / tck
    p99s[k] += $8 / 1000; nrun[k]++
    rk = S SUBSEP V SUBSEP R
    rr[rk] = $4 / ($6 / 1e6); rm[rk] = $5 / $6; rc[rk] = (($9 + $10) / tck) / ($5 / 1073741824)
    # CPU of other processes: machine user+sys+irq/softirq minus server and wrk (see measure())
    others = secs_of($16 + $17 + $18) - secs_of($9 + $10) - $11 - $12
    if (others < 0) others = 0
    if (others > 0.08 * $6 / 1e6) { polluted++; worst = (others > worst) ? others : worst }
    diag[++n] = sprintf("| %s | %s | %s | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %.2f / %.2f / %.2f / %.2f / %.2f | %s |",
        R, S, V, $6 / 1e6, secs_of($9), secs_of($10), $11, $12, others, $13,
        secs_of($16), secs_of($17), secs_of($18), secs_of($19), secs_of($20), split_cpu($14, $15))
}
function rps(k) { return req[k] / (dur[k] / 1e6) }
function mbps(k) { return byt[k] / dur[k] }                    # bytes per microsecond = 10^6 bytes per second
function cpugib(k) { return cpu[k] / (byt[k] / 1073741824) }
function cpureq(k) { return cpu[k] / req[k] * 1e6 }
function p99(k) { return p99s[k] / nrun[k] }
# per-round ratios of server num to server den (default: depot to nginx2)
function spread(S, which, num, den,    r, out, d, g) {
    if (num == "") { num = "depot"; den = "nginx2" }
    out = ""
    for (r = 1; r <= rounds; r++) {
        d = S SUBSEP num SUBSEP r; g = S SUBSEP den SUBSEP r
        if (!(d in rr) || !(g in rr)) continue
        if (which == "rps") x = rr[d] / rr[g]; else if (which == "mbps") x = rm[d] / rm[g]; else x = rc[d] / rc[g]
        out = out (out == "" ? "" : ", ") f(x, 2)
    }
    return out
}
# The cells of the object-store Depot (BENCH_OBJECT_STORE=1; nothing otherwise): its figure sv, and its ratio to the plain
# Depot figure dv, followed by the per-round ratios (in scenario S, of kind which) when there are several rounds.
function s3cells(sv, dv, digits, S, which,    per) {
    if (s3 != 1) return ""
    if (sv == "") return " - | - |"
    per = (which != "" && rounds > 1) ? " (" spread(S, which, "depot-s3", "depot") ")" : ""
    return " " f(sv, digits) " | " f(sv / dv, 2) per " |"
}
function row(title, figure, d, g, o, digits, ratio, rounds_text, target, verdict, tail) {
    print "| " title " | " figure " | " f(d, digits) " | " f(g, digits) " | " ratio " | " rounds_text " | " target " | " verdict " |" (one == 1 ? " " (o == "" ? "-" : f(o, digits)) " |" : "") tail
}
END {
    D = "depot"; N = "nginx2"; O = "nginx1"; S3 = "depot-s3"
    a = "a" SUBSEP; b = "b" SUBSEP; c = "c" SUBSEP
    print "| scenario | figure | Depot | nginx (2 workers) | Depot / nginx | per round | target | met |" (one == 1 ? " nginx (1 worker, round 1) |" : "") (s3 == 1 ? " Depot (S3 cache) | depot-s3 / depot" (rounds > 1 ? " (per round)" : "") " |" : "")
    print "|---|---|---:|---:|---:|---|---|---|" (one == 1 ? "---:|" : "") (s3 == 1 ? "---:|---:|" : "")
    r = mbps(a D) / mbps(a N)
    row("(a) " large " bundle, -c4", "MB/s", mbps(a D), mbps(a N), (a O) in req ? mbps(a O) : "", 0, f(r, 2), spread("a", "mbps"), ">= 1.0", met(r, 1.0, 0),
        s3cells((a S3) in req ? mbps(a S3) : "", mbps(a D), 0, "a", "mbps"))
    r = cpugib(a D) / cpugib(a N)
    row("(a) " large " bundle, -c4", "server CPU s per GiB", cpugib(a D), cpugib(a N), (a O) in req ? cpugib(a O) : "", 3, f(r, 2), spread("a", "cpu"), "<= 1.0", met(r, 1.0, 1),
        s3cells((a S3) in req ? cpugib(a S3) : "", cpugib(a D), 3, "a", "cpu"))
    r = rps(b D) / rps(b N)
    row("(b) 64 KiB random ranges, -c64", "req/s", rps(b D), rps(b N), (b O) in req ? rps(b O) : "", 0, f(r, 2), spread("b", "rps"), ">= 1.0", met(r, 1.0, 0),
        s3cells((b S3) in req ? rps(b S3) : "", rps(b D), 0, "b", "rps"))
    row("(b) 64 KiB random ranges, -c64", "p99 latency ms", p99(b D), p99(b N), (b O) in req ? p99(b O) : "", 2, f(p99(b D) / p99(b N), 2), "", "-", "-",
        s3cells((b S3) in req ? p99(b S3) : "", p99(b D), 2))
    row("(b) 64 KiB random ranges, -c64", "server CPU us per response", cpureq(b D), cpureq(b N), (b O) in req ? cpureq(b O) : "", 1, f(cpureq(b D) / cpureq(b N), 2), "", "-", "-",
        s3cells((b S3) in req ? cpureq(b S3) : "", cpureq(b D), 1))
    r = rps(c D) / rps(c N)
    row("(c) 16 KiB bundle, -c64", "req/s", rps(c D), rps(c N), (c O) in req ? rps(c O) : "", 0, f(r, 2), spread("c", "rps"), ">= 0.8", met(r, 0.8, 0),
        s3cells((c S3) in req ? rps(c S3) : "", rps(c D), 0, "c", "rps"))
    row("(c) 16 KiB bundle, -c64", "p99 latency ms", p99(c D), p99(c N), (c O) in req ? p99(c O) : "", 2, f(p99(c D) / p99(c N), 2), "", "-", "-",
        s3cells((c S3) in req ? p99(c S3) : "", p99(c D), 2))
    row("(c) 16 KiB bundle, -c64", "server CPU us per response", cpureq(c D), cpureq(c N), (c O) in req ? cpureq(c O) : "", 1, f(cpureq(c D) / cpureq(c N), 2), "", "-", "-",
        s3cells((c S3) in req ? cpureq(c S3) : "", cpureq(c D), 1))
    if (polluted) print "\n**Warning: in " polluted " run(s) other processes used more than 8% of a core (up to " f(worst, 1) " CPU-s); those figures are polluted.**"
    print "@@"
    print "| round | scenario | server | s | server user s | server sys s | wrk user s | wrk sys s | others s | wrk socket errors | machine user / sys / irq+softirq / idle / steal s | CPU s per process (nginx: master / workers) |"
    print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"
    for (i = 1; i <= n; i++) print diag[i]
}' "$RESULTS")
SUMMARY_TABLE=${TABLES%%@@*}
DIAG_TABLE=${TABLES#*@@}
SUMMARY_TABLE=${SUMMARY_TABLE%$'\n'}
DIAG_TABLE=${DIAG_TABLE#$'\n'}

{
    if [[ $OBJECT_STORE == 1 ]]; then
        echo "# Byte path: Depot vs nginx, and Depot cached from an S3 bucket, $STAMP UTC"
    else
        echo "# Byte path: Depot vs nginx, $STAMP UTC"
    fi
    echo
    echo "Produced by \`bash bench/byte-path.sh\` (see BENCHMARKS.md): wrk -t$THREADS, $ROUNDS round(s) of ${DURATION}s per server and scenario,"
    echo "each after a ${WARMUP}s warm-up; large bundle $LARGE_SIZE bytes, small bundle $SMALL_SIZE bytes, ranges of $RANGE_BYTES bytes at"
    echo "random aligned offsets (seed $SEED). Figures pool the rounds; \"per round\" is Depot / nginx in each round."
    echo "MB/s is 10^6 bytes/s received by wrk (headers included). Server CPU is utime+stime from /proc/PID/stat"
    echo "(nginx: master + workers) over the measured run; it includes the softirq work (loopback delivery, ACKs)"
    echo "the kernel happened to run in the server's context, which varies with scheduling. $RETRIES_USED run(s) were"
    echo "discarded and measured again because other processes used more than 8% of a core during them."
    echo "The run took ${ELAPSED}s after the build."
    if [[ $OBJECT_STORE == 1 ]]; then
        echo
        echo "BENCH_OBJECT_STORE=1: \"Depot (S3 cache)\" is a second \`depot serve\` over the same packs whose bundles are shared"
        echo "through an S3 bucket (\`storage.objectStore\`, $DEPOT_TEST_S3_ENDPOINT, bucket $DEPOT_TEST_S3_BUCKET, prefix $S3_PREFIX)"
        echo "with \`storage.localCacheBytes\` $S3_CACHE_BYTES (twice the bundles' bytes), its own data directory and SQLite"
        echo "ledger. A first start built the bundles and wrote them to the bucket; restarted with no bundle on its disk and"
        echo "no content to import, it fetched each from the bucket on one whole GET before the runs (sha256 checked against"
        echo "Depot's answer), so it serves them from its local cache. \"depot-s3 / depot\" is its figure over Depot's."
    fi
    echo
    echo "## Results"
    echo
    echo "$SUMMARY_TABLE"
    echo
    echo "## Where the CPU went"
    echo
    echo "$DIAG_TABLE"
    echo
    echo "## Machine"
    echo
    machine_info
    echo
    if [[ $OBJECT_STORE == 1 ]]; then
        echo "## Depot (S3 cache): storage configuration and counters after the runs"
        echo
        echo '```json'
        python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["storage"]; s["objectStore"]["secretAccessKey"] = "(redacted)"; print(json.dumps(s, indent=2))' \
            "$TMP/config-s3/depot.json"
        echo '```'
        echo
        echo '```'
        echo "$S3_METRICS"
        echo '```'
        echo
    fi
    echo "## nginx configuration (worker_processes 2)"
    echo
    echo '```nginx'
    cat "$TMP/nginx2/nginx.conf"
    echo '```'
    echo
    echo "## Raw wrk output"
    echo
    echo '```'
    cat "$RAW"
    echo '```'
} >"$REPORT"

echo
echo "$SUMMARY_TABLE"
echo
echo "$DIAG_TABLE"
echo
log "report written to ${REPORT#"$ROOT"/} (${ELAPSED}s after the build)"
