#!/usr/bin/env bash
# Starts a throwaway S3-compatible object store for the object store's tests and prints, on its LAST line of output,
#   export DEPOT_TEST_S3_ENDPOINT=http://127.0.0.1:PORT DEPOT_TEST_S3_BUCKET=depot-test DEPOT_TEST_S3_REGION=...
#          DEPOT_TEST_S3_ACCESS_KEY_ID=... DEPOT_TEST_S3_SECRET_ACCESS_KEY=...
# so that CI can do:  eval "$(bash .ci/s3.sh | tail -1)"
#
# - The store is Ceph's RADOS Gateway (Debian's ceph 16): one monitor, one OSD on memstore (in memory, 2 GiB), no
#   manager, no authentication inside the cluster, and the gateway's beast frontend on a loopback port. It answers
#   S3 as Amazon's does (SigV4, ranges, multipart uploads, If-None-Match: *); nothing about it is simulated.
# - Installs Debian's ceph-mon, ceph-osd, ceph-common and radosgw when they are missing (as root).
# - Idempotent: the cluster lives in $DEPOT_S3_DIR (default /tmp/depot-test-s3); a second run reuses a gateway that
#   answers, and otherwise stops what is left and starts a new cluster (memstore keeps nothing across a restart).
#   The daemons keep running in the background after this script exits; `bash .ci/s3.sh stop` ends them.
# - The bucket is created; tests keep to key prefixes of their own.
# All diagnostics go to stderr; only the export line goes to stdout.
set -euo pipefail

dir="${DEPOT_S3_DIR:-/tmp/depot-test-s3}"
bucket="${DEPOT_S3_BUCKET:-depot-test}"
region="${DEPOT_S3_REGION:-default}"
access_key="depot-test-access"
secret_key="depot-test-secret-0123456789abcdef"
mon_port="${DEPOT_S3_MON_PORT:-}"

log() { echo "s3.sh: $*" >&2; }

# Stops this directory's daemons (only processes started with this directory's ceph.conf) and waits for them to end.
stop_cluster() {
    pkill -f -- "-c $dir/ceph.conf" 2>/dev/null || true
    for _ in $(seq 1 50); do
        pgrep -f -- "-c $dir/ceph.conf" >/dev/null 2>&1 || return 0
        sleep 0.2
    done
    pkill -9 -f -- "-c $dir/ceph.conf" 2>/dev/null || true
    sleep 0.5
}

if [[ "${1:-}" == stop ]]; then
    stop_cluster
    exit 0
fi

port_is_free() {
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Whether the gateway on the port knows the test user and holds the bucket (a signed HEAD of the bucket answers 200).
answers() {
    [[ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' -I -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
        --user "$access_key:$secret_key" --aws-sigv4 "aws:amz:$region:s3" "http://127.0.0.1:$1/$bucket" 2>/dev/null)" == 200 ]]
}

# Whether anything answers HTTP on the port.
listening() {
    curl -s -o /dev/null -m 5 "http://127.0.0.1:$1/" 2>/dev/null
}

export_line() {
    echo "export DEPOT_TEST_S3_ENDPOINT=http://127.0.0.1:$1 DEPOT_TEST_S3_BUCKET=$bucket DEPOT_TEST_S3_REGION=$region DEPOT_TEST_S3_ACCESS_KEY_ID=$access_key DEPOT_TEST_S3_SECRET_ACCESS_KEY=$secret_key"
}

if [[ -s "$dir/port" ]] && answers "$(cat "$dir/port")"; then
    log "reusing the gateway already serving $bucket on port $(cat "$dir/port")"
    export_line "$(cat "$dir/port")"
    exit 0
fi

if ! command -v radosgw >/dev/null 2>&1 || ! command -v ceph-mon >/dev/null 2>&1 || ! command -v ceph-osd >/dev/null 2>&1; then
    if [[ "$(id -u)" -ne 0 ]]; then
        log "no Ceph found; install Debian's ceph-mon, ceph-osd, ceph-common and radosgw"
        exit 1
    fi
    log "installing Ceph's monitor, OSD and RADOS Gateway"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends ceph-mon ceph-osd ceph-common radosgw >&2 \
        || { apt-get update >&2 && apt-get install -y --no-install-recommends ceph-mon ceph-osd ceph-common radosgw >&2; }
fi

# Ceph's start is not free of races (an OSD may send its first command before it knows the cluster's fsid and then
# stop), so a start that fails is tried again from nothing, up to three times.
if [[ "${1:-}" != --one-attempt ]]; then
    for attempt in 1 2 3; do
        if line="$(bash "$0" --one-attempt)"; then
            echo "$line"
            exit 0
        fi
        log "starting the cluster failed (attempt $attempt of 3)"
    done
    exit 1
fi

stop_cluster
rm -rf "$dir"
# A start that fails leaves nothing running.
trap 'status=$?; if [[ $status -ne 0 ]]; then stop_cluster; fi' EXIT
mkdir -p "$dir/mon" "$dir/osd" "$dir/run" "$dir/log" "$dir/rgw"

port="${DEPOT_S3_PORT:-}"
if [[ -z "$port" ]]; then
    port=7480
    while ! port_is_free "$port"; do
        port=$((port + 1))
        if ((port > 7580)); then
            log "no free port between 7480 and 7580"
            exit 1
        fi
    done
fi
if [[ -z "$mon_port" ]]; then
    mon_port=6789
    while ! port_is_free "$mon_port"; do
        mon_port=$((mon_port + 1))
        if ((mon_port > 6889)); then
            log "no free monitor port between 6789 and 6889"
            exit 1
        fi
    done
fi
fsid="$(cat /proc/sys/kernel/random/uuid)"
conf="$dir/ceph.conf"
cat >"$conf" <<CONF
[global]
fsid = $fsid
mon host = 127.0.0.1:$mon_port
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
osd objectstore = memstore
memstore device bytes = 2147483648
run dir = $dir/run
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.asok
pid file = $dir/\$type.pid
mon data = $dir/mon/\$id
osd data = $dir/osd/\$id
ms bind ipv6 = false
mon pg warn min per osd = 0
osd pool default pg num = 8
osd pool default pgp num = 8
osd class update on start = false
osd crush update on start = false

[client.rgw.depot]
rgw frontends = beast endpoint=127.0.0.1:$port
rgw data = $dir/rgw
log file = $dir/log/rgw.log
pid file = $dir/radosgw.pid
CONF

log "starting a monitor on 127.0.0.1:$mon_port"
monmaptool --create --add a "127.0.0.1:$mon_port" --fsid "$fsid" "$dir/monmap" >&2
mkdir -p "$dir/mon/a"
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" >&2
ceph-mon -c "$conf" -i a --pid-file "$dir/ceph-mon.pid" >&2

log "starting one OSD on memstore"
osd_id="$(timeout 60 ceph -c "$conf" osd create)"
mkdir -p "$dir/osd/$osd_id"
ceph-osd -c "$conf" -i "$osd_id" --mkfs >&2
timeout 60 ceph -c "$conf" osd crush add-bucket localhost host >&2
timeout 60 ceph -c "$conf" osd crush move localhost root=default >&2
timeout 60 ceph -c "$conf" osd crush add "osd.$osd_id" 1.0 host=localhost >&2
ceph-osd -c "$conf" -i "$osd_id" --pid-file "$dir/ceph-osd.pid" >&2

log "starting the RADOS Gateway on 127.0.0.1:$port"
radosgw -c "$conf" -n client.rgw.depot >&2
for _ in $(seq 1 240); do
    if listening "$port"; then break; fi
    sleep 0.5
done
if ! listening "$port"; then
    log "the gateway did not answer on port $port; its log follows"
    tail -n 40 "$dir/log/rgw.log" >&2 || true
    exit 1
fi
echo "$port" >"$dir/port"

timeout 60 radosgw-admin -c "$conf" user create --uid=depot-test --display-name="Depot tests" \
    --access-key="$access_key" --secret="$secret_key" >/dev/null

# The bucket, created with a SigV4-signed PUT (curl signs it as AWS does).
status="$(curl -s -o "$dir/create-bucket.out" -w '%{http_code}' -X PUT -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    --user "$access_key:$secret_key" --aws-sigv4 "aws:amz:$region:s3" "http://127.0.0.1:$port/$bucket")"
if [[ "$status" != 200 && "$status" != 409 ]]; then
    log "creating the bucket $bucket answered $status:"
    cat "$dir/create-bucket.out" >&2
    exit 1
fi

log "ready: bucket $bucket at http://127.0.0.1:$port"
export_line "$port"
